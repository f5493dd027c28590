"""Teamwork: combining the same skill on one roll (Fate Condensed, "Teamwork", in
001_0095f60d590caa10.txt; the same words in 000_7ba3f797fc1d45d3.txt, "TEAMWORK").

    "When you combine skills, figure out who has the highest level in the skill among the
    participants. Each other participant who has at least Average (+1) in that skill adds a
    +1 to the highest person's skill level. Providing support like this uses your action.
    Supporters face the same costs and consequences as the person making the roll. The
    maximum total bonus a team may provide this way is equal to the highest person's skill
    level."

The numbers are the system's (``System.teamwork``, :class:`FateTeamwork` for the Fate
family): who counts (``least``), what each adds (``each``), and the cap (the roller's
rating). This module is pure: it takes ratings and returns the rows the reply shows.

Readings, where the text leaves it to the table:

* **The highest rolls.** By post the roller is whoever writes the action; a helper whose
  rating is higher than the roller's is refused (the reply says who should roll and who
  helps), rather than silently rolling someone else's dice.
* **A helper who adds nothing** (below Average, or over the cap) is still shown, with why,
  so the table sees where the cap bit; only a helper who adds +1 shares the roll's costs.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from pbp.errors import RulesError
from pbp.i18n import Msg
from pbp.rules.ladder import describe
from pbp.rules.naming import and_names, quote


@dataclass(frozen=True)
class TeamRow:
    """One helper on a roll: their rating in the skill, what they add, and why."""

    helper: str
    rating: int
    adds: int
    why: str        # "adds" | "below" (under the least rating) | "cap" (the team's bonus is full)


@dataclass(frozen=True)
class TeamBonus:
    rows: tuple[TeamRow, ...]
    cap: int

    @property
    def total(self) -> int:
        return sum(r.adds for r in self.rows)

    @property
    def sharing(self) -> tuple[str, ...]:
        """The helpers who added to the roll: they face its costs and consequences too."""
        return tuple(r.helper for r in self.rows if r.adds)

    @property
    def capped(self) -> bool:
        return any(r.why == "cap" for r in self.rows)


@dataclass(frozen=True)
class FateTeamwork:
    """The Fate family's numbers: each helper with at least Average (+1) adds +1, and the
    team adds at most the roller's rating."""

    least: int = 1
    each: int = 1

    def combine(self, rating: int, helpers: list[tuple[str, int]]) -> TeamBonus:
        """The team's bonus for a roller at ``rating`` with ``helpers`` (name, rating), in
        the order they offered help (the first to help is the first counted)."""
        cap = max(rating, 0)
        rows, total = [], 0
        for name, r in helpers:
            if r < self.least:
                rows.append(TeamRow(name, r, 0, "below"))
            elif total + self.each > cap:
                rows.append(TeamRow(name, r, 0, "cap"))
            else:
                rows.append(TeamRow(name, r, self.each, "adds"))
                total += self.each
        return TeamBonus(tuple(rows), cap)


def check_highest(roller: str, skill: str, rating: int, helpers: list[tuple[str, int]], ladder: Mapping[int, str], *,
                  source: str = "") -> None:
    """Refuse a team whose highest rating is not the roller's ("the highest person" rolls);
    ``ladder``, the system's, names the ratings."""
    best = max(helpers, key=lambda h: h[1], default=None)
    if best is None or best[1] <= rating:
        return
    name, r = best
    others = [h for h, _ in helpers if h != name] + [roller]
    raise RulesError(
        f"{name}'s {skill} is {describe(r, ladder)}, higher than {roller}'s {describe(rating, ladder)}: in teamwork the "
        f"one with the highest skill rolls, and the others help",
        source=source, expected=f"{name} to roll, with {and_names(others)} helping",
        example=f"/help {quote(name)}",
        hint=f"{roller} writes /help {quote(name)} and {name} rolls")


def row_text(row: TeamRow, skill: str, cap: int, roller: str, ladder: Mapping[int, str]) -> str:
    """How the reply words one helper (``ladder``: the system's)."""
    if row.why == "adds":
        return Msg("{who} helps with {skill} {rating}: +{n}", who=row.helper, skill=skill,
                   rating=describe(row.rating, ladder), n=row.adds)
    if row.why == "below":
        return Msg("{who} helps, but {who}'s {skill} is {rating}: no +1 (it takes {least})", who=row.helper,
                   skill=skill, rating=describe(row.rating, ladder), least=describe(1, ladder))
    return Msg("{who} helps, but the cap bites: a team adds at most the roller's rating, {roller}'s {skill} {cap}, so "
               "no +1 from {who}", who=row.helper, roller=roller, skill=skill, cap=describe(cap, ladder))
