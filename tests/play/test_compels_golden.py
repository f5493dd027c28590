"""Compels by mail, whole conversations checked against tests/golden/<case>/expected.txt
(``pytest --update-golden`` rewrites them). Rules 004, "Compelling an Aspect"; 000, "Your
Fate Points"."""
from __future__ import annotations

from tests.play.golden import check, sheet


def test_a_gm_compel_accepted(chicago, config, update):
    table, _ = check("compel_gm_accepted", config, update)
    assert [s.status for s in table.steps] == ["applied", "applied"]
    assert sheet("Ruth").fate_points == 4


def test_an_event_compel_refused_costs_a_point(chicago, config, update):
    check("compel_event_refused", config, update)
    assert sheet("Charles").fate_points == 2


def test_an_event_compel_cannot_be_refused_at_zero(chicago, config, update):
    table, transcript = check("compel_refused_at_zero", config, update)
    assert [s.status for s in table.steps] == ["applied", "rejected", "applied"]
    assert "cannot refuse an event compel with no fate points" in table.steps[1].text
    assert sheet("Ethan").fate_points == 1


def test_a_player_compel_approved_by_a_bare_reply_then_accepted(chicago, config, update):
    table, _ = check("compel_player_approved", config, update)
    assert [s.status for s in table.steps] == ["applied", "applied", "applied"]
    assert table.steps[0].replies[1].subject.endswith("Compel #1 needs your approval")
    assert (sheet("Cassandra").fate_points, sheet("Ruth").fate_points) == (2, 4)


def test_a_denied_compel_returns_the_proposers_point(chicago, config, update):
    table, _ = check("compel_player_denied", config, update)
    assert sheet("Cassandra").fate_points == 3
    assert any("Reminder" in r.subject for r in table.steps[3].replies)
    assert "denied" in table.steps[4].text


def test_a_self_compel(chicago, config, update):
    check("compel_self", config, update)
    assert sheet("Charles").fate_points == 4
