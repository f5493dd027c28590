"""Fari sheets (issue 11 item 6): every layout imports, a round trip keeps the character, and
what does not map is reported."""
from __future__ import annotations

import json

import pytest

from pbp.cli import main
from pbp.demo import sample_dir
from pbp.fari import blocks_of, from_fari
from pbp.rules.systems import get_system
from pbp.sheetedit import sheet_data
from pbp.store import models as m
from pbp.store import repo
from tests.fari.sheets import LAYOUTS, STUNT_TEXT
from tests.helpers import cli_table

FC = get_system("fate-condensed")


@pytest.fixture
def table(tmp_path, monkeypatch):
    sheets = [str(p) for p in sorted(sample_dir().glob("*.toml")) if p.name != "campaign.toml"]
    return cli_table(tmp_path, monkeypatch, sheets=sheets)


def campaign():
    return m.Campaign.get(m.Campaign.slug == "chicago")


def character(name):
    t = repo.load_table(campaign())
    return t, t.character(name)


def everything(name):
    """The character as pbp keeps it: its sheet, marked stress, consequences."""
    t, ch = character(name)
    return sheet_data(campaign(), t, ch), ch.stress, [(q.severity, q.track, q.aspect) for q in ch.consequences]


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_a_hand_written_sheet_in_each_layout_maps(layout):
    doc = LAYOUTS[layout]()
    doc["version"] = 99            # the shape is read, not the version field
    sheet = from_fari(doc, FC)
    data = sheet.data
    assert data["name"] == "Mara Quill"
    assert data["aspects"]["high_concept"] == "Courier Who Never Misses a Drop"
    assert data["aspects"]["trouble"] == "Owes the Wrong People"
    assert data["aspects"]["other"] == ["My Sister Runs the Night Market"]
    assert data["skills"]["Athletics"] == 4 and data["skills"]["Shoot"] == 1 and len(data["skills"]) == 10
    [stunt] = data["stunts"]
    assert (stunt["skill"], stunt["action"], stunt["bonus"]) == ("Drive", "overcome", 2)
    assert stunt["circumstance"] == "when you take a shortcut" and stunt["description"] == STUNT_TEXT
    assert data["refresh"] == 3 and data["fate_points"] == 2
    assert data["description"] == "Rides a battered moped."
    assert sheet.stress == {"physical": [True, False, False], "mental": [False, False, False]}
    assert sheet.consequences == [("mild", "", "Scraped Knuckles")]


@pytest.mark.parametrize("layout", ["v3", "v4", "v5", "v6"])
def test_what_does_not_map_is_reported(layout):
    sheet = from_fari(LAYOUTS[layout](), FC)
    assert [u for u in sheet.unmapped] == [f'"{"GEAR" if layout == "v6" else "Gear"}" / '
                                          f'"{"BAG" if layout == "v6" else "Bag"}": Text A waterproof satchel']


def test_the_layouts_are_told_apart_by_shape():
    assert [blocks_of(LAYOUTS[k]())[0] for k in sorted(LAYOUTS)] == [
        "v1 (flat lists, stress as booleans)", "v2 (flat lists)", "v3 (sections with a position)",
        "v4 (left and right sections)", "v5/v6 (rows and columns)", "v5/v6 (rows and columns)"]


def test_not_a_fari_sheet():
    from pbp.errors import SheetError

    with pytest.raises(SheetError, match="no pages, and no aspects, skills or stunts"):
        from_fari({"name": "x"}, FC)


def test_a_fari_file_of_another_kind_is_refused():
    from pbp.errors import SheetError

    with pytest.raises(SheetError, match="holds a 'scene', not a character"):
        from_fari({"fariType": "scene", "name": "Docks", "pages": []}, FC)


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_each_layout_imports_with_its_play_state(table, tmp_path, capsys, layout):
    path = tmp_path / f"mara-{layout}.fari.json"
    path.write_text(json.dumps(LAYOUTS[layout]()), encoding="utf-8")
    assert main(["character", "import", str(path), "--player", "mara@pbp.localhost"]) == 0
    out = capsys.readouterr().out
    assert f"imported Mara Quill (pc) into chicago" in out
    _, mara = character("Mara Quill")
    assert mara.fate_points == 2 and mara.skills["Drive"] == 3
    assert mara.stress["physical"][0] is True
    assert [q.aspect for q in mara.consequences if q.aspect] == ["Scraped Knuckles"]
    # Fari's 3 boxes against the 4 Fate Condensed gives for Physique Average and Will Fair: reported
    assert mara.stress["physical"] == [True, False, False, False]
    assert ("not imported: physical stress: Fari has 3 boxes, Mara Quill has 4 by the rules (from the skills); "
            "the marks are put in the first boxes") in out
    assert ("GEAR" if layout == "v6" else "Gear") in out or layout in ("v1", "v2")


