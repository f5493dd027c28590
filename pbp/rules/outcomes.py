"""The four outcomes and how shifts map onto them.

Fate Condensed, "Resultados": effort below the opposition fails, equal ties, one or two
shifts over succeeds, three or more succeeds with style. Every action's outcome table
starts from this tier; ``rank`` lets "if needed" invokes ask whether a bonus would move
the roll to a better tier.
"""
from __future__ import annotations

from pbp.i18n import Msgs
from pbp.rules.results import Outcome

STYLE_SHIFTS = 3

_RANK = {Outcome.FAIL: 0, Outcome.TIE: 1, Outcome.SUCCESS: 2, Outcome.STYLE: 3}


def outcome_for(shifts: int) -> Outcome:
    """<0 fail, 0 tie, 1-2 success, >=3 success with style."""
    if shifts < 0:
        return Outcome.FAIL
    if shifts == 0:
        return Outcome.TIE
    if shifts < STYLE_SHIFTS:
        return Outcome.SUCCESS
    return Outcome.STYLE


def shifts_text(n: int) -> str:
    """"1 shift", "3 shifts": a count of shifts as replies write it."""
    return Msgs("{n} shift", "{n} shifts", n)


def rank(outcome: Outcome) -> int:
    """Order of the tiers, worst first: fail 0, tie 1, success 2, style 3."""
    return _RANK[outcome]
