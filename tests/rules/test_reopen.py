"""Invokes after the dice and the bogus-rule veto (003_eba7e658178fc706.txt, "Invocando
Aspectos" and "Modificando os Dados"): "you may invoke ... to gain +2 or reroll all four
dice, or add 2 to the difficulty of someone else's roll"; "you can't invoke the same aspect
more than once on a roll, except that you can spend as many free invokes on it as you
like"; the bogus rule: "if the person still isn't convinced, take back the invoke and move
on". A roll is re-run on the table as it was before it, replaying its dice.

Ruth attacks with Fight Great (+4); the Ghoul defends with Fight Fair (+2).
"""
import copy
from datetime import datetime, timedelta

import pytest

from pbp.rules.systems import FATE_CONDENSED
from pbp.commands import Invoke, InvokeMode, Opposition, Payment
from pbp.errors import DiceExhausted, RulesError
from pbp.rules.actions import resolve
from pbp.rules.aspects import add_situation_aspect
from pbp.rules.dice import DiceMismatch, FixedDice
from pbp.rules.fate_points import FateLedger, owe_from_result
from pbp.rules.reopen import (
    AfterInvoke, OpenRoll, ReplayDice, NEXT_ACTION, ROLLER_DONE, RollFacts, RollWindow, changes_between, closed_because,
    reresolve, throws_of,
)
from pbp.rules.results import Change, InvokeUse, Modifier, Outcome

from .builders import attack, effect, effects, make_table, overcome

NOW = datetime(2026, 11, 29, 18, 0)


def rolled(cmd, dice, who="Ruth", prepare=None):
    """Resolve ``cmd`` on a fresh table; returns (the table before, the table after, result)."""
    table = make_table()
    if prepare:
        prepare(table)
    before = copy.deepcopy(table)
    return before, table, resolve(cmd, table, FixedDice(dice), who, system=FATE_CONDENSED)


def distracted(table):
    add_situation_aspect(table, "Distracted", owner="Ghoul")


# -- the bogus rule -------------------------------------------------------------------------

def test_a_vetoed_invoke_recomputing_a_hit():
    """Ruth hits for 4 with +invoke "Distracted" (a fate point); the GM calls it bogus. The
    re-run without it is a 2-shift hit, and Ruth's fate point is back because the re-run
    never pays it. The hostile invoke's point owed to the Ghoul is gone too."""
    cmd = attack("Ghoul", "Fight", invokes=(Invoke("Distracted", payment=Payment.FATE_POINT),))
    before, after, hit = rolled(cmd, "0000,0000", prepare=distracted)
    assert effect(hit, "hit").data["shifts"] == 4 and after.character("Ruth").fate_points == 2
    assert "hostile_invoke" in effects(hit)

    table = copy.deepcopy(before)
    again = reresolve(cmd, table, throws_of(hit), "Ruth", removed_invokes=["Distracted"], system=FATE_CONDENSED)
    assert effect(again, "hit").data["shifts"] == 2 and again.outcome is Outcome.SUCCESS
    assert table.character("Ruth").fate_points == 3
    assert again.changes == [] and "hostile_invoke" not in effects(again)
    assert owe_from_result(FateLedger(), again) == []
    said = [d.text for d in changes_between(hit, again, FATE_CONDENSED.explain)]
    assert "the hit goes from 4 to 2 shifts" in said
    assert "Ruth: fate points 2 -> 3" in said
    assert "the outcome goes from success with style to success" in said


def test_the_re_run_replays_the_same_dice():
    cmd = attack("Ghoul", "Fight", invokes=(Invoke("Distracted"),))
    before, _, hit = rolled(cmd, "+-0+,-00-", prepare=distracted)
    again = reresolve(cmd, copy.deepcopy(before), throws_of(hit), "Ruth", removed_invokes=["distracted"], system=FATE_CONDENSED)
    assert again.effort.dice == hit.effort.dice
    assert again.opposition.effort.dice == hit.opposition.effort.dice
    assert again.effort.total == hit.effort.total - 2


