"""A contest threat's hit lands on the campaign system's first track, not on a "physical"
written into the engine (issue 9: tracks come from the system). Early Fate's tracks are
health and composure (002_3a4e52a093e280aa.txt, "Stress"); on its sample table (pbp/samples/
early_fate) with fixed dice."""
from __future__ import annotations

from pbp.demo import create_sample_campaign
from pbp.store import models as m
from pbp.store import repo
from tests.play.table import MailTable


def test_an_early_fate_threat_hits_health(db, config):
    campaign = create_sample_campaign("early-fate")
    t = MailTable(config)
    t.post("GM", '/contest start Flood Jet "climb out" vs Brute "climb out" threat "Rising Water" Great')
    t.post("Jet", "/overcome Athletics", dice="++00")                 # Good (+3) + 2: above the water
    step = t.post("GM", "/as Brute overcome Athletics", dice="0000")   # Average (+1): below it
    assert step.status == "applied", step.text
    assert "Rising Water (Great (+4)) beats Brute's" in step.text and "Brute absorbs" in step.text
    brute = repo.load_table(m.Campaign.get_by_id(campaign.id)).character("Brute")
    assert "physical" not in brute.stress
    assert any(brute.stress["health"]) and not any(brute.stress["composure"])
