"""A database made by an older pbp is brought up to date in place, and a newer one refused."""
from __future__ import annotations

import pytest
from peewee import CharField, IntegrityError

from pbp.errors import ConfigError
from pbp.store import migrations
from pbp.store.db import open_database
from pbp.store.migrations import LATEST, SchemaVersion, current_version


def test_a_new_database_starts_at_the_latest_version(tmp_path):
    database = open_database(f"sqlite:///{tmp_path / 'new.db'}")
    assert current_version(database) == migrations.LATEST
    database.close()
    again = open_database(f"sqlite:///{tmp_path / 'new.db'}")   # opening again changes nothing
    assert current_version(again) == migrations.LATEST
    with SchemaVersion.bind_ctx(again):
        assert SchemaVersion.select().count() == 1


def test_pending_migrations_run_in_order_once(tmp_path, monkeypatch):
    url = f"sqlite:///{tmp_path / 'old.db'}"
    open_database(url).close()
    added = CharField(default="")
    step = (migrations.LATEST + 1, "campaigns get a tagline",
            lambda migrator: [migrator.add_column("campaign", "tagline", added)])
    monkeypatch.setattr(migrations, "MIGRATIONS", [*migrations.MIGRATIONS, step])
    monkeypatch.setattr(migrations, "LATEST", step[0])
    database = open_database(url)
    assert current_version(database) == step[0]
    assert "tagline" in [c.name for c in database.get_columns("campaign")]
    database.close()
    assert current_version(open_database(url)) == step[0]   # not run twice


def test_a_database_from_a_newer_pbp_is_refused(tmp_path):
    url = f"sqlite:///{tmp_path / 'future.db'}"
    database = open_database(url)
    with SchemaVersion.bind_ctx(database):
        SchemaVersion.create(version=migrations.LATEST + 5)
    database.close()
    with pytest.raises(ConfigError, match="newer than this pbp"):
        open_database(url)


def undo_kept_versions(database) -> None:
    """Back to before versions 10 and 11: no campaign version (and none of the triggers that
    name it), no compacted mark on the outbox (and none of version 14's columns after it)."""
    undo_typed_outbox(database)
    migrations.drop_triggers(database)
    database.execute_sql("ALTER TABLE campaign DROP COLUMN version")
    database.execute_sql("DROP INDEX outboxmail_compacted")
    database.execute_sql("ALTER TABLE outboxmail DROP COLUMN compacted")


def undo_typed_outbox(database) -> None:
    """Back to before version 14: outbox rows without their channel and thread (and none of
    version 15's columns after it)."""
    undo_bounce_scores(database)
    database.execute_sql("DROP INDEX outboxmail_channel")
    database.execute_sql("ALTER TABLE outboxmail DROP COLUMN channel")
    database.execute_sql("ALTER TABLE outboxmail DROP COLUMN thread")


def undo_bounce_scores(database) -> None:
    """Back to before version 16: no bounce score on members, no not_mailed on campaigns."""
    database.execute_sql("ALTER TABLE member DROP COLUMN bounce_score")
    database.execute_sql("ALTER TABLE member DROP COLUMN last_bounce_at")
    database.execute_sql("ALTER TABLE campaign DROP COLUMN not_mailed")


def test_version_15_members_get_a_bounce_score(tmp_path):
    """Schema 16 (issue 28): members get a bounce score of 0 and campaigns mail everyone."""
    from pbp.store import models as m

    url = f"sqlite:///{tmp_path / 'v15.db'}"
    database = open_database(url)
    database.execute_sql("INSERT INTO campaign (slug, name, system, delivery, settings, play, created_at, forum) "
                         "VALUES ('c', 'C', 'fate-condensed', 'relay', '{}', '{}', '2026-01-01 00:00:00', '{}')")
    undo_bounce_scores(database)
    database.execute_sql("INSERT INTO member (campaign_id, email, role, display_name) VALUES (1, 'r@x', 'player', '')")
    with SchemaVersion.bind_ctx(database):
        SchemaVersion.update(version=15).execute()
    database.close()
    database = open_database(url)
    assert current_version(database) == LATEST
    with database.bind_ctx([m.Campaign, m.Member]):
        member = m.Member.get()
        assert (member.bounce_score, member.last_bounce_at) == (0, None)
        assert not m.Campaign.get().not_mailed
    database.close()


