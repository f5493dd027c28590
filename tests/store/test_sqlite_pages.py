"""A new SQLite database has 8 KB pages (issue 23): the outbox's and the archive's rows of 1 to
2 KB fit several to a page, where a 4 KB page held one and stayed half empty; a database made
by an older pbp keeps its pages (SQLite changes them only by a VACUUM outside WAL)."""
from __future__ import annotations

import sqlite3

from pbp.store import models as m
from pbp.store.db import open_database


def test_a_new_database_has_8_kb_pages_and_wal(tmp_path):
    database = open_database(f"sqlite:///{tmp_path / 'new.db'}")
    try:
        assert database.execute_sql("PRAGMA page_size").fetchone() == (8192,)
        assert database.execute_sql("PRAGMA journal_mode").fetchone() == ("wal",)
        assert database.execute_sql("PRAGMA auto_vacuum").fetchone() == (2,)      # incremental
    finally:
        database.close()


def test_an_older_database_keeps_its_pages_and_opens(tmp_path):
    path = tmp_path / "old.db"
    old = sqlite3.connect(path)
    old.execute("PRAGMA page_size = 4096")
    old.execute("PRAGMA journal_mode = wal")
    old.execute("CREATE TABLE kept (x)")
    old.commit()
    old.close()
    database = open_database(f"sqlite:///{path}")
    try:
        assert database.execute_sql("PRAGMA page_size").fetchone() == (4096,)
        assert m.Campaign.select().count() == 0          # the tables made, the database usable
    finally:
        database.close()
