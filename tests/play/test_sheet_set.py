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


def test_the_gm_corrects_stress_and_a_consequence_by_mail(mt, chicago):
    step = mt.post("GM", '/sheet set Ruth stress.physical.2=true consequences.mild="Bruised Ribs" fate_points=2')
    assert step.status == "applied", step.text
    assert "stress:" in step.text and "Bruised Ribs" in step.text and "fate_points: 3 -> 2" in step.text
    ruth = repo.load_table(chicago).character("Ruth")
    assert ruth.stress["physical"][:2] == [False, True] and ruth.consequences[0].aspect == "Bruised Ribs"
    assert any(a.name == "Bruised Ribs" and a.kind == "consequence" for a in repo.load_table(chicago).aspects)
    row = m.SheetChange.select().order_by(m.SheetChange.id.desc()).first()
    assert row.how == "play" and row.after["stress"]["physical"][1] is True
    cleared = mt.post("GM", "/sheet set Ruth consequences.mild= stress.physical=____")
    assert cleared.status == "applied", cleared.text
    ruth = repo.load_table(chicago).character("Ruth")
    assert ruth.consequences[0].aspect is None and not any(ruth.stress["physical"])


def test_a_bad_play_value_by_mail_is_refused_with_an_example(mt, chicago):
    before = state_snapshot(chicago)
    step = mt.post("GM", "/sheet set Ruth stress.physical=xx")
    assert step.status == "rejected"
    assert "stress.physical: 2 boxes written, and Ruth's physical track has 4" in step.text
    assert "stress.physical=x___" in step.text
    step = mt.post("GM", '/sheet set Ruth consequences.grave="Gone"')
    assert step.status == "rejected" and "Ruth has no grave slot (slots: mild, moderate, severe)" in step.text
    assert state_snapshot(chicago) == before
