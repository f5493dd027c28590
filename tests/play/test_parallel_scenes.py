"""Parallel scenes (issue 24, item 4): a split party by mail through the pipeline, on the
clock. The GM opens "Warehouse" for Ruth and Cassandra and "Docks" for Charles and Ethan;
each is its own thread. A conflict runs in the Warehouse while Charles plays freely at the
Docks; each post acts in the scene of the thread it answers; a defence nobody sends in the
Warehouse is defaulted while the Docks are in play; ``/table`` lists both; the GM's pool is
counted per scene. Read from the players' side: a member not in a scene gets no mail of it.

Rules: Dresden Files Condensed's GM fate points (000_7ba3f797fc1d45d3.txt, "Your Fate
Points": "At the start of each scene, begin with a pool of fate points equal to the number
of PCs"; its example counts the four PCs headed to the confrontation): pbp reads it as the
PCs in the scene, so each half of a split party's scene opens with one point per PC in it.
"""
from __future__ import annotations

from datetime import datetime

import pytest

from pbp.play.state import load_play
from pbp.store import models as m
from tests.play.table import MailTable

RUTH, ETHAN, CHARLES, CASSANDRA, GM = (f"{n}@pbp.localhost" for n in ("ruth", "ethan", "charles", "cassandra", "gm"))
WAREHOUSE, DOCKS = {RUTH, CASSANDRA, GM}, {CHARLES, ETHAN, GM}


def play(chicago):
    return load_play(m.Campaign.get_by_id(chicago.id).play)


@pytest.fixture
def split(chicago, config):
    mt = MailTable(config)
    warehouse = mt.post("GM", '/scene start "Warehouse" with Ruth, Cassandra, Ghoul', subject="The warehouse",
                        at=datetime(2026, 11, 30, 12, 0))
    docks = mt.post("GM", '/scene start "Docks" with Charles, Ethan', subject="The docks",
                    at=datetime(2026, 11, 30, 12, 5))
    for step in (warehouse, docks):
        assert step.status == "applied", step.outcome.errors
    return mt, warehouse, docks


def _to(step) -> set[str]:
    return {addr for r in step.replies for addr in r.to}


def test_two_scenes_each_in_its_own_thread_read_only_by_its_members(split, chicago):
    mt, warehouse, docks = split
    assert _to(warehouse) == WAREHOUSE and _to(docks) == DOCKS
    assert 'Scene 2: "Docks" begins. In it: Charles, Ethan.' in docks.text
    assert 'Also open: scene 1, "Warehouse"' in docks.text
    state = play(chicago)
    assert state.scene.name == "Docks" and [p.scene.name for p in state.elsewhere] == ["Warehouse"]


def test_a_conflict_in_one_scene_and_free_play_in_the_other_routed_by_thread(split, chicago):
    mt, warehouse, docks = split
    fight = mt.post("GM", "/conflict start Ruth, Cassandra, Ghoul first Ghoul", reply_to=warehouse)
    assert fight.status == "applied", fight.outcome.errors
    attack = mt.post("GM", "The ghoul lunges.\n/as Ghoul attack Ruth with Fight\n/as Ghoul next Ruth", dice="++++",
                     reply_to=fight, at=datetime(2026, 11, 30, 13, 0))
    assert attack.status == "applied", attack.outcome.errors
    assert _to(fight) == WAREHOUSE and _to(attack) == WAREHOUSE
    assert "Ruth, Ghoul's attack" in attack.text

    # at the Docks there is no conflict: Charles acts freely, whoever's turn it is in the Warehouse
    pier = mt.post("Charles", "Charles slips along the pier.\n/overcome Stealth vs Fair", dice="++00", reply_to=docks,
                   at=datetime(2026, 11, 30, 14, 0))
    assert pier.status == "applied", pier.outcome.errors
    assert _to(pier) == DOCKS and "Charles overcomes with Stealth" in pier.text
    state = play(chicago)
    assert state.scene.name == "Docks" and state.conflict is None
    (parked,) = state.elsewhere
    assert parked.scene.name == "Warehouse" and parked.conflict is not None and [p.target for p in parked.pending] == ["Ruth"]

    # /table in the Docks' thread: that scene, and the other one named
    table = mt.post("Ethan", "/table", reply_to=pier)
    assert 'Scene 2: "Docks".' in table.text
    assert 'Also open: scene 1, "Warehouse" (Ruth, Cassandra), a conflict going on.' in table.text
    assert "No conflict is going on." in table.text

    # Ruth's defence is due while the Docks are in play: the deadline job defaults it in the Warehouse
    due = mt.tick(parked.pending[0].deadline, dice="----")
    assert due.replies and {a for r in due.replies for a in r.to} <= WAREHOUSE
    assert "Ruth did not answer by" in due.text

    # every mail of one scene went to its members and the GM only
    for row in m.OutboxMail.select():
        got = set(row.recipients)
        assert got <= WAREHOUSE or got <= DOCKS, (row.subject, got)
    for step in (fight, attack, due):
        assert not _to(step) & {CHARLES, ETHAN}
    for step in (pier, table):
        assert not _to(step) & {RUTH, CASSANDRA}


