"""Schema versions, so a database made by an older pbp is brought up to date in place.

Campaigns last years; the daemon is upgraded under them. ``open_database`` creates the
tables of a new database at the newest version, and runs, in order and each in its own
transaction, every migration an existing database has not had. A migration is a function
of the peewee ``SchemaMigrator``; add one to :data:`MIGRATIONS` whenever a model changes
(never edit one that has shipped).
"""
from __future__ import annotations

import email.parser
import json
import logging
from typing import Callable

from peewee import (BigIntegerField, BooleanField, CharField, DateTimeField, FloatField, IntegerField, Model,
                    PostgresqlDatabase)
from playhouse.migrate import SchemaMigrator

from pbp.posts import ThreadRef, thread_to_dict
from pbp.store.models import JSONField, post_key

from pbp.errors import ConfigError

log = logging.getLogger("pbp.store")


class _Step:
    """A step of a migration that is not a schema change (rows written in between)."""

    def __init__(self, run: Callable[[], None]) -> None:
        self.run = run


def _keyed_posts(migrator: SchemaMigrator) -> list:
    """Version 9: every message row gets its :func:`~pbp.store.models.post_key` (campaign,
    author, Message-ID), which becomes the unique key; the Message-ID alone is only
    indexed; and the column of a post's prose sketch (:func:`pbp.copies.sketch`). The rows are keyed in the migration's transaction, before the unique index is
    made (an old database has one row per Message-ID, so the keys are unique too)."""
    database = migrator.database

    def key_rows():
        rows = database.execute_sql("SELECT id, campaign_id, author, message_id FROM message").fetchall()
        for row_id, campaign_id, author, message_id in rows:
            database.execute_sql("UPDATE message SET post_key = %s WHERE id = %s" % (
                database.param, database.param), (post_key(campaign_id, author or "", message_id), row_id))

    return [
        migrator.add_column("message", "post_key", CharField(null=True)),
        migrator.add_column("message", "text_sketch", CharField(null=True)),
        _Step(key_rows),
        migrator.add_index("message", ("post_key",), unique=True),
        migrator.drop_index("message", "message_message_id"),
        migrator.add_index("message", ("message_id",), unique=False),
    ]


def _typed_outbox(migrator: SchemaMigrator) -> list:
    """Version 14: the channel and thread columns, and both filled in for the rows already
    there, read once from what older versions wrote (the ``discourse:`` sender of an API
    row, the ``X-PBP-Topic`` and threading headers of a mail)."""
    def fill():
        rows = migrator.database.execute_sql('SELECT "id", "sender", "raw", "recipients", "message_id" '
                                             'FROM "outboxmail"').fetchall()
        for row_id, sender, raw, recipients, message_id in rows:
            recipients = json.loads(recipients or "[]")
            if (sender or "").startswith("discourse:"):
                where = (recipients or [""])[0]
                topic = where[len("topic:"):] if where.startswith("topic:") else None
                channel, thread = "discourse", ThreadRef(source="discourse", topic=topic) if topic else None
            else:
                headers = email.parser.HeaderParser().parsestr(raw or "", headersonly=True)
                topic = (headers.get("X-PBP-Topic") or "").strip()
                parent = (headers.get("In-Reply-To") or "").strip().strip("<>") or None
                if topic and recipients:
                    channel = "discourse-mail"
                    thread = ThreadRef(source="discourse-mail", id=parent, topic=topic, reply_to=recipients[0])
                else:
                    refs = tuple(r.strip("<>") for r in (headers.get("References") or "").split())
                    channel, thread = "mail", ThreadRef(source="mail", id=message_id, chain=refs)
            param = migrator.database.param
            migrator.database.execute_sql(
                f'UPDATE "outboxmail" SET "channel" = {param}, "thread" = {param} WHERE "id" = {param}',
                (channel, json.dumps(thread_to_dict(thread), separators=(",", ":"), sort_keys=True)
                 if thread else None, row_id))
    return [
        migrator.add_column("outboxmail", "channel", CharField(default="mail", index=True)),
        migrator.add_column("outboxmail", "thread", JSONField(null=True)),
        _Step(fill),
    ]