def test_a_vetoed_reroll_takes_its_throw_with_it():
    """The dice of a bogus reroll never happened: the first throw counts again."""
    cmd = overcome("Athletics", opposition=Opposition(rating=2),
                   invokes=(Invoke("Monster Hunter", mode=InvokeMode.REROLL),))
    before, _, result = rolled(cmd, "----,++++")
    assert result.outcome is Outcome.STYLE
    again = reresolve(cmd, copy.deepcopy(before), throws_of(result), "Ruth", removed_invokes=["Monster Hunter"], system=FATE_CONDENSED)
    assert [r.faces for r in again.effort.rolls] == [(-1, -1, -1, -1)]
    assert again.outcome is Outcome.FAIL


def test_a_veto_removes_every_use_of_that_aspect():
    def two_free(table):
        table.find_aspect("Deep Shadows").free_invokes["Ruth"] = 2

    cmd = overcome("Athletics", opposition=Opposition(rating=5),
                   invokes=(Invoke("Deep Shadows", times=2), Invoke("Monster Hunter")))
    before, _, result = rolled(cmd, "0000", prepare=two_free)
    table = copy.deepcopy(before)
    again = reresolve(cmd, table, throws_of(result), "Ruth", removed_invokes=[Invoke("deep shadows")], system=FATE_CONDENSED)
    assert [u.aspect for u in again.effort.invokes] == ["Monster Hunter"]
    assert table.find_aspect("Deep Shadows").free_for("Ruth") == 2


def test_vetoing_an_aspect_that_was_not_invoked_is_an_error():
    cmd = overcome("Athletics", opposition=Opposition(rating=2), invokes=(Invoke("Monster Hunter"),))
    before, _, result = rolled(cmd, "0000")
    with pytest.raises(RulesError, match="Deep Shadows was not invoked on this roll") as info:
        reresolve(cmd, copy.deepcopy(before), throws_of(result), "Ruth", removed_invokes=["Deep Shadows"], system=FATE_CONDENSED)
    assert "Monster Hunter" in info.value.message and info.value.expected


# -- invoking after the dice ----------------------------------------------------------------

def test_an_added_reroll_after_the_dice_shows_both_throws():
    cmd = overcome("Athletics", opposition=Opposition(rating=4))
    before, _, result = rolled(cmd, "--0-")
    assert result.outcome is Outcome.FAIL
    table = copy.deepcopy(before)
    again = reresolve(cmd, table, throws_of(result), "Ruth",
                      extra_invokes=[Invoke("Monster Hunter", mode=InvokeMode.REROLL)], fresh_dice=FixedDice("++0+"), system=FATE_CONDENSED)
    assert [r.faces for r in again.effort.rolls] == [(-1, -1, 0, -1), (1, 1, 0, 1)]
    assert again.effort.invokes[0].reroll.faces == (1, 1, 0, 1)
    assert again.outcome is Outcome.SUCCESS and table.character("Ruth").fate_points == 2
    assert throws_of(again) == [(-1, -1, 0, -1), (1, 1, 0, 1)]


def test_an_added_bonus_is_the_original_plus_two():
    cmd = attack("Ghoul", "Fight")
    before, _, result = rolled(cmd, "0-00,0000")
    assert result.outcome is Outcome.SUCCESS and effect(result, "hit").data["shifts"] == 1
    again = reresolve(cmd, copy.deepcopy(before), throws_of(result), "Ruth", extra_invokes=[Invoke("Monster Hunter")], system=FATE_CONDENSED)
    assert again.effort.total == result.effort.total + 2
    assert effect(again, "hit").data["shifts"] == 3
    assert [d.text for d in changes_between(result, again, FATE_CONDENSED.explain) if d.what == "hit"] == ["the hit goes from 1 to 3 shifts"]


def test_the_same_aspect_once_per_roll_across_original_and_added():
    cmd = overcome("Athletics", opposition=Opposition(rating=6), invokes=(Invoke("Monster Hunter"),))
    before, _, result = rolled(cmd, "0000")
    with pytest.raises(RulesError, match="already invoked with a fate point on this roll"):
        reresolve(cmd, copy.deepcopy(before), throws_of(result), "Ruth", extra_invokes=[Invoke("Monster Hunter")], system=FATE_CONDENSED)


def test_free_invokes_may_repeat_across_original_and_added():
    def free(table):
        table.find_aspect("Deep Shadows").free_invokes["Ruth"] = 2

    cmd = overcome("Athletics", opposition=Opposition(rating=8), invokes=(Invoke("Deep Shadows"),))
    before, _, result = rolled(cmd, "0000", prepare=free)
    table = copy.deepcopy(before)
    again = reresolve(cmd, table, throws_of(result), "Ruth", extra_invokes=[Invoke("Deep Shadows", payment=Payment.FREE)], system=FATE_CONDENSED)
    assert again.effort.total == 7 and [u.paid_with for u in again.effort.invokes] == ["free", "free"]
    assert table.find_aspect("Deep Shadows").free_for("Ruth") == 0


