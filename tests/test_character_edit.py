"""Changing a sheet safely (issue 11, item 5): pbp character set / edit keep the play state,
every change is in the history, undo takes back the last one; list, export, remove and
campaign remove-member."""
from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from pbp.cli import main
from pbp.demo import sample_dir
from pbp.store import models as m
from pbp.store import repo
from tests.helpers import cli_table


@pytest.fixture
def table(tmp_path, monkeypatch):
    sheets = [str(p) for p in sorted(sample_dir().glob("*.toml")) if p.name != "campaign.toml"]
    return cli_table(tmp_path, monkeypatch, sheets=sheets)


def campaign():
    return m.Campaign.get(m.Campaign.slug == "chicago")


def ruth():
    return repo.load_table(campaign()).character("Ruth")


def play_some(table_dir, capsys):
    """Ruth in play: a fate point spent, two stress boxes marked, a mild consequence, a
    free invoke held on her own aspect."""
    t = repo.load_table(campaign())
    before = repo.snapshot(t)
    r = t.character("Ruth")
    r.fate_points = 1
    r.stress["physical"][:2] = [True, True]
    r.consequences[0].aspect = "Bruised Ribs"
    for a in t.aspects:
        if a.owner == "Ruth" and a.name == "Knife Up My Sleeve":
            a.free_invokes = {"Charles": 1}
    repo.save_table(campaign(), before, t)
    capsys.readouterr()


def knife_free():
    return next(a.free_invokes for a in repo.load_table(campaign()).aspects
                if a.owner == "Ruth" and a.name == "Knife Up My Sleeve")


def test_set_keeps_play_state(table, capsys):
    play_some(table, capsys)
    assert main(["character", "set", "Ruth", "skills.Burglary=Average", "refresh=3"]) == 0
    out = capsys.readouterr().out
    assert "skills.Burglary: (none) -> 1" in out
    r = ruth()
    assert r.skills["Burglary"] == 1
    assert r.fate_points == 1
    assert r.stress["physical"] == [True, True, False, False]
    assert r.consequences[0].aspect == "Bruised Ribs"
    assert knife_free() == {"Charles": 1}


def test_import_replace_loses_the_play_state_set_does_not(table, capsys, tmp_path):
    """The test that fails on today's --replace: it resets fate points and stress."""
    play_some(table, capsys)
    sheet = tmp_path / "ruth.toml"
    assert main(["character", "export", "Ruth", "--out", str(sheet)]) == 0
    assert main(["character", "import", str(sheet), "--replace"]) == 0
    replaced = ruth()
    assert replaced.stress["physical"] == [False] * 4 and replaced.consequences[0].aspect is None
    play_some(table, capsys)
    assert main(["character", "set", "Ruth", "description=Tough as nails"]) == 0
    kept = ruth()
    assert kept.stress["physical"][:2] == [True, True] and kept.consequences[0].aspect == "Bruised Ribs"


def test_a_raised_physique_resizes_stress_and_keeps_the_marks(table, capsys):
    play_some(table, capsys)
    # Physique Fair (+2) -> Good (+3): 6 boxes; the pyramid needs a swap to stay legal
    assert main(["character", "set", "Ruth", "skills.Physique=3", "skills.Athletics=2"]) == 0, capsys.readouterr()
    assert ruth().stress["physical"] == [True, True, False, False, False, False]


def test_a_rule_broken_changes_nothing(table, capsys):
    play_some(table, capsys)
    before = repo.snapshot(repo.load_table(campaign()))
    assert main(["character", "set", "Ruth", "skills.Fight=Epic"]) == 3
    err = capsys.readouterr().err
    assert "problem" in err
    assert repo.snapshot(repo.load_table(campaign())) == before
    assert main(["character", "set", "Ruth", "skills.Fight=Awesome"]) == 3
    assert main(["character", "set", "Ruth", "colour=blue"]) == 3
    assert main(["character", "set", "Ruth", "name=Rita"]) == 3
    assert main(["character", "set", "Nobody", "refresh=3"]) == 3


def test_renaming_the_trouble_keeps_its_free_invokes(table, capsys):
    t = repo.load_table(campaign())
    before = repo.snapshot(t)
    trouble = next(a for a in t.aspects if a.owner == "Ruth" and a.kind == "trouble")
    trouble.free_invokes = {"Ghoul": 1}
    repo.save_table(campaign(), before, t)
    assert main(["character", "set", "Ruth", "aspects.trouble=Short Fuse"]) == 0
    t = repo.load_table(campaign())
    trouble = next(a for a in t.aspects if a.owner == "Ruth" and a.kind == "trouble")
    assert (trouble.name, trouble.free_invokes) == ("Short Fuse", {"Ghoul": 1})


