"""A contest by mail, checked against its transcript (tests/golden/contest_chase)."""
from __future__ import annotations

from pbp.play.state import load_play
from pbp.store import models as m
from tests.play import golden


def test_a_chase_with_a_twist_a_threat_and_a_forfeit(chicago, config, update):
    table, _ = golden.check("contest_chase", config, update)
    statuses = [s.status for s in table.steps]
    assert statuses[:13] == ["applied"] * 13
    steps = [s.text for s in table.steps]
    assert "Ruth and Charles's side forfeits its overcome this exchange" in steps[2]
    assert "Exchange 1: Ghoul has the highest effort (Good (+3)): one victory." in steps[3]
    assert "Ghoul's attack with Fight (Good (+3)) beats Ruth and Charles's Mediocre (+0)" in steps[3]
    assert "a tie for the highest effort (Great (+4)) between Ruth and Charles's side and Ghoul's side" in steps[8]
    assert "Collapsed Ceiling is now in play" in steps[9]
    assert "succeeded with style, and no one else did: two victories" in steps[11]
    assert 'Ruth and Charles win the contest "The Chase"' in table.steps[13].replies[0].text
    assert load_play(m.Campaign.get_by_id(chicago.id).play).contest is None
