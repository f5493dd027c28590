"""Roll ids are reserved when a roll is made (issue 9 item 6): the action step gives each roll
its number from the campaign's one counter (``pbp.play.core.number_roll``), so play knows it
before the ledger writes anything, and the ledger only records it. Ids go in the order things
are made, never twice, and a command whose changes are thrown away gives its ids back
(docs/commands.md, "Ids"; docs/architecture.md, "The order of an action")."""
from __future__ import annotations

import copy
import re
from datetime import timedelta

import pytest

from pbp import pipeline
from pbp.flow.commit import open_post
from pbp.demo import create_sample_campaign
from pbp.errors import RulesError
from pbp.parser import parse_command
from pbp.play import apply_command, held
from pbp.play.core import Author
from pbp.play.invoking import open_roll_refs
from pbp.play.state import Held, load_play
from pbp.rules.results import ActionResult
from pbp.store import models as m
from pbp.store import repo
from tests.helpers import FIXED_NOW, make_ctx
from tests.play.conftest import state_snapshot
from tests.play.table import MailTable


@pytest.fixture
def before_ledger(monkeypatch):
    """What play held when the post's commands had applied, before the ledger wrote a row:
    the play state, the ledger's size and each roll's id (the pipeline is only watched)."""
    seen = []
    apply = pipeline.apply_post

    def watched(post, commands):
        results = apply(post, commands)
        seen.append({"play": copy.deepcopy(post.play), "rows": m.RollRecord.select().count(),
                     "ids": [r.roll_id for r in results if isinstance(r, ActionResult)]})
        return results

    monkeypatch.setattr(pipeline, "apply_post", watched)
    return seen


def shown(step) -> list[int]:
    """The roll ids the table's reply shows under its results (``roll #N · ledger ...``)."""
    return [int(n) for n in re.findall(r"roll #(\d+) · ledger", step.text)]


def ledger_numbers(campaign) -> list[int]:
    rows = m.RollRecord.select().where(m.RollRecord.campaign == campaign).order_by(m.RollRecord.id)
    return [repo.roll_number(r) for r in rows]


def play_of(campaign):
    return load_play(m.Campaign.get_by_id(campaign.id).play)


# -- known to play before the ledger ---------------------------------------------------------------

def test_a_pending_defence_and_the_open_roll_know_the_attacks_id_before_the_ledger(mt, chicago, before_ledger):
    step = mt.post("GM", "/as Ghoul attack Charles with Fight\n", dice="++00")
    assert step.status == "applied", step.text
    seen = before_ledger[-1]
    assert seen["rows"] == 0                              # nothing in the ledger yet
    (roll,) = seen["ids"]
    (pending,) = seen["play"].pending
    assert pending.kind == "defend" and pending.roll_id == roll
    assert [r.ids for r in open_roll_refs(seen["play"])] == [(roll,)]
    assert shown(step) == [roll] and ledger_numbers(chicago) == [roll]
    assert f"(#{pending.id})" in step.text and pending.id == roll + 1


def test_an_absorption_knows_the_defence_roll_it_hangs_on(mt, chicago, before_ledger):
    mt.post("GM", "/as Ghoul attack Charles with Fight\n", dice="++++")     # Fight Fair (+2) + 4: Superb
    step = mt.post("Charles", "/defend Athletics\n", dice="0000")
    assert step.status == "applied", step.text
    (roll,) = before_ledger[-1]["ids"]
    (pending,) = before_ledger[-1]["play"].pending
    assert pending.kind == "absorb" and pending.roll_id == roll and shown(step) == [roll]


def test_a_challenge_task_keeps_its_rolls_id(mt, chicago, before_ledger):
    mt.post("GM", '/challenge start Vault tasks Burglary vs Good, Notice vs Ghoul')
    step = mt.post("Ethan", "/overcome Burglary", dice="0000")
    assert step.status == "applied", step.text
    seen = before_ledger[-1]
    (roll,) = seen["ids"]
    assert seen["play"].challenge.tasks[0].roll == roll and shown(step) == [roll]
    assert play_of(chicago).challenge.tasks[0].roll == roll


