"""A plain roll (product.md: ``/roll 4dF+2``, ``/roll Fight``, ``/roll 3d6``, ``/roll 2d10+1``):
no opposition, so no shifts and no outcome."""
import pytest

from pbp.rules.systems import FATE_CONDENSED
from pbp.errors import RulesError, UnknownNameError
from pbp.rules.actions import resolve
from pbp.rules.dice import FixedDice

from .builders import roll


def test_fate_dice_with_a_modifier(table):
    result = resolve(roll(modifier=2, source="/roll 4dF+2"), table, FixedDice("+0-+"), "Ruth", system=FATE_CONDENSED)
    assert result.effort.dice.faces == (1, 0, -1, 1) and result.effort.total == 3
    assert (result.shifts, result.outcome, result.opposition) == (None, None, None)
    assert result.to_dict()["outcome"] is None


def test_a_skill_roll(table):
    result = resolve(roll(skill="fight"), table, FixedDice("0000"), "Ruth", system=FATE_CONDENSED)
    assert result.skill == "Fight" and result.effort.total == 4


def test_numbered_dice(table):
    result = resolve(roll(count=2, sides="10", modifier=1), table, FixedDice("8 10"), "Ruth", system=FATE_CONDENSED)
    assert result.effort.dice.sides == "10" and result.effort.total == 19


def test_a_roll_by_someone_without_a_sheet(table):
    """The GM may roll bare dice."""
    assert resolve(roll(count=3, sides="6"), table, FixedDice("1 2 3"), "GM", system=FATE_CONDENSED).actor == "GM"


def test_bounds_and_names(table):
    with pytest.raises(RulesError):
        resolve(roll(count=0), table, FixedDice(""), "Ruth", system=FATE_CONDENSED)
    with pytest.raises(RulesError):
        resolve(roll(count=1, sides="1"), table, FixedDice(""), "Ruth", system=FATE_CONDENSED)
    with pytest.raises(UnknownNameError):
        resolve(roll(skill="Figth"), table, FixedDice("0000"), "Ruth", system=FATE_CONDENSED)
