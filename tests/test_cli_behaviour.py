"""The command line behaves like one: ``--version``, exit statuses that tell a usage error
(2) from bad input (3) and a failure (1), help on every option with the system names as
choices, and a demo that says when it plays on in an existing directory."""
from __future__ import annotations

import argparse
import tomllib
from pathlib import Path

import pytest

from pbp import cli
from pbp.cli import EXIT_BAD_INPUT, EXIT_FAILED, EXIT_USAGE, main
from pbp.demo import sample_dir
from pbp.rules.systems import SYSTEMS
from tests.helpers import cli_table

REPO = Path(__file__).resolve().parent.parent


def run(argv) -> int:
    try:
        return main(argv)
    except SystemExit as exc:       # argparse: --version, --help, usage errors
        return exc.code


@pytest.fixture
def cwd(tmp_path, monkeypatch):
    monkeypatch.delenv("PBP_DICE", raising=False)
    monkeypatch.delenv("PBP_CONFIG", raising=False)
    cli_table(tmp_path, monkeypatch)
    (tmp_path / "pg.toml").write_text('[database]\nurl = "postgresql://nobody@127.0.0.1:1/none"\n')
    return tmp_path


def test_version(capsys):
    assert run(["--version"]) == 0
    out = capsys.readouterr().out.strip()
    assert out.startswith("pbp ") and out.split()[1][0].isdigit(), out


def _bad_post(cwd) -> str:
    post = cwd / "bad.eml"
    post.write_bytes((sample_dir() / "first-post.eml").read_bytes()
                     .replace(b"/overcome Investigate vs Fair", b"/overcome Investigate vs Fiar"))
    return str(post)


EXITS = [
    (["frobnicate"], EXIT_USAGE),
    (["sheet"], EXIT_USAGE),
    (["campaign", "create", "x", "--system", "fate-core-9"], EXIT_USAGE),
    (["outbox", "--retry", "now"], EXIT_USAGE),
    (["sheet", "Nobody"], EXIT_BAD_INPUT),
    (["sheet", "Ruth", "--campaign", "nope"], EXIT_BAD_INPUT),
    (["process", "missing.eml"], EXIT_BAD_INPUT),
    (["roll", "Fight"], EXIT_BAD_INPUT),
    (["roll", "200d6"], EXIT_BAD_INPUT),
    (["tick", "--at", "yesterday"], EXIT_BAD_INPUT),
    (["campaign", "set", "reaction_deadline_hours=soon"], EXIT_BAD_INPUT),
    (["-c", "missing.toml", "outbox"], EXIT_BAD_INPUT),
    (["-c", "pg.toml", "outbox"], EXIT_FAILED),
]


@pytest.mark.parametrize("argv, code", EXITS, ids=[" ".join(a) for a, _ in EXITS])
def test_the_exit_status_says_what_kind_of_error(cwd, capsys, argv, code):
    capsys.readouterr()
    assert run(argv) == code
    err = capsys.readouterr().err
    assert err and all(line.startswith(("error: ", "  ")) for line in err.splitlines()), err


def test_a_rejected_post_is_bad_input_and_every_error_line_says_error(cwd, capsys):
    capsys.readouterr()
    assert run(["process", _bad_post(cwd), "--no-send"]) == EXIT_BAD_INPUT
    assert "rejected" in capsys.readouterr().out


def test_a_sheet_import_with_a_bad_file_tries_the_others_and_says_error(cwd, capsys):
    bad = cwd / "bad.toml"
    bad.write_text('name = "Nora"\nkind = "pc"\n[skills]\nFight = "lots"\n')
    good = [str(p) for p in sorted(sample_dir().glob("ruth.toml"))]
    capsys.readouterr()
    assert run(["character", "import", str(bad), *good, "--campaign", "chicago"]) == EXIT_BAD_INPUT
    out, err = capsys.readouterr()
    assert "imported Ruth" in out
    assert err.splitlines()[0].startswith("error: ") and err.splitlines()[-1] == "error: 1 of 2 sheets imported, 1 failed"


def _parsers(parser: argparse.ArgumentParser, path=("pbp",)):
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _parsers(sub, path + (name,))


def test_every_option_and_argument_has_help():
    missing = []
    for path, parser in _parsers(cli.build_parser()):
        for action in parser._actions:
            if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)):
                continue
            if not action.help:
                missing.append(f"{' '.join(path)} {'/'.join(action.option_strings) or action.dest}")
    assert not missing, missing


