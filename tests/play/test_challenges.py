"""Challenges by mail (Fate Condensed, "Challenges", 001_0095f60d590caa10.txt): tasks taken
with the ordinary /overcome, the board in every reply, the GM's summary at the end."""
from __future__ import annotations

from pbp.play.state import load_play
from pbp.store import models as m
from tests.play.conftest import state_snapshot


def challenge(chicago):
    return load_play(m.Campaign.get_by_id(chicago.id).play).challenge


def gm_mail(step):
    return [r for r in step.replies if r.to == ["gm@pbp.localhost"] and "summary" in r.subject]


def test_every_task_taken_ends_it_at_once(mt, chicago):
    mt.post("GM", '/challenge start Vault tasks Burglary vs Good, Notice vs Ghoul')
    mt.post("Ethan", "/overcome Burglary", dice="0000")
    assert challenge(chicago).tasks[0].state == "done"
    # an opposing character: the Ghoul resists with Stealth (+2) against Notice
    step = mt.post("Ruth", "/overcome Notice", dice="----,0000")
    assert "vs     Ghoul: Stealth Fair (+2)" in step.text
    assert 'Challenge "Vault" is over (every task has been taken): 1 done, 0 at a cost, 1 failed' in step.text
    assert len(gm_mail(step)) == 1 and "Failures:\n  2. Notice vs Ghoul: failed by Ruth (failure)" in gm_mail(step)[0].text
    assert challenge(chicago) is None


def test_an_invoke_after_the_dice_revises_the_task(mt, chicago):
    mt.post("GM", '/challenge start Vault tasks Athletics vs Great, Lore vs Fair')
    mt.post("Ruth", "/overcome Athletics", dice="0000")
    assert challenge(chicago).tasks[0].state == "failed"
    step = mt.post("Ruth", '/invoke "Knife Up My Sleeve"')
    assert step.status == "applied"
    assert "Task 1. Athletics vs Great (+4) is now done by Ruth (success)." in step.text
    assert challenge(chicago).tasks[0].state == "done"


def test_the_difficulty_is_the_tasks(mt, chicago):
    mt.post("GM", '/challenge start Vault tasks Athletics vs Great')
    before = state_snapshot(chicago)
    step = mt.post("Ruth", "/overcome Athletics vs Fair", dice="0000")
    assert step.status == "rejected" and "the difficulty is the task's" in step.text
    assert "/overcome Athletics" in step.text
    assert state_snapshot(chicago) == before
    assert mt.post("Ruth", "/overcome Athletics vs Great", dice="0000").status == "applied"


def test_other_overcomes_are_ordinary(mt, chicago):
    mt.post("GM", '/challenge start Vault tasks Athletics vs Great')
    step = mt.post("Ruth", "/overcome Notice vs Fair", dice="0000")
    assert step.status == "applied" and "task" not in step.text.split("Challenge")[0]
    assert challenge(chicago).tasks[0].state == "open"


def test_the_gm_ends_it(mt, chicago):
    mt.post("GM", '/challenge start Vault tasks Athletics vs Great')
    step = mt.post("GM", "/challenge end")
    assert "0 done, 0 at a cost, 0 failed, 1 not taken" in step.text and len(gm_mail(step)) == 1
    assert mt.post("GM", "/challenge end").status == "rejected"


def test_refusals(mt, chicago):
    before = state_snapshot(chicago)
    assert mt.post("Ruth", '/challenge start Vault tasks Athletics vs Great').status == "rejected"
    step = mt.post("GM", '/challenge start Vault tasks Swimming vs Great')
    assert step.status == "rejected" and '"Swimming" is not a Fate Condensed skill' in step.text
    assert mt.post("GM", '/challenge start Vault tasks Athletics vs Nobody').status == "rejected"
    assert state_snapshot(chicago) == before
    mt.post("GM", '/challenge start Vault tasks Athletics vs Great')
    assert mt.post("GM", '/challenge start Again tasks Lore vs Fair').status == "rejected"