def test_the_gms_pool_is_counted_per_scene(split, chicago):
    mt, warehouse, docks = split
    pool = mt.post("GM", "/fp", reply_to=docks)
    assert "The GM's pool: 2 fate points" in pool.text        # Charles and Ethan, not the four PCs
    pool = mt.post("GM", "/fp", reply_to=warehouse)
    assert "The GM's pool: 2 fate points" in pool.text        # Ruth and Cassandra


def test_ending_one_scene_keeps_the_other_and_its_aspects(split, chicago):
    mt, warehouse, docks = split
    assert mt.post("GM", '/aspect add "Oil Slick"', reply_to=warehouse).status == "applied"
    assert mt.post("GM", '/aspect add "Fog Bank"', reply_to=docks).status == "applied"
    end = mt.post("GM", "/scene end", reply_to=docks)
    assert end.status == "applied", end.outcome.errors
    assert 'Still open: scene 1, "Warehouse".' in end.text and _to(end) == DOCKS
    active = {a.name for a in m.Aspect.select().where(m.Aspect.active == True)}  # noqa: E712
    assert "Oil Slick" in active and "Fog Bank" not in active
    state = play(chicago)
    assert state.scene.name == "Warehouse" and state.elsewhere == []


def test_a_table_that_plays_one_scene_at_a_time_is_refused_a_second_as_before(chicago, config):
    mt = MailTable(config)
    assert mt.post("GM", '/scene start "Warehouse"').status == "applied"
    second = mt.post("GM", '/scene start "Docks"')
    assert second.status == "rejected"
    assert 'the scene "Warehouse" is still open' in second.text
    assert "example:  /scene start Docks with Cassandra" in second.text      # a scene beside it names its PCs


def test_a_new_mail_naming_a_scene_in_its_subject_acts_there(split, chicago):
    mt, warehouse, docks = split
    assert play(chicago).scene.name == "Docks"
    step = mt.post("Ruth", "Ruth checks the crates.\n/overcome Notice vs Fair", dice="++00",
                   subject="Warehouse: the crates")                      # a new thread, no reply
    assert step.status == "applied", step.outcome.errors
    assert _to(step) == WAREHOUSE and play(chicago).scene.name == "Warehouse"
    vague = mt.post("Charles", "Charles waits.", subject="Waiting")     # names no scene: the scene in play
    assert _to(vague) == WAREHOUSE and play(chicago).scene.name == "Warehouse"


def test_the_archive_keeps_each_scene_on_its_own_page_however_the_posts_interleave(split, chicago):
    from pbp.archive.view import Reader, build

    mt, warehouse, docks = split
    mt.post("Ruth", "Ruth listens at the door.", reply_to=warehouse)
    mt.post("Charles", "Charles counts the boats.", reply_to=docks)
    mt.post("Cassandra", "Cassandra lights a match.", reply_to=warehouse)
    mt.post("GM", "/scene end", reply_to=docks)
    archive = build(m.Campaign.get_by_id(chicago.id), Reader(gm=False))
    pages = {s.key: [line for e in s.entries for line, _ in e.lines] for s in archive.scenes}
    assert list(pages) == ["scene-1", "scene-2"]
    assert pages["scene-1"][-2:] == ["Ruth listens at the door.", "Cassandra lights a match."]
    assert "Charles counts the boats." in pages["scene-2"]
    assert {s.key: s.open for s in archive.scenes} == {"scene-1": True, "scene-2": False}