def test_round_trip_import_export_import_is_the_same_character(table, tmp_path, capsys):
    t, ruth = character("Ruth")
    before = repo.snapshot(t)
    ruth.fate_points = 1
    ruth.stress["physical"][:2] = [True, True]
    ruth.consequences[0].aspect = "Bruised Ribs"
    repo.save_table(campaign(), before, t)
    first = everything("Ruth")
    out = tmp_path / "ruth.fari.json"
    assert main(["character", "export", "Ruth", "--fari", "--out", str(out)]) == 0
    doc = json.loads(out.read_text(encoding="utf-8"))
    assert doc["version"] == 6 and "rows" in doc["pages"][0]
    assert doc["fariType"] == "character"      # without it the Fari app ignores the file (FariEntity.import)
    assert main(["character", "import", str(out), "--replace"]) == 0
    assert "not imported" not in capsys.readouterr().out
    assert everything("Ruth") == first
    # and once more: export again, import again
    assert main(["character", "export", "Ruth", "--fari", "--out", str(out)]) == 0
    assert main(["character", "import", str(out), "--replace"]) == 0
    assert everything("Ruth") == first


def test_a_stunt_without_rules_in_its_text_is_kept_as_text_and_reported(table, tmp_path, capsys):
    doc = LAYOUTS["v5"]()
    doc["pages"][0]["rows"][0]["columns"][0]["sections"][1]["blocks"].append(
        {"id": "x", "type": "Text", "label": "Friends Everywhere", "value": "Once a session, someone owes me.",
         "meta": {}})
    path = tmp_path / "mara.fari.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    assert main(["character", "import", str(path), "--player", "mara@pbp.localhost"]) == 0
    out = capsys.readouterr().out
    assert ('not imported: "Stunts & Extras" / "Friends Everywhere": no skill and bonus found in its text; '
            "imported as a stunt of text only (bonus 0)") in out
    _, mara = character("Mara Quill")
    assert [(s.name, s.bonus) for s in mara.stunts] == [("Back Alleys", 2), ("Friends Everywhere", 0)]


def test_a_bad_fari_sheet_is_refused_whole(table, tmp_path, capsys):
    doc = LAYOUTS["v6"]()
    doc["pages"][0]["rows"][0]["columns"][1]["sections"][0]["blocks"].append(
        {"id": "y", "type": "Skill", "label": "Hacking", "value": "2", "meta": {}})
    path = tmp_path / "mara.fari.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    assert main(["character", "import", str(path), "--player", "mara@pbp.localhost"]) == 3
    err = capsys.readouterr()
    assert "Mara Quill has \"Hacking\", which is not a Fate Condensed skill" in err.err, err.err
    assert character("Mara Quill")[1] is None


def test_a_fari_sheet_without_a_player_says_how_to_give_one(table, tmp_path, capsys):
    path = tmp_path / "mara.fari.json"
    path.write_text(json.dumps(LAYOUTS["v6"]()), encoding="utf-8")
    assert main(["character", "import", str(path)]) == 3
    err = capsys.readouterr().err
    assert "player: missing" in err
    assert character("Mara Quill")[1] is None