_FORUM_MAIL = ("From: Table <bot@pbp.test>\nTo: replies+k1@forum.test\nMessage-ID: <a1@pbp.test>\n"
               "In-Reply-To: <topic/12/40@forum.test>\nX-PBP-Topic: 12\n\nhi\n")
_PLAIN_MAIL = ("From: Table <t@pbp.test>\nTo: ruth@x\nMessage-ID: <a2@pbp.test>\nIn-Reply-To: <p2@x>\n"
               "References: <p1@x>\n <p2@x>\n\nhi\n")


def test_version_13_outbox_rows_get_their_channel_and_thread(tmp_path):
    """Schema 14 (issue 22): each outbox row already there gets the channel that wrote it
    and the thread a later reply goes to, read once from what older versions wrote; after
    it, no code reads either from the bytes (tests/test_adapter_table.py)."""
    from pbp.posts import thread_from_dict
    from pbp.store import models as m

    url = f"sqlite:///{tmp_path / 'v13.db'}"
    database = open_database(url)
    undo_typed_outbox(database)
    rows = [("a1@pbp.test", "bot@pbp.test", '["replies+k1@forum.test"]', _FORUM_MAIL),
            ("a2@pbp.test", "t@pbp.test", '["ruth@x"]', _PLAIN_MAIL),
            ("a3@pbp.test", "discourse:forum.test", '["topic:7"]', '{"audience": "table", "raw": "x"}')]
    for message_id, sender, recipients, raw in rows:
        database.execute_sql("INSERT INTO outboxmail (message_id, sender, recipients, subject, raw, status, attempts, "
                             "next_attempt_at, last_error, created_at, compacted) VALUES (?, ?, ?, 's', ?, 'sent', 1, "
                             "'2026-01-01 00:00:00', '', '2026-01-01 00:00:00', 0)", (message_id, sender, recipients, raw))
    with SchemaVersion.bind_ctx(database):
        SchemaVersion.update(version=13).execute()
    database.close()
    database = open_database(url)
    assert current_version(database) == LATEST
    with database.bind_ctx([m.OutboxMail]):
        got = {r.message_id: (r.channel, thread_from_dict(r.thread)) for r in m.OutboxMail.select()}
    forum, plain, api = (got[f"a{n}@pbp.test"] for n in (1, 2, 3))
    assert forum[0] == "discourse-mail" and (forum[1].topic, forum[1].reply_to, forum[1].id) == (
        "12", "replies+k1@forum.test", "topic/12/40@forum.test")
    assert plain[0] == "mail" and (plain[1].id, plain[1].chain) == ("a2@pbp.test", ("p1@x", "p2@x"))
    assert api[0] == "discourse" and api[1].topic == "7"
    database.close()


def undo_post_keys(database) -> None:
    """Back to the message table before version 9: no post_key, the Message-ID unique."""
    database.execute_sql("DROP INDEX message_post_key")
    database.execute_sql("ALTER TABLE message DROP COLUMN post_key")
    database.execute_sql("ALTER TABLE message DROP COLUMN text_sketch")
    database.execute_sql("DROP INDEX message_message_id")
    database.execute_sql("CREATE UNIQUE INDEX message_message_id ON message (message_id)")


def test_version_8_keys_its_posts_by_campaign_author_and_id(tmp_path):
    """Schema 9 (issue 30): a database of version 8 keeps its messages, each gets its
    post_key, and the same Message-ID may then come from another sender or campaign."""
    check_post_key_migration(f"sqlite:///{tmp_path / 'v7.db'}")


