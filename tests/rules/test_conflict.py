"""Conflicts: sides, concession and the end of a conflict (Fate Condensed, "Conceding",
"Ending a Conflict"; 001_0095f60d590caa10.txt and 000_7ba3f797fc1d45d3.txt)."""
import pytest

from pbp.errors import RulesError
from pbp.rules.conflict import (
    check_reach, concede, concession_points, end_conflict, is_over, move, owe_hostile_invoke, payout_on_end,
    record_absorb, record_hostile_invokes, start_conflict, winning_side,
)
from pbp.rules.harm import absorb
from pbp.rules.results import ActionResult, Change, Effect, Effort
from pbp.rules.sheets import consequence_slots
from pbp.rules.state import Character, Table
from pbp.rules.systems import FATE_CONDENSED
from pbp.rules.zones import ZoneMap


def cellar() -> Table:
    chars = [Character("Charles", fate_points=1), Character("Ruth", fate_points=2),
             Character("Ghoul", kind="npc", fate_points=1)]
    for ch in chars:
        ch.stress = {"physical": [False] * 3, "mental": [False] * 3}
        ch.consequences = consequence_slots(ch, FATE_CONDENSED)
    return Table(system="fate-condensed", characters={c.name: c for c in chars})


def test_concession_pays_one_plus_the_consequences_of_this_conflict():
    """"You gain a fate point plus an extra one for each consequence they took in the current
    conflict": Charles arrives with an old mild consequence, takes a moderate one here, then
    concedes: two fate points, not three."""
    table = cellar()
    charles = table.character("Charles")
    charles.consequences[0].aspect = "Sprained Wrist"          # from an earlier conflict
    conflict = start_conflict(table, ["Charles", "Ruth", "Ghoul"], first="Ghoul", tracks=FATE_CONDENSED.tracks)
    assert conflict.sides == {"Charles": "pcs", "Ruth": "pcs", "Ghoul": "npcs"}
    hit = absorb(table, "Charles", "physical", 5, stress=1, consequences=[("moderate", "Gaping Chest Wound")],
                 attacker="Ghoul", system=FATE_CONDENSED)
    conflict = record_absorb(conflict, hit)
    assert concession_points(conflict, "Charles") == 2

    step = concede(conflict, "charles", dice_rolled_against=False, terms="I flee into the sewers")
    conflict = step.conflict
    assert conflict.conceded == ("Charles",) and "Charles" in conflict.turns.removed
    assert step.effects[0].kind == "conceded" and step.effects[0].data["fate_points"] == 2
    assert not is_over(conflict)                               # Ruth still stands

    assert payout_on_end(conflict, table) == [Change("fate_points", "Charles", 1, 3, "conceded the conflict")]


def test_concession_only_before_the_dice_are_rolled_against_you():
    """"You must concede before your opponent rolls the dice. You can't wait to see the outcome
    of the dice and concede when it's obvious you can't win"."""
    table = cellar()
    conflict = start_conflict(table, ["Charles", "Ghoul"], first="Ghoul", tracks=FATE_CONDENSED.tracks)
    with pytest.raises(RulesError, match="dice have already been rolled against Charles") as err:
        concede(conflict, "Charles", dice_rolled_against=True)
    assert err.value.expected and err.value.hint
    conflict = concede(conflict, "Charles", dice_rolled_against=False).conflict
    with pytest.raises(RulesError, match="already conceded"):
        concede(conflict, "Charles", dice_rolled_against=False)


def test_the_taken_out_cannot_concede():
    """Charles, taken out by the ghoul's Legendary hit, "has no choice but to accept the terms
    laid before him"."""
    table = cellar()
    conflict = start_conflict(table, ["Charles", "Ghoul"], first="Ghoul", tracks=FATE_CONDENSED.tracks)
    for boxes in table.character("Charles").stress.values():
        boxes[:] = [True] * 3
    out = absorb(table, "Charles", "physical", 13, consequences=[("severe", "x")], attacker="Ghoul", system=FATE_CONDENSED)
    conflict = record_absorb(conflict, out)
    assert conflict.taken_out == ("Charles",)
    with pytest.raises(RulesError, match="too late to concede"):
        concede(conflict, "Charles", dice_rolled_against=False)
    assert is_over(conflict) and winning_side(conflict) == "npcs"


