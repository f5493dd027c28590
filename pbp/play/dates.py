"""How a date is written in a reply: a leaf every play module may import."""
from __future__ import annotations

from datetime import datetime

from pbp.i18n import When


def when(dt: datetime) -> str:
    """A deadline as players read it: "Tue 1 Dec 18:00 UTC"; in a sentence of pbp's
    (``pbp.i18n.Msg``) it is said in the campaign's language ("ter. 1 dez. 18:00 UTC")."""
    return When(dt)
