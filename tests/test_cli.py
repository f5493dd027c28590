"""The command line as an operator and a script use it: a real config file, a real SQLite
database, the sample sheets, and `pbp process --json` with fixed dice."""
from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from pbp.cli import main
from pbp.demo import sample_dir
from tests.helpers import cli_table

RESULT_KEYS = {"command", "actor", "action", "skill", "dice", "effort", "opposition", "shifts", "outcome", "effects"}
MESSAGE_KEYS = {"message_id", "campaign", "author", "status", "errors", "results", "replies"}
SHEET_KEYS = {"name", "fate_points", "refresh", "skills", "aspects", "stunts", "stress", "consequences",
              "conditions", "taken_out"}


@pytest.fixture
def table(tmp_path, monkeypatch):
    """A table set up with the CLI: init, a campaign, the sample characters."""
    sheets = [str(p) for p in sorted(sample_dir().glob("*.toml")) if p.name != "campaign.toml"]
    return cli_table(tmp_path, monkeypatch, sheets=sheets)


def test_process_json_prints_the_documented_keys(table, capsys):
    capsys.readouterr()
    post = sample_dir() / "first-post.eml"
    assert main(["process", str(post), "--json", "--dice", "00++"]) == 0
    (line,) = capsys.readouterr().out.strip().splitlines()
    out = json.loads(line)
    assert MESSAGE_KEYS <= set(out)
    assert out["status"] == "applied" and out["campaign"] == "chicago" and out["author"] == "ruth@pbp.localhost"
    (res,) = out["results"]
    assert RESULT_KEYS <= set(res)
    assert res["dice"] == [0, 0, 1, 1] and res["effort"] == 4 and res["outcome"] == "success"
    assert {"to", "subject", "in_reply_to"} <= set(out["replies"][0])
    # the reply was delivered to the demo outbox Maildir
    assert len(list((table / "maildir" / "outbox" / "new").iterdir())) == 1


def test_process_the_same_file_twice_is_a_duplicate(table, capsys):
    post = str(sample_dir() / "first-post.eml")
    main(["process", post, "--json", "--dice", "00++"])
    capsys.readouterr()
    main(["process", post, "--json", "--dice=----"])  # "=": a value that starts with "-"
    out = json.loads(capsys.readouterr().out)
    assert out["status"] == "duplicate" and out["results"][0]["dice"] == [0, 0, 1, 1]


def test_process_an_edited_copy_and_a_forward_are_duplicates(table, capsys):
    """The JSON contract of docs/json.md for copies: status duplicate, the original
    results, and duplicate_of naming the post they repeat."""
    original = (sample_dir() / "first-post.eml").read_bytes().replace(
        b"Date:", b"In-Reply-To: <gm-1@pbp.localhost>\nDate:")
    edited = original.replace(b"demo-first-post@", b"demo-first-post-edited@").replace(b"tore the", b"ripped the")
    forward = (b"From: Ruth <ruth@pbp.localhost>\nTo: table+chicago@pbp.localhost\nSubject: Fwd: The warehouse\n"
               b"Message-ID: <demo-forward@pbp.localhost>\nMIME-Version: 1.0\n"
               b'Content-Type: multipart/mixed; boundary="b"\n\n--b\nContent-Type: text/plain\n\nSee below.\n'
               b"--b\nContent-Type: message/rfc822\n\n" + original + b"\n--b--\n")
    paths = []
    for name, raw in (("a.eml", original), ("b.eml", edited), ("c.eml", forward)):
        (table / name).write_bytes(raw)
        paths.append(str(table / name))
    capsys.readouterr()
    assert main(["process", *paths, "--json", "--dice", "00++"]) == 0
    first, copy, fwd = (json.loads(line) for line in capsys.readouterr().out.strip().splitlines())
    assert first["status"] == "applied"
    for out, message_id in ((copy, "demo-first-post-edited@pbp.localhost"), (fwd, "demo-forward@pbp.localhost")):
        assert MESSAGE_KEYS <= set(out)
        assert out["status"] == "duplicate" and out["message_id"] == message_id
        assert out["duplicate_of"] == "demo-first-post@pbp.localhost"
        assert out["results"] == first["results"]
        assert [r["to"] for r in out["replies"]] == [["ruth@pbp.localhost"]]


