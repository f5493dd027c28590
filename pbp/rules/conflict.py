"""Conflicts: sides, turn order, concessions, who is out, and the fate points owed at the end.

Fate Condensed, "Conceding", "Ending a Conflict": a character may concede "as long as the
dice haven't hit the table yet" (before their opponent rolls against them); they lose and
leave the conflict on terms they state, and at the end gain one fate point plus one for each
consequence they took in this conflict. A conflict is over when everyone on one side has
conceded or been taken out; then conceders are paid, and the fate points owed for hostile
invokes made during the conflict are paid out.

How the rules are read here:

* Sides default to "pcs" (player characters) and "npcs" (everyone else); named sides may be
  given. A conflict needs at least two sides.
* "Before the dice are rolled against you" is the caller's knowledge: ``concede`` takes
  ``dice_rolled_against``, true when an attack on the conceder has already been rolled and
  is waiting on them (to defend or absorb). A concession in between attacks is always fine.
* Consequences count toward a concession only if written in this conflict (recorded from
  each ``AbsorbResult`` by ``record_absorb``), never earlier ones still on the sheet.
* Fate points go onto the sheet of whoever earned them, NPCs included (their sheet is the
  nearest thing to the GM's pool the table keeps).
* The GM may end a conflict that is not over (``end_conflict(..., by_gm=True)``); the
  payouts are the same.

``Conflict`` is a value: every function returns a new one. Payouts change the table in
place and report each change, like the rest of the engine.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Iterable, Mapping

from pbp.i18n import Msg, Msgs
from pbp.errors import RulesError
from pbp.rules.bookkeeping import Report
from pbp.rules.harm import AbsorbResult
from pbp.rules.names import and_names, find_character
from pbp.rules.results import ActionResult, Change, Effect
from pbp.rules.state import Table
from pbp.rules.system import or_words
from pbp.rules.turns import TurnOrder, join, remove, start_order, take_move
from pbp.rules.zones import ZoneMap

@dataclass(frozen=True)
class Conflict:
    """One conflict in progress."""

    sides: Mapping[str, str]                                 # participant -> side
    turns: TurnOrder
    kind: str                                                # one of the system's tracks
    zones: ZoneMap | None = None
    consequences_taken: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    conceded: tuple[str, ...] = ()
    terms: Mapping[str, str] = field(default_factory=dict)   # conceder -> the terms they stated
    taken_out: tuple[str, ...] = ()
    hostile_invokes: Mapping[str, int] = field(default_factory=dict)  # aspect owner -> FP owed
    ended: bool = False
    concession_paid: bool = True      # conceders gain 1 + consequences at the end (False: early Fate)

    @property
    def participants(self) -> tuple[str, ...]:
        return tuple(self.sides)

    def side_of(self, who: str) -> str:
        return self.sides[_member(self, who)]

    def out(self) -> tuple[str, ...]:
        return self.conceded + self.taken_out


@dataclass
class ConflictOutcome:
    """A conflict step that tells the story: the new conflict, its effects and changes."""

    conflict: Conflict
    effects: list[Effect] = field(default_factory=list)
    changes: list[Change] = field(default_factory=list)


# -- starting and recording ----------------------------------------------------------------

def start_conflict(table: Table, participants: Iterable[str], first: str, *, tracks: tuple[str, ...],
                   kind: str = "", sides: Mapping[str, str] | None = None,
                   zones: ZoneMap | None = None, concession_paid: bool = True) -> Conflict:
    """A conflict between ``participants`` (names as the table spells them); ``first`` acts
    first. ``sides`` maps a participant to a side name; unlisted ones go by kind. ``kind`` is
    one of the system's ``tracks`` (``System.tracks``; "": the first, the kind a conflict has
    when none is named)."""
    kind = kind or tracks[0]
    if kind not in tracks:
        have = or_words(tracks)
        raise RulesError(f'a conflict is {have}, not "{kind}"', expected=have,
                         example=f"/conflict start Ruth, Ghoul first Ruth {tracks[-1]}")
    names = [find_character(table, p).name for p in participants]
    given = {k.casefold(): v for k, v in (sides or {}).items()}
    by_name = {}
    for n in names:
        ch = table.character(n)
        by_name[n] = given.get(n.casefold(), "pcs" if ch.kind == "pc" else "npcs")
    if len(set(by_name.values())) < 2:
        raise RulesError("a conflict needs two sides that can harm each other; everyone listed is on "
                         f"the side {next(iter(by_name.values()), '?')!r}",
                         example="/conflict start Ruth, Cassandra, Ghoul first Ruth")
    return Conflict(sides=by_name, turns=start_order(names, first), kind=kind, zones=zones,
                    concession_paid=concession_paid)


def members(conflict: Conflict, side: str) -> tuple[str, ...]:
    """Everyone on ``side``, out of the fight or not, in the order they joined."""
    return tuple(p for p, s in conflict.sides.items() if s == side)


def joining_side(table: Table, conflict: Conflict, newcomer: str, beside: str | None = None, *,
                 example: str = "") -> str:
    """The side someone who enters a conflict under way takes (``/place`` into it): the side
    of ``beside`` when the command names one; otherwise the one side that has characters of
    the newcomer's kind (a PC joins the PCs, an NPC the NPCs). Where that is not one side (PCs
    on both sides of a duel, an NPC entering a fight between PCs), the command must name
    whose side: a newcomer is never put on a side of its own."""
    if beside is not None:
        return conflict.sides[_member(conflict, beside)]
    pc = table.character(newcomer).kind == "pc"
    kin = list(dict.fromkeys(s for p, s in conflict.sides.items() if (table.character(p).kind == "pc") == pc))
    if len(kin) == 1:
        return kin[0]
    kind = "PCs" if pc else "NPCs"
    where = (f"{kind} are on more than one side (" + "; ".join(and_names(members(conflict, s)) for s in kin) + ")"
             if kin else f"no side has {kind} on it")
    raise RulesError(f"say whose side {newcomer} joins: {where}",
                     expected=f'"with" and someone already in the conflict ({", ".join(conflict.sides)})',
                     example=example)


def record_absorb(conflict: Conflict, result: AbsorbResult) -> Conflict:
    """Remember the consequences a hit wrote (they count toward a concession); a character
    the hit took out leaves the conflict."""
    who = _member(conflict, result.character)
    taken = dict(conflict.consequences_taken)
    if result.consequences:
        taken[who] = taken.get(who, ()) + tuple(name for _, name in result.consequences)
    conflict = replace(conflict, consequences_taken=taken)
    return take_out(conflict, who) if result.taken_out else conflict


def take_out(conflict: Conflict, who: str) -> Conflict:
    name = _member(conflict, who)
    if name in conflict.out():
        return conflict
    return replace(conflict, taken_out=conflict.taken_out + (name,), turns=remove(conflict.turns, name))


def owe_hostile_invoke(conflict: Conflict, owner: str, points: int = 1) -> Conflict:
    """A fate point spent invoking ``owner``'s aspect against them, paid when the conflict ends."""
    owed = dict(conflict.hostile_invokes)
    owed[owner] = owed.get(owner, 0) + points
    return replace(conflict, hostile_invokes=owed)


