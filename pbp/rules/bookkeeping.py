"""The engine's pen: every change to the table goes through here, so that each one is made
in place AND reported as a ``Change`` (and, where the story needs it, an ``Effect``).

Keeping mutation and reporting in the same small functions is what lets the reply say
"FP 3 -> 2" with certainty: nothing changes a sheet without writing the line that says so.
"""
from __future__ import annotations

from pbp.errors import RulesError
from pbp.rules.results import Change, Effect
from pbp.rules.state import Aspect, Character, Table


class Report:
    """The effects and changes of one action, in the order they happened."""

    __slots__ = ("effects", "changes")

    def __init__(self) -> None:
        self.effects: list[Effect] = []
        self.changes: list[Change] = []

    def effect(self, kind: str, text: str, **data) -> Effect:
        e = Effect(kind, text, data)
        self.effects.append(e)
        return e

    def change(self, what: str, subject: str, before: object, after: object, detail: str = "") -> None:
        self.changes.append(Change(what, subject, before, after, detail))


def held_by(aspect: Aspect, holder: str) -> str:
    return f"{aspect.name} (held by {holder})"


def spend_fate_point(report: Report, character: Character, why: str) -> None:
    """Pay one fate point; a character never goes below zero."""
    before = character.fate_points
    if before < 1:
        raise RulesError(
            f"{character.name} has {before} fate points; {why} needs one",
            expected="a free invoke, or a fate point in hand", example="/fp",
            hint="use a free invoke (add 'free') or drop the invoke",
        )
    character.fate_points = before - 1
    report.change("fate_points", character.name, before, before - 1, why)


class FatePoints:
    """Who pays a character's fate-point spends (an invoke paid with a point): an input of
    resolution (:func:`pbp.rules.actions.resolve`'s ``payer``). The ordinary case: every
    character pays from their own sheet. (The GM's pool paying for NPCs:
    :class:`pbp.rules.fate_points.GMPool`.)"""

    def spend(self, report: Report, character: Character, why: str) -> None:
        spend_fate_point(report, character, why)


OWN_POINTS = FatePoints()


def grant_free_invokes(report: Report, aspect: Aspect, holder: str, n: int) -> None:
    before = aspect.free_for(holder)
    aspect.free_invokes[holder] = before + n
    report.change("free_invokes", held_by(aspect, holder), before, before + n)


def use_free_invoke(table: Table, report: Report, aspect: Aspect, holder: str) -> str:
    """Spend one of ``holder``'s free invokes; a boost vanishes with its only invoke.
    Returns how it was paid: "boost" or "free"."""
    before = aspect.free_for(holder)
    if before < 1:
        raise RulesError(f"{holder} holds no free invoke on {aspect.name}",
                         expected="a free invoke you hold, or pay a fate point",
                         example=f'/invoke "{aspect.name}" fp')
    if aspect.kind == "boost":
        remove_aspect(table, aspect)
        report.change("boost", aspect.name, "in play", "used", f"invoked by {holder}")
        return "boost"
    if before == 1:
        del aspect.free_invokes[holder]
    else:
        aspect.free_invokes[holder] = before - 1
    report.change("free_invokes", held_by(aspect, holder), before, before - 1)
    return "free"


def remove_aspect(table: Table, aspect: Aspect) -> None:
    table.aspects[:] = [a for a in table.aspects if a is not aspect]


def create_aspect(table: Table, report: Report, name: str, owner: str | None) -> Aspect:
    aspect = Aspect(name, kind="situation", owner=owner)
    table.aspects.append(aspect)
    report.change("aspect", name, None, "created", f"on {owner}" if owner else "on the scene")
    return aspect


def reveal(report: Report, aspect: Aspect) -> None:
    report.changes.append(revealed(aspect))


def revealed(aspect: Aspect) -> Change:
    """Make a hidden aspect known to everyone; the change that says so."""
    aspect.hidden = False
    return Change("aspect", aspect.name, "hidden", "revealed", f"on {aspect.owner}" if aspect.owner else "on the scene")


def boost_name(table: Table, actor: str, action: str) -> str:
    """A short placeholder name a player can type ("Ruth's Boost", then "Ruth's Boost 2"),
    unique among aspects in play; the command language has no field for naming a boost
    yet, so the effect asks for a rename. (``action`` is kept for callers; the name no
    longer says it: a long name nobody types is no use at the table.)"""
    base = f"{actor}'s Boost"
    taken = {a.name.casefold() for a in table.aspects}
    name, n = base, 2
    while name.casefold() in taken:
        name, n = f"{base} {n}", n + 1
    return name


def add_boost(table: Table, report: Report, holder: str, action: str, why: str) -> Aspect:
    """Give ``holder`` a boost: a scene aspect with one free invoke that vanishes when used."""
    name = boost_name(table, holder, action)
    boost = Aspect(name, kind="boost", owner=None, free_invokes={holder: 1})
    table.aspects.append(boost)
    report.change("boost", name, None, "created", f"held by {holder}")
    report.effect("boost", f"{holder} gains a boost ({why}); name it", aspect=name, holder=holder, rename=True)
    return boost
