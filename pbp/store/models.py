"""The game state and the mail bookkeeping, in peewee.

The database is deferred (``db = DatabaseProxy()``) and bound by :func:`pbp.store.db.open_database`
to SQLite (the default) or PostgreSQL, chosen by URL in the config. JSON-shaped fields
(skills, stress boxes, a message's result) are stored as text: they are always read and
written whole with their row, so a separate table per box would only add queries.
"""
from __future__ import annotations

import json
from datetime import datetime, timezone

from peewee import (
    BooleanField,
    CharField,
    DatabaseProxy,
    DateTimeField,
    ForeignKeyField,
    IntegerField,
    Model,
    TextField,
)

from pbp.rules.systems import DEFAULT_SYSTEM

db = DatabaseProxy()


def utcnow() -> datetime:
    return datetime.now(timezone.utc).replace(tzinfo=None)


class JSONField(TextField):
    """A JSON document kept in a text column (portable across SQLite and PostgreSQL)."""

    def db_value(self, value):
        return None if value is None else json.dumps(value, separators=(",", ":"), sort_keys=True)

    def python_value(self, value):
        return None if value is None else json.loads(value)


class BaseModel(Model):
    class Meta:
        database = db


class Campaign(BaseModel):
    slug = CharField(unique=True)
    name = CharField()
    system = CharField(default=DEFAULT_SYSTEM)    # the product's default campaign system
    address = CharField(null=True)          # the table's address (To: of posts, From: of replies)
    delivery = CharField(default="relay")   # "relay" | "list"
    forum = JSONField(null=True, default=dict)   # a Discourse category it plays in (pbp.forum.bymail); {} or NULL: none
    settings = JSONField(default=dict)
    play = JSONField(default=dict)          # pbp.play.state.PlayState: scene, conflict, pending...
    next_deadline = DateTimeField(null=True, index=True)
    created_at = DateTimeField(default=utcnow)


class Member(BaseModel):
    campaign = ForeignKeyField(Campaign, backref="members", on_delete="CASCADE")
    email = CharField()
    role = CharField(default="player")      # "player" | "gm"
    display_name = CharField(default="")
    forum_username = CharField(null=True)   # their name on the campaign's forum (pbp.forum.bymail)

    class Meta:
        indexes = ((("campaign", "email"), True),)


class Character(BaseModel):
    campaign = ForeignKeyField(Campaign, backref="characters", on_delete="CASCADE")
    name = CharField()
    kind = CharField(default="pc")          # "pc" | "npc" | "minor"
    player = CharField(null=True)           # controlling address; NULL for the GM's NPCs
    skills = JSONField(default=dict)
    stunts = JSONField(default=list)
    refresh = IntegerField(default=3)
    fate_points = IntegerField(default=3)
    stress = JSONField(default=dict)
    consequences = JSONField(default=list)
    taken_out = BooleanField(default=False)
    carried_points = IntegerField(default=0)   # an NPC's points carried into a later scene's GM pool
    aliases = JSONField(default=list)          # other names commands may use ("Tob" for "Tob Ash")
    system_state = JSONField(default=dict)     # the system's own character state (approaches, a mech)
    description = TextField(default="")
    updated_at = DateTimeField(default=utcnow)

    class Meta:
        indexes = ((("campaign", "name"), True),)


class Aspect(BaseModel):
    """Character aspects, situation and zone aspects, boosts and consequences alike."""

    campaign = ForeignKeyField(Campaign, backref="aspects", on_delete="CASCADE")
    name = CharField()
    kind = CharField(default="situation")
    owner = CharField(null=True)            # character name; NULL = on the scene
    free_invokes = JSONField(default=dict)  # holder -> count
    hidden = BooleanField(default=False)
    active = BooleanField(default=True, index=True)
    created_at = DateTimeField(default=utcnow)
    system_state = JSONField(default=dict)  # the system's own (Dresden Files Condensed: scale)


class Message(BaseModel):
    """Every message seen, recorded before anything else happens to it."""

    message_id = CharField(unique=True)
    campaign = ForeignKeyField(Campaign, null=True, backref="messages", on_delete="SET NULL")
    mailbox = CharField(null=True)
    uidvalidity = IntegerField(null=True)
    uid = IntegerField(null=True)
    author = CharField(default="")
    subject = TextField(default="")
    status = CharField(default="received")  # applied | rejected | ignored | duplicate
    result = JSONField(null=True)
    received_at = DateTimeField(default=utcnow)
    # an applied post's fingerprint (pbp.copies): an edited copy or a forward is found by it
    copy_key = CharField(null=True, index=True)
    forward_key = CharField(null=True, index=True)

    class Meta:
        indexes = ((("mailbox", "uidvalidity", "uid"), True),)