def record_hostile_invokes(conflict: Conflict, result: ActionResult) -> Conflict:
    """Owe the fate points of every "hostile_invoke" effect of a resolved action."""
    for e in result.effects:
        if e.kind == "hostile_invoke":
            conflict = owe_hostile_invoke(conflict, e.data["owner"], e.data.get("fate_points", 1))
    return conflict


def move(conflict: Conflict, who: str, to: str) -> Conflict:
    """The free move of ``who``'s turn, to a bordering zone."""
    if conflict.zones is None:
        raise RulesError("this conflict has no zone map; the GM sets one with /scene start ... zones ...",
                         expected="a scene started with zones",
                         example='/scene start "Warehouse" zones Dock, Office borders Dock-Office')
    name = _member(conflict, who)
    turns = take_move(conflict.turns, name)
    return replace(conflict, zones=conflict.zones.move(name, to), turns=turns)


def check_reach(conflict: Conflict, attacker: str, target: str, ranged: bool, policy: str = "adjacent",
                how: str = "") -> None:
    """Refuse an attack out of reach: close combat in one's own zone, shots (and other
    attacks at a distance, ``how``: "a Provoke attack") per ``policy``.
    Without a zone map, or with someone not placed yet, everything is in reach."""
    zones = conflict.zones
    if zones is None:
        return
    a, b = zones.zone_of(attacker), zones.zone_of(target)
    if a is None or b is None:
        return
    ok = zones.in_ranged_range(a, b, policy) if ranged else zones.in_melee_range(a, b)
    if not ok:
        how = how or ("a shot" if ranged else "close combat")
        raise RulesError(f'{target} is in "{b}", out of reach of {how} from "{a}"',
                         expected=f"a target in reach of {how}",
                         example=f'/move "{b}"' if not ranged else f'/move "{b}"',
                         hint="move first (a free move to a bordering zone), or create an advantage")