def test_sheet_json(table, capsys):
    capsys.readouterr()
    assert main(["sheet", "Charles", "--json"]) == 0
    sheet = json.loads(capsys.readouterr().out)
    assert SHEET_KEYS <= set(sheet)
    assert sheet["skills"]["Investigate"] == 1 and sheet["fate_points"] == 3
    assert sheet["stress"]["physical"] == [False, False, False]      # Physique Mediocre: 3 boxes
    assert [c["severity"] for c in sheet["consequences"]] == ["mild", "moderate", "severe"]


def test_sheet_text(table, capsys):
    capsys.readouterr()
    assert main(["sheet", "ruth"]) == 0
    text = capsys.readouterr().out
    assert "Ruth" in text and "Hair-Trigger Temper" in text and "Fight +4" in text


def test_import_lists_every_problem(table, capsys, tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "Bad"\nkind = "pc"\nrefresh = 0\n[skills]\nFight = 4\nShoot = 4\nJuggling = 1\n')
    assert main(["character", "import", str(bad), "--campaign", "chicago"]) == 3
    err = capsys.readouterr().err
    for needle in ("refresh", "Juggling", "player", "high_concept"):
        assert needle in err, needle


def build_parser_help(command: str) -> str:
    from pbp.cli import build_parser
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command" or getattr(a, "choices", None) and command in a.choices)
    return sub.choices[command].format_help()


def test_roll(capsys):
    assert main(["roll", "4dF+2", "--dice", "+-0+"]) == 0
    assert capsys.readouterr().out.strip() == "4dF+2: [+] [-] [0] [+] = +3 Good"
    assert main(["roll", "2d10", "--dice", "7 10", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["dice"] == [7, 10]


def test_roll_with_the_d10_hacks_dice(capsys):
    """``pbp roll --system`` takes a name or an alias (as ``campaign create --system``) and
    rolls that system's dice: in the d10 hack (004_c619695e1641b466.txt, "The Core Mechanic")
    8-9 a hit, 10 two, 1 takes one away: [8+] [9+] [3] [10++] [1-] [5] is 3 hits; Fate's dice are
    refused with what it rolls and a working example."""
    for name in ("d10-pool", "d10", "dice-pool", "D10 Pool"):
        assert main(["roll", "--system", name, "6d10", "--dice", "8 9 3 10 1 5"]) == 0, name
        assert capsys.readouterr().out.strip() == "6d10: [8+] [9+] [3] [10++] [1-] [5] = 3 hits"
    assert main(["roll", "--system", "d10", "2d10+1", "--dice", "1 1"]) == 0
    assert capsys.readouterr().out.strip() == "2d10+1: [1-] [1-] = -1 hit"
    assert main(["roll", "--system", "d10", "4dF+2"]) == 3
    err = capsys.readouterr().err
    assert "error: the d10 dice-pool hack rolls ten-sided dice counted as hits, not 4dF" in err
    assert "example:  pbp roll --system d10-pool 6d10" in err and "Traceback" not in err
    assert main(["roll", "--system", "fc", "4dF+2", "--dice", "+-0+"]) == 0      # Fate's, by an alias
    assert capsys.readouterr().out.strip() == "4dF+2: [+] [-] [0] [+] = +3 Good"
    with pytest.raises(SystemExit):
        main(["roll", "--system", "gurps", "3d6"])
    assert "invalid choice: 'gurps'" in capsys.readouterr().err


def test_verify_reports_an_intact_ledger(table, capsys):
    main(["process", str(sample_dir() / "first-post.eml"), "--dice", "00++"])
    capsys.readouterr()
    assert main(["verify"]) == 0
    assert "1 rolls, ledger intact" in capsys.readouterr().out


def test_a_rejected_post_exits_3_and_says_why(table, capsys, tmp_path):
    post = tmp_path / "bad.eml"
    post.write_bytes((sample_dir() / "first-post.eml").read_bytes()
                     .replace(b"/overcome Investigate vs Fair", b"/overcome Investigate vs Fiar")
                     .replace(b"demo-first-post", b"bad-post"))
    assert main(["process", str(post)]) == 3
    out = capsys.readouterr().out
    assert "rejected" in out and "Fiar" in out


def test_demo_once_handles_the_sample_post(tmp_path, capsys):
    assert main(["demo", "--dir", str(tmp_path / "demo"), "--once"]) == 0
    out = capsys.readouterr().out
    assert "Ruth overcomes with Investigate" in out
    assert len(list((tmp_path / "demo" / "maildir" / "outbox" / "new").iterdir())) == 1


def test_campaign_settings_override_the_config(table, capsys, tmp_path):
    """A campaign's own deadline is what its players are given."""
    from pbp.config import load_config
    from pbp.flow.context import Context
    from pbp.pipeline import process_message
    from pbp.rules.dice import FixedDice
    from tests.helpers import FIXED_NOW, eml

    assert main(["campaign", "set", "reaction_deadline_hours=2", "ranged_reach=any", "--campaign", "chicago"]) == 0
    assert main(["campaign", "set", "reaction_deadline_hours=soon"]) == 3
    assert "is not a number of hours" in capsys.readouterr().err
    assert main(["campaign", "set", "colour=blue"]) == 3
    assert "no campaign setting" in capsys.readouterr().err
    config = load_config(table / "pbp.toml")
    ctx = Context(config=config, dice=FixedDice("00++,0000"), clock=lambda: FIXED_NOW)
    out = process_message(eml("/as Ghoul attack Ruth with Fight\n", sender="gm@pbp.localhost"), ctx)
    assert out.status == "applied", out.errors
    import email
    from email import policy

    from pbp.store import models as m
    from tests.helpers import plain_text

    row = m.OutboxMail.get(m.OutboxMail.message_id == out.replies[0]["message_id"])
    text = plain_text(email.message_from_string(row.raw, policy=policy.default))
    assert "by Sun 29 Nov 20:00 UTC" in text           # 18:00 + 2 hours, not the config's 48 (in the body:
    assert "UTC" not in out.replies[0]["subject"]       # the table's subject stays the thread's)


def test_the_sample_posts_play_in_order(tmp_path, capsys):
    """The demo's sample posts (pbp/samples/chicago/posts, named in the README) all apply."""
    demo_dir = tmp_path / "demo"
    assert main(["demo", "--dir", str(demo_dir), "--once"]) == 0
    capsys.readouterr()
    posts = sorted((sample_dir() / "posts").glob("*.eml"))
    assert len(posts) >= 4
    assert main(["-c", str(demo_dir / "pbp.toml"), "process", "--json", "--dice", "0+00,-000,00++,0-00,0000,0000",
                 *map(str, posts)]) == 0
    outcomes = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [o["status"] for o in outcomes] == ["applied"] * len(posts), [o["errors"] for o in outcomes]


def test_outbox_shows_failed_mail_and_retries_it(table, capsys):
    from pbp.store import models as m
    from pbp.store.db import open_database

    main(["process", str(sample_dir() / "first-post.eml"), "--no-send", "--dice", "00++"])
    capsys.readouterr()
    assert main(["outbox"]) == 0
    assert capsys.readouterr().out.startswith("pending")
    open_database("sqlite:///pbp.db")
    m.OutboxMail.update(status="failed", attempts=12, last_error="550 no such user").execute()
    assert main(["outbox"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("failed") and "550 no such user" in out
    assert main(["outbox", "--retry"]) == 0
    assert "1 failed mail put back" in capsys.readouterr().out
    assert m.OutboxMail.get().status == "pending"


@pytest.mark.parametrize("args,words", [
    (["campaign", "set", "name=Evil\r\nReply-To: evil@x.org"], "U+000D (CARRIAGE RETURN)"),
    (["campaign", "set", "name=Chicago \u202eNights"], "U+202E"),
    (["campaign", "set", "name=" + "N" * 5000], "5,000 characters"),
    (["campaign", "set", "name="], "empty"),
    (["campaign", "set", "address=table@x.org\nBcc: all@x.org"], "not a plain mail address"),
    (["campaign", "set", "address=Table <table@x.org>"], "not a plain mail address"),
    (["campaign", "create", "other", "--name", "Other\nBcc: x@y.org"], "U+000A (LINE FEED)"),
    (["campaign", "create", "other\n", "--name", "Other"], "lower-case letters"),
    (["campaign", "create", "other", "--address", "t@x.org\r\nBcc: a@b.org"], "not a plain mail address"),
    (["campaign", "create", "other", "--gm", "gm@x.org, evil@y.org"], "GM address"),
    (["campaign", "add-member", "evil@x.org\r\nBcc: a@b.org"], "player address"),
    (["campaign", "set", "name=Fine Name", "address=not an address"], "not a plain mail address"),  # all or none
    (["campaign", "set", "Evil\r\nBcc"], "is not KEY=VALUE"),
])
def test_campaign_fields_that_reach_headers_are_checked(table, capsys, args, words):
    from pbp.store import models as m

    before = [(c.slug, c.name, c.address) for c in m.Campaign.select()], m.Member.select().count()
    capsys.readouterr()
    assert main(args) != 0
    err = capsys.readouterr().err
    assert words in err and "Traceback" not in err
    assert len(err.splitlines()) <= 3 and "\r" not in err and not any(line.startswith(("Bcc", "Reply-To"))
                                                                      for line in err.splitlines())
    assert ([(c.slug, c.name, c.address) for c in m.Campaign.select()], m.Member.select().count()) == before
    assert main(["campaign", "set", "name=Chicago Nights 2", "address=Table+Chicago@pbp.localhost"]) == 0
    (c,) = m.Campaign.select()
    assert (c.name, c.address) == ("Chicago Nights 2", "table+chicago@pbp.localhost")


def test_a_fate_core_campaign_from_the_command_line(tmp_path, monkeypatch, capsys):
    """``pbp campaign create --system fate-core``: its sheets are checked with Fate Core's rules
    (no Academics), and a sheet shows the boxes its Physique and Will give (Fate Core,
    "Escalating Stress Boxes": Fair Physique, boxes 1-3; Good Will, boxes 1-4)."""
    monkeypatch.chdir(tmp_path)
    assert main(["init"]) == 0
    assert main(["campaign", "create", "crypt", "--name", "The Crypt", "--system", "fate-core",
                 "--gm", "gm@pbp.localhost", "--address", "table+crypt@pbp.localhost"]) == 0
    assert "(The Crypt, fate-core, relay mode) created" in capsys.readouterr().out
    sheets = Path(__file__).resolve().parent / "golden" / "fate_core_conflict" / "sheets"
    assert main(["character", "import", *map(str, sorted(sheets.glob("*.toml"))), "--campaign", "crypt"]) == 0
    capsys.readouterr()
    assert main(["character", "import", str(sample_dir() / "charles.toml"), "--campaign", "crypt", "--replace"]) != 0
    assert '"Academics", which is not a Fate Core skill' in capsys.readouterr().err
    assert main(["sheet", "Ruth", "--json", "--campaign", "crypt"]) == 0
    sheet = json.loads(capsys.readouterr().out)
    assert len(sheet["stress"]["physical"]) == 3 and sheet["skills"]["Fight"] == 4


def test_an_early_fate_campaign_from_the_command_line(tmp_path, monkeypatch, capsys):
    """``pbp campaign create --system early-fate``: the sample sheets import under its rules,
    and ``pbp sheet --json`` shows its tracks ("Health ... 2, plus half the character's
    Endurance (rounded up)": Jet's Good Endurance, 4 boxes; Fair Resolve, 3) and its three
    consequences, each taking a whole hit (002_3a4e52a093e280aa.txt)."""
    monkeypatch.chdir(tmp_path)
    assert main(["init"]) == 0
    assert main(["campaign", "create", "docks", "--name", "The Docks", "--system", "early-fate",
                 "--gm", "gm@pbp.localhost", "--address", "table+docks@pbp.localhost"]) == 0
    assert "(The Docks, early-fate, relay mode) created" in capsys.readouterr().out
    sheets = [str(p) for p in sorted(sample_dir("early-fate").glob("*.toml")) if p.name != "campaign.toml"]
    assert main(["character", "import", *sheets, "--campaign", "docks"]) == 0
    capsys.readouterr()
    assert main(["sheet", "Jet", "--json", "--campaign", "docks"]) == 0
    sheet = json.loads(capsys.readouterr().out)
    assert SHEET_KEYS <= set(sheet)
    assert sheet["stress"] == {"health": [False] * 4, "composure": [False] * 3}
    assert [(c["severity"], c["shifts"]) for c in sheet["consequences"]] == [("mild", 99), ("moderate", 99),
                                                                             ("severe", 99)]
    assert main(["character", "import", str(sample_dir() / "ruth.toml"), "--campaign", "docks"]) != 0
    assert '"Physique", which is not an early Fate skill' in capsys.readouterr().err


def test_the_demo_sets_up_the_early_fate_table(tmp_path, capsys):
    """``pbp demo --system early-fate --once``: the sample table's first post is answered."""
    assert main(["demo", "--dir", str(tmp_path / "demo"), "--system", "early-fate", "--once"]) == 0
    out = capsys.readouterr().out
    assert "sample campaign 'The Docks of Shanghai' created" in out
    assert "Jet overcomes with Alertness" in out or "Alertness" in out
    assert main(["demo", "--dir", str(tmp_path / "demo2"), "--system", "gurps", "--once"]) == 3
    assert "unknown game system 'gurps'" in capsys.readouterr().err


def test_every_registered_system_has_a_sample_table():
    """``pbp demo --system`` plays every registered system, and ``pbp demo --help`` lists them
    from demo.SAMPLES."""
    from pbp.demo import SAMPLES
    from pbp.rules.systems import SYSTEMS
    assert set(SAMPLES) == {s.name for s in SYSTEMS.values()}
    for name in SAMPLES:
        assert (sample_dir(name) / "campaign.toml").exists() and (sample_dir(name) / "first-post.eml").exists()
    text = build_parser_help("demo")
    for name in SAMPLES:
        assert name in text, name


@pytest.mark.parametrize("system, table, line", [
    ("fate-core", "The Crypt Under St. Agnes", "Ruth overcomes with Notice, Fair (+2)"),
    ("d10", "The Scrapyard", "Charles overcomes with Study + Carefully, 5 dice"),
])
def test_the_demo_sets_up_the_fate_core_and_d10_tables(tmp_path, capsys, system, table, line):
    assert main(["demo", "--dir", str(tmp_path / "demo"), "--system", system, "--once"]) == 0
    out = capsys.readouterr().out
    assert f"sample campaign '{table}' created" in out and line in out


def test_a_d10_pool_campaign_from_the_command_line(tmp_path, monkeypatch, capsys):
    """``pbp campaign create --system d10-pool``: sheets are checked with the hack's rules
    (its skills, approaches rated +3/+2/+1/+0), and ``pbp sheet --json`` carries the
    approaches, the mech and strain (004_c619695e1641b466.txt; docs/systems.md)."""
    monkeypatch.chdir(tmp_path)
    assert main(["init"]) == 0
    assert main(["campaign", "create", "scrap", "--name", "The Scrapyard", "--system", "d10-pool",
                 "--gm", "gm@pbp.localhost", "--address", "table+scrap@pbp.localhost"]) == 0
    assert "(The Scrapyard, d10-pool, relay mode) created" in capsys.readouterr().out
    sheets = Path(__file__).resolve().parent / "golden" / "d10_pool_conflict" / "sheets"
    assert main(["character", "import", *map(str, sorted(sheets.glob("*.toml"))), "--campaign", "scrap"]) == 0
    capsys.readouterr()
    assert main(["character", "import", str(sample_dir() / "charles.toml"), "--campaign", "scrap", "--replace"]) != 0
    err = capsys.readouterr().err
    assert '"Academics", which is not a skill of the d10 dice-pool hack' in err and "approaches: Charles rates" in err
    assert main(["sheet", "Ruth", "--json", "--campaign", "scrap"]) == 0
    sheet = json.loads(capsys.readouterr().out)
    assert sheet["approaches"] == {"Boldly": 3, "Carefully": 1, "Cleverly": 0, "Quickly": 2}
    assert sheet["mech"]["name"] == "Dock Bravo" and sheet["stress"] == {"strain": [False, False, False]}


def test_pbp_sheet_words_a_d10_stunt_in_hits(tmp_path, monkeypatch, capsys):
    """``pbp sheet`` (text) says what a stunt adds in the campaign's system's words: "+1 hit"
    in the d10 hack (004_c619695e1641b466.txt, "The Core Mechanic": stunts "grant automatic
    bonuses" in hits; docs/systems.md)."""
    monkeypatch.chdir(tmp_path)
    assert main(["init"]) == 0
    assert main(["campaign", "create", "scrap", "--name", "The Scrapyard", "--system", "d10",
                 "--gm", "gm@pbp.localhost", "--address", "table+scrap@pbp.localhost"]) == 0
    sheets = Path(__file__).resolve().parent / "golden" / "d10_pool_conflict" / "sheets"
    assert main(["character", "import", *map(str, sorted(sheets.glob("*.toml"))), "--campaign", "scrap"]) == 0
    capsys.readouterr()
    assert main(["sheet", "Ruth", "--campaign", "scrap"]) == 0
    out = capsys.readouterr().out
    assert "stunt        Knife Fighter: +1 hit to Fight when you attack" in out
    assert "mech stunt   Servo Fists: +1 hit to Fight when you defend" in out


def test_a_dresden_files_condensed_campaigns_levels_of_scale_from_the_command_line(tmp_path, monkeypatch, capsys):
    """``pbp campaign set scale_levels=...`` (issue 10: "a campaign may rename or reorder
    them"): the levels in play are renamed and said; a bad list is refused with an example;
    ``pbp sheet --json`` and ``pbp campaign list`` read the campaign's names."""
    monkeypatch.chdir(tmp_path)
    assert main(["init"]) == 0
    assert main(["campaign", "create", "lake", "--name", "The Lake", "--system", "dfc",
                 "--gm", "gm@pbp.localhost", "--address", "table+lake@pbp.localhost"]) == 0
    sheets = [str(p) for p in sorted(sample_dir("dfc").glob("*.toml")) if p.name != "campaign.toml"]
    assert main(["character", "import", *sheets, "--campaign", "lake"]) == 0
    capsys.readouterr()
    assert main(["campaign", "set", "scale_levels=Mortal, Mortal", "--campaign", "lake"]) != 0
    err = capsys.readouterr().err
    assert "scale_levels 'Mortal, Mortal': \"Mortal\" is named twice (levels 1 and 2)" in err, err
    assert 'pbp campaign set scale_levels="Mortal, Touched, Fae, Legendary, Godlike"' in err
    assert main(["campaign", "set", "scale_levels=Mortal, Touched, Fae, Legendary, Godlike", "--campaign", "lake"]) == 0
    out = capsys.readouterr().out
    assert "lake: scale_levels = Mortal, Touched, Fae, Legendary, Godlike" in out
    assert "  Nora: Supernatural scale is now Touched (level 2)" in out
    assert main(["sheet", "Nora", "--json", "--campaign", "lake"]) == 0
    assert json.loads(capsys.readouterr().out)["scale"] == "Touched"
    assert main(["campaign", "list"]) == 0
    assert "Mortal, Touched, Fae, Legendary, Godlike" in capsys.readouterr().out


def test_a_dresden_files_condensed_campaign_from_the_command_line(tmp_path, monkeypatch, capsys):
    """``pbp campaign create --system dfc``: the sample sheets import under its creation rules
    (their mantle file beside them), ``pbp sheet --json`` carries the mantle, scale and the
    conditions, and the system's options are campaign settings (000_7ba3f797fc1d45d3.txt;
    docs/dresden-files-condensed.md)."""
    monkeypatch.chdir(tmp_path)
    assert main(["init"]) == 0
    assert main(["campaign", "create", "lake", "--name", "The Lake", "--system", "dfc",
                 "--gm", "gm@pbp.localhost", "--address", "table+lake@pbp.localhost"]) == 0
    assert "(The Lake, dresden-files-condensed, relay mode) created" in capsys.readouterr().out
    assert main(["campaign", "set", "free_stunts=seven", "--campaign", "lake"]) != 0
    assert 'free_stunts "seven" is not one or three' in capsys.readouterr().err
    sheets = [str(p) for p in sorted(sample_dir("dfc").glob("*.toml")) if p.name != "campaign.toml"]
    assert main(["character", "import", *sheets, "--campaign", "lake"]) == 0
    capsys.readouterr()
    assert main(["character", "import", str(sample_dir() / "ruth.toml"), "--campaign", "lake", "--replace"]) != 0
    err = capsys.readouterr().err
    assert "mantle: Ruth has no mantle" in err and "aspects.relationship: missing" in err
    assert main(["sheet", "Nora", "--json", "--campaign", "lake"]) == 0
    sheet = json.loads(capsys.readouterr().out)
    assert SHEET_KEYS <= set(sheet)
    assert sheet["mantle"] == "Threshold Warden" and sheet["scale"] == "Supernatural"
    assert [(c["name"], c["kind"], c["boxes"]) for c in sheet["conditions"]] == [
        ("Shaken", "fleeting", [False]), ("Drained", "sticky", [False]), ("Door-Burned", "lasting", [False, False])]
    assert [c["severity"] for c in sheet["consequences"] if "condition" not in c] == ["mild", "severe"]
    # the sheet written back (export, /sheet set) keeps the mantle inline and reads again
    capsys.readouterr()
    assert main(["character", "set", "Nora", "fate_points=5", "--campaign", "lake"]) == 0
    capsys.readouterr()
    assert main(["character", "export", "Nora", "--campaign", "lake"]) == 0
    out = capsys.readouterr().out
    assert 'mantle_stunts = ["Ward Knife"]' in out and 'relationship = "Owes Marcus a Life"' in out
    assert "[mantle]" in out and "[[mantle.conditions]]" in out
    from pbp.rules.systems import get_system
    from pbp.sheetfile import parse_sheet
    again = parse_sheet(tomllib.loads(out), get_system("dfc").configured({"escalating_stress": "yes"}))
    assert [s.name for s in again.character.stunts] == ["Salt and Iron", "Hold the Door", "Ward Knife"]
    assert again.character.fate_points == 5
    assert main(["campaign", "set", "escalating_stress=yes", "--campaign", "lake"]) == 0
    assert main(["character", "import", str(sample_dir("dfc") / "nora.toml"), "--campaign", "lake", "--replace"]) == 0
    capsys.readouterr()
    assert main(["sheet", "Nora", "--json", "--campaign", "lake"]) == 0
    sheet = json.loads(capsys.readouterr().out)
    assert len(sheet["stress"]["physical"]) == 3          # Average Physique: boxes 1, 2, 3
    assert [c["shifts"] for c in sheet["conditions"]] == [2, 2, 4]


def test_the_demo_sets_up_the_dresden_files_condensed_table(tmp_path, capsys):
    """``pbp demo --system dfc --once``: the sample table's first post is answered."""
    assert main(["demo", "--dir", str(tmp_path / "demo"), "--system", "dfc", "--once"]) == 0
    out = capsys.readouterr().out
    assert "sample campaign 'Lakeshore After Dark' created" in out
    assert "Nora" in out and "Lore" in out


def test_the_dfc_sheet_labels_the_relationship_aspect(tmp_path, monkeypatch, capsys):
    """"Create your Relationship Aspect" (000_7ba3f797fc1d45d3.txt, "Summary of Character
    Creation", step 9): ``pbp sheet`` names it "relationship", where the free aspects say
    "character"; ``--json`` keeps its kind and adds its role."""
    monkeypatch.chdir(tmp_path)
    assert main(["init"]) == 0
    assert main(["campaign", "create", "lake", "--name", "The Lake", "--system", "dfc",
                 "--gm", "gm@pbp.localhost", "--address", "table+lake@pbp.localhost"]) == 0
    sheets = [str(p) for p in sorted(sample_dir("dfc").glob("*.toml")) if p.name != "campaign.toml"]
    assert main(["character", "import", *sheets, "--campaign", "lake"]) == 0
    capsys.readouterr()
    assert main(["sheet", "Nora", "--campaign", "lake"]) == 0
    out = capsys.readouterr().out
    assert "  relationship Owes Marcus a Life\n" in out and "  character    Reads Every Footnote\n" in out
    assert main(["sheet", "Nora", "--json", "--campaign", "lake"]) == 0
    aspects = json.loads(capsys.readouterr().out)["aspects"]
    assert {"name": "Owes Marcus a Life", "kind": "character", "free_invokes": {}, "hidden": False,
            "role": "relationship"} in aspects
    assert {"name": "Reads Every Footnote", "kind": "character", "free_invokes": {}, "hidden": False} in aspects


def test_campaign_list_writes_settings_as_campaign_set_takes_them(tmp_path, monkeypatch, capsys):
    """issue 27: ``campaign list`` printed Python's ``True`` and ``24.0``."""
    monkeypatch.chdir(tmp_path)
    assert main(["init"]) == 0
    assert main(["campaign", "create", "salt", "--name", "The Salt Road",
                 "--gm", "gm@pbp.localhost", "--address", "table+salt@pbp.localhost"]) == 0
    assert main(["campaign", "set", "free_bonuses=yes", "reaction_deadline_hours=24", "--campaign", "salt"]) == 0
    capsys.readouterr()
    assert main(["campaign", "list"]) == 0
    out = capsys.readouterr().out
    assert "free_bonuses=yes" in out and "reaction_deadline_hours=24" in out
    assert "True" not in out and "24.0" not in out


def test_process_with_dice_that_do_not_fit_is_the_operators_error_not_the_players(table, capsys):
    """issue 27: a wrong count of --dice faces crashed with a traceback and mailed the player
    "could not process (DiceMismatch)". Now: one error line with the format, exit 3, no mail,
    nothing applied; the same post with fitting dice applies."""
    from pbp.store import models as m

    capsys.readouterr()
    post = str(sample_dir() / "first-post.eml")
    outbox = table / "maildir" / "outbox" / "new"
    assert main(["process", post, "--dice", "00+"]) == 3
    err = capsys.readouterr().err
    assert "--dice: fixed dice group 1 '00+' does not fit 4 Fate dice" in err
    assert 'numbered faces separated by spaces "8 9 3 10 1 5"' in err and "Traceback" not in err
    assert m.OutboxMail.select().count() == 0 and m.Message.select().count() == 0
    assert not outbox.exists() or not list(outbox.iterdir())
    assert main(["process", post, "--dice", "00++"]) == 0
    assert "replies sent (pbp process sends them at once; --no-send leaves them in the outbox)" in \
        capsys.readouterr().err
    assert len(list(outbox.iterdir())) == 1


def test_a_gm_with_several_campaigns_sets_a_default_once(table, capsys, monkeypatch):
    """issue 27: with two campaigns every command needed --campaign, and the hint said to
    create a campaign. The hint names the campaigns; PBP_CAMPAIGN is the default."""
    assert main(["campaign", "create", "salt", "--name", "The Salt Road",
                 "--gm", "gm@pbp.localhost", "--address", "table+salt@pbp.localhost"]) == 0
    capsys.readouterr()
    assert main(["character", "list"]) == 3
    err = capsys.readouterr().err
    assert "say which campaign: there are 2 (chicago, salt)" in err
    assert "--campaign chicago" in err and "PBP_CAMPAIGN" in err and "campaign create" not in err
    monkeypatch.setenv("PBP_CAMPAIGN", "chicago")
    assert main(["character", "list"]) == 0
    assert "Ruth: pc" in capsys.readouterr().out
    assert main(["character", "list", "--campaign", "salt"]) == 0
    assert "Ruth" not in capsys.readouterr().out
    monkeypatch.setenv("PBP_CAMPAIGN", "nowhere")
    assert main(["character", "list"]) == 3
    err = capsys.readouterr().err
    assert 'no campaign "nowhere" (known: chicago, salt)' in err and "pbp campaign list" in err
