"""A post that reads naturally is applied: a command that an earlier command of the same
post made moot (the attack that ended the conflict, then ``/next``) is skipped with a note,
and the reply's footer tells the state after the whole post. Anything else still refuses
the whole post."""
from __future__ import annotations

import pytest

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
    # the conflict goes on, and the footer says Ruth still hands off
    assert "Turn: Ruth has acted and hands off next" in step.text


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
