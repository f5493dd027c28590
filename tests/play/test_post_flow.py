"""A post that reads naturally is applied: a command that an earlier command of the same
post made moot (the attack that ended the conflict, then ``/next``) is skipped with a note,
and the reply's footer tells the state after the whole post. Anything else still refuses
the whole post."""
from __future__ import annotations

import pytest

from datetime import timedelta

from pbp.campaigns import set_campaign
from pbp.store import models as m
from tests.play.conftest import state_snapshot

SETUP = """\
/scene start "Warehouse" zones Dock, Floor borders Dock-Floor
/place Ruth in Dock
/place Cassandra in Dock
/place "Masked Acolyte" in Dock
/place Ghoul in Floor
"""


@pytest.fixture
def duel(mt):
    step = mt.post("GM", SETUP + '/conflict start Ruth, Cassandra, "Masked Acolyte" first Ruth\n')
    assert step.status == "applied", step.outcome.errors
    return mt


def test_attack_that_ends_the_conflict_then_next_is_applied_with_a_note(duel):
    # Ruth's Fight +4 and ++++ against the acolyte's Athletics +1 and ----: 11 shifts, a
    # minor NPC with two stress boxes is taken out, the NPC side is all out, the conflict ends.
    step = duel.post("Ruth", 'Ruth drives the acolyte into the crates.\n'
                             '/attack "Masked Acolyte" with Fight\n/next Cassandra\n', dice="++++,----")
    assert step.status == "applied", step.text
    assert "Masked Acolyte is taken out" in step.text
    assert "Skipped (line 3): the conflict ended earlier in this post, so there is no conflict going on." \
        in step.text
    assert "Turn:" not in step.text               # the footer is the state after the post
    assert len(step.replies) == 1 and step.replies[0].to != ["ruth@pbp.localhost"]


def test_the_same_next_without_the_ending_is_still_refused(mt, chicago):
    """No conflict at the start of the post: /next is a real error, the post is refused."""
    assert mt.post("GM", SETUP).status == "applied"
    before = state_snapshot(chicago)
    step = mt.post("Ruth", "/overcome Athletics vs Fair\n/next Cassandra\n", dice="0000")
    assert step.status == "rejected"
    assert "there is no conflict going on" in step.text and "line 2" in step.text
    assert state_snapshot(chicago) == before


def test_handing_the_turn_to_someone_just_taken_out_is_skipped(mt):
    step = mt.post("GM", SETUP + '/conflict start Ruth, Cassandra, "Masked Acolyte", Ghoul first Ruth\n')
    assert step.status == "applied", step.text
    step = mt.post("Ruth", '/attack "Masked Acolyte" with Fight\n/next "Masked Acolyte"\n', dice="++++,----")
    assert step.status == "applied", step.text
    assert "Skipped (line 2): Masked Acolyte left the fight earlier in this post" in step.text
    # the conflict goes on, and the reply asks Ruth, still, to hand off (once: issue 27)
    assert "Ruth, hand the turn on to one of" in step.text and "hands off next" not in step.text


def test_a_second_handoff_after_the_first_is_skipped_not_refused(mt):
    step = mt.post("GM", SETUP + '/conflict start Ruth, Cassandra, "Masked Acolyte", Ghoul first Ruth\n')
    assert step.status == "applied", step.text
    step = mt.post("Ruth", "/next Cassandra\n/next Ghoul\n")
    assert step.status == "applied", step.text
    assert "Skipped (line 2): the turn moved on earlier in this post, so it is Cassandra's turn" in step.text
    assert "Turn: Cassandra." in step.text


def test_out_of_turn_from_the_start_still_refuses_the_post(mt, chicago):
    step = mt.post("GM", SETUP + '/conflict start Ruth, Cassandra, "Masked Acolyte" first Ruth\n')
    assert step.status == "applied", step.text
    before = state_snapshot(chicago)
    step = mt.post("Cassandra", '/attack "Masked Acolyte" with Fight\n/next Ruth\n')
    assert step.status == "rejected"
    assert "it is Ruth's turn, not Cassandra's" in step.text
    assert state_snapshot(chicago) == before


# --------------------------------------------------------------------------- held actions