def test_a_bonus_request_names_its_roll_before_the_ledger(mt, chicago, before_ledger):
    step = mt.post("Ruth", "/overcome Athletics vs Great +2\n", dice="0000")
    assert step.status == "applied", step.text
    seen = before_ledger[-1]
    (roll,) = seen["ids"]
    (request,) = seen["play"].details
    assert request.kind == "bonus" and request.data["roll"] == roll and request.id == roll + 1
    assert shown(step) == [roll] and f"bonus request #{request.id}" in step.text


def test_a_cost_request_names_its_roll_before_the_ledger(scrapyard, config, before_ledger):
    """The d10 hack, "Defining Costs" (004_c619695e1641b466.txt): a tie costs something minor;
    Study 2 + Carefully 3 is five d10s, 8 and 9 two hits against 2: a tie."""
    t = MailTable(config)
    step = t.post("Charles", '/overcome "Study Carefully" vs 2\n', dice="8 9 2 2 2")
    assert step.status == "applied", step.text
    seen = before_ledger[-1]
    (roll,) = seen["ids"]
    (request,) = seen["play"].details
    assert request.kind == "cost" and request.data["roll"] == roll and request.id == roll + 1
    assert shown(step) == [roll] and f"Cost #{request.id} (minor) waits for the GM" in step.text


def test_a_held_spin_carries_its_rolls_id(db, config, before_ledger):
    """Early Fate, "Spin" (002_3a4e52a093e280aa.txt): Jet's Fists Great (+4) ++0+ is Epic (+7)
    against the Brute's Good (+3): 4 shifts, a spin held under the roll's id."""
    create_sample_campaign("early-fate")
    t = MailTable(config)
    assert t.post("GM", '/scene start "Pier 9"\n/conflict start Jet, Mara, Brute, Knifeman first Jet\n').status == "applied"
    step = t.post("Jet", "/attack Brute with Fists\n/next Mara", dice="++0+,0000")
    assert step.status == "applied", step.text
    seen = before_ledger[-1]
    (roll,) = seen["ids"]
    (spin,) = seen["play"].spins
    assert spin.roll == roll and shown(step) == [roll]
    assert f"Jet's spin #{roll}, held until" in step.text


# -- one counter, in the order made, no gaps --------------------------------------------------------

def test_ids_are_unique_and_increase_across_a_post_with_several_rolls_and_requests(mt, chicago, before_ledger):
    first = mt.post("GM", "/as Ghoul attack Charles with Fight\n/as Ghoul attack Ruth with Fight\n", dice="0000,0000")
    assert first.status == "applied", first.text
    rolls = before_ledger[-1]["ids"]
    pending = sorted(before_ledger[-1]["play"].pending, key=lambda p: p.id)
    # each attack's roll, then the defence it waits for
    assert rolls == [1, 3] and [(p.id, p.roll_id) for p in pending] == [(2, 1), (4, 3)]
    second = mt.post("Ethan", "/overcome Burglary vs Great +1\n/overcome Notice vs Great +2\n", dice="0000,0000")
    assert second.status == "applied", second.text
    play = before_ledger[-1]["play"]
    assert before_ledger[-1]["ids"] == [5, 7]
    assert [(d.id, d.data["roll"]) for d in play.details] == [(6, 5), (8, 7)]
    assert shown(first) + shown(second) == [1, 3, 5, 7] == ledger_numbers(chicago)
    assert play_of(chicago).next_id == 9
    compel = mt.post("GM", '/compel Ruth "Hair-Trigger Temper" event "The bouncer\'s jibe sets you off"\n')
    assert "Compel #9" in compel.text


