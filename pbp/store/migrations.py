"""Schema versions, so a database made by an older pbp is brought up to date in place.

Campaigns last years; the daemon is upgraded under them. ``open_database`` creates the
tables of a new database at the newest version, and runs, in order and each in its own
transaction, every migration an existing database has not had. A migration is a function
of the peewee ``SchemaMigrator``; add one to :data:`MIGRATIONS` whenever a model changes
(never edit one that has shipped).
"""
from __future__ import annotations

import logging
from typing import Callable

from peewee import CharField, IntegerField, Model
from playhouse.migrate import SchemaMigrator

from pbp.store.models import JSONField

from pbp.errors import ConfigError

log = logging.getLogger("pbp.store")

# (version, what it does, the change); version 1 is the first released schema
MIGRATIONS: list[tuple[int, str, Callable[[SchemaMigrator], list]]] = [
    (1, "the first schema", lambda migrator: []),
    (2, "posts keep a fingerprint so copies and forwards are found (pbp.copies)", lambda migrator: [
        migrator.add_column("message", "copy_key", CharField(null=True, index=True)),
        migrator.add_column("message", "forward_key", CharField(null=True, index=True)),
    ]),
    (3, "characters may have aliases (a sheet's aliases = [...])", lambda migrator: [
        migrator.add_column("character", "aliases", JSONField(default=list)),
    ]),
    # the table itself is created by create_tables() after the migrations (a new table)
    (4, "every sheet change is kept in a history (table sheetchange, pbp character history)", lambda migrator: []),
    (5, "characters keep their system's own state (the d10 hack's approaches and mech)", lambda migrator: [
        migrator.add_column("character", "system_state", JSONField(default=dict)),
    ]),
    (6, "a campaign may play in a forum category; members may have a forum username (pbp.forum.bymail)",
     lambda migrator: [
         migrator.add_column("campaign", "forum", JSONField(null=True, default=dict)),
         migrator.add_column("member", "forum_username", CharField(null=True)),
     ]),
    (7, "aspects keep their system's own state (Dresden Files Condensed's scale on a situation aspect)",
     lambda migrator: [
         migrator.add_column("aspect", "system_state", JSONField(default=dict)),
     ]),
    # the table itself is created by create_tables() after the migrations (a new table)
    (8, "every applied post is kept for the campaign's archive (table archivepost, pbp archive)",
     lambda migrator: []),
]
LATEST = MIGRATIONS[-1][0]


class SchemaVersion(Model):
    version = IntegerField()

    class Meta:
        table_name = "pbp_schema_version"


def current_version(database) -> int | None:
    """The database's schema version; None for a database without pbp's tables."""
    if not database.table_exists(SchemaVersion._meta.table_name):
        return 0 if database.table_exists("campaign") else None
    with SchemaVersion.bind_ctx(database):
        row = SchemaVersion.select().order_by(SchemaVersion.version.desc()).first()
    return row.version if row else 0


def upgrade(database, create_tables: Callable[[], None]) -> int:
    """Create a new database at the latest version, or migrate an older one; returns the
    version it is at now."""
    version = current_version(database)
    with SchemaVersion.bind_ctx(database):
        if version is None:
            with database.atomic():
                create_tables()
                database.create_tables([SchemaVersion])
                SchemaVersion.create(version=LATEST)
            return LATEST
        if version > LATEST:
            raise ConfigError(f"the database is at schema version {version}, newer than this pbp ({LATEST})",
                              hint="upgrade pbp, or point it at a database this version made")
        database.create_tables([SchemaVersion], safe=True)
        migrator = SchemaMigrator.from_database(database)
        for number, what, change in MIGRATIONS:
            if number <= version:
                continue
            with database.atomic():
                from playhouse.migrate import migrate

                migrate(*change(migrator))
                SchemaVersion.create(version=number)
            log.info("database migrated to schema version %d: %s", number, what)
        create_tables()  # tables added by a release (created empty, idempotent)
    return LATEST
