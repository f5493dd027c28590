"""Advancement by mail under each system's own creation check (000_7ba3f797fc1d45d3.txt,
"Advancement", "Improving Skill Ratings").

Dresden Files Condensed checks the exact pyramid at import ("Summary of Character Creation":
one Great, two Good, three Fair, four Average); a sheet that milestones have grown keeps the
column instead: "When improving a skill rating, you must maintain a "column" structure. Each
step may not have more skills than the step below it." The sample table's Nora (Lore Great;
Will, Fight Good; Notice, Academics, Athletics Fair; Physique, Empathy, Investigate, Stealth
Average) advances twice; a raise that breaks the column is refused with the raises that would
keep it, as Fate Condensed refuses Ruth's Lore; and the text's own example, Ruth's Lore with a
saved point, is played on a DFC sheet of hers. Fate Core and early Fate check the column at
creation too, so their sheets grow the same way (tests below).
"""
from __future__ import annotations

import pytest

from pbp.campaigns import create_campaign, import_character
from pbp.demo import create_sample_campaign, sample_dir
from pbp.sheetedit import export_sheet
from pbp.store import models as m
from pbp.store import repo
from tests.play.conftest import state_snapshot
from tests.play.table import MailTable


@pytest.fixture
def lakeshore(db):
    return create_sample_campaign("dfc")


def nora(campaign):
    return repo.load_table(m.Campaign.get_by_id(campaign.id)).character("Nora")


def test_a_dfc_character_advances_twice_past_the_exact_pyramid(lakeshore, config, tmp_path):
    mt = MailTable(config)
    assert mt.post("GM", "/milestone major\n").status == "applied"
    # Mediocre Rapport to Average ("even from Mediocre (+0) to Average (+1)"): five Average
    # skills, no longer the creation pyramid, but the column holds
    asked = mt.post("Nora", "/advance skills.Rapport=Average\n")
    assert asked.status == "applied", asked.text
    assert "Rapport Mediocre (+0) -> Average (+1)" in asked.text
    done = mt.post("GM", "/approve\n")
    assert done.status == "applied" and "The GM approves advancement #" in done.text, done.text
    assert nora(lakeshore).skills["Rapport"] == 1
    # the second major milestone: Stealth Average to Fair (four Fair over four Average)
    assert mt.post("GM", "/milestone major\n").status == "applied"
    again = mt.post("Nora", "/advance skills.Stealth=Fair\n")
    assert again.status == "applied", again.text
    second = mt.post("GM", "/approve\n")
    assert second.status == "applied" and "The GM approves advancement #" in second.text, second.text
    grown = nora(lakeshore)
    assert (grown.skills["Stealth"], grown.skills["Rapport"]) == (2, 1)
    # the grown sheet stays good for the GM's fixes and for export and import again:
    # it says how many skill points milestones gave it
    fix = mt.post("GM", "/sheet set Nora fate_points=2\n")
    assert fix.status == "applied", fix.text
    text = export_sheet(m.Campaign.get_by_id(lakeshore.id), "Nora")
    assert "milestone_skills = 2" in text
    path = tmp_path / "nora.toml"
    path.write_text(text, encoding="utf-8")
    other = create_campaign("lakeshore2", "Lakeshore Again", address="table+lakeshore2@pbp.localhost",
                            gms=["gm@pbp.localhost"], system="dresden-files-condensed")
    import_character(other, str(path))
    assert repo.load_table(m.Campaign.get_by_id(other.id)).character("Nora").skills["Stealth"] == 2


def test_a_dfc_raise_that_breaks_the_column_is_refused_with_what_would_work(lakeshore, config):
    mt = MailTable(config)
    mt.post("GM", "/milestone major\n")
    before = state_snapshot(lakeshore)
    # Physique Average to Fair: four Fair and three Average, "that won't do"
    refused = mt.post("Nora", "/advance skills.Physique=Fair\n")
    assert refused.status == "rejected"
    assert "4 skills at Fair (+2) but only 3 at Average (+1)" in refused.text
    assert "raise another skill Mediocre (+0) -> Average (+1) instead" in refused.text
    assert "or save the skill point for a later milestone" in refused.text
    assert "example:  /advance skills." in refused.text
    assert state_snapshot(lakeshore) == before


def test_a_dfc_raise_is_checked_again_on_approval_with_the_column(lakeshore, config):
    """Approval rechecks the sheet as it is then: the column and refresh (never below 1, the
    mantle's stunts free), not the creation pyramid."""
    mt = MailTable(config)
    mt.post("GM", "/milestone major power\n")
    asked = mt.post("Nora", "/advance skills.Physique=Fair skills.Rapport=Average\n")
    assert asked.status == "applied", asked.text
    done = mt.post("GM", "/approve\n")
    assert done.status == "applied" and "The GM approves advancement #" in done.text, done.text
    assert nora(lakeshore).skills["Physique"] == 2


