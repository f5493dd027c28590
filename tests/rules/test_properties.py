"""Invariants of efforts ("Sempre que você agir": dice + skill, modified by invokes and
stunts, is the effort) and of shifts (effort minus opposition)."""
from hypothesis import given, settings, strategies as st

from pbp.rules.systems import FATE_CONDENSED
from pbp.commands import Opposition
from pbp.rules.actions import resolve
from pbp.rules.dice import FixedDice, fate_group
from pbp.rules.outcomes import outcome_for
from pbp.rules.state import Character, Table

from .builders import overcome

faces = st.lists(st.sampled_from([-1, 0, 1]), min_size=4, max_size=4)


@settings(max_examples=300)
@given(faces, st.integers(-2, 8), st.integers(-5, 5), st.integers(-4, 10))
def test_effort_is_faces_plus_skill_plus_modifiers(dice, rating, modifier, vs):
    table = Table(system="fate-condensed", characters={"Ruth": Character("Ruth", skills={"Fight": rating})})
    cmd = overcome("Fight", opposition=Opposition(rating=vs), modifier=modifier)
    result = resolve(cmd, table, FixedDice(fate_group(dice)), "Ruth", system=FATE_CONDENSED)
    assert result.effort.total == sum(dice) + rating + modifier
    assert result.shifts == result.effort.total - vs
    assert result.outcome is outcome_for(result.shifts)
    assert -4 <= result.effort.dice.total <= 4
