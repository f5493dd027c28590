"""Actions the turn order, the zone map or being out of the fight forbid: each refused with a
reply that says why (and whose turn it is), and nothing changes."""
from __future__ import annotations

import pytest

from tests.play.conftest import state_snapshot

SETUP = """\
/scene start "Warehouse" zones Dock, Floor, Office borders Dock-Floor, Floor-Office
/place Ruth in Dock
/place Cassandra in Dock
/place Ghoul in Floor
/place "Masked Acolyte" in Office
/conflict start Ruth, Cassandra, Ghoul, "Masked Acolyte" first Ruth
"""


@pytest.fixture
def fight(mt):
    step = mt.post("GM", SETUP)
    assert step.status == "applied", step.outcome.errors
    return mt


def refused(mt, chicago, who, body, *, dice=""):
    before = state_snapshot(chicago)
    step = mt.post(who, body, dice=dice)
    assert step.status == "rejected", step.text
    assert state_snapshot(chicago) == before
    assert len(step.replies) == 1
    return step


def test_action_out_of_turn_is_refused_and_says_whose_turn_it_is(fight, chicago):
    step = refused(fight, chicago, "Cassandra", "Cassandra charges.\n/attack Ghoul with Fight\n")
    assert "it is Ruth's turn, not Cassandra's" in step.text
    assert "Turn: Ruth. Still to act this exchange: Cassandra, Ghoul, Masked Acolyte." in step.text
    # and the GM's NPCs wait their turn too
    step = refused(fight, chicago, "GM", "/as Ghoul attack Ruth with Fight\n")
    assert "it is Ruth's turn" in step.text


def test_the_whole_post_is_refused_when_one_command_breaks_the_turn(fight, chicago):
    # (a second /next after the first one is skipped, not refused: tests/play/test_post_flow.py)
    step = refused(fight, chicago, "Ruth", '/move Floor\n/attack Ghoul with Fight\n/attack Ghoul with Fight\n',
                   dice="0000,0000")
    assert "Ruth has already acted this turn" in step.text and "line 3" in step.text


def test_handing_off_to_someone_who_has_acted_is_refused(fight, chicago):
    assert fight.post("Ruth", "/next Cassandra\n").status == "applied"        # Ruth passes
    step = refused(fight, chicago, "Cassandra", "/next Ruth\n")
    assert "Ruth has already acted this exchange" in step.text


def test_close_combat_needs_the_same_zone(fight, chicago):
    step = refused(fight, chicago, "Ruth", "/attack Ghoul with Fight\n")
    assert 'Ghoul is in "Floor", out of reach of close combat from "Dock"' in step.text


def test_a_shot_reaches_a_bordering_zone_only(fight, chicago):
    step = refused(fight, chicago, "Ruth", '/attack "Masked Acolyte" with Shoot\n')
    assert 'out of reach of a shot from "Dock"' in step.text
    ok = fight.post("Ruth", "/attack Ghoul with Shoot\n", dice="0000,0000")
    assert ok.status == "applied", ok.text


def test_a_free_move_goes_to_a_bordering_zone_once(fight, chicago):
    step = refused(fight, chicago, "Ruth", "/move Office\n")
    assert '"Office" does not border "Dock"' in step.text
    assert fight.post("Ruth", "/move Floor\n").status == "applied"
    step = refused(fight, chicago, "Ruth", "/move Office\n")
    assert "already moved this exchange" in step.text
    # after the move the ghoul is in reach
    ok = fight.post("Ruth", "/attack Ghoul with Fight\n", dice="0000,0000")
    assert ok.status == "applied", ok.text


def test_the_taken_out_can_neither_act_nor_be_attacked(fight, chicago):
    # Ruth shoots the ghoul; a hit the ghoul cannot absorb takes it out at once (NPC policy).
    step = fight.post("GM", "/as Ruth attack Ghoul with Shoot +4\n", dice="++++,----")
    assert step.status == "applied", step.text
    assert "Ghoul is taken out" in step.text
    assert fight.post("Ruth", "/next Ghoul\n").status == "rejected"            # out of the order
    step = refused(fight, chicago, "GM", "/as Ghoul attack Ruth with Fight\n")
    assert "Ghoul has been taken out" in step.text
    fight.post("Ruth", "/next Cassandra\n")
    step = refused(fight, chicago, "Cassandra", "/attack Ghoul with Shoot\n")
    assert "Ghoul has been taken out" in step.text
