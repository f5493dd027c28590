"""Opening the database named by the config: SQLite by default, PostgreSQL by URL."""
from __future__ import annotations

from pathlib import Path
from urllib.parse import urlparse

from peewee import PostgresqlDatabase, SqliteDatabase

from pbp.errors import ConfigError
from pbp.store.migrations import upgrade
from pbp.store.models import ALL_MODELS, db

SQLITE_PRAGMAS = {
    # a new database only, before WAL: a page holds three or more of the outbox's and the
    # archive's rows of 1-2 KB where 4 KB pages held one, half empty (issue 23: 1 KB less a
    # post; 16 KB pages saved more bytes but cost 5-8% more CPU a post in WAL writes)
    "page_size": 8192,
    "auto_vacuum": "incremental",   # a new database only: the retention gives pages back (pbp.retention)
    "journal_mode": "wal",      # readers do not block the daemon's writer
    "synchronous": "normal",    # durable at each checkpoint; safe with WAL
    "foreign_keys": 1,
    "busy_timeout": 5000,
}


def make_database(url: str):
    """``sqlite:///path/to/pbp.db``, ``sqlite:///:memory:`` or ``postgresql://user@host:port/name``."""
    parsed = urlparse(url)
    if parsed.scheme == "sqlite":
        path = url[len("sqlite:///"):] if url.startswith("sqlite:///") else parsed.path
        if path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        return SqliteDatabase(path, pragmas=SQLITE_PRAGMAS)
    if parsed.scheme in ("postgres", "postgresql"):
        return PostgresqlDatabase(
            parsed.path.lstrip("/"),
            user=parsed.username,
            password=parsed.password,
            host=parsed.hostname,
            port=parsed.port or 5432,
            # a cut network must fail a connection or a query, not hang it: connect within
            # 10 s, and TCP keepalives end a dead session in about a minute (pbp.store.outage)
            connect_timeout=10, keepalives=1, keepalives_idle=30, keepalives_interval=10, keepalives_count=3,
        )
    raise ConfigError(
        f"unsupported database URL {url!r}",
        hint='use "sqlite:///path/to/pbp.db" or "postgresql://user:pass@host:5432/pbp"',
    )


def open_database(url: str, *, create: bool = True):
    """Bind the models to the database at ``url``; a new database gets the tables, an
    older one its pending migrations (:mod:`pbp.store.migrations`)."""
    database = make_database(url)
    db.initialize(database)
    database.connect(reuse_if_open=True)
    if create:
        upgrade(database, lambda: database.create_tables(ALL_MODELS, safe=True))
    return database
