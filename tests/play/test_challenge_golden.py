"""A challenge by mail, checked against its transcript (tests/golden/challenge)."""
from __future__ import annotations

from pbp.play.state import load_play
from pbp.store import models as m
from tests.play import golden


def test_a_challenge_of_three_tasks_one_with_teamwork(chicago, config, update):
    table, _ = golden.check("challenge", config, update)
    statuses = [s.status for s in table.steps]
    assert statuses[:5] == ["applied"] * 5 and statuses[5] == "rejected"
    assert "task 1. Burglary vs Good (+3): done by Ethan (success with style)" in table.steps[2].text
    climb = table.steps[4].text
    assert "help   Ruth (teamwork)" in climb and "Ruth helps with Athletics Good (+3): +1" in climb
    assert "done by Charles, helped by Ruth, at a minor cost; Ruth shares it" in climb
    assert "are for Ethan, Charles and Ruth, not Cassandra" in table.steps[5].text
    assert table.steps[6].replies == []                       # before the deadline: nothing
    summary = [r for r in table.steps[7].replies if r.subject.endswith("the summary")]
    assert len(summary) == 1 and summary[0].to == ["gm@pbp.localhost"]
    assert "Not taken:\n  3. Lore vs Great (+4)" in summary[0].text
    assert load_play(m.Campaign.get_by_id(chicago.id).play).challenge is None
