"""Dice sources: the OS's randomness in play, fixed faces for tests and demos (product.md:
``--dice "0++-,+0-0"`` supplies the faces of the next rolls in order)."""
import random

import pytest
from hypothesis import given, strategies as st

from pbp.errors import DiceExhausted, PbpError
from pbp.rules.dice import DiceSource, FixedDice, RandomDice, fate_group, number_group


def test_fixed_fate_groups_in_order():
    dice = FixedDice("0++-,+0-0")
    assert dice.remaining == 2
    assert dice.fate() == (0, 1, 1, -1)
    assert dice.fate(4) == (1, 0, -1, 0)
    assert dice.remaining == 0


def test_bracket_style_and_spaces_inside_a_group():
    """The book writes faces as [+] [-] [0]; either style is accepted."""
    dice = FixedDice("[+] [-] [0] [0], + - 0 0")
    assert dice.fate() == (1, -1, 0, 0)
    assert dice.fate() == (1, -1, 0, 0)


def test_numbered_groups():
    dice = FixedDice("8 9 10 1,3")
    assert dice.die(10, 4) == (8, 9, 10, 1)
    assert dice.die(6, 1) == (3,)


def test_running_out_says_so():
    dice = FixedDice("0000")
    dice.fate()
    with pytest.raises(DiceExhausted, match="ran out"):
        dice.fate()


def test_empty_spec_has_no_throws():
    with pytest.raises(DiceExhausted):
        FixedDice("").fate()


@pytest.mark.parametrize("spec, call", [("++", lambda d: d.fate(4)), ("0000", lambda d: d.die(6, 4)),
                                        ("1 2", lambda d: d.fate(2)), ("7", lambda d: d.die(6, 1))])
def test_a_throw_must_fit_its_group(spec, call):
    """One call consumes one group, which must hold exactly the dice asked for."""
    with pytest.raises(DiceExhausted, match="group 1"):
        call(FixedDice(spec))


@pytest.mark.parametrize("spec, bad", [("0++-,x0-0", "x0-0"), ("0++-,,0000", "group 2"),
                                       ("[+][0", "[+][0"), ("0 0 +1", "0 0 +1"), ("3 0", "3 0")])
def test_invalid_spec_names_the_bad_group(spec, bad):
    with pytest.raises(ValueError, match=bad.replace("[", r"\[").replace("+", r"\+")):
        FixedDice(spec)


def test_errors_are_pbp_errors():
    assert issubclass(DiceExhausted, PbpError)


def test_random_dice_faces_are_in_range():
    dice = RandomDice(random.Random(7))
    assert isinstance(dice, DiceSource)
    faces = [f for _ in range(200) for f in dice.fate()]
    assert set(faces) == {-1, 0, 1}
    assert all(1 <= f <= 6 for f in dice.die(6, 100))
    assert len(RandomDice().fate(4)) == 4


fate_throws = st.lists(st.lists(st.sampled_from([-1, 0, 1]), min_size=1, max_size=8).map(tuple),
                       min_size=1, max_size=10)


@given(fate_throws)
def test_fixed_dice_round_trip_fate_groups(throws):
    """Writing throws as a spec and reading it back gives the same faces, in order."""
    dice = FixedDice(",".join(fate_group(t) for t in throws))
    assert [dice.fate(len(t)) for t in throws] == throws
    assert dice.remaining == 0


@given(st.lists(st.lists(st.integers(1, 20), min_size=1, max_size=6).map(tuple), min_size=1, max_size=8))
def test_fixed_dice_round_trip_numbered_groups(throws):
    dice = FixedDice(",".join(number_group(t) for t in throws))
    assert [dice.die(20, len(t)) for t in throws] == throws
