"""Invoking aspects ("Invocando Aspectos", 003_eba7e658178fc706.txt): "+2 on your roll or
reroll all four dice, or add 2 to the difficulty of someone else's roll"; paid with a fate
point or a free invoke; "you can't invoke the same aspect more than once on a roll, except
that you can spend as many free invokes on it as you like"; hostile invokes pay the
aspect's owner (at the end of the scene); boosts vanish once used.

Ruth overcomes with Athletics Good (+3) and [0][0][0][0]: effort +3 before invokes.
"""
import pytest
from hypothesis import given, settings, strategies as st

from pbp.rules.systems import FATE_CONDENSED
from pbp.commands import Invoke, InvokeMode, Opposition, Payment
from pbp.errors import RulesError, UnknownNameError
from pbp.rules.actions import resolve
from pbp.rules.dice import FixedDice
from pbp.rules.results import Change, InvokeUse, Modifier, Outcome
from pbp.rules.state import Aspect, Consequence

from .builders import effect, effects, make_table, overcome


def climb(table, vs, *invokes, dice="0000", who="Ruth"):
    cmd = overcome("Athletics", opposition=Opposition(rating=vs), invokes=invokes)
    return resolve(cmd, table, FixedDice(dice), who, system=FATE_CONDENSED)


def ruth(table):
    return table.character("Ruth")


# -- what an invoke does ---------------------------------------------------------------------

def test_a_paid_invoke_is_plus_two_for_a_fate_point(table):
    result = climb(table, 4, Invoke("Monster Hunter"))
    assert result.effort.total == 5 and result.outcome is Outcome.SUCCESS
    assert result.effort.modifiers[-1] == Modifier("invoke", "Monster Hunter (fate point)", 2)
    assert result.effort.invokes == [InvokeUse("Monster Hunter", "bonus", "fp", "Ruth")]
    assert result.changes == [Change("fate_points", "Ruth", 3, 2, "invoking Monster Hunter")]
    assert ruth(table).fate_points == 2


def test_reroll_keeps_both_throws(table):
    """Rerolling all four dice: the first throw stays on record, the last one counts."""
    result = climb(table, 4, Invoke("Monster Hunter", mode=InvokeMode.REROLL), dice="----,++++")
    assert [r.faces for r in result.effort.rolls] == [(-1, -1, -1, -1), (1, 1, 1, 1)]
    assert result.effort.dice.faces == (1, 1, 1, 1) and result.effort.total == 7
    assert result.effort.invokes[0].reroll == result.effort.rolls[1]
    assert [m.source for m in result.effort.modifiers] == ["skill"]


def test_reroll_comes_after_the_opponents_throw(table):
    """Fixed dice order: actor, opposition, then rerolls."""
    cmd = overcome("Stealth", opposition=Opposition(character="Ghoul"),
                   invokes=(Invoke("Deep Shadows", mode=InvokeMode.REROLL),))
    result = resolve(cmd, table, FixedDice("----,+000,++++"), "Ruth", system=FATE_CONDENSED)
    assert result.opposition.effort.dice.faces == (1, 0, 0, 0)
    assert result.effort.dice.faces == (1, 1, 1, 1)


def test_oppose_needs_someone_else_rolling(table):
    """Against a fixed difficulty nobody else rolls, so "oppose" has nothing to raise."""
    with pytest.raises(RulesError, match="invoke Deep Shadows for \\+2 instead") as info:
        climb(table, 3, Invoke("Deep Shadows", mode=InvokeMode.OPPOSE))
    assert info.value.example == '/invoke "Deep Shadows"'
    cmd = overcome("Stealth", opposition=Opposition(character="Ghoul"),
                   invokes=(Invoke("Deep Shadows", mode=InvokeMode.OPPOSE),))
    result = resolve(cmd, table, FixedDice("0000,0000"), "Ruth", system=FATE_CONDENSED)
    assert result.effort.total == 3 and result.effort.invokes[0].mode == "oppose"


# -- paying --------------------------------------------------------------------------------

