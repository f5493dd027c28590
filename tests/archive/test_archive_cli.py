"""``pbp archive`` as an operator runs it: a real config file and database set up with the
CLI, a post processed, then the site, the GM's site and the Markdown zip written."""
from __future__ import annotations

import zipfile

from pbp.cli import main
from pbp.demo import sample_dir
from tests.helpers import cli_table


def test_pbp_archive_writes_the_site_the_gms_site_and_the_zip(tmp_path, monkeypatch, capsys):
    sheets = [str(p) for p in sorted(sample_dir().glob("*.toml")) if p.name != "campaign.toml"]
    cli_table(tmp_path, monkeypatch, sheets=sheets)
    assert main(["process", str(sample_dir() / "first-post.eml"), "--dice", "00++"]) == 0
    capsys.readouterr()

    assert main(["archive", "--out", str(tmp_path / "site")]) == 0
    said = capsys.readouterr().out
    assert "the players' archive written to" in said and "index.html" in said
    index = (tmp_path / "site" / "index.html").read_text()
    assert "Chicago Nights" in index and "#post-" in index
    assert (tmp_path / "site" / "feed.atom").is_file() and (tmp_path / "site" / "ledger.html").is_file()

    assert main(["archive", "--out", str(tmp_path / "gm"), "--gm", "--campaign", "chicago"]) == 0
    assert "GM's archive:" in (tmp_path / "gm" / "index.html").read_text()

    assert main(["archive", "--out", str(tmp_path / "zips"), "--markdown"]) == 0
    with zipfile.ZipFile(tmp_path / "zips" / "chicago-archive.zip") as z:
        names = z.namelist()
    assert any(n.endswith(".md") for n in names) and "chicago/sheets/ruth.toml" in names
    assert "chicago/sheets/ruth.fari.json" in names


def test_an_unknown_campaign_is_one_error_line(tmp_path, monkeypatch, capsys):
    cli_table(tmp_path, monkeypatch, sheets=[])
    capsys.readouterr()
    assert main(["archive", "--out", str(tmp_path / "x"), "--campaign", "nope"]) != 0
    err = capsys.readouterr().err
    assert 'no campaign "nope"' in err and "Traceback" not in err


def test_a_file_where_the_folder_should_be_is_named(tmp_path, monkeypatch, capsys):
    cli_table(tmp_path, monkeypatch, sheets=[])
    (tmp_path / "taken").write_text("x")
    capsys.readouterr()
    assert main(["archive", "--out", str(tmp_path / "taken")]) != 0
    err = capsys.readouterr().err
    assert "is a file, and the archive needs a folder" in err and "pbp archive --out" in err
