"""``pbp process --json`` is the operator's record and holds a secret roll whole (marked
``"secret": true``); ``--as-player NAME`` and ``--audience table`` show only what that
reader may know (docs/json.md): no JSON meant for players shows a secret roll's dice or
outcome. Played through the CLI with real, committed dice."""
from __future__ import annotations

import json

import pytest

from pbp.cli import main
from pbp.demo import sample_dir
from tests.helpers import cli_table, eml

POSTS = [("gm@pbp.localhost", '/scene start "Docks"\n'),
         ("gm@pbp.localhost", "The Ghoul listens.\n/as Ghoul overcome Notice vs Fair secret\n"),
         ("ruth@pbp.localhost", "Ruth looks around.\n/roll Notice\n")]


@pytest.fixture
def posts(tmp_path, monkeypatch):
    sheets = [str(p) for p in sorted(sample_dir().glob("*.toml")) if p.name != "campaign.toml"]
    cli_table(tmp_path, monkeypatch, sheets=sheets)
    paths = []
    for n, (sender, body) in enumerate(POSTS, start=1):
        path = tmp_path / f"post-{n}.eml"
        path.write_bytes(eml(body, sender=sender, message_id=f"json-{n}@pbp.test"))
        paths.append(str(path))
    return paths


def _run(capsys, paths, *extra) -> list[dict]:
    capsys.readouterr()
    assert main(["process", *paths, "--json", "--no-send", *extra]) == 0
    return [json.loads(line) for line in capsys.readouterr().out.strip().splitlines()]


def whole_ledger(outs) -> str | None:
    """The secret roll's ledger hash, if a reader's output shows it anywhere."""
    return next((r.get("ledger") for out in outs[1:2] for r in out["results"] if r.get("ledger")), None)


def test_the_operators_record_marks_a_secret_roll_and_a_reader_never_sees_it(posts, capsys):
    whole = _run(capsys, posts)
    secret = whole[1]["results"][0]
    assert secret["secret"] is True and secret["dice"] and secret["outcome"], secret
    assert "secret" not in whole[2]["results"][0]
    assert any(r["audience"] == "gm" for r in whole[1]["replies"])


@pytest.mark.parametrize("reader", [["--as-player", "Ruth"], ["--as-player", "cassandra@pbp.localhost"],
                                    ["--audience", "table"]])
def test_a_reader_sees_the_note_not_the_roll(posts, capsys, reader):
    outs = _run(capsys, posts, *reader)
    note = outs[1]["results"]
    assert len(note) == 1 and note[0]["action"] == "secret_roll", note
    assert "ledger" not in note[0] and whole_ledger(outs) is None, note
    assert "rolled in secret" in note[0]["effects"][0]["text"], note
    for key in ("dice", "effort", "outcome", "shifts", "rolls", "opposition", "modifiers"):
        assert note[0].get(key) in (None, [], {}), (key, note)
    text = json.dumps(outs[1])
    assert "Ghoul overcomes" not in text and "success" not in text and "fail" not in text, text
    assert all(r["audience"] != "gm" for out in outs for r in out["replies"]), outs
    # the open roll is there whole, with its ledger hash
    (ruths,) = outs[2]["results"]
    assert ruths["dice"] and ruths["ledger"] and ruths["actor"] == "Ruth"
    assert {o["reader"] for o in outs} == {reader[1] if reader[0] == "--audience" else
                                           ("ruth@pbp.localhost" if reader[1] == "Ruth" else reader[1])}


def test_a_player_gets_their_own_errors_and_mails_only(posts, capsys, tmp_path):
    bad = tmp_path / "bad.eml"
    bad.write_bytes(eml("/overcom Notice vs Fair\n", sender="ruth@pbp.localhost", message_id="json-bad@pbp.test"))
    capsys.readouterr()
    assert main(["process", str(bad), "--json", "--no-send", "--as-player", "Ruth"]) == 3
    mine = json.loads(capsys.readouterr().out)
    assert mine["status"] == "rejected" and mine["errors"] and mine["replies"], mine
    assert main(["process", str(bad), "--json", "--no-send", "--audience", "table"]) == 0
    other = json.loads(capsys.readouterr().out)
    assert other["status"] == "duplicate" and other["errors"] == [] and other["results"] == [], other


def test_the_reader_must_be_a_player(posts, capsys):
    capsys.readouterr()
    assert main(["process", posts[0], "--json", "--as-player", "Nobody"]) != 0
    err = capsys.readouterr().err
    assert "no player of chicago by that address or character" in err and "--as-player " in err, err
    assert main(["process", posts[0], "--json", "--as-player", "gm@pbp.localhost"]) != 0
    assert "is the GM, who may know everything" in capsys.readouterr().err
