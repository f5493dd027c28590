"""The daemon keeps the archive up to date (``[archive]`` in the config, docs/archive.md):
a real config file and database set up with the CLI, posts dropped in the Maildir inbox
and handled by the daemon, the sites read back from the folder a web server would serve."""
from __future__ import annotations

import logging

from pbp.archive import publish
from pbp.archive.site import write_site
from pbp.cli import main
from pbp.config import load_config
from pbp.daemon import Daemon
from pbp.demo import sample_dir
from pbp.leases import shared
from pbp.rules.dice import FixedDice
from pbp.store import models as m
from tests.helpers import cli_table, eml


def table_with_archive(tmp_path, monkeypatch, extra: str = ""):
    sheets = [str(p) for p in sorted(sample_dir().glob("*.toml")) if p.name != "campaign.toml"]
    cli_table(tmp_path, monkeypatch, sheets=sheets)
    toml = tmp_path / "pbp.toml"
    toml.write_text(toml.read_text() + f'\n[archive]\ndir = "www"\ngm_dir = "www-gm"\n{extra}')
    return load_config(toml)


def drop(tmp_path, name: str, raw: bytes) -> None:
    inbox = tmp_path / "maildir" / "inbox"
    for sub in ("new", "cur", "tmp"):
        (inbox / sub).mkdir(parents=True, exist_ok=True)
    (inbox / "new" / name).write_bytes(raw)


def files(folder):
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


def test_the_daemon_rewrites_a_campaigns_site_after_a_post_and_not_when_nothing_changed(tmp_path, monkeypatch):
    config = table_with_archive(tmp_path, monkeypatch)
    assert config.archive.dir == tmp_path.resolve() / "www"
    daemon = Daemon(config, dice=FixedDice("00++,00++"))
    drop(tmp_path, "1.eml", (sample_dir() / "first-post.eml").read_bytes())
    assert daemon.run_once() == 1
    site, gm_site = tmp_path / "www" / "chicago", tmp_path / "www-gm" / "chicago"
    index = (site / "index.html").read_text()
    assert "Chicago Nights" in index and "#post-" in index and "GM's archive:" not in index
    assert "loading dock" in "".join(p.read_text() for p in site.glob("*.html"))
    assert "GM's archive:" in (gm_site / "index.html").read_text()
    before = (site / "index.html").stat().st_ino

    assert daemon.publish_archive() == 0                # nothing new: nothing written
    assert (site / "index.html").stat().st_ino == before

    drop(tmp_path, "2.eml", eml("Ruth kicks the crate over.\n\n/overcome Athletics vs Fair\n",
                                message_id="post-2@pbp.test"))
    assert daemon.run_once() == 1
    assert (site / "index.html").stat().st_ino != before
    assert "kicks the crate over" in "".join(p.read_text() for p in site.glob("*.html"))
    assert not [p for p in (tmp_path / "www").iterdir() if p.name != "chicago"]     # no temp folder left
    assert daemon.publish_archive() == 0


def test_a_new_daemon_writes_every_site_once_then_only_what_is_behind(tmp_path, monkeypatch):
    config = table_with_archive(tmp_path, monkeypatch)
    assert main(["campaign", "create", "harbour", "--name", "The Harbour", "--gm", "gm@pbp.localhost"]) == 0
    daemon = Daemon(config, dice=FixedDice("00++"))
    assert daemon.publish_archive() == 4                # two campaigns, the players' and the GM's each
    assert (tmp_path / "www" / "harbour" / "index.html").is_file()
    assert daemon.publish_archive() == 0
    drop(tmp_path, "1.eml", (sample_dir() / "first-post.eml").read_bytes())
    daemon.run_once()
    assert daemon.publish_archive() == 0                # run_once has written chicago's two sites already


def test_the_swap_leaves_a_complete_site_and_nothing_of_the_old_one(tmp_path, monkeypatch):
    table_with_archive(tmp_path, monkeypatch)
    assert main(["process", str(sample_dir() / "first-post.eml"), "--dice", "00++"]) == 0
    campaign = m.Campaign.get(m.Campaign.slug == "chicago")
    whole = files(tmp_path / "whole") if write_site(campaign, tmp_path / "whole") else None
    for exchange in (True, False):                      # renameat2's swap, and the two renames elsewhere
        if not exchange:
            monkeypatch.setattr(publish, "_exchange", lambda a, b: False)
        target = tmp_path / f"served-{exchange}" / "chicago"
        target.mkdir(parents=True)
        (target / "old-page.html").write_text("from an older site")
        publish.write_swapped(campaign, target, gm=False)
        assert files(target) == whole
        assert (target / "index.html").read_text() == (tmp_path / "whole" / "index.html").read_text()
        assert [p.name for p in target.parent.iterdir()] == ["chicago"]


def test_a_campaign_whose_site_fails_is_logged_once_and_the_others_go_on(tmp_path, monkeypatch, caplog):
    config = table_with_archive(tmp_path, monkeypatch)
    assert main(["campaign", "create", "harbour", "--name", "The Harbour", "--gm", "gm@pbp.localhost"]) == 0
    (tmp_path / "www").mkdir()
    (tmp_path / "www" / "chicago").write_text("a file where chicago's folder should be")
    daemon = Daemon(config, dice=FixedDice("00++"))
    with caplog.at_level(logging.WARNING, logger="pbp.archive"):
        assert daemon.publish_archive() == 3            # harbour's two and chicago's GM's
        assert daemon.publish_archive() == 0
    said = [r.getMessage() for r in caplog.records if r.name == "pbp.archive"]
    assert len(said) == 1 and "archive of chicago not written" in said[0] and "is a file" in said[0]
    assert "hint:" in said[0]
    assert (tmp_path / "www" / "harbour" / "index.html").is_file()
    (tmp_path / "www" / "chicago").unlink()
    assert daemon.publish_archive() == 1                # it is tried again, and works
    assert (tmp_path / "www" / "chicago" / "index.html").is_file()


def test_on_postgresql_each_site_is_read_in_one_snapshot(tmp_path, monkeypatch, postgres):
    url = postgres.create_database("pbp_archive_daemon")
    monkeypatch.chdir(tmp_path)
    assert main(["init"]) == 0
    toml = tmp_path / "pbp.toml"
    toml.write_text(toml.read_text().replace('url = "sqlite:///pbp.db"', f'url = "{url}"')
                    + '\n[archive]\ndir = "www"\n')
    assert main(["campaign", "create", "chicago", "--name", "Chicago Nights", "--gm", "gm@pbp.localhost",
                 "--address", "table+chicago@pbp.localhost"]) == 0
    sheets = [str(p) for p in sorted(sample_dir().glob("*.toml")) if p.name != "campaign.toml"]
    assert main(["character", "import", *sheets, "--campaign", "chicago"]) == 0
    daemon = Daemon(load_config(toml), dice=FixedDice("00++"))
    assert shared()                                     # the REPEATABLE READ snapshot is taken
    drop(tmp_path, "1.eml", (sample_dir() / "first-post.eml").read_bytes())
    assert daemon.run_once() == 1
    assert "loading dock" in "".join(p.read_text() for p in (tmp_path / "www" / "chicago").glob("*.html"))
    assert daemon.publish_archive() == 0
