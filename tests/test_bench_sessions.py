"""The benchmark's session plays on every system (benchmarks/throughput.py: the same 15 posts
in each system's own words on its own table): every post applies, twice over, and a session
leaves the table as it found it (stress cleared, the invoke's fate point given back by the
compel), so the benchmark's rate is a rate of the same play on each system."""
from __future__ import annotations

import pytest

from benchmarks.throughput import SESSIONS, TABLES, Campaign
from pbp.store import models as m
from pbp.store import repo


@pytest.mark.parametrize("system", sorted(SESSIONS))
def test_the_benchmark_session_applies_on(system):
    assert set(TABLES) == set(SESSIONS)
    campaign = Campaign(system)        # its own SQLite file; play() stops at a post not applied
    row = m.Campaign.get(m.Campaign.slug == campaign.slug)
    before = {n: (ch.fate_points, repr(ch.stress)) for n, ch in repo.load_table(row).characters.items()}
    campaign.play(len(campaign.script))
    after = {n: (ch.fate_points, repr(ch.stress)) for n, ch in repo.load_table(row).characters.items()}
    assert after == before
    campaign.play(len(campaign.script))
    assert campaign.done == 30
    assert m.RollRecord.select().count() == 2 * 9          # 8 rolls and the invoke's re-run a session
