"""Bad paths and arguments on the command line: one clear ``error:`` line on stderr (a hint
line may follow), a non-zero exit, never a traceback, and nothing changed."""
from __future__ import annotations

import os

import pytest

from pbp.cli import main
from tests.helpers import cli_table


@pytest.fixture
def cwd(tmp_path, monkeypatch):
    monkeypatch.delenv("PBP_DICE", raising=False)
    monkeypatch.delenv("PBP_CONFIG", raising=False)
    cli_table(tmp_path, monkeypatch, address=None)
    (tmp_path / "adir").mkdir()
    locked = tmp_path / "locked.eml"
    locked.write_text("From: x@y\n\nhi\n")
    locked.chmod(0)
    (tmp_path / "pg.toml").write_text('[database]\nurl = "postgresql://nobody@127.0.0.1:1/none"\n')
    (tmp_path / "nan.toml").write_text('[database]\nurl = "sqlite:///pbp.db"\n[play]\nreminder_hours = nan\n')
    (tmp_path / "junk.toml").write_text("this is [ not toml")
    return tmp_path


CASES = [
    (["process", "missing.eml"], "cannot read missing.eml: No such file or directory"),
    (["process", "adir"], "adir is a directory"),
    (["process", "missing.eml", "adir"], "cannot read missing.eml"),
    (["process", "-", "--dice", "zz"], "--dice 'zz': dice group 1 'zz' is neither Fate faces"),
    (["roll", "4dF", "--dice", "zz"], "--dice 'zz'"),
    (["roll", "4dF", "--dice", "6"], "does not fit 4 Fate dice"),
    (["roll", "200d6"], "a roll may use 1 to 100 dice, not 200"),
    (["roll", "Fight"], "takes dice only"),
    (["roll", "4dF+"], "error:"),
    (["sheet", "Nobody"], 'no character "Nobody"'),
    (["sheet", "Ruth", "--campaign", "nope"], 'no campaign "nope"'),
    (["tick", "--at", "yesterday"], "--at 'yesterday' is not a date and time"),
    (["tick", "--at", "2026-12-01T18:00", "--dice", "q"], "--dice 'q'"),
    (["run", "--once", "--dice", "q"], "--dice 'q'"),
    (["verify", "--campaign", "nope"], 'no campaign "nope"'),
    (["campaign", "set", "reaction_deadline_hours"], "is not KEY=VALUE"),
    (["campaign", "set", "reaction_deadline_hours=1e400"], "reaction_deadline_hours = '1e400' is not a finite number"),
    (["campaign", "set", "invoke_window_hours=-1"], "invoke_window_hours = '-1' is out of range"),
    (["campaign", "set", "free_bonuses=maybe"], "free_bonuses = 'maybe' is not yes or no"),
    (["campaign", "set", "nosuch=1"], 'no campaign setting "nosuch"'),
    (["-c", "missing.toml", "outbox"], "no config file at missing.toml"),
    (["-c", "adir", "outbox"], "adir: Is a directory"),
    (["-c", "junk.toml", "outbox"], "junk.toml is not valid TOML"),
    (["-c", "nan.toml", "outbox"], "reminder_hours = nan: expected a finite number of hours"),
    (["-c", "pg.toml", "outbox"], "the database cannot be used"),
    (["frobnicate"], "invalid choice: 'frobnicate'"),
    (["process"], "the following arguments are required: files (see pbp process --help)"),
    (["campaign", "create"], "the following arguments are required: slug"),
    (["sheet"], "the following arguments are required: name"),
    (["demo", "--dir", "/proc/no/such/dir"], "error:"),
    (["-c", "/proc/no/such/pbp.toml", "init", "--force"], "error: /proc/no"),
    (["campaign", "add-member", "x@y", "--role", "king"], "invalid choice: 'king'"),
    (["outbox", "--retry", "now"], "unrecognized arguments: now"),
]
if os.geteuid() != 0:       # root reads any file
    CASES.append((["process", "locked.eml"], "cannot read locked.eml: Permission denied"))


@pytest.mark.parametrize("argv, said", CASES, ids=[" ".join(a) for a, _ in CASES])
def test_a_bad_argument_gets_one_clear_line(cwd, capsys, argv, said):
    capsys.readouterr()
    before = (cwd / "pbp.db").read_bytes()
    try:
        code = main(argv)
    except SystemExit as exc:       # argparse
        code = exc.code
    out, err = capsys.readouterr()
    assert code not in (0, None)
    lines = err.strip().splitlines()
    assert lines and lines[0].startswith("error: "), err
    assert said in lines[0], err
    assert "Traceback" not in err + out
    assert len(lines) <= 3 and all(line.startswith("  ") for line in lines[1:]), err
    assert (cwd / "pbp.db").read_bytes() == before
