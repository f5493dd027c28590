"""The d10 hack's sample table corrected by every path a GM has (issue 21, item 1):
``pbp character set``, ``/sheet set`` by mail, ``/advance``, an unchanged ``pbp character
edit``, export then ``import --replace``, ``undo`` and ``history``. Each keeps what it does
not change: the approaches and the mech (004_c619695e1641b466.txt, "Approaches" and "Mechs";
the sheet keys of docs/sheets.md) and a minor NPC's two strain boxes with their marks."""
from __future__ import annotations

import tomllib

import pytest

from pbp.campaigns import import_character
from pbp.demo import create_sample_campaign
from pbp.sheetedit import apply_sheet, export_sheet, set_values
from pbp.sheethistory import history, undo
from pbp.sheetfile import parse_sheet
from pbp.rules.systems import campaign_system
from pbp.store import models as m
from pbp.store import repo
from tests.play.table import MailTable

HAND = "gm (pbp character)"


@pytest.fixture
def scrap(db):
    return create_sample_campaign("d10-pool")


def table(campaign):
    return repo.load_table(m.Campaign.get_by_id(campaign.id))


def state(campaign, name):
    ch = table(campaign).character(name)
    return ch.system_state, dict(ch.stress), ch.skills, ch.fate_points


def mark_grunt(campaign):
    t = table(campaign)
    snap = repo.snapshot(t)
    t.character("Grunt").stress["strain"][1] = True
    repo.save_table(campaign, snap, t)


def test_character_set_keeps_approaches_mech_and_strain(scrap):
    mark_grunt(scrap)
    ruth_before = state(scrap, "Ruth")
    assert set_values(scrap, "Ruth", ["fate_points=2"], who=HAND) == ["fate_points: 3 -> 2"]
    after = state(scrap, "Ruth")
    assert after[0] == ruth_before[0] and after[0]["approaches"]["Boldly"] == 3 and after[3] == 2
    assert set_values(scrap, "Grunt", ["skills.Shoot=3"], who=HAND)
    assert table(scrap).character("Grunt").stress == {"strain": [False, True]}


def test_an_unchanged_edit_and_an_export_reimported_change_nothing(scrap):
    mark_grunt(scrap)
    for name in ("Ruth", "Charles", "Raider Captain", "Raider Grunt"):
        before = state(scrap, name)
        text = export_sheet(scrap, name, play=True)
        assert apply_sheet(scrap, name, tomllib.loads(text), who=HAND, how="edit") == [], name
        assert state(scrap, name) == before
    for name in ("Ruth", "Raider Captain", "Raider Grunt"):
        before = table(scrap).character(name)
        text = export_sheet(scrap, name)
        sheet = parse_sheet(tomllib.loads(text), campaign_system(scrap))
        import_character(scrap, sheet, replace=True, who=HAND)
        now = table(scrap).character(name)
        assert (now.system_state, now.skills, now.stunts, {t: len(b) for t, b in now.stress.items()}) == \
            (before.system_state, before.skills, before.stunts, {t: len(b) for t, b in before.stress.items()})
    assert table(scrap).character("Grunt").stress == {"strain": [False, False]}   # a new sheet: marks cleared


def test_sheet_set_advance_undo_and_history_by_mail(scrap, config):
    mt = MailTable(config)
    mark_grunt(scrap)
    fixed = mt.post("GM", "/sheet set Ruth fate_points=2\n", subject="Fixes")
    assert fixed.status == "applied", fixed.text
    assert "fate_points: 3 -> 2" in fixed.text and "approaches" not in fixed.text
    grunt = mt.post("GM", "/sheet set Grunt skills.Move=2\n", subject="Fixes")
    assert grunt.status == "applied", grunt.text
    assert table(scrap).character("Grunt").stress == {"strain": [False, True]}
    assert mt.post("GM", "/milestone minor\n", subject="Milestone").status == "applied"
    asked = mt.post("Ruth", "/advance skills.Notice=2 skills.Move=1\n", subject="Milestone")
    assert asked.status == "applied", asked.text
    done = mt.post("GM", "/approve\n", subject="Milestone")
    assert done.status == "applied", done.text
    ruth = table(scrap).character("Ruth")
    assert ruth.skills["Notice"] == 2 and ruth.system_state["approaches"] == \
        {"Boldly": 3, "Carefully": 1, "Cleverly": 0, "Quickly": 2} and ruth.system_state["mech"]["piloting"] is True
    hows = [row.how for row in history(scrap, "Ruth")]
    assert len(hows) >= 2, hows
    undone = undo(scrap, "Ruth", who=HAND)
    assert undone and table(scrap).character("Ruth").skills["Notice"] == 1
    assert table(scrap).character("Ruth").system_state["mech"]["name"] == "Dock Bravo"