def test_ending_a_conflict_pays_conceders_and_hostile_invokes():
    """"A conflict draws to a close when everyone on one side has either conceded or been
    taken out. At the end of a conflict, any players who conceded collect their fate points
    for the concession. The GM also pays out fate points owed to players for hostile invokes
    that happened during the conflict." (000_7ba3f797fc1d45d3.txt)"""
    table = cellar()
    conflict = start_conflict(table, ["Charles", "Ruth", "Ghoul"], first="Ruth", tracks=FATE_CONDENSED.tracks)
    invoke = ActionResult("/as Ghoul attack Ruth", "Ghoul", "attack", "Fight", Effort("Ghoul", "Fight"), None, 2, None,
                          effects=[Effect("hostile_invoke", "...", {"owner": "Ruth", "fate_points": 1})])
    conflict = record_hostile_invokes(conflict, invoke)
    conflict = owe_hostile_invoke(conflict, "Ruth")
    with pytest.raises(RulesError, match="the conflict goes on"):
        end_conflict(conflict, table)
    conflict = concede(conflict, "Ghoul", dice_rolled_against=False, terms="it slinks into the dark").conflict
    assert is_over(conflict) and winning_side(conflict) == "pcs"
    done = end_conflict(conflict, table)
    assert done.conflict.ended
    # an NPC carries its concession point into the GM's pool of a later scene (000, "Your Fate Points")
    assert done.changes == [Change("carried_points", "Ghoul", 0, 1, "conceded the conflict"),
                            Change("fate_points", "Ruth", 2, 4, "hostile invokes on their aspects")]
    assert done.effects[0].data["winner"] == "pcs"
    with pytest.raises(RulesError, match="already over"):
        end_conflict(done.conflict, table)


def test_the_gm_may_end_a_conflict_early():
    table = cellar()
    conflict = start_conflict(table, ["Charles", "Ghoul"], first="Ghoul", tracks=FATE_CONDENSED.tracks)
    done = end_conflict(conflict, table, by_gm=True)
    assert done.conflict.ended and done.changes == [] and done.effects[0].data["winner"] is None


def test_a_conflict_needs_two_sides_and_a_kind():
    table = cellar()
    with pytest.raises(RulesError, match="two sides"):
        start_conflict(table, ["Charles", "Ruth"], first="Ruth", tracks=FATE_CONDENSED.tracks)
    rivals = start_conflict(table, ["Charles", "Ruth"], first="Ruth", sides={"ruth": "rivals"}, kind="mental", tracks=FATE_CONDENSED.tracks)
    assert rivals.sides == {"Charles": "pcs", "Ruth": "rivals"} and rivals.kind == "mental"
    with pytest.raises(RulesError, match="physical or mental"):
        start_conflict(table, ["Charles", "Ghoul"], first="Ghoul", kind="social", tracks=FATE_CONDENSED.tracks)


def test_moves_and_reach_in_a_conflict():
    """Movement comes with the turn; close combat reaches one's own zone."""
    table = cellar()
    zones = ZoneMap.build(["Cellar", "Stairs"], [("Cellar", "Stairs")]).place("Charles", "Stairs").place("Ghoul", "Cellar")
    conflict = start_conflict(table, ["Charles", "Ghoul"], first="Charles", zones=zones, tracks=FATE_CONDENSED.tracks)
    with pytest.raises(RulesError, match="out of reach of close combat"):
        check_reach(conflict, "Charles", "Ghoul", ranged=False)
    check_reach(conflict, "Charles", "Ghoul", ranged=True)
    conflict = move(conflict, "Charles", "Cellar")
    check_reach(conflict, "Charles", "Ghoul", ranged=False)
    with pytest.raises(RulesError, match="already moved"):
        move(conflict, "Charles", "Stairs")