def test_auto_prefers_a_free_invoke(table):
    shadows = table.find_aspect("Deep Shadows")
    shadows.free_invokes["Ruth"] = 2
    result = climb(table, 4, Invoke("Deep Shadows"))
    assert result.effort.modifiers[-1].label == "Deep Shadows (free, held by Ruth)"
    assert result.effort.invokes[0].paid_with == "free" and result.effort.invokes[0].holder == "Ruth"
    assert result.changes == [Change("free_invokes", "Deep Shadows (held by Ruth)", 2, 1)]
    assert ruth(table).fate_points == 3


def test_another_characters_free_invoke_is_not_yours(table):
    table.find_aspect("Deep Shadows").free_invokes["Ethan"] = 1
    with pytest.raises(RulesError, match=r"held by: Ethan \(1\)"):
        climb(table, 4, Invoke("Deep Shadows", payment=Payment.FREE))


def test_fp_payment_pays_even_when_holding_free_invokes(table):
    table.find_aspect("Deep Shadows").free_invokes["Ruth"] = 1
    result = climb(table, 4, Invoke("Deep Shadows", payment=Payment.FATE_POINT))
    assert result.effort.invokes[0].paid_with == "fp"
    assert table.find_aspect("Deep Shadows").free_invokes == {"Ruth": 1}


def test_no_fate_point_below_zero(table):
    ruth(table).fate_points = 0
    with pytest.raises(RulesError, match="^Ruth has 0 fate points; invoking Monster Hunter needs one"):
        climb(table, 4, Invoke("Monster Hunter"))
    assert ruth(table).fate_points == 0


def test_the_same_aspect_paid_twice_is_refused(table):
    with pytest.raises(RulesError, match="already invoked"):
        climb(table, 4, Invoke("Monster Hunter"), Invoke("monster hunter"))


def test_free_invokes_may_stack_on_one_aspect(table):
    """The exception: "quantas invocações gratuitas de um aspecto quiser"."""
    table.find_aspect("Deep Shadows").free_invokes["Ruth"] = 2
    result = climb(table, 8, Invoke("Deep Shadows", times=2), Invoke("Deep Shadows", payment=Payment.FATE_POINT))
    assert result.effort.total == 9
    assert [u.paid_with for u in result.effort.invokes] == ["free", "free", "fp"]
    assert "Ruth" not in table.find_aspect("Deep Shadows").free_invokes


def test_times_is_only_for_free_invokes(table):
    with pytest.raises(RulesError, match="only free invokes may be repeated"):
        climb(table, 4, Invoke("Monster Hunter", payment=Payment.FATE_POINT, times=2))
    table.find_aspect("Deep Shadows").free_invokes["Ruth"] = 1
    with pytest.raises(RulesError, match="holds no free invoke"):
        climb(table, 4, Invoke("Deep Shadows", times=2))


def test_a_boost_vanishes_when_used(table):
    boost = Aspect("Off Balance", kind="boost", free_invokes={"Ruth": 1})
    table.aspects.append(boost)
    result = climb(table, 4, Invoke("Off Balance"))
    assert result.effort.invokes[0].paid_with == "boost"
    assert result.effort.modifiers[-1].label == "Off Balance (boost)"
    assert boost not in table.aspects
    assert result.changes == [Change("boost", "Off Balance", "in play", "used", "invoked by Ruth")]


def test_someone_elses_boost_cannot_be_bought(table):
    table.aspects.append(Aspect("Off Balance", kind="boost", free_invokes={"Ghoul": 1}))
    with pytest.raises(RulesError, match="is a boost"):
        climb(table, 4, Invoke("Off Balance"))


def test_hostile_invoke_is_reported_not_paid_yet(table):
    """Invoking the Ghoul's Hungry with a fate point: the point is the Ghoul's, paid at the
    end of the scene, so its sheet does not change now."""
    result = climb(table, 4, Invoke("Hungry"))
    assert result.effort.invokes[0].hostile_owner == "Ghoul"
    assert effect(result, "hostile_invoke").data == {"aspect": "Hungry", "owner": "Ghoul", "invoker": "Ruth",
                                                     "fate_points": 1}
    assert table.character("Ghoul").fate_points == 1 and ruth(table).fate_points == 2