def test_a_re_run_takes_a_new_id_for_its_ledger_row_and_keeps_the_rolls(mt, chicago):
    """An invoke after the dice: the roll is still #1 to players, in the text, the footer and
    the results (issue 27: "Roll #5 revised" above a footer "roll #6"); its re-run's ledger
    row has an id of its own (docs/commands.md, "Ids"; docs/json.md, ``ledger_id``)."""
    roll = mt.post("Ruth", "/overcome Athletics vs Great\n", dice="0000")
    again = mt.post("Ruth", '/invoke "Knife Up My Sleeve"\n')
    assert again.status == "applied", again.text
    assert "Roll #1 revised" in again.text
    assert again.outcome.results[0]["roll_id"] == 1 and shown(again) == [1]
    assert again.outcome.results[0]["ledger_id"] == 2 and "roll #2" not in again.text
    assert ledger_numbers(chicago) == [1, 2]
    assert [r.ids for r in open_roll_refs(play_of(chicago))] == [(1, 2)]
    assert roll.outcome.results[0]["roll_id"] == 1


def test_a_roll_revised_in_the_post_that_made_it_is_named_by_its_id(mt, chicago):
    """The roll's id is known at once, so a revision in the same post names it (it used to be
    "the roll above")."""
    step = mt.post("Ruth", '/overcome Athletics vs Great\n/invoke "Knife Up My Sleeve"\n', dice="0000")
    assert step.status == "applied", step.text
    assert "Roll #1 revised" in step.text and shown(step) == [1, 1] and ledger_numbers(chicago) == [1, 2]
    assert "roll #2" not in step.text


def test_a_refused_post_leaves_no_gap(mt, chicago):
    before = state_snapshot(chicago)
    refused = mt.post("Ruth", '/overcome Athletics vs Fair\n/invoke "No Such Aspect"\n', dice="0000")
    assert refused.status == "rejected"
    assert state_snapshot(chicago) == before
    step = mt.post("Ruth", "/overcome Athletics vs Fair\n", dice="0000")
    assert step.outcome.results[0]["roll_id"] == 1 and ledger_numbers(chicago) == [1]


def test_a_held_action_dropped_gives_its_ids_back(chicago, config):
    """``hold_out_of_turn``: a held action that fails when its turn comes is dropped with
    everything it did, the ids it took among them (pbp.play.held)."""
    campaign = m.Campaign.get_by_id(chicago.id)
    ctx = make_ctx(config, "0000,0000")
    post = open_post(campaign, Author("gm@pbp.localhost", "gm"), ctx)
    start = post.play.next_id
    cmd = parse_command('/as Ghoul attack Charles with Fight')
    due = Held(id=0, who="Ghoul", author="gm@pbp.localhost", role="gm", cmd=cmd, at=FIXED_NOW - timedelta(hours=1))
    took = []

    def fails_after_rolling(post, cmd):
        took.append(apply_command(post, cmd))       # the attack rolls (an id), a defence waits (another)
        raise RulesError("the action no longer applies", expected="x", example="/sheet")

    out = held._run(post, due, fails_after_rolling)
    assert took[0].roll_id == start and "is dropped" in out[0].text
    assert post.play.next_id == start and post.play.pending == [] and post.play.open_rolls == []
    result = apply_command(post, parse_command("/as Ghoul overcome Fight vs Fair"))
    assert result.roll_id == start


def test_the_ledger_refuses_a_roll_that_took_no_id(mt, chicago, monkeypatch):
    """The ledger numbers nothing itself: a roll that reached it without an id is pbp's bug,
    and the post is not applied (its author is told)."""
    from pbp.play import core

    monkeypatch.setattr(core, "number_roll", lambda post, result: result)
    before = state_snapshot(chicago)
    step = mt.post("Ruth", "/overcome Athletics vs Fair\n", dice="0000")
    assert step.status == "rejected" and step.outcome.errors[0]["type"] == "InternalError"
    assert state_snapshot(chicago) == before