def test_a_grown_dresden_sheet_round_trips_with_its_own_keys(tmp_path, monkeypatch, capsys):
    """Dresden Files Condensed keeps keys Fari has no place for: the mantle, the stunts chosen
    from it, the scale and ``milestone_skills`` (the skill points milestones gave: the text's
    "Improving Skill Ratings", docs/dresden-files-condensed.md), and the relationship aspect.
    Nora grown by one raise (Rapport to Average), her lasting condition taken, exports to Fari
    with them, in the PBP section and the Aspects section (the condition with the
    consequences, labelled with its kind), and imports back as the same character."""
    monkeypatch.chdir(tmp_path)
    assert main(["init"]) == 0
    assert main(["campaign", "create", "lake", "--name", "The Lake", "--system", "dfc",
                 "--gm", "gm@pbp.localhost", "--address", "table+lake@pbp.localhost"]) == 0
    sheets = [str(p) for p in sorted(sample_dir("dfc").glob("*.toml")) if p.name != "campaign.toml"]
    assert main(["character", "import", *sheets, "--campaign", "lake"]) == 0
    lake = m.Campaign.get(m.Campaign.slug == "lake")
    t = repo.load_table(lake)
    before = repo.snapshot(t)
    nora = t.character("Nora")
    assert "Rapport" not in nora.skills
    nora.skills["Rapport"] = 1
    nora.system_state = {**nora.system_state, "milestone_skills": 1}
    # a taken condition (its aspect is the condition's name) and a mild consequence
    from pbp.rules.state import Aspect
    lasting = next(q for q in nora.consequences if q.condition == "Door-Burned")
    lasting.aspect = "Door-Burned"
    mild = next(q for q in nora.consequences if q.severity == "mild" and not q.condition)
    mild.aspect = "Split Knuckles"
    t.aspects += [Aspect("Door-Burned", kind="consequence", owner="Nora"),
                  Aspect("Split Knuckles", kind="consequence", owner="Nora")]
    repo.save_table(lake, before, t)

    def kept():
        t = repo.load_table(lake)
        ch = t.character("Nora")
        return sheet_data(lake, t, ch), ch.stress, [(q.severity, q.track, q.aspect, q.condition) for q in ch.consequences]

    first = kept()
    assert first[0]["milestone_skills"] == 1 and first[0]["scale"] == "Supernatural"
    assert ("lasting", "physical", "Door-Burned", "Door-Burned") in first[2] and ("mild", "", "Split Knuckles", "") in first[2]
    out = tmp_path / "nora.fari.json"
    capsys.readouterr()
    assert main(["character", "export", "Nora", "--fari", "--out", str(out), "--campaign", "lake"]) == 0
    doc = json.loads(out.read_text(encoding="utf-8"))
    sections = {s["label"]: s["blocks"] for row in doc["pages"][0]["rows"] for col in row["columns"]
                for s in col["sections"]}
    own = {b["label"]: json.loads(b["value"]) for b in sections["PBP"]}
    assert own["milestone_skills"] == 1 and own["scale"] == "Supernatural"
    assert own["mantle_stunts"] == ["Ward Knife"] and own["mantle"]["name"] == "Threshold Warden"
    assert {"Relationship": "Owes Marcus a Life"}.items() <= {b["label"]: b["value"] for b in sections["ASPECTS"]}.items()
    assert main(["character", "import", str(out), "--replace", "--campaign", "lake"]) == 0
    said = capsys.readouterr().out
    assert "not imported" not in said, said
    assert kept() == first
    # and the sheet as Fari reads it, without pbp: the same keys, nothing reported unmapped
    read = from_fari(doc, get_system("dfc"))
    assert read.data["milestone_skills"] == 1 and read.data["aspects"]["relationship"] == "Owes Marcus a Life"
    assert not [u for u in read.unmapped if "PBP" in u], read.unmapped


def test_a_pbp_section_key_the_system_does_not_have_is_reported():
    """A PBP block Fate Condensed has no key for (a Dresden sheet read into a Fate Condensed
    campaign) is listed as not mapped, with the keys there are; bad JSON likewise."""
    doc = {"name": "Nora", "version": 6, "pages": [{"rows": [{"columns": [{"sections": [
        {"label": "PBP", "blocks": [{"type": "Text", "label": "milestone_skills", "value": "1", "meta": {}}]},
    ]}]}]}]}
    sheet = from_fari(doc, FC)
    assert sheet.unmapped == ['"PBP" / "milestone_skills": not a sheet key of Fate Condensed (its keys: kind, aliases, stress, milestone_refresh)']
    assert "milestone_skills" not in sheet.data
    doc["pages"][0]["rows"][0]["columns"][0]["sections"][0]["blocks"][0]["value"] = "one"
    sheet = from_fari(doc, get_system("dfc"))
    assert sheet.unmapped == ['"PBP" / "milestone_skills": one is not a JSON value (pbp writes one, e.g. 3 or '
                              '"Mundane")']


def test_a_fari_import_is_in_the_history_with_its_play_state(table, tmp_path, capsys):
    """The import's history row is the character as imported, Fari's marked stress and
    consequence included."""
    from pbp.store import models as m

    path = tmp_path / "mara.fari.json"
    path.write_text(json.dumps(LAYOUTS["v6"]()), encoding="utf-8")
    assert main(["character", "import", str(path), "--player", "mara@pbp.localhost"]) == 0
    row = m.SheetChange.select().where(m.SheetChange.character == "Mara Quill").get()
    assert (row.how, row.before) == ("import", None)
    assert row.after["stress"]["physical"] == [True, False, False, False]
    assert any(e[0] == "Scraped Knuckles" and e[1] == "consequence" for e in row.after["aspects"])
