"""``/cost #ROLL minor|severe ["what happens"]``: the GM attaches a cost to a failure or a tie
(004_c619695e1641b466.txt, "The Four Actions": Overcome, "FAILURE: You fail, sometimes with an
additional cost"; Attack, "FAILURE: You don't cause any harm to your target, and there may be an
additional cost"; "Defining Costs": "Many failures or ties come with COSTS ... they typically
occur on failures or ties"; a severe cost has "only two ways to trigger this": a catastrophic
failure, or a failure turned into a success). The cost is the cost request kind of
pbp.play.costs: named at once with the text, or waiting for /approve with the deadline's
default without it (docs/commands.md, "Costs")."""
from __future__ import annotations

from datetime import timedelta

import pytest

from pbp.store import models as m
from tests.play.conftest import state_snapshot
from tests.play.table import MailTable

FAIL = ('/overcome "Study Carefully" vs 4\n', "8 2 2 2 2")      # Study 2 + Carefully 3: 1 hit vs 4, a failure
SUCCESS = ('/overcome "Study Carefully" vs 1\n', "8 9 2 2 2")   # 2 hits vs 1: a success


def _fail(t: MailTable):
    step = t.post("Charles", FAIL[0], dice=FAIL[1])
    assert step.status == "applied", step.text
    assert "=> fail" in step.text and "Cost #" not in step.text     # a plain failure owes no cost
    return step


def test_the_gm_names_a_minor_cost_on_a_failure(scrapyard, config):
    t = MailTable(config)
    _fail(t)
    step = t.post("GM", '/cost #1 minor "the crawler\'s alarm goes off"\n')
    assert step.status == "applied", step.text
    assert "Cost #2 on Charles (minor): the crawler's alarm goes off." in step.text
    play = m.Campaign.get(m.Campaign.slug == "scrap").play
    assert "cost #2 is already approved" in str(play)
    # the JSON is the /cost's own (issue 21): its command is the line the GM wrote
    [result] = step.outcome.results
    assert (result["command"], result["action"]) == ('/cost #1 minor "the crawler\'s alarm goes off"', "cost")


def test_without_the_text_the_cost_waits_and_the_default_applies(scrapyard, config):
    t = MailTable(config)
    _fail(t)
    step = t.post("GM", "/cost #1 minor\n")
    assert step.status == "applied", step.text
    assert "Cost #2 (minor) on Charles's overcome with Study waits for the GM to name it." in step.text
    assert '/approve #2 "the alarm goes off"' in step.text
    tick = t.tick(t.now + timedelta(days=3))
    assert any("Cost #2 was not named by the deadline: the default applies, the GM's side gains a boost" in r.text
               for r in tick.replies), [r.text for r in tick.replies]


def test_the_waiting_cost_is_named_with_approve(scrapyard, config):
    t = MailTable(config)
    _fail(t)
    t.post("GM", "/cost #1 minor\n")
    step = t.post("GM", '/approve #2 "a patrol hears the clatter"\n')
    assert step.status == "applied", step.text
    assert "Cost #2 on Charles (minor): a patrol hears the clatter." in step.text


@pytest.mark.parametrize("who, line, setup, message, example", [
    ("GM", '/cost #1 minor "x"', SUCCESS, "roll #1 (Charles's overcome with Study) is a success: a cost comes with "
     "a failure or a tie", "/table"),      # no roll here takes a cost: the table shows what is open
    ("GM", '/cost #1 severe "reinforcements"', FAIL, "is a failure: a severe cost comes only from a catastrophic "
     "failure", '/cost #1 minor "reinforcements"'),
    ("GM", '/cost #7 minor "x"', FAIL, "there is no open roll #7", '/cost #1 minor "the alarm goes off"'),
    ("Charles", '/cost #1 minor "x"', FAIL, "/cost is for the GM", "/table"),   # never a GM's command
])
def test_refusals_name_the_place_and_leave_the_state(scrapyard, config, who, line, setup, message, example):
    t = MailTable(config)
    step = t.post("Charles", setup[0], dice=setup[1])
    assert step.status == "applied", step.text
    before = state_snapshot(scrapyard)
    play_before = m.Campaign.get(m.Campaign.slug == "scrap").play
    step = t.post(who, line + "\n")
    assert step.status == "rejected", step.text
    assert message in step.text, step.text
    assert f"example:  {example}" in step.text and "Traceback" not in step.text
    assert state_snapshot(scrapyard) == before
    assert m.Campaign.get(m.Campaign.slug == "scrap").play == play_before