def test_history_and_undo(table, capsys):
    play_some(table, capsys)
    main(["character", "set", "Ruth", "fate_points=4"])
    main(["character", "set", "Ruth", "description=Tough as nails"])
    capsys.readouterr()
    assert main(["character", "history", "Ruth"]) == 0
    out = capsys.readouterr().out
    assert "set by pbp character set" in out and "fate_points: 1 -> 4" in out
    assert main(["character", "undo", "Ruth"]) == 0               # the description
    assert "description" in capsys.readouterr().out
    assert ruth().fate_points == 4
    assert main(["character", "undo", "Ruth"]) == 0               # the fate points
    assert ruth().fate_points == 1
    assert ruth().stress["physical"][:2] == [True, True]
    main(["character", "history", "Ruth"])
    out = capsys.readouterr().out
    assert out.count("[undone]") == 2 and out.count(" undo by ") == 2
    assert main(["character", "undo", "Ruth"]) == 3               # nothing left to undo


def test_play_changes_are_in_the_history(table, capsys, tmp_path):
    """A post that spends a fate point: the history has it, with its author and message."""
    from tests.helpers import eml
    post = tmp_path / "spend.eml"
    post.write_bytes(eml('/fp spend "for luck"\n', sender="ruth@pbp.localhost", message_id="spend-1@t"))
    assert main(["process", str(post)]) == 0
    row = m.SheetChange.select().where(m.SheetChange.message_id == "spend-1@t").get()
    assert (row.how, row.who, row.before["fate_points"], row.after["fate_points"]) == \
        ("play", "ruth@pbp.localhost", 3, 2)
    capsys.readouterr()
    main(["character", "history", "Ruth"])
    assert "play by ruth@pbp.localhost (message spend-1@t)" in capsys.readouterr().out
    assert main(["character", "undo", "Ruth"]) == 0
    assert ruth().fate_points == 3