def test_if_needed_makes_no_sense_after_the_dice():
    cmd = overcome("Athletics", opposition=Opposition(rating=4))
    before, _, result = rolled(cmd, "0000")
    with pytest.raises(RulesError, match='"if needed" is for invokes made before the dice'):
        reresolve(cmd, copy.deepcopy(before), throws_of(result), "Ruth",
                  extra_invokes=[Invoke("Monster Hunter", if_needed=True)], system=FATE_CONDENSED)


def test_if_needed_invokes_stay_as_the_dice_settled_them():
    """Ruth at Good (+3) vs Great (+4) rolled [0][0][0][0]: her "if needed" Monster Hunter
    was spent (fail -> success). Adding Deep Shadows after the dice does not take it back:
    what the original roll settled stays settled."""
    cmd = overcome("Athletics", opposition=Opposition(rating=4), invokes=(Invoke("Monster Hunter", if_needed=True),))
    before, _, result = rolled(cmd, "0000")
    assert result.effort.invokes[0].paid_with == "fp"
    table = copy.deepcopy(before)
    again = reresolve(cmd, table, throws_of(result), "Ruth", extra_invokes=[Invoke("Deep Shadows")], system=FATE_CONDENSED)
    assert [(u.aspect, u.paid_with) for u in again.effort.invokes] == [("Monster Hunter", "fp"), ("Deep Shadows", "fp")]
    assert again.effort.total == 7 and table.character("Ruth").fate_points == 1


def test_skipped_if_needed_invokes_stay_skipped():
    cmd = overcome("Athletics", opposition=Opposition(rating=0), invokes=(Invoke("Monster Hunter", if_needed=True),))
    before, _, result = rolled(cmd, "0000")
    assert result.effort.invokes[0].paid_with == "skipped"
    again = reresolve(cmd, copy.deepcopy(before), throws_of(result), "Ruth", extra_invokes=[Invoke("Deep Shadows")], system=FATE_CONDENSED)
    assert [u.aspect for u in again.effort.invokes] == ["Deep Shadows"]


def test_an_open_roll_keeps_every_throw_through_several_changes():
    """Reroll after the dice, then the GM vetoes the original reroll: the added reroll's
    faces stay the same; then a second added reroll draws new dice."""
    cmd = overcome("Athletics", opposition=Opposition(rating=4),
                   invokes=(Invoke("Monster Hunter", mode=InvokeMode.REROLL),))
    before, _, result = rolled(cmd, "----,-0--")
    roll = OpenRoll.of(cmd, result, id=7, rolled_at=NOW)
    assert roll.throws == ((-1, -1, -1, -1), (-1, 0, -1, -1))

    roll, second = roll.with_invoke(Invoke("Deep Shadows", mode=InvokeMode.REROLL)).rerun(
        copy.deepcopy(before), fresh_dice=FixedDice("0+00"), system=FATE_CONDENSED)
    assert [r.faces for r in second.effort.rolls] == [(-1, -1, -1, -1), (-1, 0, -1, -1), (0, 1, 0, 0)]

    roll, third = roll.with_veto("Monster Hunter").rerun(copy.deepcopy(before), system=FATE_CONDENSED)
    assert [r.faces for r in third.effort.rolls] == [(-1, -1, -1, -1), (0, 1, 0, 0)]
    assert roll.throws == ((-1, -1, -1, -1), (-1, 0, -1, -1), (0, 1, 0, 0))

    table = copy.deepcopy(before)
    roll, fourth = roll.with_invoke(Invoke("Hungry", mode=InvokeMode.REROLL)).rerun(table, fresh_dice=FixedDice("++++"), system=FATE_CONDENSED)
    assert [r.faces for r in fourth.effort.rolls] == [(-1, -1, -1, -1), (0, 1, 0, 0), (1, 1, 1, 1)]
    assert table.character("Ruth").fate_points == 1     # Deep Shadows and Hungry; Monster Hunter refunded


