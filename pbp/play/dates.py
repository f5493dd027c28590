"""How a date is written in a reply: a leaf every play module may import."""
from __future__ import annotations

from datetime import datetime


def when(dt: datetime) -> str:
    """A deadline as players read it: "Tue 1 Dec 18:00 UTC"."""
    return f"{dt:%a} {dt.day} {dt:%b %H:%M} UTC"