def test_edit_applies_only_the_differences(table, capsys, tmp_path, monkeypatch):
    play_some(table, capsys)
    editor = tmp_path / "ed.sh"
    editor.write_text("#!/bin/sh\nsed -i 's/^refresh = 3/refresh = 3\\ndescription = \"Edited\"/' \"$1\"\n")
    editor.chmod(editor.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("EDITOR", str(editor))
    monkeypatch.delenv("VISUAL", raising=False)
    assert main(["character", "edit", "Ruth"]) == 0
    assert "description" in capsys.readouterr().out
    assert m.Character.get(m.Character.name == "Ruth").description == "Edited"
    assert ruth().fate_points == 1 and ruth().stress["physical"][:2] == [True, True]


def test_edit_with_a_broken_sheet_keeps_the_file(table, capsys, tmp_path, monkeypatch):
    editor = tmp_path / "ed.sh"
    editor.write_text("#!/bin/sh\nsed -i 's/^refresh = 3/refresh = 9/' \"$1\"\n")
    editor.chmod(editor.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("EDITOR", str(editor))
    monkeypatch.delenv("VISUAL", raising=False)
    assert main(["character", "edit", "Ruth"]) == 3
    err = capsys.readouterr().err
    assert "the edited sheet is kept in" in err and "refresh" in err
    assert ruth().refresh == 3


def test_export_reimports_to_the_same_sheet(table, capsys, tmp_path):
    for name in ("Ruth", "Ghoul", "Masked Acolyte"):
        out = tmp_path / f"{name}.toml"
        assert main(["character", "export", name, "--out", str(out)]) == 0
        from pbp.sheetfile import load_sheet
        from pbp.rules.systems import get_system
        sheet = load_sheet(out, get_system("fate-condensed"))
        stored = repo.load_table(campaign()).character(name)
        assert (sheet.character.skills, sheet.character.refresh, sheet.character.kind) == \
            (stored.skills, stored.refresh, stored.kind)


def test_list_remove_and_remove_member(table, capsys):
    assert main(["character", "list"]) == 0
    out = capsys.readouterr().out
    assert "Ruth: pc (ruth@pbp.localhost) · FP 3 · refresh 3" in out and "Ghoul: npc" in out
    assert main(["campaign", "remove-member", "ruth@pbp.localhost"]) == 3
    assert "plays Ruth" in capsys.readouterr().err
    assert main(["character", "remove", "Ruth"]) == 0
    assert repo.load_table(campaign()).character("Ruth") is None
    assert main(["campaign", "remove-member", "ruth@pbp.localhost"]) == 0
    assert not m.Member.select().where(m.Member.email == "ruth@pbp.localhost").exists()
    main(["character", "history", "Ruth"])
    assert "remove by pbp character remove" in capsys.readouterr().out
    assert main(["campaign", "remove-member", "gm@pbp.localhost"]) == 3     # the only GM


def test_no_removal_while_a_conflict_has_them(table, capsys):
    from pbp.play.state import PlayState, dump_play
    from pbp.rules.conflict import start_conflict
    from pbp.rules.systems import FATE_CONDENSED
    t = repo.load_table(campaign())
    play = PlayState(conflict=start_conflict(t, ["Ruth", "Ghoul"], "Ruth", tracks=FATE_CONDENSED.tracks))
    c = campaign()
    c.play = dump_play(play)
    c.save()
    assert main(["character", "remove", "Ruth"]) == 3
    assert "part of the conflict" in capsys.readouterr().err


def test_history_shows_an_aspect_renamed_and_undo_takes_it_back(table, capsys):
    """The history's aspects line names the aspect before and after (not a cut JSON list),
    and undo restores the name with its free invokes."""
    t = repo.load_table(campaign())
    before = repo.snapshot(t)
    next(a for a in t.aspects if a.owner == "Ruth" and a.kind == "trouble").free_invokes = {"Ghoul": 1}
    repo.save_table(campaign(), before, t)
    assert main(["character", "set", "Ruth", "aspects.trouble=Short Fuse"]) == 0
    capsys.readouterr()
    main(["character", "history", "Ruth"])
    assert 'aspects: "Hair-Trigger Temper" -> "Short Fuse" (trouble)' in capsys.readouterr().out
    assert main(["character", "undo", "Ruth"]) == 0
    trouble = next(a for a in repo.load_table(campaign()).aspects if a.owner == "Ruth" and a.kind == "trouble")
    assert (trouble.name, trouble.free_invokes) == ("Hair-Trigger Temper", {"Ghoul": 1})


# -- the play state by hand (issue 11 review, item 3) ---------------------------------------


def test_set_corrects_the_play_state_in_the_history_and_undo_takes_it_back(table, capsys):
    play_some(table, capsys)
    assert main(["character", "set", "Ruth", "stress.physical=x___", "stress.mental.1=true",
                 "consequences.mild=Cracked Ribs", "free_invokes.Knife Up My Sleeve=0", "carried_points=2"]) == 0
    out = capsys.readouterr().out
    assert "stress.physical: [x][x][ ][ ] -> [x][ ][ ][ ]" in out
    assert 'consequences.mild.aspect: "Bruised Ribs" -> "Cracked Ribs"' in out
    r = ruth()
    assert r.stress["physical"] == [True, False, False, False] and r.stress["mental"][0] is True
    assert r.consequences[0].aspect == "Cracked Ribs" and r.carried_points == 2
    assert any(a.name == "Cracked Ribs" and a.kind == "consequence" and a.owner == "Ruth"
               for a in repo.load_table(campaign()).aspects)
    assert r.fate_points == 1                          # untouched
    main(["character", "history", "Ruth"])
    out = capsys.readouterr().out
    assert "stress.physical: [x][x][ ][ ] -> [x][ ][ ][ ]" in out and "stress.mental: [ ][ ][ ][ ] -> [x][ ][ ][ ]" in out
    assert main(["character", "undo", "Ruth"]) == 0
    r = ruth()
    assert r.stress["physical"][:2] == [True, True] and r.stress["mental"][0] is False
    assert r.consequences[0].aspect == "Bruised Ribs" and r.carried_points == 0


def test_set_clears_a_consequence_and_takes_out(table, capsys):
    play_some(table, capsys)
    assert main(["character", "set", "Ruth", "consequences.mild=", "taken_out=yes"]) == 0
    r = ruth()
    assert r.consequences[0].aspect is None and r.taken_out is True
    assert main(["character", "set", "Ruth", "taken_out=no"]) == 0 and ruth().taken_out is False


def test_free_invokes_held_on_a_scene_aspect(table, capsys):
    from pbp.rules.state import Aspect

    t = repo.load_table(campaign())
    snap = repo.snapshot(t)
    t.aspects.append(Aspect("Deep Shadows"))
    repo.save_table(campaign(), snap, t)
    assert main(["character", "set", "Ruth", "free_invokes.Deep Shadows=2"]) == 0
    shadows = next(a for a in repo.load_table(campaign()).aspects if a.name == "Deep Shadows")
    assert shadows.free_invokes == {"Ruth": 2}
    assert main(["character", "undo", "Ruth"]) == 0
    shadows = next(a for a in repo.load_table(campaign()).aspects if a.name == "Deep Shadows")
    assert shadows.free_invokes == {}


@pytest.mark.parametrize("pair, words", [
    ("stress.physical=xx", "2 boxes written, and Ruth's physical track has 4; e.g. stress.physical=x___"),
    ("stress.physical=xyz_", '"xyz_" is not boxes'),
    ("stress.spirit=x", "Ruth has no spirit stress track (tracks: physical, mental)"),
    ("stress.physical.9=true", "Ruth's physical track has boxes 1 to 4"),
    ("stress.physical.1=maybe", '"maybe" is not yes or no'),
    ("consequences.extreme=Gone", "Ruth has no extreme slot (slots: mild, moderate, severe)"),
    ("consequences.mild=Hair-Trigger Temper", 'Ruth already has an aspect "Hair-Trigger Temper"'),
    ("free_invokes.Nowhere=1", "no aspect Nowhere is in play"),
    ("free_invokes.Knife Up My Sleeve=-1", "-1 is not from 0 to 99"),
    ("carried_points=lots", '"lots" is not a whole number'),
    ("taken_out=perhaps", '"perhaps" is not yes or no'),
])
def test_bad_play_values_name_the_place_and_change_nothing(table, capsys, pair, words):
    play_some(table, capsys)
    before = repo.snapshot(repo.load_table(campaign()))
    rows = m.SheetChange.select().count()
    assert main(["character", "set", "Ruth", pair]) == 3
    err = capsys.readouterr().err
    assert words in err and "e.g." in err and "Traceback" not in err
    assert repo.snapshot(repo.load_table(campaign())) == before and m.SheetChange.select().count() == rows


def test_edit_has_a_play_table_and_applies_what_changed(table, capsys, tmp_path, monkeypatch):
    play_some(table, capsys)
    editor = tmp_path / "ed.sh"
    editor.write_text("#!/bin/sh\ncp \"$1\" " + str(tmp_path / "seen.toml") + "\n"
                      "sed -i 's/^stress.physical = \"xx__\"/stress.physical = \"xxx_\"/; "
                      "s/^consequences.mild = \"Bruised Ribs\"/consequences.mild = \"\"/' \"$1\"\n")
    editor.chmod(editor.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("EDITOR", str(editor))
    monkeypatch.delenv("VISUAL", raising=False)
    assert main(["character", "edit", "Ruth"]) == 0, capsys.readouterr()
    seen = (tmp_path / "seen.toml").read_text()
    assert "[play]" in seen and 'stress.physical = "xx__"' in seen and 'consequences.mild = "Bruised Ribs"' in seen
    assert 'free_invokes."Knife Up My Sleeve"' not in seen      # Charles holds that one, not Ruth
    r = ruth()
    assert r.stress["physical"] == [True, True, True, False] and r.consequences[0].aspect is None
    assert r.fate_points == 1 and knife_free() == {"Charles": 1}
    assert main(["character", "undo", "Ruth"]) == 0
    assert ruth().stress["physical"] == [True, True, False, False] and ruth().consequences[0].aspect == "Bruised Ribs"


def test_edit_refuses_a_bad_play_value_and_keeps_the_file(table, capsys, tmp_path, monkeypatch):
    editor = tmp_path / "ed.sh"
    editor.write_text("#!/bin/sh\nsed -i 's/^stress.physical = \"____\"/stress.physical = \"x\"/' \"$1\"\n")
    editor.chmod(editor.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("EDITOR", str(editor))
    monkeypatch.delenv("VISUAL", raising=False)
    assert main(["character", "edit", "Ruth"]) == 3
    err = capsys.readouterr().err
    assert "stress.physical: 1 box written" in err and "the edited sheet is kept in" in err
    assert ruth().stress["physical"] == [False] * 4


def test_export_has_no_play_table(table, capsys, tmp_path):
    out = tmp_path / "ruth.toml"
    assert main(["character", "export", "Ruth", "--out", str(out)]) == 0
    assert "[play]" not in out.read_text()


# -- an import in the history (issue 11 review, item 4) -------------------------------------


def test_an_import_is_in_the_history_and_cannot_be_undone(table, capsys):
    rows = [r for r in m.SheetChange.select() if r.character == "Ruth"]
    assert [(r.how, r.who, r.before) for r in rows] == [("import", "pbp character import", None)]
    assert rows[0].after["fate_points"] == 3
    capsys.readouterr()
    main(["character", "history", "Ruth"])
    out = capsys.readouterr().out
    assert "import by pbp character import" in out and "created" in out
    assert main(["character", "undo", "Ruth"]) == 3
    assert "the import that made the character" in capsys.readouterr().err


def test_undo_takes_a_replace_back(table, capsys, tmp_path):
    """--replace resets fate points to refresh and empties stress and consequences; undo
    puts Ruth's play state back, and the free invoke Charles held on her aspect."""
    play_some(table, capsys)
    sheet = tmp_path / "ruth.toml"
    assert main(["character", "export", "Ruth", "--out", str(sheet)]) == 0
    sheet.write_text(sheet.read_text().replace("fate_points = 1", "fate_points = 3"))
    assert main(["character", "import", str(sheet), "--replace"]) == 0
    replaced = ruth()
    assert replaced.fate_points == 3 and replaced.stress["physical"] == [False] * 4
    row = m.SheetChange.select().order_by(m.SheetChange.id.desc()).first()
    assert (row.how, row.before["fate_points"], row.after["fate_points"]) == ("replace", 1, 3)
    capsys.readouterr()
    main(["character", "history", "Ruth"])
    out = capsys.readouterr().out
    assert "replace by pbp character import" in out and "fate_points: 1 -> 3" in out
    assert main(["character", "undo", "Ruth"]) == 0, capsys.readouterr()
    back = ruth()
    assert back.fate_points == 1 and back.stress["physical"] == [True, True, False, False]
    assert back.consequences[0].aspect == "Bruised Ribs"
    assert knife_free() == {"Charles": 1}


def test_history_takes_an_alias_as_set_sheet_and_undo_do(table, capsys):
    """issue 27: "pbp character history Tomas" (an alias) said "no changes recorded"."""
    assert main(["character", "set", "Ruth", "aliases=Tomas", "fate_points=4"]) == 0
    capsys.readouterr()
    assert main(["character", "history", "Tomas"]) == 0
    out = capsys.readouterr().out
    assert "no changes recorded" not in out
    assert "fate_points: " in out and "-> 4" in out and "aliases" in out
    assert main(["character", "history", "tomas"]) == 0
    assert capsys.readouterr().out == out


def test_history_of_nobody_is_an_error_naming_the_characters(table, capsys):
    code = main(["character", "history", "Nobody"])
    captured = capsys.readouterr()
    assert code == 3
    assert "no changes recorded" not in captured.out
    assert 'no character "Nobody"' in captured.err and "Ruth" in captured.err
    assert "pbp character list" in captured.err


def test_history_of_a_removed_character_is_kept(table, capsys):
    assert main(["character", "set", "Ruth", "fate_points=4"]) == 0
    assert main(["character", "remove", "Ruth"]) == 0
    capsys.readouterr()
    assert main(["character", "history", "Ruth"]) == 0
    out = capsys.readouterr().out
    assert "fate_points: " in out and "removed" in out


def test_history_says_each_change_in_words_not_cut_json(table, capsys):
    """issue 27: "skills: {...} -> {...}" cut at 70 characters hid the change; a consequence
    showed as [{"aspect": ...; each changed value is now its own line, whole."""
    play_some(table, capsys)
    last = sorted(ruth().skills, key=str.casefold)[-1]        # Will, at the end of a long skills field
    assert ruth().skills[last] == 1
    assert main(["character", "set", "Ruth", f"skills.{last}=", "skills.Burglary=Average",
                 "consequences.mild=Cracked Ribs", "aliases=Tomas,Tom"]) == 0
    capsys.readouterr()
    main(["character", "history", "Tomas"])
    out = capsys.readouterr().out
    assert f"skills.{last}: 1 -> (none)" in out and "skills.Burglary: (none) -> 1" in out
    assert 'consequences.mild.aspect: "Bruised Ribs" -> "Cracked Ribs"' in out
    assert 'aliases: (none) -> "Tomas", "Tom"' in out
    assert "{" not in out and "..." not in out