def test_a_plain_roll_takes_no_invokes():
    from .builders import roll as plain
    cmd = plain(count=4)
    before, _, result = rolled(cmd, "0000")
    with pytest.raises(RulesError, match="takes no invokes"):
        reresolve(cmd, copy.deepcopy(before), throws_of(result), "Ruth", extra_invokes=[Invoke("Deep Shadows")], system=FATE_CONDENSED)


# -- someone else's open roll ---------------------------------------------------------------

def test_an_ally_invokes_for_plus_two_and_pays_for_it():
    cmd = attack("Ghoul", "Fight")
    before, _, result = rolled(cmd, "0-00,0000")
    table = copy.deepcopy(before)
    again = reresolve(cmd, table, throws_of(result), "Ruth", extra_invokes=[AfterInvoke(Invoke("Deep Shadows"), "Charles")], system=FATE_CONDENSED)
    assert again.effort.total == result.effort.total + 2
    assert again.effort.modifiers[-1] == Modifier("invoke", "Deep Shadows (fate point, by Charles)", 2)
    assert again.effort.invokes == [InvokeUse("Deep Shadows", "bonus", "fp", "Charles")]
    assert table.character("Charles").fate_points == 2 and table.character("Ruth").fate_points == 3
    assert Change("fate_points", "Charles", 3, 2, "invoking Deep Shadows") in again.changes


def test_an_ally_s_invoke_keeps_the_roller_s_own_modifier():
    cmd = attack("Ghoul", "Fight", modifier=1)
    before, _, result = rolled(cmd, "0000,0000")
    again = reresolve(cmd, copy.deepcopy(before), throws_of(result), "Ruth",
                      extra_invokes=[AfterInvoke(Invoke("Deep Shadows"), "Charles")], system=FATE_CONDENSED)
    assert [m.source for m in again.effort.modifiers] == ["skill", "modifier", "invoke"]
    assert again.effort.modifiers[1] == Modifier("modifier", "modifier", 1)
    assert again.effort.total == 4 + 1 + 2 and again.shifts == again.effort.total - again.opposition.value


def test_the_opposing_side_raises_the_difficulty():
    """The Ghoul invokes Ruth's own Hair-Trigger Temper against her attack: +2 to its
    defence, paid by the Ghoul; a hostile invoke, so Ruth is owed that point."""
    cmd = attack("Ghoul", "Fight")
    before, _, result = rolled(cmd, "0000,0000")
    assert effect(result, "hit").data["shifts"] == 2
    table = copy.deepcopy(before)
    again = reresolve(cmd, table, throws_of(result), "Ruth",
                      extra_invokes=[AfterInvoke(Invoke("Hair-Trigger Temper", mode=InvokeMode.OPPOSE), "Ghoul")], system=FATE_CONDENSED)
    assert again.effort.total == result.effort.total
    assert again.opposition.value == 4 and again.opposition.effort.modifiers[-1].value == 2
    assert again.outcome is Outcome.TIE and "boost" in effects(again)
    assert table.character("Ghoul").fate_points == 0
    ledger = FateLedger()
    owe_from_result(ledger, again)
    assert [(o.to, o.points) for o in ledger.owed] == [("Ruth", 1)]


def test_oppose_against_a_passive_difficulty():
    cmd = overcome("Athletics", opposition=Opposition(rating=2))
    before, _, result = rolled(cmd, "0000")
    again = reresolve(cmd, copy.deepcopy(before), throws_of(result), "Ruth",
                      extra_invokes=[AfterInvoke(Invoke("Deep Shadows", mode=InvokeMode.OPPOSE), "Ghoul")], system=FATE_CONDENSED)
    assert again.opposition.value == 4 and again.shifts == -1 and again.outcome is Outcome.FAIL
    assert "Deep Shadows" in again.opposition.label


def test_only_the_roller_rerolls_their_dice():
    cmd = attack("Ghoul", "Fight")
    before, _, result = rolled(cmd, "0000,0000")
    with pytest.raises(RulesError, match="only Ruth can reroll Ruth's dice"):
        reresolve(cmd, copy.deepcopy(before), throws_of(result), "Ruth",
                  extra_invokes=[AfterInvoke(Invoke("Deep Shadows", mode=InvokeMode.REROLL), "Charles")], system=FATE_CONDENSED)