def _keyseed(migrator: SchemaMigrator) -> list:
    """Version 17: a scene seed's secret keys (``sceneseed.keyseed``). A database from before
    version 12 has no ``sceneseed`` table yet: create_tables() makes it whole afterwards."""
    database = migrator.database

    def add():
        if "sceneseed" in database.get_tables() and \
                "keyseed" not in {col.name for col in database.get_columns("sceneseed")}:
            migrator.add_column("sceneseed", "keyseed", CharField(null=True)).run()

    return [_Step(add)]


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
    (8, "forum members may have a full name and are bound to the forum's user id (docs/forum.md)",
     lambda migrator: [
         migrator.add_column("member", "forum_name", CharField(null=True)),
         migrator.add_column("member", "forum_user_id", IntegerField(null=True)),
     ]),
    (9, "a post is known by its campaign, author and Message-ID (post_key), not by its Message-ID alone: "
        "nobody can take a post's place by sending its id first; posts keep a sketch of their prose, so a copy "
        "sent as a new mail is found (text_sketch)", lambda migrator: _keyed_posts(migrator)),
    (10, "a campaign's version moves with its table and play state (a daemon keeps the table between posts)",
     lambda migrator: [
         migrator.add_column("campaign", "version", BigIntegerField(null=True, default=0)),
     ]),
    (11, "the retention finds the replies it has not looked at by an indexed column, not by their text",
     lambda migrator: [
         migrator.add_column("outboxmail", "compacted", BooleanField(default=False, index=True)),
     ]),
    # a new table, created by create_tables() after the migrations
    (12, "each scene's dice are committed to a secret seed, revealed at its end (table sceneseed, pbp.verify_dice)",
     lambda migrator: []),
    # the table itself is created by create_tables() after the migrations (a new table)
    (13, "every applied post is kept for the campaign's archive (table archivepost, pbp archive)",
     lambda migrator: []),
    (14, "outbox rows carry the channel that wrote them and the thread a later reply goes to (pbp.adapters): "
         "delivery maps the channel to its sender, threads are read from the stored reference",
     lambda migrator: _typed_outbox(migrator)),
    # a new table, created by create_tables() after the migrations
    (15, "mail read from a mailbox waits in a queue any daemon's apply workers claim (table inboundmail, "
         "pbp.inbound; PostgreSQL with [daemon] apply_workers)", lambda migrator: []),
    # table bounceevent is created by create_tables() after the migrations
    (16, "bounces are recorded against members with Mailman's bounce score; a campaign knows whom it does not "
         "mail now (held after bounces, muted by List-Unsubscribe) (pbp.bounces)", lambda migrator: [
        migrator.add_column("member", "bounce_score", FloatField(default=0)),
        migrator.add_column("member", "last_bounce_at", DateTimeField(null=True)),
        migrator.add_column("campaign", "not_mailed", JSONField(null=True, default=dict)),
    ]),
    (17, "a scene's secret rolls have keys of their own, so the GM may keep one secret past the scene "
         "(pbp-dice/2: sceneseed.keyseed)", lambda migrator: _keyseed(migrator)),
    # table digestitem is created by create_tables() after the migrations
    (18, "the table's mails held for a member's daily digest wait in a table of their own (pbp.digest)",
     lambda migrator: []),
]

LATEST = MIGRATIONS[-1][0]

# Any write to a campaign's characters or aspects moves its version, whoever writes (the
# daemon, another daemon, ``pbp character set`` in a shell), so a table a daemon kept from
# its last post (pbp.store.repo.take_kept) is never used once the rows under it changed.
# Created (idempotently) after the tables, on a new database and on every upgrade.
_SQLITE_TRIGGER = ('CREATE TRIGGER IF NOT EXISTS "pbp_{table}_{op}_version" AFTER {op} ON "{table}" '
                   'BEGIN UPDATE "campaign" SET "version" = "version" + 1 WHERE "id" = {row}."campaign_id"; END')
