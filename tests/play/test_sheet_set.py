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
    assert "The GM fixes Ruth's sheet: skills.Burglary: (none) -> 1;" in step.text and "fate_points: 3 -> 5" in step.text
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
    assert "stress.physical: [ ][ ][ ][ ] -> [ ][x][ ][ ]" in step.text and "fate_points: 3 -> 2" in step.text
    assert 'consequences.mild: (none) -> "Bruised Ribs"' in step.text
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


def test_the_gm_gives_a_free_invoke_on_a_scene_aspect_by_mail(mt, chicago):
    mt.post("GM", '/scene start "Cellar"\n/aspect add "Deep Shadows"\n')
    step = mt.post("GM", '/sheet set Ruth free_invokes."Deep Shadows"=2')
    assert step.status == "applied", step.text
    assert "Deep Shadows" in step.text
    shadows = next(a for a in repo.load_table(chicago).aspects if a.name == "Deep Shadows")
    assert shadows.free_invokes == {"Ruth": 2}
    gone = mt.post("GM", '/sheet set Ruth free_invokes."Deep Shadows"=0')
    assert gone.status == "applied", gone.text
    assert next(a for a in repo.load_table(chicago).aspects if a.name == "Deep Shadows").free_invokes == {}


def test_a_dresden_condition_is_marked_and_cleared_by_its_name(db, config):
    """Dresden Files Condensed's conditions are slots with fixed names: consequences.NAME=yes
    marks one, =no clears it; any other text is refused with an example."""
    from pbp.demo import create_sample_campaign
    from pbp.sheetplay import slot_keys
    from tests.play.table import MailTable

    lakeshore = create_sample_campaign("dfc")
    mt = MailTable(config)
    nora = repo.load_table(lakeshore).character("Nora")
    key, slot = next((k, q) for k, q in slot_keys(nora) if q.condition)
    step = mt.post("GM", f'/sheet set Nora "consequences.{key}"=yes' if " " in key else
                   f"/sheet set Nora consequences.{key}=yes")
    assert step.status == "applied", step.text
    marked = next(q for k, q in slot_keys(repo.load_table(lakeshore).character("Nora")) if k == key)
    assert marked.aspect == slot.condition
    # a later fix of another key keeps the mantle's conditions and the mark (before, every
    # /sheet set rebuilt the slots without them)
    assert mt.post("GM", "/sheet set Nora fate_points=2").status == "applied"
    kept = next(q for k, q in slot_keys(repo.load_table(lakeshore).character("Nora")) if k == key)
    assert kept.aspect == slot.condition
    bad = mt.post("GM", f"/sheet set Nora consequences.{key.split()[0]}=Sprained" if " " not in key else
                  "/sheet set Nora consequences.x=Sprained")
    assert bad.status == "rejected"
    clear = mt.post("GM", f"/sheet set Nora consequences.{key}=no")
    assert clear.status == "applied", clear.text
    assert next(q for k, q in slot_keys(repo.load_table(lakeshore).character("Nora")) if k == key).aspect is None
