"""Invokes after the dice and the bogus-rule veto, by mail, checked against
tests/golden/<case>/expected.txt. Rules 003, "Invocando Aspectos"."""
from __future__ import annotations

from tests.play.golden import check, sheet


def test_a_vetoed_invoke_recomputes_the_hit(chicago, config, update):
    table, _ = check("invoke_vetoed_hit", config, update)
    assert [s.status for s in table.steps] == ["applied", "applied", "applied"]
    assert sheet("Ruth").fate_points == 3


def test_invokes_after_the_dice_and_the_hostile_point_paid_at_scene_end(chicago, config, update):
    table, _ = check("invoke_after_dice", config, update)
    assert all(s.status == "applied" for s in table.steps)
    assert (sheet("Ruth").fate_points, sheet("Charles").fate_points) == (2, 2)
    assert sheet("Ghoul").carried_points == 1