class RollRecord(BaseModel):
    """The dice ledger: every roll, hash-chained per campaign so it can be verified."""

    campaign = ForeignKeyField(Campaign, backref="rolls", on_delete="CASCADE")
    message_id = CharField(null=True, index=True)   # the post it came from (Message.message_id)
    actor = CharField()
    command = TextField()
    action = CharField()
    skill = CharField(null=True)
    dice = JSONField()
    effort = IntegerField()
    opposition = IntegerField(null=True)
    shifts = IntegerField(null=True)
    outcome = CharField(null=True)
    detail = JSONField(default=dict)
    prev_hash = CharField(default="")
    hash = CharField(index=True)
    created_at = DateTimeField(default=utcnow)


class OutboxMail(BaseModel):
    """Replies written in the same transaction as the state change; a sender job delivers
    them and marks each sent (a transactional outbox)."""

    campaign = ForeignKeyField(Campaign, null=True, backref="outbox", on_delete="SET NULL")
    source_id = CharField(null=True, index=True)    # Message-ID of the post answered
    message_id = CharField(unique=True)
    sender = CharField()
    recipients = JSONField()
    subject = TextField()
    raw = TextField()                       # the whole RFC 5322 message, as sent
    status = CharField(default="pending", index=True)  # pending | sent | failed
    attempts = IntegerField(default=0)
    next_attempt_at = DateTimeField(default=utcnow)
    last_error = TextField(default="")
    created_at = DateTimeField(default=utcnow)
    sent_at = DateTimeField(null=True)


class MailboxState(BaseModel):
    """Where the inbox reader got to: UIDVALIDITY and the last UID handled, per mailbox."""

    mailbox = CharField(unique=True)
    uidvalidity = IntegerField(null=True)
    last_uid = IntegerField(default=0)


class StrangerNotice(BaseModel):
    """When a rate-limited notice last went out: to a stranger (keyed by the address: one
    reply a day), or to a member whose post was not authenticated (``"unverified ADDR"``:
    one an hour)."""

    email = CharField(unique=True)
    last_sent_at = DateTimeField()


class SheetChange(BaseModel):
    """One change to a character sheet, by play (a post) or by hand (``pbp character set``,
    ``edit``, ``undo``, ``remove``): who, when, which message, and the sheet before and
    after (:mod:`pbp.sheetedit`). The character is kept by name, so the history outlives
    a removed character."""

    campaign = ForeignKeyField(Campaign, backref="sheet_changes", on_delete="CASCADE")
    character = CharField(index=True)
    at = DateTimeField(default=utcnow)
    who = CharField(default="")             # an address, or "pbp character set" on the server
    how = CharField(default="play")         # play | set | edit | undo | remove
    message_id = CharField(null=True)       # the post that made it (play)
    before = JSONField(null=True)
    after = JSONField(null=True)
    undone = BooleanField(default=False)


class ArchivePost(BaseModel):
    """One post (or deadline round) as the campaign's archive shows it (:mod:`pbp.archive`),
    kept when it is applied, because nothing else stores it: the message row has no text,
    and what the table was shown depends on what was hidden at that moment. ``text`` is
    the author's own new text (quotes cut); ``shown`` the table's reply (results, changes,
    status) in Markdown, "" when the table got no mail; ``gm`` the GM's copy of what the
    table's mail left out, in Markdown; ``private`` the private mails ([{to, subject,
    text}]); ``facts`` the results as the table read them (``to_dict``), for the recap.
    Dice, working and the hash chain stay in the ledger (``RollRecord``), read by roll id."""

    campaign = ForeignKeyField(Campaign, backref="archive", on_delete="CASCADE")
    post_id = CharField(index=True)         # the post's id (Message-ID, forum post id); a round's first reply
    source = CharField(default="mail")      # mail | forum | deadline
    author = CharField(default="")          # the member's address ("" for a deadline round)
    author_name = CharField(default="")
    at = DateTimeField(default=utcnow)
    subject = TextField(default="")
    text = TextField(default="")
    command_lines = JSONField(default=list)  # the text's lines (1-based) read as commands
    scene = CharField(null=True)            # the scene in play after the post
    scene_number = IntegerField(null=True)
    scene_open = BooleanField(default=False)  # a scene was in play after the post
    turn = CharField(null=True)             # whose turn it was after the post, in a conflict
    shown = TextField(default="")
    gm = TextField(default="")
    private = JSONField(default=list)
    facts = JSONField(default=list)
    roll_ids = JSONField(default=list)      # the ledger's rolls the post made (RollRecord.detail.roll_id)


ALL_MODELS = [Campaign, Member, Character, Aspect, Message, RollRecord, OutboxMail, MailboxState, StrangerNotice,
              SheetChange, ArchivePost]
