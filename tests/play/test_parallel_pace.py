"""Pace per parallel scene (issue 24, items 2 and 4): each open scene of a split party keeps
its own pace, by mail through the pipeline on the clock. The Warehouse (Ruth, Cassandra)
posts in the GM's order, the Docks (Charles, Ethan) once per round; a post counts in the
scene of the thread it answers, each scene owes posts only of its own PCs and the GM, and
each scene's deadlines pass its turn on or close its round, told to that scene alone, whichever
scene is in play (one scene a deadline round: the daemon's job runs every minute).

Rules: none; the pace is the table's convention (docs/long-campaign.md).
"""
from __future__ import annotations

from datetime import datetime

from pbp.play.state import load_play
from pbp.store import models as m
from tests.play.table import MailTable

RUTH, ETHAN, CHARLES, CASSANDRA, GM = (f"{n}@pbp.localhost" for n in ("ruth", "ethan", "charles", "cassandra", "gm"))
WAREHOUSE, DOCKS = {RUTH, CASSANDRA, GM}, {CHARLES, ETHAN, GM}


def play(chicago):
    return load_play(m.Campaign.get_by_id(chicago.id).play)


def _to(step) -> set[str]:
    return {addr for r in step.replies for addr in r.to}


def paces(chicago) -> dict:
    state = play(chicago)
    found = {state.scene.name: state.pace} if state.scene is not None else {}
    found.update({p.scene.name: p.pace for p in state.elsewhere})
    return found


def test_each_scene_of_a_split_party_keeps_its_own_pace(chicago, config):
    mt = MailTable(config)
    t0 = datetime(2026, 12, 1, 12, 0)
    warehouse = mt.post("GM", '/scene start "Warehouse" with Ruth, Cassandra', subject="The warehouse", at=t0)
    docks = mt.post("GM", '/scene start "Docks" with Charles, Ethan', subject="The docks", at=t0)
    order = mt.post("GM", "/pace order Ruth, Cassandra, GM", reply_to=warehouse, at=t0)
    assert order.status == "applied", order.outcome.errors
    assert "Next to post: Ruth (by Thu 3 Dec 12:00 UTC" in order.text and _to(order) == WAREHOUSE
    rounds = mt.post("GM", "/pace round", reply_to=docks, at=t0)
    assert rounds.status == "applied", rounds.outcome.errors
    assert "still to post: Charles, Ethan, GM" in rounds.text and "Ruth" not in rounds.text
    assert _to(rounds) == DOCKS
    assert paces(chicago)["Warehouse"].order == ("Ruth", "Cassandra", "GM")
    assert paces(chicago)["Docks"].order == ()

    # Charles posts at the Docks: it counts there, the Warehouse still waits for Ruth
    pier = mt.post("Charles", "Charles slips along the pier.", reply_to=rounds, at=datetime(2026, 12, 1, 13, 0))
    assert "still to post: Ethan, GM" in pier.text and _to(pier) == DOCKS
    assert paces(chicago)["Warehouse"].done == [] and paces(chicago)["Docks"].done == ["Charles"]
    quay = mt.post("Ruth", "Ruth checks the crates.", reply_to=order, at=datetime(2026, 12, 1, 14, 0))
    assert "Next to post: Cassandra (by Thu 3 Dec 14:00 UTC" in quay.text and _to(quay) == WAREHOUSE
    assert paces(chicago)["Warehouse"].done == ["Ruth"] and paces(chicago)["Docks"].done == ["Charles"]

    # back at the Docks (the Warehouse parked), Cassandra's turn runs out: the Warehouse's
    # deadline passes it on, told to the Warehouse alone; the Docks' round is untouched
    mt.post("Ethan", "Ethan keeps watch.", reply_to=pier, at=datetime(2026, 12, 1, 15, 0))
    assert play(chicago).scene.name == "Docks"
    docks_gm = mt.tick(datetime(2026, 12, 3, 0, 0))        # the Docks' round: the GM's own post is owed
    assert [r.to for r in docks_gm.replies] == [[GM]] and 'the scene "Docks" waits for your post by Thu 3 Dec 12:00' in docks_gm.text
    reminder = mt.tick(datetime(2026, 12, 3, 2, 0))        # the Warehouse's: Cassandra's turn
    assert [r.to for r in reminder.replies] == [[CASSANDRA]]
    assert "Cassandra, your post by Thu 3 Dec 14:00" in reminder.replies[0].subject
    assert 'the scene "Warehouse" waits for your post' in reminder.text
    docks_late = mt.tick(datetime(2026, 12, 3, 12, 0))    # the Docks' round closes without the GM's post
    assert "GM did not post by Thu 3 Dec 12:00 UTC: the round goes on without them. Round 2" in docks_late.text
    assert _to(docks_late) == DOCKS and paces(chicago)["Docks"].round == 2
    late = mt.tick(datetime(2026, 12, 3, 14, 0))
    assert "Cassandra did not post by Thu 3 Dec 14:00 UTC: the turn passes on. Next: GM." in late.text
    assert _to(late) == WAREHOUSE
    assert paces(chicago)["Warehouse"].round == 1 and paces(chicago)["Warehouse"].done == ["Ruth", "Cassandra"]


def test_a_stall_nudge_waits_only_for_the_scenes_own_members_quiet_hours(chicago, config):
    from pbp.campaigns import set_campaign

    set_campaign(chicago, "post_deadline_hours", "200")           # the stall alone (72 hours)
    mt = MailTable(config)
    t0 = datetime(2026, 12, 1, 22, 0)
    assert mt.post("Charles", "/settings quiet=20-10", at=t0).status == "applied"     # asleep at 22:00 UTC
    assert mt.post("Ruth", "/settings quiet=02-06", at=t0).status == "applied"
    warehouse = mt.post("GM", '/scene start "Warehouse" with Ruth, Cassandra', subject="The warehouse", at=t0)
    mt.post("GM", '/scene start "Docks" with Charles, Ethan', subject="The docks", at=t0)
    assert mt.post("GM", "/pace round", reply_to=warehouse, at=t0).status == "applied"
    # 72 hours on, at 22:00 UTC: Charles is in his quiet hours, but he is at the Docks
    nudge = mt.tick(datetime(2026, 12, 4, 22, 0))
    assert "The scene has had no post since Tue 1 Dec 22:00 UTC." in nudge.text
    assert _to(nudge) == WAREHOUSE


def test_a_stall_nudge_waits_for_a_scene_members_quiet_hours(chicago, config):
    from pbp.campaigns import set_campaign

    set_campaign(chicago, "post_deadline_hours", "200")
    mt = MailTable(config)
    t0 = datetime(2026, 12, 1, 22, 0)
    assert mt.post("Ruth", "/settings quiet=20-10", at=t0).status == "applied"
    warehouse = mt.post("GM", '/scene start "Warehouse" with Ruth, Cassandra', subject="The warehouse", at=t0)
    mt.post("GM", '/scene start "Docks" with Charles, Ethan', subject="The docks", at=t0)
    assert mt.post("GM", "/pace round", reply_to=warehouse, at=t0).status == "applied"
    assert mt.tick(datetime(2026, 12, 4, 22, 0)).replies == []         # Ruth is asleep
    nudge = mt.tick(datetime(2026, 12, 5, 10, 0))
    assert "The scene has had no post since" in nudge.text and _to(nudge) == WAREHOUSE
