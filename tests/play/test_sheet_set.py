"""/sheet set by mail: the GM's small fixes, the play state kept (issue 11, item 5)."""
from __future__ import annotations

from pbp.store import models as m
from pbp.store import repo
from tests.play.conftest import state_snapshot


def test_the_gm_fixes_a_sheet_and_the_play_state_stays(mt, chicago):
    t = repo.load_table(chicago)
    snap = repo.snapshot(t)
    t.character("Ruth").stress["physical"][:2] = [True, True]
    t.character("Ruth").consequences[0].aspect = "Bitten Arm"
    repo.save_table(chicago, snap, t)
    ruth = repo.load_table(chicago).character("Ruth")
    stress, fp = list(ruth.stress["physical"]), ruth.fate_points
    step = mt.post("GM", "/sheet set Ruth skills.Burglary=Average fate_points=5")
    assert step.status == "applied", step.text
    assert "The GM fixes Ruth's sheet: skills:" in step.text and "fate_points: 3 -> 5" in step.text
    ruth = repo.load_table(chicago).character("Ruth")
    assert ruth.skills["Burglary"] == 1 and ruth.fate_points == 5 and fp == 3
    assert ruth.stress["physical"] == stress and ruth.consequences[0].aspect == "Bitten Arm"
    row = m.SheetChange.select().order_by(m.SheetChange.id.desc()).first()
    assert row.how == "play" and row.who == "gm@pbp.localhost" and row.after["fate_points"] == 5


def test_refusals(mt, chicago):
    before = state_snapshot(chicago)
    step = mt.post("Ruth", "/sheet set Ruth fate_points=9")
    assert step.status == "rejected" and "for the GM" in step.text
    step = mt.post("GM", "/sheet set Ruth skills.Fight=Epic")
    assert step.status == "rejected" and "problem" in step.text
    step = mt.post("GM", "/sheet set Ruth player=x@example.org")
    assert step.status == "rejected" and "pbp character set Ruth player=" in step.text
    step = mt.post("GM", "/sheet set Ruth colour=blue")
    assert step.status == "rejected" and 'no sheet key "colour"' in step.text
    assert state_snapshot(chicago) == before