def test_the_opponent_cannot_help_the_roll_it_opposes():
    cmd = attack("Ghoul", "Fight")
    before, _, result = rolled(cmd, "0000,0000")
    with pytest.raises(RulesError, match="Ghoul opposes this roll"):
        reresolve(cmd, copy.deepcopy(before), throws_of(result), "Ruth",
                  extra_invokes=[AfterInvoke(Invoke("Hungry"), "Ghoul")], system=FATE_CONDENSED)


def test_once_per_roll_counts_everyone_who_pays():
    cmd = attack("Ghoul", "Fight", invokes=(Invoke("Deep Shadows"),))
    before, _, result = rolled(cmd, "0000,0000")
    with pytest.raises(RulesError, match="once per roll"):
        reresolve(cmd, copy.deepcopy(before), throws_of(result), "Ruth",
                  extra_invokes=[AfterInvoke(Invoke("Deep Shadows", mode=InvokeMode.OPPOSE), "Ghoul")], system=FATE_CONDENSED)


def test_an_ally_with_no_points_and_no_free_invoke_is_refused():
    def broke(table):
        table.character("Charles").fate_points = 0

    cmd = attack("Ghoul", "Fight")
    before, _, result = rolled(cmd, "0000,0000", prepare=broke)
    with pytest.raises(RulesError, match="Charles has 0 fate points"):
        reresolve(cmd, copy.deepcopy(before), throws_of(result), "Ruth",
                  extra_invokes=[AfterInvoke(Invoke("Deep Shadows"), "Charles")], system=FATE_CONDENSED)


def test_an_ally_can_spend_their_own_free_invoke():
    def free(table):
        table.find_aspect("Deep Shadows").free_invokes["Charles"] = 1

    cmd = attack("Ghoul", "Fight")
    before, _, result = rolled(cmd, "0000,0000", prepare=free)
    table = copy.deepcopy(before)
    again = reresolve(cmd, table, throws_of(result), "Ruth", extra_invokes=[AfterInvoke(Invoke("Deep Shadows"), "Charles")], system=FATE_CONDENSED)
    assert again.effort.invokes[0].paid_with == "free" and again.effort.invokes[0].holder == "Charles"
    assert table.character("Charles").fate_points == 3 and table.find_aspect("Deep Shadows").free_for("Charles") == 0


def test_changes_between_a_result_and_itself_is_empty():
    cmd = attack("Ghoul", "Fight")
    before, _, result = rolled(cmd, "0000,0000")
    again = reresolve(cmd, copy.deepcopy(before), throws_of(result), "Ruth", system=FATE_CONDENSED)
    assert changes_between(result, again, FATE_CONDENSED.explain) == []


# -- dice -----------------------------------------------------------------------------------

def test_throws_of_follows_the_order_resolve_draws():
    cmd = overcome("Stealth", opposition=Opposition(character="Ghoul"),
                   invokes=(Invoke("Deep Shadows", mode=InvokeMode.REROLL),))
    _, _, result = rolled(cmd, "----,+000,++++")
    assert throws_of(result) == [(-1, -1, -1, -1), (1, 0, 0, 0), (1, 1, 1, 1)]


def test_replay_dice_replays_then_draws_fresh():
    dice = ReplayDice([(0, 0, 0, 0), None, (1, 1, 1, 1)], then=FixedDice("-+-+,----"))
    assert [dice.fate(4) for _ in range(4)] == [(0, 0, 0, 0), (-1, 1, -1, 1), (1, 1, 1, 1), (-1, -1, -1, -1)]
    assert dice.drawn[1] == (-1, 1, -1, 1)
    with pytest.raises(DiceExhausted):
        ReplayDice([]).fate(4)
    with pytest.raises(DiceMismatch):
        ReplayDice([(0, 0, 0)]).fate(4)


# -- the window -----------------------------------------------------------------------------

def test_a_roll_stays_open_until_the_next_action_done_or_the_window():
    window = RollWindow(timedelta(hours=12))
    facts = RollFacts(rolled_at=NOW)
    assert closed_because(facts, NOW + timedelta(hours=11), window) is None
    assert closed_because(facts, NOW + timedelta(hours=12), window) == window.passed
    assert closed_because(RollFacts(NOW, next_action_started=True), NOW, window) == NEXT_ACTION
    assert closed_because(RollFacts(NOW, actor_done=True), NOW, window) == ROLLER_DONE
    assert closed_because(facts, NOW + timedelta(days=30), RollWindow()) is None