def test_a_hand_written_dfc_sheet_above_the_pyramid_is_refused_at_import(db, tmp_path):
    """At creation the pyramid is exact; a sheet with more says where the points came from."""
    from pbp.errors import SheetError
    from pbp.rules.systems import get_system
    from pbp.sheetfile import parse_sheet
    import tomllib

    system = get_system("dfc")
    folder = sample_dir("dfc")
    data = tomllib.loads((folder / "nora.toml").read_text(encoding="utf-8"))
    data["skills"]["Rapport"] = 1
    with pytest.raises(SheetError) as caught:
        parse_sheet(data, system, folder=folder)
    problems = "\n".join(caught.value.problems)
    assert "skills start as a pyramid" in problems
    assert "or count the skill points milestones gave with milestone_skills, e.g. milestone_skills = 1" in problems
    data["milestone_skills"] = 1
    assert parse_sheet(data, system, folder=folder).character.skills["Rapport"] == 1
    # the count must match: two more points than the pyramid are not one
    data["skills"]["Shoot"] = 1
    with pytest.raises(SheetError) as caught:
        parse_sheet(data, system, folder=folder)
    assert "milestone_skills = 1, but the skills are 2 steps above the pyramid" in "\n".join(caught.value.problems)
    # and grown only upward: a sheet that lost its Great skill is no pyramid grown by raises
    data = tomllib.loads((folder / "nora.toml").read_text(encoding="utf-8"))
    data["skills"].update(Lore=3, Rapport=1, Shoot=1)
    data["milestone_skills"] = 1
    with pytest.raises(SheetError) as caught:
        parse_sheet(data, system, folder=folder)
    assert "not the pyramid grown by one-step raises" in "\n".join(caught.value.problems)


@pytest.mark.parametrize("system, skills, raise_one, raise_two", [
    # Fate Core: Academics is not on its list (pbp/rules/systems/fate_core.py)
    ("fate-core", {"Lore": 4, "Fight": 3, "Will": 3, "Notice": 2, "Athletics": 2, "Physique": 2,
                   "Empathy": 1, "Stealth": 1, "Rapport": 1, "Investigate": 1}, "skills.Shoot=Average",
     "skills.Stealth=Fair"),
    # early Fate: Spirit of the Century's list (pbp/rules/systems/early_fate.py)
    ("early-fate", {"Mysteries": 4, "Weapons": 3, "Resolve": 3, "Alertness": 2, "Athletics": 2, "Endurance": 2,
                    "Empathy": 1, "Stealth": 1, "Rapport": 1, "Investigation": 1}, "skills.Guns=Average",
     "skills.Stealth=Fair"),
])
def test_fate_core_and_early_fate_sheets_grow_by_the_column(db, config, tmp_path, system, skills, raise_one,
                                                           raise_two):
    """Fate Core and early Fate check the column at creation (their texts give no exact
    pyramid to check: docs/systems.md), and the same column at every advancement."""
    campaign = create_campaign("grow", "Grow", address="table+grow@pbp.localhost", gms=["gm@pbp.localhost"],
                               system=system)
    lines = "\n".join(f"{k} = {v}" for k, v in skills.items())
    sheet = tmp_path / "ada.toml"
    sheet.write_text(f'name = "Ada"\nplayer = "ada@pbp.localhost"\n[aspects]\nhigh_concept = "Scholar"\n'
                     f'trouble = "Curious"\n[skills]\n{lines}\n', encoding="utf-8")
    import_character(campaign, str(sheet))
    mt = MailTable(config)
    for change in (raise_one, raise_two):
        assert mt.post("GM", "/milestone major\n", subject="Grow").status == "applied"
        asked = mt.post("Ada", f"/advance {change}\n", subject="Grow")
        assert asked.status == "applied", asked.text
        done = mt.post("GM", "/approve\n", subject="Grow")
        assert done.status == "applied" and "The GM approves advancement #" in done.text, done.text
    ada = repo.load_table(m.Campaign.get_by_id(campaign.id)).character("Ada")
    assert ada.skills["Stealth"] == 2
    broken = mt.post("GM", "/milestone major\n", subject="Grow")
    assert broken.status == "applied"
    refused = mt.post("Ada", "/advance skills.Rapport=Fair\n", subject="Grow")
    assert refused.status == "rejected" and "each step may not have more skills than the step below it" in refused.text