# -- conceding and ending ------------------------------------------------------------------

def concede(conflict: Conflict, who: str, dice_rolled_against: bool, terms: str = "") -> ConflictOutcome:
    """``who`` gives up the conflict on ``terms``; refused once dice were rolled against them."""
    name = _member(conflict, who)
    if conflict.ended:
        raise RulesError("the conflict is already over")
    if name in conflict.taken_out:
        raise RulesError(f"{name} has been taken out: too late to concede",
                         expected="a concession before you are taken out", example="/sheet")
    if name in conflict.conceded:
        raise RulesError(f"{name} has already conceded", expected="one concession per conflict", example="/sheet")
    if dice_rolled_against:
        raise RulesError(
            f"{name} cannot concede now: the dice have already been rolled against {name}. Concede "
            "before the next roll against you",
            expected="/defend or /absorb for the roll that is waiting", example="/defend Athletics",
            hint="conceding is allowed any time before an opponent rolls against you",
        )
    conflict = replace(conflict, conceded=conflict.conceded + (name,),
                       terms={**conflict.terms, name: terms}, turns=remove(conflict.turns, name))
    points = concession_points(conflict, name)
    said = f': "{terms}"' if terms else ""
    if not conflict.concession_paid:
        effect = Effect("conceded", f"{name} concedes{said}. {name} is out of the conflict on these terms, "
                        "unless the other side refuses the concession", {"character": name, "terms": terms,
                                                                           "fate_points": 0})
        return ConflictOutcome(conflict, [effect])
    effect = Effect("conceded", Msgs("{who} concedes{said}. The other side may ask for different terms; {who} gains "
                                     "{n} fate point when the conflict ends",
                                     "{who} concedes{said}. The other side may ask for different terms; {who} gains "
                                     "{n} fate points when the conflict ends", points, who=name,
                                     said=Msg(': "{terms}"', terms=terms) if terms else ""),
                    {"character": name, "terms": terms, "fate_points": points})
    return ConflictOutcome(conflict, [effect])


def withdraw_concession(conflict: Conflict, who: str) -> Conflict:
    """A refused concession (early Fate): ``who`` is back in the conflict and acts again."""
    name = _member(conflict, who)
    terms = {k: v for k, v in conflict.terms.items() if k != name}
    return replace(conflict, conceded=tuple(n for n in conflict.conceded if n != name), terms=terms,
                   turns=join(conflict.turns, name))


def concession_points(conflict: Conflict, who: str) -> int:
    """One fate point, plus one per consequence taken in this conflict (none where the system
    does not pay concessions: early Fate)."""
    if not conflict.concession_paid:
        return 0
    return 1 + len(conflict.consequences_taken.get(_member(conflict, who), ()))


def standing(conflict: Conflict, side: str) -> tuple[str, ...]:
    """Members of ``side`` neither taken out nor conceded."""
    out = conflict.out()
    return tuple(p for p, s in conflict.sides.items() if s == side and p not in out)