def check_post_key_migration(url: str) -> None:
    from pbp.store import models as m

    database = open_database(url)
    database.execute_sql("INSERT INTO campaign (slug, name, system, delivery, settings, play, created_at, forum) "
                         "VALUES ('c', 'C', 'fate-condensed', 'relay', '{}', '{}', '2026-01-01 00:00:00', '{}')")
    undo_post_keys(database)
    undo_kept_versions(database)
    for campaign, message_id in ((1, "old@x"), (None, "stray@x")):
        database.execute_sql("INSERT INTO message (message_id, campaign_id, author, subject, status, received_at) "
                             f"VALUES ('{message_id}', {campaign or 'NULL'}, 'ruth@x', 'The warehouse', 'applied', "
                             "'2026-01-01 00:00:00')")
    with SchemaVersion.bind_ctx(database):
        SchemaVersion.update(version=8).execute()
    database.close()
    database = open_database(url)
    assert current_version(database) == LATEST
    with database.bind_ctx([m.Campaign, m.Message]):
        keys = {row.message_id: row.post_key for row in m.Message.select()}
        assert keys == {"old@x": m.post_key(1, "ruth@x", "old@x"), "stray@x": m.post_key(None, "ruth@x", "stray@x")}
        # the same id from another sender is another row; the same post again is refused by the key
        m.Message.create(message_id="old@x", post_key=m.post_key(1, "charles@x", "old@x"), campaign=1,
                         author="charles@x")
        with pytest.raises(IntegrityError):
            with database.atomic():
                m.Message.create(message_id="old@x", post_key=keys["old@x"], campaign=1, author="ruth@x")
    unique = {tuple(i.columns): i.unique for i in database.get_indexes("message")}
    assert unique[("post_key",)] is True and unique[("message_id",)] is False
    database.close()


def test_version_1_gets_the_post_fingerprint_columns_in_place(tmp_path):
    """Schema 2 (pbp.copies): a database of version 1 keeps its messages and gains the
    indexed ``copy_key`` and ``forward_key`` columns (on PostgreSQL: tests/test_postgres.py)."""
    check_fingerprint_migration(f"sqlite:///{tmp_path / 'v1.db'}")


def check_fingerprint_migration(url: str) -> None:
    database = open_database(url)
    database.execute_sql("INSERT INTO message (message_id, author, subject, status, received_at) "
                         "VALUES ('old@x', 'ruth@x', 'The warehouse', 'applied', '2026-01-01 00:00:00')")
    undo_post_keys(database)
    for column in ("copy_key", "forward_key"):   # back to the version 1 table
        database.execute_sql(f"DROP INDEX message_{column}")
        database.execute_sql(f"ALTER TABLE message DROP COLUMN {column}")
    database.execute_sql("ALTER TABLE character DROP COLUMN aliases")   # added by version 3
    database.execute_sql("ALTER TABLE character DROP COLUMN system_state")   # added by version 5
    database.execute_sql("ALTER TABLE campaign DROP COLUMN forum")      # added by version 6
    database.execute_sql("ALTER TABLE member DROP COLUMN forum_username")
    database.execute_sql("ALTER TABLE aspect DROP COLUMN system_state")  # added by version 7
    database.execute_sql("ALTER TABLE member DROP COLUMN forum_name")   # added by version 8
    database.execute_sql("ALTER TABLE member DROP COLUMN forum_user_id")
    undo_kept_versions(database)
    with SchemaVersion.bind_ctx(database):
        SchemaVersion.update(version=1).execute()
    database.close()
    assert current_version(open_database(url)) == LATEST
    database = open_database(url)
    assert {"copy_key", "forward_key"} <= {c.name for c in database.get_columns("message")}
    assert "aliases" in {c.name for c in database.get_columns("character")}
    assert "forum" in {c.name for c in database.get_columns("campaign")}
    assert {"forum_username", "forum_name", "forum_user_id"} <= {c.name for c in database.get_columns("member")}
    indexed = {tuple(i.columns) for i in database.get_indexes("message")}
    assert ("copy_key",) in indexed and ("forward_key",) in indexed
    assert [tuple(r) for r in database.execute_sql("SELECT message_id, copy_key FROM message").fetchall()] == [
        ("old@x", None)]
    database.close()


