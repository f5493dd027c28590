"""A campaign's table and play state are kept from one post to the next (issue 23), and used
only while the database holds what they were made from: its ``version`` moves with every
post that changes anything and, by triggers, with any other write to its characters or
aspects (another daemon, ``pbp character set`` in a shell). On PostgreSQL the same triggers:
tests/test_postgres.py."""
from __future__ import annotations

from pbp.cli import main
from pbp.pipeline import process_message
from pbp.store import models as m
from pbp.store import repo
from tests.helpers import eml, make_ctx


def _points(name: str = "Ruth") -> int:
    return m.Character.get(m.Character.name == name).fate_points


def _spend(config, n: int):
    out = process_message(eml("/fp spend\n", message_id=f"spend-{n}@t"), make_ctx(config))
    return out


def test_a_post_takes_the_table_its_last_post_kept(chicago, config, monkeypatch):
    loads = []
    load = repo.load_table
    monkeypatch.setattr(repo, "load_table", lambda *a, **k: loads.append(1) or load(*a, **k))
    start = _points()
    for n in range(3):
        assert _spend(config, n).status == "applied"
    assert _points() == start - 3
    assert len(loads) == 1          # the first post loaded it; the next two took what it kept


def test_a_write_outside_the_daemon_is_seen_by_its_next_post(chicago, config):
    assert _spend(config, 0).status == "applied"
    version = m.Campaign.get_by_id(chicago.id).version
    m.Character.update(fate_points=1).where(m.Character.name == "Ruth").execute()   # as another process would
    assert m.Campaign.get_by_id(chicago.id).version != version      # the trigger moved it
    assert _spend(config, 1).status == "applied"
    assert _points() == 0           # 1 - 1, not what the kept table had less one
    out = _spend(config, 2)
    assert out.status == "rejected" and _points() == 0, out.to_dict()


def test_a_sheet_set_in_a_shell_is_seen_by_the_next_post(chicago, config, tmp_path, monkeypatch):
    assert _spend(config, 0).status == "applied"
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pbp.toml").write_text(f'[database]\nurl = "sqlite:///{tmp_path / "pbp.db"}"\n')
    assert main(["character", "set", "Ruth", "fate_points=5", "--campaign", "chicago"]) == 0
    assert _spend(config, 1).status == "applied"
    assert _points() == 4


def test_two_daemons_on_one_database_each_see_the_others_posts(chicago, config):
    start = _points()
    assert _spend(config, 0).status == "applied"      # daemon A keeps the table
    mine = dict(repo._KEPT)
    repo.forget_kept()                                  # daemon B: a process of its own, nothing kept
    assert _spend(config, 1).status == "applied"
    repo._KEPT.clear()
    repo._KEPT.update(mine)                             # daemon A again, with what it kept
    assert _spend(config, 2).status == "applied"
    assert _points() == start - 3


def test_a_refused_post_leaves_nothing_kept(chicago, config):
    assert _spend(config, 0).status == "applied"
    assert chicago.id in repo._KEPT
    out = process_message(eml("/fp spend\n/attack Nobody with Fight\n", message_id="bad@t"), make_ctx(config))
    assert out.status == "rejected"
    assert chicago.id not in repo._KEPT or repo._KEPT[chicago.id].version == m.Campaign.get_by_id(chicago.id).version
    start = _points()
    assert _spend(config, 1).status == "applied" and _points() == start - 1


def test_a_play_state_written_outside_a_post_is_seen_by_the_next_post(chicago, config):
    assert process_message(eml('/aspect add "Deep Shadows"\n', sender="gm@pbp.localhost", message_id="a@t"),
                           make_ctx(config)).status == "applied"
    version = m.Campaign.get_by_id(chicago.id).version
    play = dict(m.Campaign.get_by_id(chicago.id).play)
    play["session"] = 7
    m.Campaign.update(play=play).where(m.Campaign.id == chicago.id).execute()   # as another process would
    assert m.Campaign.get_by_id(chicago.id).version != version
    assert _spend(config, 0).status == "applied"
    assert m.Campaign.get_by_id(chicago.id).play["session"] == 7     # not the kept state's 1