def is_over(conflict: Conflict) -> bool:
    """Everyone on some side has conceded or been taken out."""
    return conflict.ended or any(not standing(conflict, s) for s in set(conflict.sides.values()))


def winning_side(conflict: Conflict) -> str | None:
    """The only side with someone still standing, once the conflict is over (None otherwise,
    or when nobody is left standing)."""
    left = [s for s in dict.fromkeys(conflict.sides.values()) if standing(conflict, s)]
    return left[0] if len(left) == 1 and is_over(conflict) else None


def owed_at_end(conflict: Conflict, who: str) -> int:
    """The fate points ``who`` gains when the conflict ends: for conceding and for hostile
    invokes on their aspects (what :func:`payout_on_end` will pay them)."""
    conceded = any(c.casefold() == who.casefold() for c in conflict.conceded)
    hostile = sum(p for owner, p in conflict.hostile_invokes.items() if owner.casefold() == who.casefold())
    return (concession_points(conflict, who) if conceded else 0) + hostile


def payout_on_end(conflict: Conflict, table: Table) -> list[Change]:
    """Pay conceders (1 + consequences taken in this conflict) and hostile invokes owed."""
    r = Report()
    for who in conflict.conceded:
        if concession_points(conflict, who):
            _give(table, who, concession_points(conflict, who), "conceded the conflict", r)
    for owner, points in conflict.hostile_invokes.items():
        _give(table, owner, points, "hostile invokes on their aspects", r)
    return r.changes


def end_conflict(conflict: Conflict, table: Table, *, by_gm: bool = False) -> ConflictOutcome:
    """Close a conflict that is over (or any conflict, by the GM) and pay what is owed."""
    if conflict.ended:
        raise RulesError("the conflict is already over")
    if not is_over(conflict) and not by_gm:
        raise RulesError("the conflict goes on: nobody's whole side has conceded or been taken out",
                         expected="a side that has conceded or been taken out", example='/concede "I flee"',
                         hint="the GM can end it anyway with /conflict end")
    changes = payout_on_end(conflict, table)
    winner = winning_side(conflict)
    winners = standing(conflict, winner) if winner else ()
    text = Msgs("The conflict is over: {names} wins", "The conflict is over: {names} win", len(winners),
                names=and_names(winners)) if winners else Msg("The conflict is over")
    effect = Effect("conflict_over", text, {"winner": winner, "conceded": list(conflict.conceded),
                                           "taken_out": list(conflict.taken_out)})
    return ConflictOutcome(replace(conflict, ended=True), [effect], changes)


# -- helpers -------------------------------------------------------------------------------

def _member(conflict: Conflict, who: str) -> str:
    key = who.casefold()
    for p in conflict.sides:
        if p.casefold() == key:
            return p
    raise RulesError(f"{who} is not in this conflict (participants: {', '.join(conflict.sides)})",
                     expected=f"one of {', '.join(conflict.sides)}")


def give_points(table: Table, who: str, points: int, why: str) -> list[Change]:
    """``points`` fate points to ``who`` (a PC's sheet, an NPC's carried points); a negative
    number takes them, never below zero."""
    r = Report()
    _give(table, who, points, why, r)
    return r.changes


def _give(table: Table, who: str, points: int, why: str, r: Report) -> None:
    """A PC's points go on the sheet; an NPC carries them into a later scene, where they
    join the GM's pool ("an NPC that conceded a previous conflict ... those fate points
    are added to your pool")."""
    ch = find_character(table, who)
    if ch.kind == "pc":
        before = ch.fate_points
        ch.fate_points = max(0, before + points)
        if ch.fate_points != before:
            r.change("fate_points", ch.name, before, ch.fate_points, why)
    else:
        before = ch.carried_points
        ch.carried_points = max(0, before + points)
        if ch.carried_points != before:
            r.change("carried_points", ch.name, before, ch.carried_points, why)
