"""The worked examples of Fate Condensed ("Ações", 003_eba7e658178fc706.txt), played
through the engine with the book's own dice."""
from pbp.rules.systems import FATE_CONDENSED
from pbp.commands import Opposition
from pbp.rules.actions import resolve
from pbp.rules.dice import FixedDice
from pbp.rules.ladder import describe
from pbp.rules.results import Change, Modifier, Outcome

from .builders import advantage, attack, effect, effects, overcome


def test_charles_investigates_the_antarctic_station(table):
    """"Superar", Charles in Antarctica: Investigate Average (+1) vs Fair (+2), dice
    [0][0][+][+] -> effort Good (+3): a success by one shift."""
    cmd = overcome("Investigate", opposition=Opposition(rating=2), source="/overcome Investigate vs Fair")
    result = resolve(cmd, table, FixedDice("00++"), "Charles", system=FATE_CONDENSED)
    assert result.effort.dice.faces == (0, 0, 1, 1)
    assert result.effort.modifiers == [Modifier("skill", "Investigate", 1)]
    assert describe(result.effort.total, FATE_CONDENSED.ladder) == "Good (+3)"
    assert result.opposition.value == 2 and result.opposition.label == "Fair (+2)"
    assert (result.shifts, result.outcome) == (1, Outcome.SUCCESS)
    assert effects(result) == ["success"]
    assert result.changes == []


def test_ethan_throws_a_molotov_at_the_shoggoth(table):
    """"Criar uma Vantagem", Ethan's Molotov: Crafts Average (+1), dice [0][+][+][+] ->
    Great (+4) vs Good (+3): success, the Shoggoth is On Fire and Ethan holds one free
    invoke on it."""
    cmd = advantage("Crafts", aspect="On Fire", target="Shoggoth", opposition=Opposition(rating=3),
                    source='/advantage Crafts "On Fire" on Shoggoth vs Good')
    result = resolve(cmd, table, FixedDice("0+++"), "Ethan", system=FATE_CONDENSED)
    assert describe(result.effort.total, FATE_CONDENSED.ladder) == "Great (+4)"
    assert (result.shifts, result.outcome) == (1, Outcome.SUCCESS)
    on_fire = table.find_aspect("On Fire")
    assert on_fire.owner == "Shoggoth" and on_fire.free_invokes == {"Ethan": 1}
    assert effects(result) == ["aspect_created", "free_invoke"]
    assert effect(result, "free_invoke").data == {"aspect": "On Fire", "holder": "Ethan", "count": 1}
    assert result.changes == [
        Change("aspect", "On Fire", None, "created", "on Shoggoth"),
        Change("free_invokes", "On Fire (held by Ethan)", 0, 1),
    ]


def test_ruth_punches_the_corpse(table):
    """"Atacar"/"Defender", Ruth's punch: Fight Great (+4) with [-][-][0][0] -> Fair (+2);
    the corpse defends with Athletics Mediocre (+0) and [-][0][0][+] -> +0; two shifts, so a
    two-shift hit."""
    result = resolve(attack("Corpse", "Fight"), table, FixedDice("--00,-00+"), "Ruth", system=FATE_CONDENSED)
    assert describe(result.effort.total, FATE_CONDENSED.ladder) == "Fair (+2)"
    assert result.opposition.character == "Corpse"
    assert result.opposition.effort.skill == "Athletics"
    assert result.opposition.effort.dice.faces == (-1, 0, 0, 1)
    assert result.opposition.value == 0
    assert (result.shifts, result.outcome) == (2, Outcome.SUCCESS)
    assert effect(result, "hit").data == {"target": "Corpse", "shifts": 2, "attacker": "Ruth"}
