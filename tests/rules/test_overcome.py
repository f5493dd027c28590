"""Overcome ("Superar", 003_eba7e658178fc706.txt): fail = fail or success at a serious
cost; tie = success at a minor cost, or fail with a boost; success; style = success and a
boost. Ruth climbs with Athletics Good (+3) and rolls [0][0][0][0]: effort +3."""
import pytest

from pbp.rules.systems import FATE_CONDENSED
from pbp.commands import Choice, Opposition
from pbp.errors import RulesError, UnknownNameError
from pbp.rules.actions import resolve
from pbp.rules.dice import FixedDice
from pbp.rules.results import Change, Outcome

from .builders import effect, effects, overcome


def climb(table, vs, *choices, dice="0000"):
    cmd = overcome("Athletics", opposition=Opposition(rating=vs), choices=choices,
                   source=f"/overcome Athletics vs {vs}")
    return resolve(cmd, table, FixedDice(dice), "Ruth", system=FATE_CONDENSED)


def test_fail_is_a_plain_fail(table):
    """"Falha Simples": Ethan pulls the handle, the safe stays shut."""
    result = climb(table, 4)
    assert (result.shifts, result.outcome) == (-1, Outcome.FAIL)
    assert effects(result) == ["fail"] and result.changes == []


def test_fail_taken_as_success_at_a_serious_cost(table):
    """"Sucesso com Alto Custo": the last lock clicks, and so does the guard's revolver."""
    result = climb(table, 5, Choice("fail", "cost"))
    assert effects(result) == ["cost_major"]
    assert effect(result, "cost_major").data == {"gm_decides": True}


def test_tie_is_success_at_a_minor_cost(table):
    """Tie: "sucesso com baixo custo" by default."""
    result = climb(table, 3)
    assert (result.shifts, result.outcome) == (0, Outcome.TIE)
    assert effects(result) == ["cost_minor"]


def test_tie_taken_as_a_fail_with_a_boost(table):
    """Tie: "Alternativamente, você falha, mas ganha um impulso"."""
    result = climb(table, 3, Choice("tie", "boost"))
    assert effects(result) == ["fail", "boost"]
    boost = table.find_aspect("Ruth's Boost")
    assert boost.kind == "boost" and boost.free_invokes == {"Ruth": 1}
    assert effect(result, "boost").data == {"aspect": boost.name, "holder": "Ruth", "rename": True}
    assert result.changes == [Change("boost", boost.name, None, "created", "held by Ruth")]


def test_success(table):
    result = climb(table, 1)
    assert (result.shifts, result.outcome) == (2, Outcome.SUCCESS)
    assert effects(result) == ["success"]


def test_success_with_style_adds_a_boost(table):
    """Style: "é um sucesso e você também ganha um impulso"."""
    result = climb(table, 0)
    assert (result.shifts, result.outcome) == (3, Outcome.STYLE)
    assert effects(result) == ["success", "boost"]


def test_two_boosts_get_distinct_names(table):
    climb(table, 0)
    climb(table, 0)
    names = [a.name for a in table.aspects if a.kind == "boost"]
    assert names == ["Ruth's Boost", "Ruth's Boost 2"]


def test_active_opposition_rolls_defend(table):
    """An enemy can oppose with a defend roll; the Ghoul opposes Stealth with Notice."""
    cmd = overcome("Stealth", opposition=Opposition(character="ghoul"))
    result = resolve(cmd, table, FixedDice("++00,0000"), "Ruth", system=FATE_CONDENSED)
    assert result.opposition.character == "Ghoul"
    assert result.opposition.effort.skill == "Notice" and result.opposition.value == 1
    assert result.opposition.label == "Ghoul: Notice"
    assert (result.effort.total, result.shifts) == (3, 2)


def test_active_opposition_with_a_named_skill(table):
    cmd = overcome("Stealth", opposition=Opposition(character="Ghoul", skill="athletics"))
    result = resolve(cmd, table, FixedDice("0000,0000"), "Ruth", system=FATE_CONDENSED)
    assert result.opposition.effort.skill == "Athletics"


def test_default_opposition_is_best_of_athletics_notice_will(table):
    """A skill with no natural opposite (Lore) is resisted by the best of Athletics,
    Notice and Will: dodging it, seeing it coming, or refusing it."""
    table.character("Ghoul").skills["Will"] = 4
    result = resolve(overcome("Lore", opposition=Opposition(character="Ghoul")), table,
                     FixedDice("0000,0000"), "Ruth", system=FATE_CONDENSED)
    assert result.opposition.effort.skill == "Will"


def test_no_difficulty_is_refused_with_an_example(table):
    with pytest.raises(RulesError) as info:
        resolve(overcome("Athletics", source="/overcome Athletics"), table, FixedDice("0000"), "Ruth", system=FATE_CONDENSED)
    assert info.value.example == "/overcome Athletics vs Fair"


def test_a_system_skill_not_on_the_sheet_is_mediocre(table):
    result = resolve(overcome("drive", opposition=Opposition(rating=0)), table, FixedDice("0000"), "Ruth", system=FATE_CONDENSED)
    assert result.skill == "Drive" and result.effort.modifiers[0].value == 0


def test_unknown_skill_suggests_the_nearest(table):
    """A typo gets the near skill and the same command with it fixed."""
    cmd = overcome("Atheltics", opposition=Opposition(rating=2), source="/overcome Atheltics vs Fair")
    with pytest.raises(UnknownNameError) as info:
        resolve(cmd, table, FixedDice("0000"), "Ruth", system=FATE_CONDENSED)
    err = info.value
    assert (err.kind, err.name, err.suggestions[0]) == ("skill", "Atheltics", "Athletics")
    assert err.example == "/overcome Athletics vs Fair"


def test_unknown_characters(table):
    with pytest.raises(UnknownNameError) as info:
        resolve(overcome("Stealth", opposition=Opposition(character="Ghol")), table, FixedDice("0000"), "Ruth", system=FATE_CONDENSED)
    assert info.value.kind == "character" and info.value.suggestions == ["Ghoul"]
    with pytest.raises(UnknownNameError):
        resolve(overcome("Stealth", opposition=Opposition(rating=1)), table, FixedDice("0000"), "Nobody", system=FATE_CONDENSED)


def test_only_choices_that_exist(table):
    with pytest.raises(RulesError, match="not a choice"):
        climb(table, 3, Choice("style", "boost"))
