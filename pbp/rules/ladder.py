"""The adjective ladder: every rating, difficulty and effort in Fate has a name.

Replies show "Fair (+2)" rather than a bare number, and players may write either the
adjective or the number wherever a rating is expected (``vs Fair``, ``vs +2``).
"""
from __future__ import annotations

import re
from types import MappingProxyType
from typing import Mapping

from pbp.i18n import fold
from pbp.i18n.words import GAME_WORDS

LADDER = MappingProxyType({
    8: "Legendary",
    7: "Epic",
    6: "Fantastic",
    5: "Superb",
    4: "Great",
    3: "Good",
    2: "Fair",
    1: "Average",
    0: "Mediocre",
    -1: "Poor",
    -2: "Terrible",
    -3: "Catastrophic",
    -4: "Horrifying",
})

#: every ladder word a player may type, in every language and form ("Ótima", "otimo"),
#: compared without case or accents (``pbp.i18n.fold``)
_BY_ADJECTIVE = {fold(name): value for value, name in LADDER.items()}
for _words in GAME_WORDS.values():
    for _value, _rating in _words.ladder.items():
        _BY_ADJECTIVE.update({fold(form): _value for form in _rating.forms()})


def ladder_words() -> tuple[str, ...]:
    """Every word :func:`parse_rating` reads, as written (the grammar's LADDER terminal)."""
    words = list(LADDER.values())
    for lang in GAME_WORDS.values():
        for rating in lang.ladder.values():
            words.extend(rating.forms())
    return tuple(dict.fromkeys(words))

_RATING = re.compile(
    r"""^\s*(?:
        (?P<adjective>[^\W\d_]+)\s*(?:\(\s*(?P<check>[+-]?\d+)\s*\))?   # Fair / Fair (+2)
        | (?P<number>[+-]?\d+)                                         # +2 / 2 / -1
    )\s*$""",
    re.VERBOSE,
)


def signed(n: int) -> str:
    """``+2``, ``-1``, ``+0``: Fate always writes the sign, even for zero."""
    return f"{n:+d}"


def adjective(n: int, ladder: Mapping[int, str]) -> str | None:
    """``ladder``'s word for ``n``, or None beyond it (Fate Condensed's: beyond
    Horrifying/Legendary)."""
    return ladder.get(n)


def describe(n: int, ladder: Mapping[int, str]) -> str:
    """"Fair (+2)"; beyond the ladder only the number ("+9", "-5"). ``ladder`` is the
    campaign's system's (``System.ladder``), always passed: a system with a shorter ladder
    (early Fate: Terrible to Legendary) shows the values beyond it as numbers, and a
    campaign's words are never taken from anywhere but its system. Reading ratings
    (:func:`parse_rating`) always knows every word."""
    name = ladder.get(n)
    return f"{name} ({signed(n)})" if name else signed(n)


def parse_rating(text: str) -> int:
    """Read a rating as players write it: "Fair", "fair", "+2", "2", "-1", "Fair (+2)".

    An adjective with a number in brackets must agree with the ladder, so a typo such as
    "Fair (+3)" is refused rather than silently read one way or the other.
    """
    match = _RATING.match(text or "")
    if match is None:
        raise ValueError(f"not a rating: {text!r} (write a ladder word such as Fair or a number such as +2)")
    if match["number"] is not None:
        return int(match["number"])
    value = _BY_ADJECTIVE.get(fold(match["adjective"]))
    if value is None:
        raise ValueError(f"not a ladder adjective: {match['adjective']!r} (the ladder runs Horrifying (-4) to Legendary (+8))")
    if match["check"] is not None and int(match["check"]) != value:
        raise ValueError(f"{text.strip()!r} disagrees with the ladder: {describe(value, LADDER)}")
    return value