def test_the_gm_counts_a_raise_made_by_hand(lakeshore, config):
    """The GM's own fix (/sheet set) of a DFC sheet above the pyramid says where the point came
    from, like a refresh above the stunts' (milestone_refresh)."""
    mt = MailTable(config)
    bare = mt.post("GM", "/sheet set Nora skills.Rapport=Average\n")
    assert bare.status == "rejected" and "milestone_skills = 1" in bare.text
    counted = mt.post("GM", "/sheet set Nora skills.Rapport=Average milestone_skills=1\n")
    assert counted.status == "applied", counted.text
    assert nora(lakeshore).skills["Rapport"] == 1


def test_other_systems_have_no_milestone_skills(mt, chicago):
    step = mt.post("GM", "/sheet set Ruth milestone_skills=1\n")
    assert step.status == "rejected" and "milestone_skills: unknown key" in step.text


RUTH_DFC = '''name = "Ruth"
player = "ruth@pbp.localhost"
refresh = 3
mantle = "mantles/threshold-warden.toml"
mantle_stunts = ["Ward Knife"]

[aspects]
high_concept = "Occult Bookshop Owner With a Past"
trouble = "Can't Leave a Mystery Alone"
relationship = "Nora Keeps My Secrets"
other = ["Knows Every Fence in Town"]

[skills]
Fight = 4
Athletics = 3
Will = 3
Notice = 2
Physique = 2
Stealth = 2
Lore = 1
Rapport = 1
Investigate = 1
Burglary = 1
'''


def test_ruths_lore_with_a_saved_point_under_the_dfc_creation_check(lakeshore, config, tmp_path):
    """"Improving Skill Ratings" (000_7ba3f797fc1d45d3.txt), on a DFC sheet that starts as the
    exact pyramid of "Summary of Character Creation" (Great Fight; Good Athletics, Will; Fair
    Notice, Physique, Stealth; Average Lore, Rapport, Investigate, Burglary): "Ruth wants to
    increase her Lore from Average (+1) to Fair (+2), but this means she'd have four Fair (+2)
    skills and only three Average (+1)...that won't do. Luckily, she has saved a second skill
    point from an earlier milestone, so she also increases her Mediocre (+0) Empathy to Average
    (+1). Now she has one Great (+4), two Good (+3), four Fair (+2), and four Average (+1)
    skills." Two major milestones (one skill point each, the first saved); Lore alone is
    refused with the options; Lore and Empathy together are approved."""
    (tmp_path / "mantles").mkdir()
    (tmp_path / "mantles" / "threshold-warden.toml").write_text(
        (sample_dir("dfc") / "mantles" / "threshold-warden.toml").read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "ruth.toml").write_text(RUTH_DFC, encoding="utf-8")
    import_character(lakeshore, str(tmp_path / "ruth.toml"))
    mt = MailTable(config)
    first = mt.post("GM", "/milestone major\n")
    assert first.status == "applied" and "Ruth: 1 change from the minor list, a new high concept, 1 skill point" \
        in first.text, first.text
    before = state_snapshot(lakeshore)
    alone = mt.post("Ruth", "/advance skills.Lore=Fair\n")
    assert alone.status == "rejected"
    assert "4 skills at Fair (+2) but only 3 at Average (+1)" in alone.text
    assert "raise another skill Mediocre (+0) -> Average (+1) instead" in alone.text
    assert "or save the skill point for a later milestone" in alone.text
    assert "example:  /advance skills." in alone.text
    assert state_snapshot(lakeshore) == before
    # she saves the point; the next major milestone gives her a second one
    second = mt.post("GM", "/milestone major\n")
    assert second.status == "applied" and "Ruth: 1 change from the minor list, a new high concept, 2 skill points" \
        in second.text, second.text
    asked = mt.post("Ruth", "/advance skills.Lore=Fair skills.Empathy=Average\n")
    assert asked.status == "applied", asked.text
    assert "Ruth asks for Empathy Mediocre (+0) -> Average (+1); Lore Average (+1) -> Fair (+2)" in asked.text
    done = mt.post("GM", "/approve\n", reply_to=asked)
    assert done.status == "applied" and "The GM approves advancement #" in done.text, done.text
    ruth = repo.load_table(m.Campaign.get_by_id(lakeshore.id)).character("Ruth")
    counts = {r: sum(1 for v in ruth.skills.values() if v == r) for r in (4, 3, 2, 1)}
    assert counts == {4: 1, 3: 2, 2: 4, 1: 4}         # one Great, two Good, four Fair, four Average
    # the grown sheet passes DFC's own check again (the GM's fix, export) and says its raises
    assert mt.post("GM", "/sheet set Ruth fate_points=2\n").status == "applied"
    assert "milestone_skills = 2" in export_sheet(m.Campaign.get_by_id(lakeshore.id), "Ruth")
