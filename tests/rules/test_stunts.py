"""Stunts ("Usando Façanhas", 003_eba7e658178fc706.txt): "+2 in a fairly specific
circumstance at no cost; you can use them any time they apply". Circumstances the engine
cannot see are claimed by naming the stunt."""
import pytest

from pbp.rules.systems import FATE_CONDENSED
from pbp.commands import Opposition, StuntUse
from pbp.errors import RulesError, UnknownNameError
from pbp.rules.actions import resolve
from pbp.rules.dice import FixedDice
from pbp.rules.results import Modifier

from .builders import attack, overcome


@pytest.fixture
def ruth(table):
    from pbp.rules.state import Stunt
    ruth = table.character("Ruth")
    ruth.stunts += [
        Stunt("Parkour", skill="Athletics", action="overcome", bonus=2),
        Stunt("Dirty Fighter", skill="Fight", action="attack", bonus=2, circumstance="against a distracted foe"),
        Stunt("Always Ready", skill="", action="", bonus=1, circumstance="when ambushed"),
        Stunt("Occultist", skill="Lore", action="", bonus=0),
    ]
    return ruth


def climb(table, *stunts, skill="Athletics"):
    cmd = overcome(skill, opposition=Opposition(rating=2), stunts=tuple(StuntUse(s) for s in stunts))
    return resolve(cmd, table, FixedDice("0000"), "Ruth", system=FATE_CONDENSED)


def test_a_stunt_without_circumstance_applies_by_itself(table, ruth):
    result = climb(table)
    assert result.effort.modifiers == [Modifier("skill", "Athletics", 3), Modifier("stunt", "Parkour", 2)]


def test_a_stunt_for_another_action_or_skill_does_not(table, ruth):
    result = resolve(overcome("Fight", opposition=Opposition(rating=2)), table, FixedDice("0000"), "Ruth", system=FATE_CONDENSED)
    assert [m.source for m in result.effort.modifiers] == ["skill"]


def test_a_circumstance_stunt_applies_only_when_named(table, ruth):
    plain = resolve(attack("Ghoul", "Fight"), table, FixedDice("0000,0000"), "Ruth", system=FATE_CONDENSED)
    assert [m.label for m in plain.effort.modifiers] == ["Fight"]
    named = resolve(attack("Ghoul", "Fight", stunts=(StuntUse("dirty fighter"),)), table,
                    FixedDice("0000,0000"), "Ruth", system=FATE_CONDENSED)
    assert named.effort.modifiers[-1] == Modifier("stunt", "Dirty Fighter", 2)


def test_a_stunt_for_any_skill_and_action(table, ruth):
    assert climb(table, "Always Ready").effort.total == 3 + 2 + 1


def test_naming_an_automatic_stunt_counts_it_once(table, ruth):
    assert climb(table, "Parkour").effort.total == 5


def test_naming_a_stunt_that_does_not_fit_is_refused(table, ruth):
    with pytest.raises(RulesError, match="Dirty Fighter is for Fight when you attack"):
        climb(table, "Dirty Fighter")


def test_naming_an_unknown_stunt(table, ruth):
    with pytest.raises(UnknownNameError) as info:
        climb(table, "Parcour")
    assert info.value.kind == "stunt" and info.value.suggestions == ["Parkour"]


def test_permission_stunts_add_nothing(table, ruth):
    assert [m.source for m in climb(table, skill="Lore").effort.modifiers] == ["skill"]