def test_the_system_names_are_the_choices(capsys):
    parser = cli.build_parser()
    (create,) = [sub for path, sub in _parsers(parser) if path == ("pbp", "campaign", "create")]
    (system,) = [a for a in create._actions if a.dest == "system"]
    assert system.choices == sorted(SYSTEMS) and system.default in SYSTEMS
    assert run(["campaign", "create", "x", "--system", "nope"]) == EXIT_USAGE
    assert "fate-condensed" in capsys.readouterr().err


def test_the_help_documents_the_exit_statuses(capsys):
    assert run(["--help"]) == 0
    out = capsys.readouterr().out
    for line in ("1  failed", "2  usage", "3  bad input"):
        assert line in out, out
    readme = (REPO / "README.md").read_text()
    assert "3  bad input" in readme


def test_the_demo_says_when_it_plays_on_in_an_existing_directory(tmp_path, capsys):
    where = tmp_path / "demo"
    assert main(["demo", "--dir", str(where), "--once"]) == 0
    assert "exists already" not in capsys.readouterr().out
    assert main(["demo", "--dir", str(where), "--once"]) == 0
    out = capsys.readouterr().out
    assert f"{where}/ exists already" in out and f"rm -r {where}" in out


def test_every_folder_with_package_files_is_listed_so_setuptools_does_not_warn():
    """setuptools warns ("Package would be ignored") about a folder inside a package that
    holds data files but is not in ``packages``; every such folder is listed."""
    listed = set(tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    folders = {".".join(p.relative_to(REPO).parts) for p in (REPO / "pbp").rglob("*")
               if p.is_dir() and p.name != "__pycache__" and any(f.is_file() for f in p.iterdir())}
    assert folders <= listed, f"add to [tool.setuptools] packages: {sorted(folders - listed)}"


def test_a_broken_ledger_is_a_failure_with_an_error_line(cwd, capsys):
    from pbp.store import models as m

    assert main(["character", "import", str(sample_dir() / "ruth.toml"), "--campaign", "chicago"]) == 0
    post = cwd / "post.eml"
    post.write_bytes((sample_dir() / "first-post.eml").read_bytes())
    assert main(["process", str(post), "--no-send", "--dice", "00++"]) == 0
    assert main(["verify"]) == 0
    row = m.RollRecord.select().first()
    m.RollRecord.update(effort=row.effort + 1).where(m.RollRecord.id == row.id).execute()   # a roll made better
    capsys.readouterr()
    assert main(["verify"]) == EXIT_FAILED
    out, err = capsys.readouterr()
    assert "contents do not match its hash" in out
    assert err == "error: the dice ledger has 1 problem (listed above)\n"


def test_the_fate_skill_lists_are_in_the_docs():
    """issue 27: Fate Condensed's skill list was in no doc; docs/systems.md lists each
    Fate system's, as the code has it."""
    from pathlib import Path

    from pbp.rules.systems import get_system

    text = " ".join((Path(__file__).parent.parent / "docs" / "systems.md").read_text(encoding="utf-8").split())
    for label, name in (("Fate Condensed", "fate-condensed"), ("Fate Core", "fate-core")):
        assert f"- {label}: " + ", ".join(get_system(name).skills) + "." in text, label


def test_the_sheet_docs_give_the_import_exit_status_the_cli_returns():
    from pathlib import Path

    from pbp.cli import EXIT_BAD_INPUT

    text = " ".join((Path(__file__).parent.parent / "docs" / "sheets.md").read_text(encoding="utf-8").split())
    assert f"exit status is {EXIT_BAD_INPUT} (bad input) when any file failed" in text


def test_the_password_hint_names_the_config_file_pbp_reads():
    """issue 27: the hint said "config.toml"; pbp reads pbp.toml."""
    import pytest

    from pbp.config import DEFAULT_CONFIG_NAME
    from pbp.errors import ConfigError
    from pbp.transport.settings import ImapSettings

    with pytest.raises(ConfigError) as caught:
        ImapSettings(host="imap.example.org", username="table")
    assert f"never put it in {DEFAULT_CONFIG_NAME}" in caught.value.hint
    assert "config.toml" not in caught.value.hint


def test_libraries_log_info_lines_only_at_debug(tmp_path, monkeypatch):
    """issue 27: APScheduler and httpx logged INFO lines through the CLI although
    docs/operating.md says libraries speak only at DEBUG."""
    import logging

    from pbp.cli import main

    monkeypatch.chdir(tmp_path)
    assert main(["roll", "4dF"]) == 0
    for name in ("apscheduler.scheduler", "httpx", "httpcore.connection", "peewee"):
        assert not logging.getLogger(name).isEnabledFor(logging.INFO), name
    assert main(["-v", "roll", "4dF"]) == 0
    assert logging.getLogger("httpx").isEnabledFor(logging.DEBUG)
