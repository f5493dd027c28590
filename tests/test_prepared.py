"""Prepared statements are kept per database object: a new database that happens to get a
dead one's ``id()`` (a SQLite test database, then PostgreSQL) never runs the old one's SQL."""
from __future__ import annotations

from pbp.store import models as m
from pbp.store.db import open_database
from pbp.store.prepared import Insert, Select


class _Gone:
    """Stands for a database that is gone and whose id the live one now has."""

    param = "%s"


def test_a_reused_id_does_not_reuse_the_sql(tmp_path):
    database = open_database(f"sqlite:///{tmp_path / 'a.db'}")
    select = Select(lambda slug: m.Campaign.select().where(m.Campaign.slug == slug))
    insert = Insert(m.Campaign, ("slug", "name", "system", "delivery", "settings", "play", "created_at"))
    select._cache[id(database)] = (_Gone(), 'SELECT broken FROM nowhere WHERE x = %s', ["x"], [0], [])
    insert._cache[id(database)] = (_Gone(), 'INSERT INTO nowhere VALUES (%s)')
    new = insert(slug="chicago", name="Chicago Nights")
    assert [row["slug"] for row in select("chicago")] == ["chicago"] and new
    database.close()