def test_a_tie_already_owes_its_cost(scrapyard, config):
    """A tie opens its minor cost by itself ("TIE: Partial success, or success with a minor
    cost"); /cost on it points to that one."""
    t = MailTable(config)
    t.post("Charles", '/overcome "Study Carefully" vs 2\n', dice="8 9 2 2 2")
    step = t.post("GM", '/cost #1 minor "the alarm"\n')
    assert step.status == "rejected"
    assert "cost #2 already waits on roll #1" in step.text and 'example:  /approve #2 "the alarm"' in step.text


def test_a_catastrophic_failure_may_take_a_severe_cost(scrapyard, config):
    """"a catastrophic failure gives the GM the option to escalate to a severe cost": the
    cost it opened is denied, and the GM puts a severe one on it by /cost."""
    t = MailTable(config)
    step = t.post("Charles", '/overcome "Study Carefully" vs 2\n', dice="1 1 2 2 2")   # -2 hits
    assert "Negative hits: a catastrophic failure" in step.text
    t.post("GM", "/deny #2\n")
    step = t.post("GM", '/cost #1 severe "the crawler\'s engine dies"\n')
    assert step.status == "applied", step.text
    assert "Cost #3 on Charles (severe): the crawler's engine dies." in step.text


def test_a_closed_roll_is_refused(scrapyard, config):
    t = MailTable(config)
    _fail(t)
    t.post("Charles", '/overcome "Study Carefully" vs 1\n', dice="8 9 2 2 2")     # Charles rolls again: #1 closes
    step = t.post("GM", '/cost #1 minor "x"\n')
    assert step.status == "rejected"
    assert "roll #1 is closed: Charles has rolled again; a cost is put on a roll while it is open" in step.text


def test_fate_condensed_leaves_costs_to_the_narration(mt, chicago):
    step = mt.post("Ruth", "/overcome Investigate vs Fair\n", dice="----")
    assert step.status == "applied", step.text
    step = mt.post("GM", '/cost #1 minor "the alarm"\n')
    assert step.status == "rejected"
    assert "Fate Condensed leaves costs to the GM's narration" in step.text
    assert 'example:  /aspect add "Alarm Blaring"' in step.text


def test_a_tie_reached_by_an_invoke_after_the_dice_opens_its_cost(scrapyard, config):
    """A failure invoked up to a tie after the dice owes the tie's minor cost, as a tie
    rolled directly does (004_c619695e1641b466.txt, "Interpreting Results": "TIE: Partial
    success, or success with a minor cost"; an invoke is "+1 hit")."""
    t = MailTable(config)
    rolled = t.post("Charles", '/overcome "Study Carefully" vs 2\n', dice="8 2 2 2 2")    # 1 hit vs 2
    assert rolled.status == "applied" and "=> fail" in rolled.text and "Cost #" not in rolled.text
    step = t.post("Charles", '/invoke "Friends in the Motor Pool" on #1\n')
    assert step.status == "applied", step.text
    assert "tie" in step.text and "Cost #" in step.text and "waits for the GM to name it" in step.text, step.text
    named = t.post("GM", '/approve #3 "the alarm goes off"\n')
    assert named.status == "applied", named.text
    assert "the alarm goes off" in named.text
