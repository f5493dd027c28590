"""The GM's fate point pool as Dresden Files Condensed describes it (000_7ba3f797fc1d45d3.txt,
"Your Fate Points"; Fate Condensed's rule, which pbp plays for both):

    "At the start of each scene, begin with a pool of fate points equal to the number of PCs.
    If the scene includes a major NPC or monster that conceded a previous conflict, or
    received hostile invokes in a previous scene, those fate points are added to your pool.
    If you received a compel in the prior scene that ended that scene, giving you no
    opportunity to spend the earned fate point, you may add that point to your pool as well."

By mail: a compel on an NPC that a player pays for puts its point in the GM's pool; when the
scene ends with neither an NPC's action nor a point spent from the pool after it, the next
scene's pool opens with that point more. On the sample table of ``pbp demo --system dfc``
(two PCs, Nora and Marcus, and the Lake Thing).
"""
from __future__ import annotations

import pytest

from pbp.demo import create_sample_campaign
from pbp.play.state import load_play
from pbp.store import models as m
from tests.play.table import MailTable


@pytest.fixture
def lakeshore(db):
    return create_sample_campaign("dfc")


def pool(campaign) -> int:
    return load_play(m.Campaign.get_by_id(campaign.id).play).ledger.gm_pool


def compelled(mt: MailTable, campaign):
    start = mt.post("GM", '/scene start "The Stacks" with "Lake Thing"\n')
    assert start.status == "applied" and pool(campaign) == 2, start.text      # "equal to the number of PCs"
    offer = mt.post("Nora", '/compel "Lake Thing" "Hates Cold Iron" event "The iron railing drives it back '
                            'into the lake"\n')
    assert offer.status == "applied", offer.text
    approved = mt.post("GM", "/approve\n", reply_to=offer)      # a player's compel waits for the GM
    assert approved.status == "applied", approved.text
    accepted = mt.post("GM", "/accept\n", reply_to=offer)
    assert accepted.status == "applied", accepted.text
    assert pool(campaign) == 3


def test_a_compel_that_ends_the_scene_carries_its_point_into_the_next_pool(lakeshore, config):
    mt = MailTable(config)
    compelled(mt, lakeshore)
    assert mt.post("GM", "/scene end\n").status == "applied"
    nxt = mt.post("GM", '/scene start "The Lakeshore"\n')
    assert nxt.status == "applied", nxt.text
    assert pool(lakeshore) == 2 + 1
    told = mt.post("GM", "/table\n").text
    assert "The GM's pool: 3" in told, told


def test_after_an_npcs_action_the_point_does_not_carry(lakeshore, config):
    """The Lake Thing acted after the compel: the GM had the chance to spend the point."""
    mt = MailTable(config)
    compelled(mt, lakeshore)
    acted = mt.post("GM", '/as "Lake Thing" overcome Athletics vs Fair\n', dice="0000")
    assert acted.status == "applied", acted.text
    mt.post("GM", "/scene end\n")
    mt.post("GM", '/scene start "The Lakeshore"\n')
    assert pool(lakeshore) == 2


def test_only_the_scene_after_gets_it(lakeshore, config):
    mt = MailTable(config)
    compelled(mt, lakeshore)
    mt.post("GM", "/scene end\n")
    mt.post("GM", '/scene start "The Lakeshore"\n')
    mt.post("GM", "/scene end\n")
    mt.post("GM", '/scene start "The Boathouse"\n')
    assert pool(lakeshore) == 2