def test_a_free_invoke_on_an_enemys_aspect_pays_nobody(table):
    table.find_aspect("Hungry").free_invokes["Ruth"] = 1
    result = climb(table, 4, Invoke("Hungry"))
    assert result.effort.invokes[0].hostile_owner == "Ghoul"
    assert "hostile_invoke" not in effects(result)


def test_consequences_on_a_sheet_can_be_invoked(table):
    table.character("Ghoul").consequences.append(Consequence("mild", 2, aspect="Broken Jaw"))
    result = climb(table, 4, Invoke("broken jaw"))
    assert result.effort.invokes[0].aspect == "Broken Jaw" and result.effort.invokes[0].hostile_owner == "Ghoul"


def test_unknown_aspect_suggests_without_leaking_hidden_ones(table):
    table.aspects.append(Aspect("Deep Secret", owner="Ghoul", hidden=True))
    with pytest.raises(UnknownNameError) as info:
        climb(table, 4, Invoke("Deep Shadws"))
    assert info.value.kind == "aspect" and info.value.suggestions == ["Deep Shadows"]
    with pytest.raises(UnknownNameError):
        climb(table, 4, Invoke("Deep Secret"))


# -- if needed -----------------------------------------------------------------------------

def test_if_needed_is_spent_when_it_changes_the_tier(table):
    """Fail by one: +2 turns it into a success, so the invoke is spent."""
    result = climb(table, 4, Invoke("Monster Hunter", if_needed=True))
    assert result.outcome is Outcome.SUCCESS
    assert result.effort.invokes == [InvokeUse("Monster Hunter", "bonus", "fp", "Ruth", if_needed=True)]


def test_if_needed_is_skipped_when_it_changes_nothing(table):
    """Already a success with style: nothing to gain, nothing paid, even at 0 fate points."""
    ruth(table).fate_points = 0
    result = climb(table, 0, Invoke("Monster Hunter", if_needed=True))
    assert result.outcome is Outcome.STYLE
    assert [c.what for c in result.changes] == ["boost"]       # the style boost, no fate point
    assert result.effort.invokes == [InvokeUse("Monster Hunter", "bonus", "skipped", "Ruth", if_needed=True)]


def test_if_needed_never_turns_a_success_into_style(table):
    """Ahead by one shift ("one or two shifts more than the target, you succeed", Fate
    Condensed): not failing, so "if needed" is not needed."""
    result = climb(table, 2, Invoke("Monster Hunter", if_needed=True))
    assert result.outcome is Outcome.SUCCESS and ruth(table).fate_points == 3
    assert [u.paid_with for u in result.effort.invokes] == ["skipped"]


def test_if_needed_stops_at_a_tie(table):
    """Behind by two: the first +2 ties ("equal to the target, you tie"), and a tie is not
    a fail, so the second is not spent."""
    table.find_aspect("Deep Shadows").free_invokes["Ruth"] = 1
    result = climb(table, 5, Invoke("Deep Shadows", if_needed=True), Invoke("Monster Hunter", if_needed=True))
    assert result.outcome is Outcome.TIE
    assert [u.paid_with for u in result.effort.invokes] == ["free", "skipped"]


def test_if_needed_for_style_partly_spent(table):
    """Two if-needed-for-style invokes at +1 shift: the first makes it stylish ("three or
    more shifts more than the target, you succeed with style"), the second is not needed."""
    table.find_aspect("Deep Shadows").free_invokes["Ruth"] = 1
    result = climb(table, 2, Invoke("Deep Shadows", if_needed=True, for_style=True),
                   Invoke("Monster Hunter", if_needed=True, for_style=True))
    assert result.outcome is Outcome.STYLE and result.effort.total == 5
    assert [u.paid_with for u in result.effort.invokes] == ["free", "skipped"]
    assert ruth(table).fate_points == 3


