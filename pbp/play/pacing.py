"""Who owes a post outside a conflict, as the play state keeps it: a leaf under
:mod:`pbp.play.pace`, which plays it."""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime


@dataclass
class FreePace:
    """The free scene's round: ``order`` is the GM's posting order (character names and GM;
    empty: everyone once per round), ``done`` who has posted or passed this round, ``since``
    when the round (or, with an order, the current poster's turn) began, ``last_post`` the
    scene's latest post (a stall is counted from it); ``reminded`` who was reminded this
    window and ``nudged`` whether the table was nudged for this stall."""

    since: datetime
    last_post: datetime
    order: tuple[str, ...] = ()
    round: int = 1
    done: list[str] = field(default_factory=list)
    reminded: list[str] = field(default_factory=list)
    nudged: bool = False
    next_due: datetime | None = None   # when the deadline job next has something to do for it
    gm: str | None = None              # the address of the GM who last posted (their quiet hours)
