"""Teamwork by mail (Fate Condensed, "Teamwork" and "Turn Order", 001_0095f60d590caa10.txt):
help declared before the ally's roll, asked for by the ally and confirmed, added to an open
roll after the dice; in a conflict, helping takes the helper's turn, or gives up a turn
still to come."""
from __future__ import annotations

from datetime import timedelta

from pbp.play.state import load_play
from pbp.store import models as m
from tests.play.conftest import state_snapshot


def play(chicago):
    return load_play(m.Campaign.get_by_id(chicago.id).play)


def test_help_declared_before_the_roll(mt, chicago):
    """Charles (Athletics Good +3) climbs; Ruth (+3) and Ethan (+2) help: +2, not over +3."""
    assert mt.post("Ruth", "/help Charles").status == "applied"
    assert "Ruth will help Charles's next roll" in mt.steps[-1].text
    mt.post("Ethan", "/help Charles")
    step = mt.post("Charles", "/overcome Athletics vs Superb", dice="0000")
    assert step.status == "applied"
    text = step.text
    assert "Ruth (teamwork)" in text and "Ethan (teamwork)" in text
    assert "Ruth helps with Athletics Good (+3): +1" in text
    assert "+5 Superb" in text and "tie" in text
    assert "Ruth and Ethan helped Charles, so the same cost falls on Ruth and Ethan" in text
    assert play(chicago).helps == []


def test_the_cap_is_said(mt):
    """Cassandra's Drive Average (+1) with Charles, Ethan and Ruth... only Charles and Ethan
    have Drive +1, Ruth none: +1 from the first, the cap for the next, nothing from Ruth."""
    mt.post("Charles", "/help Cassandra")
    mt.post("Ethan", "/help Cassandra")
    mt.post("Ruth", "/help Cassandra")
    text = mt.post("Cassandra", "/overcome Drive vs Fair", dice="0000").text
    assert "Charles helps with Drive Average (+1): +1" in text
    assert "Ethan helps, but the cap bites" in text
    assert "Ruth helps, but Ruth's Drive is Mediocre (+0): no +1" in text
    assert "+2 Fair" in text


def test_asked_and_confirmed(mt, chicago):
    step = mt.post("Charles", "/help from Ruth, Ethan")
    assert step.status == "applied"
    assert any("Ruth, to help Charles's next roll reply /help Charles by" in r.text for r in step.replies)
    mt.post("Ruth", "/help Charles", reply_to=step)
    text = mt.post("Charles", "/overcome Athletics vs Great", dice="0000").text
    assert "Ruth (teamwork)" in text and "Ethan" not in text.split("Waiting for")[0].split("effort")[0]
    # Ethan confirms after the roll: his help is added to the open roll
    late = mt.post("Ethan", "/help Charles")
    assert late.status == "applied"
    assert "Ethan helps Charles's roll after the dice." in late.text
    assert "+5 Superb" in late.text


def test_an_unconfirmed_request_lapses(mt, chicago):
    mt.post("Charles", "/help from Ruth")
    assert play(chicago).next_deadline() is not None
    step = mt.tick(mt.now + timedelta(hours=49))
    assert any("Ruth did not confirm" in r.text for r in step.replies)
    assert play(chicago).helps == []


def test_help_on_an_open_roll_by_id(mt):
    first = mt.post("Charles", "/overcome Athletics vs Great", dice="0000")
    assert "fail" in first.text
    step = mt.post("Ruth", "/help Charles on #1")
    assert step.status == "applied" and "Roll #1 revised" in step.text and "tie" in step.text


def test_refusals_change_nothing(mt, chicago):
    before = state_snapshot(chicago)
    assert mt.post("Ruth", "/help me").status == "rejected"
    assert mt.post("Ruth", "/help Ruth").status == "rejected"
    assert mt.post("Ruth", "/help Nobody").status == "rejected"
    assert state_snapshot(chicago) == before
    mt.post("Charles", "/help Ethan")
    text = mt.post("Ethan", "/overcome Athletics vs Fair", dice="0000")
    assert text.status == "rejected"
    assert "Charles's Athletics is Good (+3), higher than Ethan's Fair (+2)" in text.text
    assert "/help Charles" in text.text


def test_in_a_conflict_help_takes_the_turn(mt, chicago):
    mt.post("GM", '/scene start "Alley"')
    mt.post("GM", "/conflict start Ruth, Charles, Ghoul first Ruth")
    step = mt.post("Ruth", "/help Charles")
    assert step.status == "applied" and "Ruth uses their turn to help" in step.text
    assert mt.post("Ruth", "/next Charles").status == "applied"
    text = mt.post("Charles", "/overcome Athletics vs Great", dice="0000").text
    assert "Ruth (teamwork)" in text


def test_in_a_conflict_a_helper_gives_up_a_later_turn(mt, chicago):
    mt.post("GM", '/scene start "Alley"')
    mt.post("GM", "/conflict start Ruth, Charles, Ghoul first Charles")
    roll = mt.post("Charles", "/overcome Athletics vs Great", dice="0000")
    step = mt.post("Ruth", "/help Charles", reply_to=roll)
    assert step.status == "applied"
    assert "Ruth gives up their turn this exchange to help" in step.text
    conflict = play(chicago).conflict
    assert "Ruth" in conflict.turns.acted
    again = mt.post("Ruth", "Once more.\n/help Charles on #1")
    assert again.status == "rejected" and "already helps this roll" in again.text


def test_a_help_out_of_turn_before_the_roll_is_refused(mt, chicago):
    mt.post("GM", '/scene start "Alley"')
    mt.post("GM", "/conflict start Ruth, Charles, Ghoul first Charles")
    step = mt.post("Ruth", "/help Charles")
    assert step.status == "rejected" and "it is Charles's turn" in step.text


def test_invoking_an_aspect_on_an_allys_behalf_while_the_roll_is_open(mt, chicago):
    """"You can invoke an aspect on your ally's behalf to improve their roll at any time":
    Ruth pays for +2 on Charles's open roll."""
    mt.post("Charles", "/overcome Athletics vs Great", dice="0000")
    step = mt.post("Ruth", '/invoke "Knife Up My Sleeve" on #1')
    assert step.status == "applied" and "Ruth invokes Knife Up My Sleeve for +2 on Charles's roll" in step.text
    assert "success" in step.text