def test_out_of_turn_is_refused_where_the_campaign_does_not_hold_actions(duel, chicago):
    """The default (hold_out_of_turn off): refused, nothing changes."""
    before = state_snapshot(chicago)
    step = duel.post("Cassandra", '/attack "Masked Acolyte" with Fight\n')
    assert step.status == "rejected" and "it is Ruth's turn, not Cassandra's" in step.text
    assert state_snapshot(chicago) == before


@pytest.fixture
def holding(chicago, mt):
    set_campaign(chicago, "hold_out_of_turn", "yes")
    step = mt.post("GM", SETUP + '/conflict start Ruth, Cassandra, "Masked Acolyte", Ghoul first Ruth\n')
    assert step.status == "applied", step.text
    return mt


def test_an_action_out_of_turn_is_held_and_runs_when_the_turn_comes(holding, chicago):
    step = holding.post("Cassandra", "Cassandra waits for her moment.\n/overcome Stealth vs Fair\n")
    assert step.status == "applied", step.text
    assert "this action is held and runs when the turn comes to Cassandra" in step.text
    assert m.RollRecord.select().count() == 0                    # nothing rolled yet
    # Ruth hands the turn to Cassandra: her held overcome runs in Ruth's post, with its dice
    step = holding.post("Ruth", "/next Cassandra\n", dice="++00")
    assert step.status == "applied", step.text
    assert "Cassandra's turn: the action held since" in step.text
    assert "Cassandra overcomes with Stealth" in step.text
    assert "cassandra@pbp.localhost" in step.replies[0].to      # she is told: the table's mail is hers too
    assert "Cassandra, hand the turn on to one of" in step.text   # asked once (issue 27)
    assert m.Campaign.get_by_id(chicago.id).play["held"] == []


def test_a_held_action_that_no_longer_applies_is_dropped(holding, chicago):
    assert holding.post("Cassandra", '/attack "Masked Acolyte" with Fight\n').status == "applied"
    # Ruth takes the acolyte out first, then hands the turn to Cassandra
    step = holding.post("Ruth", '/attack "Masked Acolyte" with Fight\n/next Cassandra\n', dice="++++,----")
    assert step.status == "applied", step.text
    assert "Masked Acolyte is taken out" in step.text
    assert "Cassandra's held action (/attack \"Masked Acolyte\" with Fight) no longer applies and is dropped" \
        in step.text
    assert "Turn: Cassandra." in step.text                       # her turn is still hers to take
    assert m.RollRecord.select().count() == 1


def test_a_held_action_runs_when_the_turn_deadline_hands_the_turn_on(holding, chicago):
    assert holding.post("Cassandra", "/overcome Stealth vs Fair\n").status == "applied"
    step = holding.post("Ruth", "/overcome Athletics vs Fair\n", dice="0000")
    assert step.status == "applied", step.text
    # Ruth does not hand off; at the deadline the turn passes to the first still to act,
    # Cassandra, and her held overcome runs in that deadline round
    tick = holding.tick(holding.now + timedelta(hours=100), dice="+000")
    text = "\n".join(r.text for r in tick.replies)
    assert "the turn passes to Cassandra" in text
    assert "Cassandra's turn: the action held since" in text and "Cassandra overcomes with Stealth" in text


def test_a_second_held_action_replaces_the_first(holding, chicago):
    assert holding.post("Cassandra", "/overcome Stealth vs Fair\n").status == "applied"
    step = holding.post("Cassandra", "/overcome Athletics vs Fair\n")
    assert "It replaces the action held before (/overcome Stealth vs Fair)." in step.text
    held = m.Campaign.get_by_id(chicago.id).play["held"]
    assert [h["cmd"]["source"] for h in held] == ["/overcome Athletics vs Fair"]


def test_a_post_whose_lines_end_in_a_phones_full_stop_is_applied(mt):
    """A phone turns a double space into ". ": "/overcome Athletics vs Good." is the overcome
    it says, not a refused post (issue 27)."""
    step = mt.post("Ruth", "Ruth vaults the fence.\n/overcome Athletics vs Good.  \n", dice="++00")
    assert step.status == "applied", step.text
    assert "Athletics" in step.text and "Good (+3)" in step.text
    assert "could not be read" not in step.text