def test_version_3_gets_the_system_state_column_and_keeps_its_characters(tmp_path):
    """Schema 4: a character's system state (the d10 hack's approaches, a mech) is a column
    of its own; a database of version 3 keeps its characters, who get an empty state."""
    from pbp.rules.state import character_from_record
    from pbp.store import models as m
    url = f"sqlite:///{tmp_path / 'v3.db'}"
    database = open_database(url)
    database.execute_sql("INSERT INTO campaign (slug, name, system, delivery, settings, play, created_at) "
                         "VALUES ('c', 'C', 'fate-condensed', 'relay', '{}', '{}', '2026-01-01 00:00:00')")
    database.execute_sql("INSERT INTO character (campaign_id, name, kind, skills, stunts, refresh, fate_points, "
                         "stress, consequences, taken_out, carried_points, aliases, description, updated_at, "
                         "system_state) VALUES (1, 'Ruth', 'pc', '{\"Fight\":4}', '[]', 3, 2, '{}', '[]', 0, 0, "
                         "'[]', '', '2026-01-01 00:00:00', '{}')")
    database.execute_sql("ALTER TABLE character DROP COLUMN system_state")
    database.execute_sql("ALTER TABLE campaign DROP COLUMN forum")      # added by version 6
    database.execute_sql("ALTER TABLE member DROP COLUMN forum_username")
    database.execute_sql("ALTER TABLE aspect DROP COLUMN system_state")  # added by version 7
    database.execute_sql("ALTER TABLE member DROP COLUMN forum_name")   # added by version 8
    database.execute_sql("ALTER TABLE member DROP COLUMN forum_user_id")
    undo_post_keys(database)
    undo_kept_versions(database)
    with SchemaVersion.bind_ctx(database):
        SchemaVersion.update(version=3).execute()
    database.close()
    database = open_database(url)
    assert current_version(database) == LATEST
    with database.bind_ctx([m.Character]):
        row = m.Character.select().dicts().get()
    ruth = character_from_record(row)
    assert (ruth.name, ruth.skills, ruth.fate_points, ruth.system_state) == ("Ruth", {"Fight": 4}, 2, {})
    database.close()


def test_one_place_names_a_characters_fields():
    """Every stored field of the rules' Character is a column of the store's Character, and
    a character survives the record and back whole."""
    from pbp.rules import state as rs
    from pbp.store import models as m
    columns = set(m.Character._meta.fields)
    assert set(rs.stored_fields()) <= columns, set(rs.stored_fields()) - columns
    ch = rs.Character("Ruth", skills={"Fight": 4}, stunts=[rs.Stunt("Knife", "Shoot", "attack")],
                      stress={"strain": [True, False]}, consequences=[rs.Consequence("mild", 2, "Cut")],
                      aliases=["Ru"], system_state={"approaches": {"Boldly": 3}})
    assert rs.character_from_record(rs.character_record(ch)) == ch


def test_version_6_gets_the_aspect_system_state_column_and_keeps_its_aspects(tmp_path):
    """Schema 7: an aspect keeps its system's own state (Dresden Files Condensed's scale on a
    situation aspect); a database of version 6 keeps its aspects, which get an empty state
    and take a scale once the column is there."""
    from pbp.store import models as m
    from pbp.store import repo
    url = f"sqlite:///{tmp_path / 'v6.db'}"
    database = open_database(url)
    database.execute_sql("INSERT INTO campaign (slug, name, system, delivery, settings, play, created_at, forum) "
                         "VALUES ('c', 'C', 'dresden-files-condensed', 'relay', '{}', '{}', '2026-01-01 00:00:00', "
                         "'{}')")
    database.execute_sql("INSERT INTO aspect (campaign_id, name, kind, owner, free_invokes, hidden, active, "
                         "created_at, system_state) VALUES (1, 'Veiled', 'situation', NULL, '{\"GM\": 1}', 0, 1, "
                         "'2026-01-01 00:00:00', '{}')")
    database.execute_sql("ALTER TABLE aspect DROP COLUMN system_state")
    database.execute_sql("ALTER TABLE member DROP COLUMN forum_name")   # added by version 8
    database.execute_sql("ALTER TABLE member DROP COLUMN forum_user_id")
    undo_post_keys(database)
    undo_kept_versions(database)
    with SchemaVersion.bind_ctx(database):
        SchemaVersion.update(version=6).execute()
    database.close()
    database = open_database(url)
    assert current_version(database) == LATEST
    assert "system_state" in {c.name for c in database.get_columns("aspect")}
    with database.bind_ctx([m.Campaign, m.Character, m.Aspect]):
        campaign = m.Campaign.get()
        table = repo.load_table(campaign)
        [veiled] = table.aspects
        assert (veiled.name, veiled.free_invokes, veiled.system_state) == ("Veiled", {"GM": 1}, {})
        before = repo.snapshot(table)
        veiled.system_state = {"scale": "Supernatural"}
        repo.save_table(campaign, before, table)
        assert repo.load_table(campaign).aspects[0].system_state == {"scale": "Supernatural"}
    database.close()