_PG_FUNCTION = '''CREATE OR REPLACE FUNCTION pbp_campaign_version() RETURNS trigger AS $$
BEGIN
    UPDATE "campaign" SET "version" = "version" + 1
     WHERE "id" = CASE WHEN TG_OP = 'DELETE' THEN OLD."campaign_id" ELSE NEW."campaign_id" END;
    RETURN NULL;
END $$ LANGUAGE plpgsql'''
_PG_TRIGGER = ('CREATE OR REPLACE TRIGGER "pbp_{table}_version" AFTER INSERT OR UPDATE OR DELETE ON "{table}" '
               'FOR EACH ROW EXECUTE FUNCTION pbp_campaign_version()')
# and a write of the play state that does not set a version itself (anything but a post)
_SQLITE_PLAY_TRIGGER = ('CREATE TRIGGER IF NOT EXISTS "pbp_campaign_play_version" AFTER UPDATE OF "play" ON "campaign" '
                        'WHEN NEW."version" IS OLD."version" '
                        'BEGIN UPDATE "campaign" SET "version" = "version" + 1 WHERE "id" = NEW."id"; END')
_PG_PLAY_FUNCTION = '''CREATE OR REPLACE FUNCTION pbp_campaign_play_version() RETURNS trigger AS $$
BEGIN
    IF NEW."version" IS NOT DISTINCT FROM OLD."version" THEN
        NEW."version" := coalesce(OLD."version", 0) + 1;
    END IF;
    RETURN NEW;
END $$ LANGUAGE plpgsql'''
_PG_PLAY_TRIGGER = ('CREATE OR REPLACE TRIGGER "pbp_campaign_version" BEFORE UPDATE OF "play" ON "campaign" '
                    'FOR EACH ROW EXECUTE FUNCTION pbp_campaign_play_version()')
VERSIONED = ("character", "aspect")
_PG_LOCK = 0x70627076       # "pbpv": the advisory lock under which the triggers are created


def create_triggers(database) -> None:
    """The triggers that move ``campaign.version`` on a write to its characters or aspects,
    or to its play state by anything that does not set the version itself."""
    if not isinstance(database, PostgresqlDatabase):
        with database.atomic():
            for table in VERSIONED:
                for op in ("INSERT", "UPDATE", "DELETE"):
                    database.execute_sql(_SQLITE_TRIGGER.format(table=table, op=op, row="OLD" if op == "DELETE" else "NEW"))
            database.execute_sql(_SQLITE_PLAY_TRIGGER)
        return
    with database.atomic():     # daemons starting together: one creates them, the others see them
        database.execute_sql("SELECT pg_advisory_xact_lock(%s)", (_PG_LOCK,))
        names = [f"pbp_{t}_version" for t in (*VERSIONED, "campaign")]
        have = database.execute_sql("SELECT count(*) FROM pg_trigger WHERE tgname IN (%s, %s, %s)", names).fetchone()[0]
        if have == len(names):
            return
        database.execute_sql(_PG_FUNCTION)
        for table in VERSIONED:
            database.execute_sql(_PG_TRIGGER.format(table=table))
        database.execute_sql(_PG_PLAY_FUNCTION)
        database.execute_sql(_PG_PLAY_TRIGGER)


def drop_triggers(database) -> None:
    """SQLite's: a migration that rebuilds a table (peewee's SQLite migrator renames a copy)
    fails while a trigger names it; they are made again after the migrations."""
    if not isinstance(database, PostgresqlDatabase):
        for table in VERSIONED:
            for op in ("INSERT", "UPDATE", "DELETE"):
                database.execute_sql(f'DROP TRIGGER IF EXISTS "pbp_{table}_{op}_version"')
        database.execute_sql('DROP TRIGGER IF EXISTS "pbp_campaign_play_version"')


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
            create_triggers(database)
            return LATEST
        if version > LATEST:
            raise ConfigError(f"the database is at schema version {version}, newer than this pbp ({LATEST})",
                              hint="upgrade pbp, or point it at a database this version made")
        database.create_tables([SchemaVersion], safe=True)
        migrator = SchemaMigrator.from_database(database)
        if version < LATEST:
            drop_triggers(database)
        for number, what, change in MIGRATIONS:
            if number <= version:
                continue
            with database.atomic():
                from playhouse.migrate import migrate

                migrate(*change(migrator))
                SchemaVersion.create(version=number)
            log.info("database migrated to schema version %d: %s", number, what)
        create_tables()  # tables added by a release (created empty, idempotent)
    create_triggers(database)
    return LATEST