def test_if_needed_comes_after_unconditional_invokes_and_the_opposition(table):
    """Stealth +1 and Deep Shadows +2 against the Ghoul's Notice +1 -1: style already, so
    the if-needed invoke written first is judged last, and skipped."""
    cmd = overcome("Stealth", opposition=Opposition(character="Ghoul"),
                   invokes=(Invoke("Monster Hunter", if_needed=True), Invoke("Deep Shadows")))
    result = resolve(cmd, table, FixedDice("0000,-000"), "Ruth", system=FATE_CONDENSED)
    assert result.outcome is Outcome.STYLE
    assert [(u.aspect, u.paid_with) for u in result.effort.invokes] == [
        ("Deep Shadows", "fp"), ("Monster Hunter", "skipped")]


def test_each_if_needed_is_judged_alone(table):
    """The documented reading: at -4 one +2 does not change the tier, so neither is spent."""
    table.find_aspect("Deep Shadows").free_invokes["Ruth"] = 1
    result = climb(table, 7, Invoke("Deep Shadows", if_needed=True), Invoke("Monster Hunter", if_needed=True))
    assert result.outcome is Outcome.FAIL
    assert [u.paid_with for u in result.effort.invokes] == ["skipped", "skipped"]


def test_if_needed_reroll_only_while_worse_than_success(table):
    again = Invoke("Monster Hunter", mode=InvokeMode.REROLL, if_needed=True)
    result = climb(table, 4, again, dice="-000,++00")
    assert len(result.effort.rolls) == 2 and result.outcome is Outcome.SUCCESS
    result = climb(make_table(), 2, again, dice="0000")
    assert len(result.effort.rolls) == 1 and result.effort.invokes[0].paid_with == "skipped"


def test_if_needed_unknown_aspect_is_still_an_error(table):
    with pytest.raises(UnknownNameError):
        climb(table, 0, Invoke("Nowhere", if_needed=True))


# -- invariants ------------------------------------------------------------------------------

invokes = st.lists(st.builds(
    Invoke,
    aspect=st.sampled_from(["Monster Hunter", "Deep Shadows", "Hungry", "Off Balance"]),
    mode=st.sampled_from([InvokeMode.BONUS, InvokeMode.REROLL]),
    payment=st.sampled_from(list(Payment)),
    if_needed=st.booleans(),
    times=st.integers(1, 3),
), max_size=5)


@settings(max_examples=200)
@given(invokes, st.integers(0, 3), st.integers(0, 2), st.integers(-2, 8))
def test_fate_points_and_free_invokes_never_go_negative(chosen, fate_points, free, vs):
    """Whatever is invoked, and whether the rules accept it or not, no count goes below 0."""
    table = make_table()
    ruth(table).fate_points = fate_points
    table.find_aspect("Deep Shadows").free_invokes["Ruth"] = free
    table.aspects.append(Aspect("Off Balance", kind="boost", free_invokes={"Ruth": 1}))
    try:
        result = climb(table, vs, *chosen, dice=",".join(["0000"] * 20))
    except RulesError:
        result = None
    assert all(c.fate_points >= 0 for c in table.characters.values())
    assert all(n >= 0 for a in table.aspects for n in a.free_invokes.values())
    if result is not None:
        spent = sum(1 for u in result.effort.invokes if u.paid_with == "fp")
        assert ruth(table).fate_points == fate_points - spent


def test_invoking_your_own_hidden_aspect_reveals_it(table):
    """An NPC may invoke its own secret aspect; from then on everyone knows it."""
    secret = Aspect("Secretly Starving", owner="Ghoul", hidden=True)
    table.aspects.append(secret)
    result = resolve(overcome("Athletics", opposition=Opposition(rating=0),
                              invokes=(Invoke("Secretly Starving"),)), table, FixedDice("0000"), "Ghoul", system=FATE_CONDENSED)
    assert not secret.hidden and result.effort.invokes[0].hostile_owner is None
    assert result.changes[0] == Change("fate_points", "Ghoul", 1, 0, "invoking Secretly Starving")
    assert result.changes[1].after == "revealed"
