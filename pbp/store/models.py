"""The game state and the mail bookkeeping, in peewee.

The database is deferred (``db = DatabaseProxy()``) and bound by :func:`pbp.store.db.open_database`
to SQLite (the default) or PostgreSQL, chosen by URL in the config. JSON-shaped fields
(skills, stress boxes, a message's result) are stored as text: they are always read and
written whole with their row, so a separate table per box would only add queries.
"""
from __future__ import annotations

import hashlib
import json
from datetime import datetime, timezone

from peewee import (
    BigIntegerField,
    BlobField,
    BooleanField,
    CharField,
    DatabaseProxy,
    DateTimeField,
    FloatField,
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
    # Changes whenever its table or play state does: a post sets a fresh random value, and
    # triggers (pbp.store.migrations.create_triggers) move it on any other write to its characters
    # or aspects; a daemon reuses the table it kept from the last post while it is unchanged
    # (pbp.store.repo.take_kept), so several daemons and the CLI on one database stay right.
    version = BigIntegerField(null=True, default=0)
    # the members' addresses pbp does not mail now (pbp.bounces): {"held": [...]} bounced past
    # the threshold (their mail waits in the outbox as "held"), {"muted": [...]} asked not to get
    # the table's mail (List-Unsubscribe); read with the campaign, so a post needs no query for it
    not_mailed = JSONField(null=True, default=dict)


class Member(BaseModel):
    campaign = ForeignKeyField(Campaign, backref="members", on_delete="CASCADE")
    email = CharField()
    role = CharField(default="player")      # "player" | "gm"
    display_name = CharField(default="")
    forum_username = CharField(null=True)   # their name on the campaign's forum (pbp.forum.bymail)
    forum_name = CharField(null=True)       # their full name there, as a forum's mail may show it
    forum_user_id = IntegerField(null=True)  # the forum's id of their account, once seen (pbp.forum.byapi)
    bounce_score = FloatField(default=0)    # GNU Mailman's bounce score (pbp.bounces)
    last_bounce_at = DateTimeField(null=True)

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


def post_key(campaign_id: int | None, author: str, message_id: str, *, trusted: bool = True) -> str:
    """What makes a post the one post it is: its campaign, its author and its Message-ID
    (a forum post's id). The same id from another sender, or in another campaign, is
    another post, so nobody can take a post's place by sending its id first. A post whose
    sender the adapter could not vouch for (``Post.unverified``) has a key of its own: a
    forgery in a member's name never claims the member's real post."""
    parts = ("post", "" if campaign_id is None else str(campaign_id), author if trusted else "?" + author, message_id)
    return hashlib.sha256("\x00".join(parts).encode("utf-8", "surrogatepass")).hexdigest()[:40]


class Message(BaseModel):
    """Every message seen, recorded before anything else happens to it. A post is known by
    its :func:`post_key` (unique), and by its mailbox's UIDVALIDITY and UID where it has them."""

    message_id = CharField(index=True)
    post_key = CharField(null=True, unique=True)   # always set by the pipeline; NULL only in rows older than it
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
    text_sketch = CharField(null=True)      # its prose's sketch (pbp.copies.sketch): a copy sent anew is found by it

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


class SceneSeed(BaseModel):
    """A scene's committed dice (:mod:`pbp.store.seeds`, scheme :mod:`pbp.verify_dice`):
    the secret seed, kept here and nowhere a player or a mail can read it until the
    scene ends and ``revealed_at`` is set; its commitment, published at once; the beacon
    round it is mixed with, if any, and that round's value once read; the scene's secret
    rolls, whole, told at the reveal."""

    campaign = ForeignKeyField(Campaign, backref="scene_seeds", on_delete="CASCADE")
    scene = IntegerField()
    segment = IntegerField(default=1)       # 2, 3... after each /reveal: the scene's dice under a new seed
    seed = CharField()                      # 64 hex digits
    keyseed = CharField(null=True)          # pbp-dice/2: the secret rolls' keys' seed, never revealed; None: pbp-dice/1
    commitment = CharField()
    beacon = JSONField(null=True)           # {"name": "drand", "round": R, "randomness": HEX | None}
    secrets = JSONField(default=list)       # the scene's secret and blind rolls, for the reveal (pbp.play.secrets);
                                            # each {"roll", "told", "post", "text", "throws", "key", "held", "shown"}
    created_at = DateTimeField(default=utcnow)
    revealed_at = DateTimeField(null=True)

    class Meta:
        indexes = ((("campaign", "scene", "segment"), True),)


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
    compacted = BooleanField(default=False, index=True)   # looked at by the retention (pbp.retention)
    channel = CharField(default="mail", index=True)   # the adapter that wrote it (pbp.adapters); delivery maps it
    thread = JSONField(null=True)           # where a later reply in its thread goes (pbp.posts.thread_to_dict)


class BounceEvent(BaseModel):
    """One recipient's status from a delivery report (RFC 3464) about one of pbp's mails,
    recorded against the member it was for (pbp.bounces)."""

    campaign = ForeignKeyField(Campaign, null=True, backref="bounces", on_delete="CASCADE")
    email = CharField(index=True)
    message_id = CharField(null=True)       # the mail that bounced (OutboxMail.message_id)
    action = CharField()                    # failed | delayed | delivered | relayed | expanded
    status = CharField(default="")          # 5.1.1
    diagnostic = TextField(default="")
    reporter = CharField(default="")        # Reporting-MTA
    received_at = DateTimeField(default=utcnow)


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


class InboundMail(BaseModel):
    """A mail read from a mailbox and not yet applied (PostgreSQL with ``[daemon]
    apply_workers``, :mod:`pbp.inbound`): the reader stores it durably, any daemon's apply
    worker claims it and deletes it in the transaction that applies it. ``route_key`` is
    the campaign it was routed to when read (None: no campaign), which keeps each campaign's
    posts in the order they were read."""

    mailbox = CharField()
    uidvalidity = BigIntegerField()
    uid = BigIntegerField()
    raw = BlobField()
    size = IntegerField(null=True)          # the whole mail's size when raw holds only its headers
    campaign_slug = CharField(null=True)    # the mailbox's binding ([[mailboxes]] campaign)
    route_key = IntegerField(null=True)
    read_at = DateTimeField(default=utcnow)

    class Meta:
        indexes = ((("mailbox", "uidvalidity", "uid"), True), (("route_key", "id"), False))


class DigestItem(BaseModel):
    """One table mail held back for a member who reads the daily digest (pbp.digest): what
    the table's mail said (``text``, as every member got it), where (``subject``, the
    thread's) and when. Rows leave when their digest is sent, so they are bounded by a day
    of play."""

    campaign = ForeignKeyField(Campaign, backref="digest_items", on_delete="CASCADE")
    email = CharField()
    at = DateTimeField(default=utcnow)
    subject = TextField(default="")
    text = TextField(default="")

    class Meta:
        indexes = ((("campaign", "email", "id"), False),)


ALL_MODELS = [Campaign, Member, Character, Aspect, Message, RollRecord, OutboxMail, MailboxState, StrangerNotice,
              SheetChange, SceneSeed, ArchivePost, InboundMail, BounceEvent, DigestItem]
