"""One post, from what an adapter read to applied state and written replies: route,
authorise, parse, resolve, persist, render.

The pipeline speaks neutral posts and replies (:mod:`pbp.posts`): the adapter table
(:mod:`pbp.adapters`) turns what arrived into a :class:`~pbp.posts.NeutralPost`, and every
reply the pipeline makes, whichever way a post ends, goes through :func:`_send`, where the
campaign's adapter, as the table finds it, writes it into the outbox. The pipeline names
no adapter. ``process_message`` is the mail entry point of both ``pbp process FILE.eml`` and
the daemon. One post is one database transaction: its commands all apply and its replies
are written to the outbox, or nothing applies and its author gets a reply that says why.
"""
from __future__ import annotations

import logging
import random
import time
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Callable

from peewee import IntegrityError, InterfaceError, OperationalError

from pbp import commands as c
from pbp import copies, faults
from pbp.i18n import ENGLISH, Language, Msg, of_settings
from pbp.archive import record as archive
from pbp.beacon import from_config as beacon_from_config
from pbp.config import Config
from pbp.errors import CommandError, DiceExhausted, NotAllowedError
from pbp import adapters, bounces, digest
from pbp.ooc import ooc_lines
from pbp.parser import find_commands, find_near_commands, parse_command, parse_lines
from pbp.parser.spec import BY_WORD
from pbp.posts import Audience, NeutralPost, Reply, ThreadRef, thread_from_dict, thread_to_dict
from pbp.play import Author, Post, apply_post, run_deadline_jobs, status_lines
from pbp.play.core import Tell, campaign_hours, finish_post
from pbp.play.dates import for_reader
from pbp.play.people import zone as people_zone
from pbp.play import mailing, parallel
from pbp.play.invoking import open_roll_ids
from pbp.play.state import PlayState, as_stored, dump_play, load_play
from pbp.render import Renderer, reply_subject
from pbp.rules.dice import DiceSource, RandomDice
from pbp.rules.results import ActionResult
from pbp.rules.systems import campaign_system
from pbp.sheets_view import table_sheet
from pbp.store import models as m
from pbp.store import repo
from pbp.store.seeds import FixedNotice, SceneDice
from pbp.store.prepared import Dumped, Insert, Select, Update
from pbp.textsafety import is_addr_spec, shorten
from pbp.views import public_sheets, shows_anything, views

log = logging.getLogger("pbp.pipeline")

GM_ONLY = "GM-only"


@dataclass
class Context:
    """What a message needs from the outside world: swapped in tests, wired by the daemon."""

    config: Config
    dice: DiceSource
    clock: Callable[[], datetime] = m.utcnow
    renderer: Renderer = field(default_factory=Renderer)
    beacon: object = None       # a public randomness beacon mixed into committed seeds (pbp.store.seeds.Beacon)
    adapters: list | None = None   # the adapter table (pbp.adapters.TABLE unless a test gives its own)

    def __post_init__(self) -> None:
        if self.beacon is None:     # [dice] beacon (pbp.beacon)
            self.beacon = beacon_from_config(self.config)


@dataclass
class PostOutcome:
    """What processing one message produced; ``to_dict`` is the ``--json`` contract."""

    message_id: str
    campaign: str | None
    author: str
    status: str                      # applied | rejected | ignored | duplicate
    errors: list[dict] = field(default_factory=list)
    results: list[dict] = field(default_factory=list)
    replies: list[dict] = field(default_factory=list)
    reason: str = ""
    duplicate_of: str = ""           # the Message-ID of the post a copy or forward repeats
    elapsed_ms: float = 0.0
    shown_results: list[dict] = field(default_factory=list)     # as the table's mail showed them (pbp.views)

    def to_dict(self) -> dict:
        d = {
            "message_id": self.message_id,
            "campaign": self.campaign,
            "author": self.author,
            "status": self.status,
            "errors": self.errors,
            "results": self.results,
            "replies": self.replies,
        }
        if self.reason:
            d["reason"] = self.reason
        if self.duplicate_of:
            d["duplicate_of"] = self.duplicate_of
        return d

    def read_by(self, reader: str | None, members: frozenset[str] = frozenset()) -> dict:
        """What a reader of the table may know of this outcome (``pbp process --json
        --as-player``, ``--audience table``; docs/json.md): ``reader`` a member's address, or
        None for anyone at the table; ``members`` every member's address (casefolded). The
        results as the table's mail showed them (a secret roll as its note, nothing only the
        GM knows), if the reader got the table's mail (a parallel scene's goes to its players:
        a forum topic or a list, whose address is no member's, to everyone); the errors only
        for the post's author; the replies that reader got, never the GM's copy. A
        duplicate's results are left out (the original's own outcome has them)."""
        d = self.to_dict()
        who = reader.casefold() if reader is not None else None
        mine = who is not None and who == (self.author or "").casefold()

        def reaches(reply: dict) -> bool:
            to = {a.casefold() for a in reply["to"]}
            return who is None or who in to or not (to & members)
        table = [r for r in self.replies if r.get("audience") == "table" and reaches(r)]
        d["errors"] = self.errors if mine else []
        d["results"] = self.shown_results if self.status == "applied" and table else []
        d["replies"] = [r for r in self.replies if r in table or (
            who is not None and r.get("audience") not in ("gm", "table") and who in {a.casefold() for a in r["to"]})]
        d["reader"] = reader or "table"
        return d


# --------------------------------------------------------------------------- routing

_CAMPAIGN_BY_SLUG = Select(lambda slug: m.Campaign.select().where(m.Campaign.slug == slug))
_MEMBERS = Select(lambda campaign_id: m.Member.select(m.Member.email, m.Member.role).where(m.Member.campaign == campaign_id))
_SEEN_KEY = Select(lambda key: m.Message.select(m.Message.id).where(m.Message.post_key == key))
_SEEN_UID = Select(lambda mailbox, uidvalidity, uid: m.Message.select(m.Message.id).where(
    (m.Message.mailbox == mailbox) & (m.Message.uidvalidity == uidvalidity) & (m.Message.uid == uid)))
_INSERT_MESSAGE = Insert(m.Message, ("message_id", "post_key", "campaign", "mailbox", "uidvalidity", "uid", "author", "subject",
                                     "status", "result", "received_at", "copy_key", "forward_key",
                                     "text_sketch"))
_INSERT_OUTBOX = Insert(m.OutboxMail, ("campaign", "source_id", "message_id", "sender", "recipients", "subject", "raw",
                                       "status", "attempts", "next_attempt_at", "last_error", "created_at",
                                       "compacted", "channel", "thread"))


def _campaign(slug: str) -> m.Campaign | None:
    rows = _CAMPAIGN_BY_SLUG(slug)
    return m.Campaign(**rows[0]) if rows else None


def route(post: NeutralPost, *, campaign_slug: str | None = None) -> m.Campaign | None:
    """Which campaign a post is for: the one its adapter found (a forum binding), the
    mailbox's binding, a plus-address (``table+slug@``), the campaign's own address, or the
    only campaign there is."""
    if post.campaign or campaign_slug:
        return _campaign(post.campaign or campaign_slug)
    addresses = list(post.routes)
    for addr in addresses:
        local = addr.split("@", 1)[0]
        if "+" in local:
            found = _campaign(local.split("+", 1)[1])
            if found:
                return found
    if addresses:
        found = m.Campaign.select().where(m.Campaign.address.in_(addresses)).first()
        if found:
            return found
    campaigns = list(m.Campaign.select().limit(2))
    return campaigns[0] if len(campaigns) == 1 else None


# --------------------------------------------------------------------------- process


def process_message(
    raw: bytes,
    ctx: Context,
    *,
    mailbox: str | None = None,
    uidvalidity: int | None = None,
    uid: int | None = None,
    campaign_slug: str | None = None,
    size: int | None = None,
) -> PostOutcome:
    """Run one raw message through the whole pipeline. Never raises for anything a sender
    can cause; the returned :class:`PostOutcome` says what happened. ``size`` is the mail's
    real size when ``raw`` holds only its headers (an IMAP fetch of an oversized mail)."""
    started = time.perf_counter()
    try:
        outcome = _process(raw, ctx, mailbox=mailbox, uidvalidity=uidvalidity, uid=uid,
                           campaign_slug=campaign_slug, size=size)
    except (OperationalError, InterfaceError):
        raise  # the database is away: nothing was kept, the daemon tries the message again later
    except DiceExhausted:
        raise  # the operator's fixed dice (--dice) ran out or do not fit: theirs to fix, nothing kept
    except IntegrityError as exc:
        outcome = _lost_race(adapters.read_mail(raw, ctx.config), ctx, exc, mailbox=mailbox,
                             uidvalidity=uidvalidity, uid=uid, campaign_slug=campaign_slug)
    except Exception as exc:  # a bug: this post must not block the ones behind it
        log.exception("internal error on a post from mailbox %s uid %s", mailbox, uid)
        outcome = _internal_error(adapters.read_mail(raw, ctx.config), ctx, exc, mailbox=mailbox,
                                  uidvalidity=uidvalidity, uid=uid, campaign_slug=campaign_slug)
    outcome.elapsed_ms = (time.perf_counter() - started) * 1000
    return outcome


def _lost_race(post: NeutralPost, ctx, exc: Exception, **where) -> PostOutcome:
    """A post another daemon on the same database handled meanwhile (a forum post both
    read, a mail two daemons fetched): its transaction won and this one kept nothing, so
    this daemon goes on quietly. Any other broken constraint is a bug (:func:`_internal_error`)."""
    campaign = None if post.ignored else route(post, campaign_slug=where.get("campaign_slug"))
    found = _SEEN_KEY(_post_key(post, campaign))
    if not found:
        log.exception("internal error on post %s from %s", post.id, post.source)
        return _internal_error(post, ctx, exc, **where)
    log.info("post %s was handled by another daemon meanwhile", post.id)
    return _stored(m.Message.get_by_id(found[0]["id"]), "duplicate", reason="handled by another daemon at the same time")


def _internal_error(post: NeutralPost, ctx, exc: Exception, *, mailbox=None, uidvalidity=None, uid=None,
                    campaign_slug=None) -> PostOutcome:
    """Record a post that pbp failed on (its transaction rolled back: nothing changed), so
    it is not retried forever, and tell its author, if a member, that it was not applied."""
    error = CommandError(f"pbp could not process this post ({type(exc).__name__}); nothing was applied",
                         expected="the GM or the operator to look at pbp's log",
                         example="send the post again later, or without the command that failed")
    error_dict = {**error.to_dict(), "type": "InternalError"}
    base = PostOutcome(message_id=post.id, campaign=None, author=post.author, status="rejected",
                   errors=[error_dict], reason=f"internal error: {exc}")
    record = dict(message_id=post.id, mailbox=mailbox, uidvalidity=uidvalidity, uid=uid,
                  author=post.author, subject=post.subject)
    with m.db.atomic():
        campaign = route(post, campaign_slug=campaign_slug)
        record["post_key"] = _post_key(post, campaign)
        members = [Author(**row) for row in _MEMBERS(campaign.id)] if campaign is not None else []
        if campaign is not None and any(mb.email == post.author for mb in members):
            base.campaign = campaign.slug
            reply = _reply_to_author(post, "error", ctx.renderer.error(mail=post, campaign=campaign, errors=[error]))
            base.replies = _send([reply], campaign, post.id, ctx)
        _INSERT_MESSAGE(**record, campaign=campaign, status="rejected", result=base.to_dict())
    return base


def _process(raw, ctx, *, mailbox, uidvalidity, uid, campaign_slug, size=None) -> PostOutcome:
    if mailbox is not None and uid is not None and uidvalidity is not None:
        found = _SEEN_UID(mailbox, uidvalidity, uid)
        if found:
            return _stored(m.Message.get_by_id(found[0]["id"]), "duplicate",
                           reason="this mailbox copy was handled already")
    post = adapters.read_mail(raw, ctx.config, size)
    return _process_post(post, ctx, campaign_slug=campaign_slug,
                         where=dict(mailbox=mailbox, uidvalidity=uidvalidity, uid=uid))


def process_post(post: NeutralPost, ctx: Context, *, campaign_slug: str | None = None, where: dict | None = None) -> PostOutcome:
    """Resolve one post whichever adapter read it (a forum post the daemon polled): as
    :func:`process_message` does, it never raises for anything a poster can cause."""
    started = time.perf_counter()
    try:
        outcome = _process_post(post, ctx, campaign_slug=campaign_slug, where=where)
    except (OperationalError, InterfaceError):
        raise  # the database is away: nothing was kept, the daemon tries the post again later
    except DiceExhausted:
        raise  # the operator's fixed dice (--dice) ran out or do not fit: theirs to fix, nothing kept
    except IntegrityError as exc:
        outcome = _lost_race(post, ctx, exc, campaign_slug=campaign_slug, **(where or {}))
    except Exception as exc:  # a bug: this post must not block the ones behind it
        log.exception("internal error on post %s from %s", post.id, post.source)
        outcome = _internal_error(post, ctx, exc, campaign_slug=campaign_slug, **(where or {}))
    outcome.elapsed_ms = (time.perf_counter() - started) * 1000
    return outcome


def _process_post(post: NeutralPost, ctx: Context, *, campaign_slug: str | None = None,
                  where: dict | None = None) -> PostOutcome:
    """Resolve one post whichever adapter read it: duplicates, policy, routing,
    authorisation, parsing, copies, then the commands in one transaction. ``where`` is
    where the source keeps it (a mailbox's UIDVALIDITY and UID), recorded with it."""
    campaign = None if post.ignored else route(post, campaign_slug=campaign_slug)
    key = _post_key(post, campaign)
    found = _SEEN_KEY(key)
    if found:
        return _answer_duplicate(m.Message.get_by_id(found[0]["id"]), post, ctx)

    base = PostOutcome(message_id=post.id, campaign=None, author=post.author, status="ignored")
    record = dict({"mailbox": None, "uidvalidity": None, "uid": None, **(where or {})}, message_id=post.id,
                  post_key=key, author=post.author, subject=post.subject, received_at=ctx.clock())

    if post.report is not None:
        return _bounced(base, record, post, ctx)
    if post.ignored:
        base.reason = post.ignored
        return _finish(base, record, None)

    if campaign is None:
        base.reason = "no campaign matches this mail's addresses"
        return _finish(base, record, None)
    base.campaign = campaign.slug

    members = [Author(**row) for row in _MEMBERS(campaign.id)]
    member = next((mb for mb in members if mb.email == post.author), None)
    unverified = post.unverified
    if member is None:
        quiet = post.quiet
        if quiet or unverified:  # no notice to list mail, nor to an address nobody vouched for
            base.reason = f"{quiet or unverified} (a non-member's mail: no reply)"
            return _finish(base, record, campaign)
        return _answer_stranger(base, record, post, campaign, ctx)
    if unverified:
        return _answer_unverified(base, record, post, campaign, member, ctx, unverified)
    if member.email in bounces.not_mailed(campaign, "held"):   # they posted: their mailbox works again
        with m.db.atomic():
            _send(bounces.recovered(campaign, member.email, ctx.clock()), campaign, post.id, ctx)
    wish = bounces.mute_request(post.subject)   # the subject first: most posts stop there
    if wish is not None and not find_commands(post.new_text):
        return _mute(base, record, post, campaign, member, ctx, wish == bounces.MUTE)

    if post.unread:
        err = CommandError(f"pbp did not read this post: {post.unread}",
                           expected="a shorter post in plain text or HTML, without attachments",
                           example="/overcome Athletics vs Fair")
        return _reject(base, record, post, campaign, member, ctx, [err])

    lines = find_commands(post.new_text)
    bare = _bare_answer(post, campaign)
    if bare is not None and bare[0] not in {n for n, _ in lines}:
        lines = [bare, *lines]
    if len(lines) > ctx.config.limits.max_commands:
        err = CommandError(
            f"the post has {len(lines)} commands; this table accepts at most {ctx.config.limits.max_commands} in one post",
            expected="fewer commands per post",
            example="split the post in two",
        )
        return _reject(base, record, post, campaign, member, ctx, [err])

    parsed, errors = parse_lines(lines, campaign_system(campaign).words)
    if errors:
        return _reject(base, record, post, campaign, member, ctx, errors, commands=parsed)
    hidden = [cmd for cmd in parsed if getattr(cmd, "hidden", False)] if post.public else []
    if hidden:   # the forum already shows it to everyone: refused, and the author told where to send it
        return _reject(base, record, post, campaign, member, ctx, [CommandError(
            f"this post is public: everyone at the table has read {shorten(hidden[0].source)!r}, so pbp does not "
            "keep it hidden; nothing in the post was applied", expected="a hidden command sent by mail to the "
            f"table's address, {campaign.address or ctx.config.from_address}, from your own address",
            example=hidden[0].source).at(hidden[0].line, hidden[0].source)], commands=parsed)

    keys = copies.fingerprint(campaign.id, member.email, post, lines, parsed)
    copy = copies.find_copy(campaign.id, member.email, post, lines, keys, ctx.clock())
    if copy is not None:
        return _answer_copy(base, record, post, campaign, copy, ctx)

    try:
        with m.db.atomic():
            return _apply(base, record, post, campaign, member, members, parsed, ctx, keys, notes=reader_notes(post))
    except CommandError as exc:
        return _reject(base, record, post, campaign, member, ctx, [exc], commands=parsed)


def _post_key(post: NeutralPost, campaign: m.Campaign | None) -> str:
    """The post's identity (:func:`pbp.store.models.post_key`): its campaign, its author
    (marked when the adapter could not vouch for them) and its id. A mail with a known
    Message-ID from another sender, or to another campaign, is another post."""
    return m.post_key(campaign.id if campaign is not None else None, post.author, post.id,
                      trusted=not post.unverified)


def reader_notes(mail: NeutralPost) -> list[str]:
    """What the result reply says about lines of the new text that look like commands but
    were not read as ones (``／roll``, ``/ roll``): a post that applies nothing is then
    never silent about the command its author meant."""
    return [f'line {number}, "{shorten(line)}", was not read as a command: {why}; '
            f"write it as {_as_command(line)}" for number, line, why in find_near_commands(mail.new_text)]


def _as_command(line: str) -> str:
    word, _, rest = line[1:].strip().partition(" ")
    return shorten(f"/{word} {rest}".strip())


BARE_ANSWERS = ("approve", "deny", "accept", "refuse")


def _bare_words(campaign: m.Campaign) -> tuple[str, ...]:
    """The bare answers a campaign reads: the English words, and its language's ("aprovar")."""
    code = of_settings(campaign.settings).code
    return BARE_ANSWERS + tuple(w for word in BARE_ANSWERS for w in BY_WORD[word].words.get(code, ()))


def _bare_answer(mail: NeutralPost, campaign: m.Campaign) -> tuple[int, str] | None:
    """A reply to one of pbp's mails about a compel or story detail whose first line is just
    "approve", "deny", "accept" or "refuse" (any case, a trailing "." or "!" allowed) is read
    as that slash command: GMs answer from a phone. Anywhere else such a word is prose."""
    if not mail.replied_to:
        return None
    refs = ((campaign.play or {}).get("threads") or {}).get(mail.replied_to) or ()
    if not any(r.startswith(("compel:", "detail:")) for r in refs):
        return None
    ooc = ooc_lines(mail.new_text)     # table talk is never read for an answer (pbp.ooc)
    for number, line in enumerate(mail.new_text.splitlines(), start=1):
        if line.strip() and number not in ooc:
            word = line.strip().rstrip(".!").strip().lower()
            return (number, "/" + word) if word in _bare_words(campaign) else None
    return None


def _apply(base: PostOutcome, record: dict, mail: NeutralPost, campaign: m.Campaign, member: Author,
           members: list[Author], commands: list[c.Command], ctx: Context, keys: dict,
           notes: list[str] = ()) -> PostOutcome:
    """Resolve every command against the campaign's table and play state; the caller's
    transaction makes it all-or-nothing (a command an earlier one made moot is skipped
    with a note, see :func:`pbp.play.core.apply_post`). The post is recorded with its fingerprint
    (``keys``, see :mod:`pbp.copies`), so a later copy of it is found."""
    post = _open_post(campaign, member, ctx, replied_to=mail.replied_to, kept=True)
    post.post_id = mail.id
    parallel.enter_thread(post, (*mail.thread.chain, *((mail.replied_to,) if mail.replied_to else ())), mail.subject)
    post.turn_before = mailing.turn_holders(post)       # a mail that passes the turn concerns the next
    commit_dice(post, campaign, ctx, mail.id, mail.new_text)
    results = apply_post(post, commands)
    sent = _commit_post(post, campaign, members, ctx, results, source=mail, commands=commands,
                        relay=campaign.delivery == "relay", notes=notes)
    base.status = "applied"
    base.results = [r.to_dict() for r in results]
    for d, res in zip(base.results, results):
        if id(res) in post.ledger:
            d["ledger"] = post.ledger[id(res)][1]
        if getattr(res, "roll_id", None) in post.secret_rolls:
            d["secret"] = True          # the operator's record: only the GM knows it (docs/json.md)
    base.shown_results = post.shown_results
    base.replies = sent
    _INSERT_MESSAGE(**record, **keys, campaign=campaign, status="applied",
                    result=_kept_result(base, results, post.__dict__.get("_recorded", {}), post.__dict__.get("_archived")))
    return base


def _kept_result(base: PostOutcome, results: list, recorded: dict, archived: tuple[int, list] | None) -> dict:
    """What an applied post's message row keeps of its outcome (issue 23): not what the
    row's columns, the outbox (its replies), the archive and the ledger hold already. A
    result the table read as it is (the archive record's ``facts``, ``archived`` its id and
    facts) keeps only its place there, ``{"fact": 0}``, with its ledger hash; another in the
    ledger keeps its ledger hash and only what differs from what was recorded there (its
    changes; effects added after the roll was recorded). :func:`_stored` puts them back
    together from the archive and ledger rows."""
    kept = []
    archive_id, facts = archived if archived is not None else (None, [])
    cited = False
    for d, res in zip(base.results, results):
        core = {k: v for k, v in d.items() if k not in _OUTCOME_ONLY}
        if core in facts:
            kept.append({"fact": facts.index(core), **{k: d[k] for k in _OUTCOME_ONLY if k in d}})
            cited = True
            continue
        ledger = recorded.get(id(res))
        if ledger is None or "ledger" not in d:
            kept.append(d)
            continue
        kept.append({k: v for k, v in d.items() if k not in repo.LEDGER_VIEW or ledger.get(k) != v})
    # the first reply's own id: how a resent copy finds the original result in the outbox
    # (another sender's mail with the same Message-ID is another post, :func:`_first_reply`)
    first = [{"message_id": base.replies[0]["message_id"]}] if base.replies else []
    out = {"campaign": base.campaign, "errors": base.errors, "results": kept, "replies": first}
    if cited:
        out["archive"] = archive_id
    return out


#: what an outcome's result has beside the result itself (its ledger hash, a secret roll's mark)
_OUTCOME_ONLY = ("ledger", "secret")
_FACTS = Select(lambda archive_id: m.ArchivePost.select(m.ArchivePost.facts).where(m.ArchivePost.id == archive_id))


def _open_post(campaign: m.Campaign, author: Author, ctx: Context, replied_to: str | None = None, *,
               kept: bool = False) -> Post:
    """The post's view of the campaign: its table and play state, decoded from the database
    or, with ``kept`` (a post that will commit them), the ones the campaign's last post
    left in this process if the database has not changed since (:func:`pbp.store.repo.take_kept`)."""
    system = campaign_system(campaign)
    found = repo.take_kept(campaign) if kept else None
    if found is not None:
        table, play, snap = found.table, found.play, found.snapshot
    else:
        table = repo.load_table(campaign, system.skills)
        play = load_play(campaign.play)
        if not play.rolls_numbered:     # rolls used to show ledger row ids: new numbers start past them
            play.next_id = max(play.next_id, repo.max_roll_row(campaign) + 1)
            play.rolls_numbered = True
        snap = repo.snapshot(table)
    post = Post(campaign=campaign, table=table, play=play, author=author, now=ctx.clock(),
                dice=ctx.dice, system=system, settings=ctx.config, replied_to=replied_to)
    post.snapshot = snap
    post.names_at_start = tuple((a.name, a.hidden, a.owner) for a in table.aspects)
    return post


def commit_dice(post: Post, campaign: m.Campaign, ctx: Context, post_id: str, text: str) -> None:
    """Real dice come from the open scene's committed seed (:mod:`pbp.store.seeds`), derived
    from this post's id and text; fixed dice (``--dice``, ``PBP_DICE``) override that."""
    if isinstance(ctx.dice, RandomDice):
        post.seeds = SceneDice(campaign, post_id, text, ctx.dice, beacon=ctx.beacon)
        post.seeds.attach(post)
    elif getattr(ctx.dice, "announce", ""):     # the operator's --dice / PBP_DICE: the replies say so
        post.seeds = FixedNotice(ctx.dice.announce)


def read_post(campaign: m.Campaign, ctx: Context) -> Post:
    """The campaign as its GM sees it, for tools that only read (``pbp table``): nothing
    is saved."""
    return _open_post(campaign, Author("", "gm"), ctx)


#: the end of the subject of the GM's own copy of a post's results
GM_ONLY = Msg(" — for the GM only")


def _commit_post(post: Post, campaign: m.Campaign, members: list[Author], ctx: Context, results: list, *,
                 source: NeutralPost | None, commands: list[c.Command] | None, relay: bool,
                 thread: ThreadRef | None = None, thread_subject_: str | None = None,
                 notes: list[str] = ()) -> list[dict]:
    """Persist what a post (or a deadline round) changed, record its rolls in the ledger
    and send its replies (:func:`_send`): the result to the table (threaded to ``source``,
    or for a deadline round to ``thread``: the reply that asked, whose subject is
    ``thread_subject_``), then any private ones. Returns what was sent, as the outcome
    lists it."""
    saved = repo.save_table(campaign, post.snapshot, post.table)
    changed_names = saved.changed
    if changed_names:   # every sheet change by play goes into the history (pbp character history)
        from pbp.sheethistory import record_play

        record_play(campaign, post.snapshot, saved, post.table, who=post.author.email or "pbp (deadline)",
                    message_id=source.id if source is not None else None, at=post.now)
    faults.reached("mid_transaction")
    prev = repo.last_ledger_hash(campaign)
    events = post.seeds.events if post.seeds is not None else []
    source_id = source.id if source else None
    for action, detail in (e for e in events if e[0] == "commit"):     # a scene's commitment before its rolls
        prev = repo.record_event(campaign, source_id, "dice_commit", detail, prev).hash
    for res in results:         # the ledger records each roll under the id it took when made
        if isinstance(res, ActionResult):
            if res.roll_id is None:
                raise RuntimeError(f"a roll reached the ledger without its id: {res.command}")
            recorded = res.to_dict()
            proof = post.seeds.proof(res.roll_id) if post.seeds is not None else None
            if proof is not None:
                recorded["effects"] = [*recorded.get("effects", []), {"kind": "committed_dice", "text": "", "data": proof}]
            if res.roll_id in post.secret_rolls:     # the players' archive leaves it out until revealed
                recorded["secret"] = True
            row = repo.record_roll(campaign, source_id, recorded, prev, res.roll_id)
            prev = row.hash
            post.ledger[id(res)] = (res.shown_id, row.hash[:8])
            post.__dict__.setdefault("_recorded", {})[id(res)] = recorded    # what the message row need not repeat
    for action, detail in (e for e in events if e[0] == "reveal"):     # and its seed after them
        prev = repo.record_event(campaign, source_id, "dice_reveal", detail, prev).hash
    finish_post(post)           # the after_post steps of pbp.play.core.SEQUENCE

    # The table's mail shows what every member may know; what it leaves out goes to the GM
    # in a mail of their own (pbp.views says who is told what).
    seen = views(results, post.table, names_at_start=post.names_at_start, author_is_gm=post.author.is_gm,
                 secret_rolls=post.secret_rolls)
    table_ledger = {id(shown): post.ledger[id(res)] for shown, res in zip(seen.table, results) if id(res) in post.ledger}
    # the dice proofs are the rolls' own ids (a revised roll shows the id it revised)
    table_rolls = {res.roll_id for shown, res in zip(seen.table, results) if id(res) in post.ledger}
    changed = _table_sheets(post, changed_names)
    subject = thread_subject(source, campaign) if source is not None else thread_subject_
    where = source.thread if source is not None else thread
    # the thread map names only what is still open, so it does not grow with the campaign
    open_ids = open_roll_ids(post.play)
    refs = [a.ref for a in post.asks] + [f"roll:{rid}" for rid, _ in post.ledger.values() if rid in open_ids]
    replies = []
    shown = ""      # the table's reply in Markdown, kept for the archive (pbp.archive.record)
    # a deadline round with only reminders tells only; a post with only the GM's business, too
    if (source is not None or results or post.asks) and not _only_for_gm(seen, post, changed, source, commands, relay):
        forum = adapters.writer(campaign, ctx.config, ctx.adapters).markdown   # a forum reads Markdown
        body = ctx.renderer.result(mail=source, campaign=campaign, system=post.system, results=seen.table, ledger=table_ledger,
                                   commands=commands, sheets=changed, relay=relay, asks=post.asks,
                                   status=status_lines(post), notes=notes, markdown=True,
                                   proof=_dice_footer(post, table_rolls))
        shown = body[2]
        post.shown_results = [r.to_dict() for r in seen.table]
        for d, res in zip(post.shown_results, seen.table):
            if id(res) in table_ledger and d.get("action") != "secret_roll":   # a secret roll's hash is kept too
                d["ledger"] = table_ledger[id(res)][1]
        readers = _table_readers(post, campaign, members, source, results, forum)
        digest.hold(campaign, readers.digest, at=post.now, subject=subject or "", text=body[0])
        replies.append(Reply(kind="result", audience=Audience.TABLE, to=readers.to,
                             text=body[0], html=body[1], markdown=body[2] if forum else "", thread=where,
                             thread_subject=subject, refs=tuple(refs)))
    for tell in post.tells:
        to = _addresses(post, members, tell.to)
        if to:
            text, html = ctx.renderer.tell(campaign=campaign, tell=tell)
            replies.append(Reply(kind="tell", audience=Audience.GM if list(tell.to) == ["GM"] else Audience.PLAYER,
                                 to=tuple(to), text=text, html=html, thread=where,
                                 subject=of_settings(campaign.settings).say(tell.subject),
                                 refs=tuple(tell.refs)))
    gms = sorted({mb.email for mb in members if mb.is_gm})
    gm_copy = ""
    if seen.gm and gms:             # what the table's mail left out, for the GM (pbp.views)
        text, html = ctx.renderer.result(mail=source, campaign=campaign, system=post.system, results=seen.gm,
                                         ledger=post.ledger, commands=None, sheets=[], relay=False, template="gm_copy")
        gm_copy = ctx.renderer.result(mail=source, campaign=campaign, system=post.system, results=seen.gm,
                                      ledger=post.ledger, commands=None, sheets=[], relay=False, markdown=True)[2]
        replies.append(Reply(kind="tell", audience=Audience.GM, to=tuple(gms), text=text, html=html, thread=where,
                             subject=reply_subject(subject or of_settings(campaign.settings).say(Msg("Deadlines")),
                                                   campaign.name, of_settings(campaign.settings).say(GM_ONLY))))
    sent = _send(replies, campaign, source.id if source is not None else None, ctx, threads=post.play.threads,
                 people=post.play.people)
    post.__dict__["_archived"] = archive.keep(campaign, post=post, source=source, commands=commands, seen=seen, shown=shown, gm=gm_copy,
                 private=[{"to": list(t.to), "subject": t.subject, "text": t.text} for t in post.tells], sent=sent)
    play = _save_play(campaign, post.play, ctx.config, table_written=saved.wrote)
    repo.keep(campaign, post.table, saved, play)     # for its next post (pbp.store.repo)
    return sent


def _dice_footer(post: Post, table_rolls: set[int]) -> list[str]:
    """The reply's ``pbp-dice/1`` lines (:mod:`pbp.verify_dice`): commitments, reveals and
    the throws of the rolls the table's mail shows; with fixed dice, a line saying so."""
    if post.seeds is None:
        return []
    return post.seeds.footer(table_rolls - set(post.secret_rolls), set(post.secret_rolls))


_SUBJECT_OF = Select(lambda campaign_id, message_id: m.Message.select(m.Message.subject).where(
    (m.Message.message_id == message_id) & (m.Message.campaign == campaign_id)).order_by(m.Message.id).limit(1))
_OUR_SUBJECT = Select(lambda message_id: m.OutboxMail.select(m.OutboxMail.subject, m.OutboxMail.source_id)
                      .where(m.OutboxMail.message_id == message_id))


def thread_subject(mail: NeutralPost, campaign: m.Campaign) -> str:
    """The subject the mail's thread began with: that of the thread's first mail
    (References' first id, else In-Reply-To) when pbp has it, else the mail's own. Replies
    keep it, so the table's thread is not renamed by a player answering a private mail
    ("Re: [Campaign] Compel #3 on ...: accept or refuse") nor by one who edits the subject."""
    for msgid in dict.fromkeys(i for i in (mail.thread_root, mail.replied_to) if i):
        subject = _subject_of(campaign, msgid)
        if subject is not None:
            return subject
    return mail.subject


def _subject_of(campaign: m.Campaign, msgid: str, hops: int = 3) -> str | None:
    """The thread subject of the mail ``msgid``: a post's own; for a mail of pbp's, that of
    the post it answered (a GM's approval mail, "Compel #4 needs your approval", belongs to
    the table's thread of the compel, so answering it with In-Reply-To alone does not rename
    the table's thread); None when pbp knows neither."""
    rows = _SUBJECT_OF(campaign.id, msgid)
    if rows:
        return rows[0]["subject"]
    rows = _OUR_SUBJECT(msgid)
    if not rows:
        return None
    source = rows[0]["source_id"]
    answered = _subject_of(campaign, source, hops - 1) if source and hops > 0 else None
    return answered if answered is not None else rows[0]["subject"]


def _table_sheets(post: Post, changed_names: list[str]) -> list[dict]:
    """The changed sheets as the table sees them, leaving out those that changed only
    where the table cannot see (a hidden aspect added to the Ghoul). Only a sheet with a
    hidden aspect on it, before or after, is compared with the table as loaded."""
    if not changed_names:
        return []
    npc_skills = post.flag("show_npc_skills")
    secretive = {(owner or "").casefold() for _, hidden, owner in post.names_at_start if hidden}
    secretive |= {(a.owner or "").casefold() for a in post.table.aspects if a.hidden}
    before = repo.table_as_loaded(post.snapshot) if secretive & {n.casefold() for n in changed_names} else None
    pairs = []
    for name in changed_names:
        after = table_sheet(post.table.characters[name], post.table, npc_skills=npc_skills)
        old = before.characters.get(name) if before is not None and name.casefold() in secretive else None
        pairs.append((after, table_sheet(old, before, npc_skills=npc_skills) if old is not None else None))
    return public_sheets(pairs)


def _only_for_gm(seen, post: Post, sheets: list, source: NeutralPost | None, commands, relay: bool) -> bool:
    """A post whose every result is for the GM alone (a hidden aspect added, the GM's
    /sheet), with no prose to relay and nothing else to tell: the table gets no mail."""
    if not seen.table or any(shows_anything(r) for r in seen.table) or post.asks or sheets:
        return False
    if relay and source is not None:
        lines = {cmd.line for cmd in commands or ()}
        if any(text.strip() for n, text in enumerate(source.new_text.splitlines(), start=1) if n not in lines):
            return False
    return True


def _addresses(post: Post, members: list[Author], names) -> list[str]:
    """Mail addresses of characters' players; GM means every GM of the campaign."""
    out: list[str] = []
    for name in names:
        if "@" in name and any(mb.email == name for mb in members):     # a member, by address
            out.append(name)
            continue
        if name == "GM":
            out += [mb.email for mb in members if mb.is_gm]
            continue
        ch = post.table.character(name)
        if ch is not None and ch.player:
            out.append(ch.player)
        elif ch is not None:
            out += [mb.email for mb in members if mb.is_gm]
    return sorted(set(out))


_SAVE_PLAY = Update(m.Campaign, ("play", "next_deadline", "version"))


def _save_play(campaign: m.Campaign, play: PlayState, config: Config, *, table_written: bool = False) -> PlayState:
    """Write the play state if it changed; if it or the table did (``table_written``), the
    campaign takes a fresh version (what a kept table is checked by, pbp.store.repo).
    Returns the play state as a load would read it back (its changed parts decoded from what
    was written: their maps in the stored order, which replies show; :func:`as_stored`)."""
    data = dump_play(play)
    changed = data != campaign.play     # as stored: the keys sorted (JSONField)
    if changed or table_written:
        text = Dumped(m.Campaign.play.db_value(data))
        if changed:
            play = as_stored(play, data, campaign.play)
        due = play.next_deadline(timedelta(hours=campaign_hours(campaign, config, "reminder_hours")))
        version = repo.new_version()
        _SAVE_PLAY(campaign.id, play=text, next_deadline=due, version=version)
        campaign.play, campaign.version = data, version
    return play


def _table_readers(post: Post, campaign: m.Campaign, members: list[Author], source: NeutralPost | None,
                   results: list, forum: bool) -> mailing.Readers:
    """Who gets the table's mail of this post: every member, or, for a scene that names its
    PCs beside others (:mod:`pbp.play.parallel`), their players and the GMs: a member not in
    the scene reads nothing of it; then each reader's delivery mode and muted scenes
    (:mod:`pbp.play.mailing`) send it now, keep it for their digest or leave it out. A table
    that plays by a list mails the list; a forum's topic is read by all."""
    everyone = table_recipients(campaign, members)
    if campaign.delivery == "list" and campaign.address or forum:
        return mailing.Readers(to=tuple(everyone))
    gms = {mb.email for mb in members if mb.is_gm}
    scene = parallel.readers(post, gms)
    readers = everyone if scene is None else [email for email in everyone if email in scene]
    picky = any(s.mail != "every" or s.muted for s in post.play.people.values())
    replied = _replied_author(campaign, source.replied_to) if picky and source is not None and source.replied_to else None
    return mailing.sort_readers(post, readers, results, replied_author=replied, gms=gms)


_REPLIED = Select(lambda campaign_id, message_id: m.OutboxMail.select(m.OutboxMail.source_id).where(
    (m.OutboxMail.message_id == message_id) & (m.OutboxMail.campaign == campaign_id)).limit(1))
_AUTHOR_OF = Select(lambda campaign_id, message_id: m.Message.select(m.Message.author).where(
    (m.Message.message_id == message_id) & (m.Message.campaign == campaign_id)).order_by(m.Message.id).limit(1))


def _replied_author(campaign: m.Campaign, replied_to: str) -> str | None:
    """Whose post a post answers: the author of the post pbp's mail ``replied_to`` answered,
    or of ``replied_to`` itself when it is a member's own mail."""
    ours = _REPLIED(campaign.id, replied_to)
    post_id = ours[0]["source_id"] if ours else replied_to
    found = _AUTHOR_OF(campaign.id, post_id) if post_id else None
    return found[0]["author"] if found else None


def table_recipients(campaign: m.Campaign, members: list[Author]) -> list[str]:
    """Who gets a result: in list mode the list address, else every member of the table
    but those who muted its mail (:mod:`pbp.bounces`)."""
    if campaign.delivery == "list" and campaign.address:
        return [campaign.address]
    return sorted({mb.email for mb in members} - bounces.not_mailed(campaign, "muted"))


# --------------------------------------------------------------------------- other outcomes


def _finish(base: PostOutcome, record: dict, campaign) -> PostOutcome:
    """Record a message that needs no reply (ignored), so a second copy is a duplicate."""
    with m.db.atomic():
        m.Message.create(**record, campaign=campaign, status=base.status, result=base.to_dict())
    return base


#: How many refusals an error's example may be followed through to one that plays.
EXAMPLE_STEPS = 4


def _working_examples(errors: list[CommandError], campaign: m.Campaign, member: Author | None, ctx: Context,
                      commands: list[c.Command] = ()) -> None:
    """Every error's example is one the same campaign plays for the same author: each is
    tried against the table as it is (in a savepoint rolled back, with dice of its own);
    one refused is replaced by that refusal's example, followed up to ``EXAMPLE_STEPS``
    times, and else by ``/table`` (which shows what the table waits for). So a reply never
    suggests a name, zone, skill or invoke this table would refuse (issue 21). The post's
    commands before the refused line (``commands``) are applied first, as the example
    would follow them; when they cannot be, the example is kept as it is."""
    if member is None or campaign is None:
        return
    words = campaign_system(campaign).words
    for exc in errors:
        for _ in range(EXAMPLE_STEPS):
            line = next((ln.strip() for ln in (exc.example or "").splitlines() if ln.strip().startswith("/")), None)
            if line is None or line == "/table":
                break
            before = [cmd for cmd in commands if cmd.line < (exc.line or 0)]
            refusal = _refusal(line, words, campaign, member, ctx, before)
            if refusal is None:
                break
            nxt = next((ln.strip() for ln in (refusal.example or "").splitlines() if ln.strip().startswith("/")), "")
            exc.example = refusal.example if nxt and nxt != line else "/table"
        else:
            exc.example = "/table"


_EXAMPLE_LINE = 10 ** 6      # the example's line number in a trial, after the post's own


def _refusal(line: str, words, campaign: m.Campaign, member: Author, ctx: Context,
             before: list[c.Command] = ()) -> CommandError | None:
    """Why ``line`` would be refused for ``member`` after the commands ``before``, or None if
    it plays, or if ``before`` itself does not (nothing is kept)."""
    trial = Context(config=ctx.config, dice=RandomDice(random.Random(0)), clock=ctx.clock, renderer=ctx.renderer)
    try:
        command = parse_command(line, line=_EXAMPLE_LINE, words=words)
    except CommandError as exc:
        return exc
    try:
        with m.db.atomic() as txn:
            try:
                post = _open_post(campaign, member, trial)
                commit_dice(post, campaign, trial, "example.trial", line)     # the table's committed dice, as a post's
                apply_post(post, [*before, command])
            finally:
                txn.rollback()
    except CommandError as exc:
        if exc.line == _EXAMPLE_LINE or (exc.line is None and not before):
            return exc
        return None         # one of the post's own commands before it failed: no judgement
    except Exception:  # an example that cannot even be tried is not one to show
        log.debug("trying an error's example failed", exc_info=True)
        return CommandError("the example could not be tried", example="/table")
    return None


def _reject(base, record, mail, campaign, member, ctx, errors: list[CommandError],
            commands: list[c.Command] = ()) -> PostOutcome:
    base.status = "rejected"
    _working_examples(errors, campaign, member, ctx, commands)
    base.errors = [e.to_dict() for e in errors]
    with m.db.atomic():
        reply = _reply_to_author(mail, "error", ctx.renderer.error(mail=mail, campaign=campaign, errors=errors,
                                                                   status=_status_after_error(campaign, member, ctx)),
                                 thread_subject=thread_subject(mail, campaign))
        base.replies = _send([reply], campaign, mail.id, ctx)
        _INSERT_MESSAGE(**record, campaign=campaign, status="rejected", result=base.to_dict())
    return base


def _status_after_error(campaign, member, ctx) -> list[str]:
    """Whose turn it is and what pbp waits for, for a refused post in a campaign where that
    matters (a conflict, or reactions waiting); the state is as it was before the post."""
    play = campaign.play or {}
    if member is None or not (play.get("conflict") or play.get("pending")):
        return []
    try:
        return status_lines(_open_post(campaign, member, ctx))
    except Exception:  # the error reply must go out even if a status line cannot be made
        log.exception("status lines for an error reply failed")
        return []


def _answer_stranger(base, record, mail, campaign, ctx) -> PostOutcome:
    """A stranger gets one polite reply a day, then silence; a From that is not a plain
    addr-spec gets none (nothing is ever written to an address pbp cannot vouch for)."""
    base.status = "rejected"
    base.errors = [NotAllowedError(
        f"{shorten(mail.author, 80)} is not a player or GM of {campaign.name}",
        expected="a mail from a registered address", example="ask the GM to add you to the campaign",
    ).to_dict()]
    with m.db.atomic():
        if not is_addr_spec(mail.author):
            base.reason = "the sender's address is not a valid addr-spec: no reply"
        elif _notice_due(mail.author, ctx.clock(), timedelta(days=1)):
            reply = _reply_to_author(mail, "stranger", ctx.renderer.stranger(mail=mail, campaign=campaign))
            base.replies = _send([reply], campaign, mail.id, ctx)
        else:
            base.reason = "stranger already answered in the last day"
        _INSERT_MESSAGE(**record, campaign=campaign, status="rejected", result=base.to_dict())
    return base


def _answer_unverified(base, record, mail, campaign, member, ctx, reason: str) -> PostOutcome:
    """A post in a member's name that pbp cannot vouch for: its From is not one
    well-formed address, or the receiving server did not authenticate it (``[security]
    trust_authserv_id``); ``reason`` says which, as a clause. Nothing applies, and the member is told why. The
    notice goes only to the registered address, never to one the sender chose, so it
    cannot reflect mail at a third party; at most one an hour per member, so forged posts
    cannot turn the table into a mail bomb."""
    base.status = "rejected"
    error = NotAllowedError(
        f"this mail says it is from {member.email}, but {reason}",
        expected="a post sent from your usual mail account: one address in From (you@example.org or "
                 "Name <you@example.org>), through a provider that signs it (DKIM) or is allowed to send for "
                 "your domain (SPF)",
        example="/overcome Athletics vs Fair",
        hint="if you did send it, send it again from your usual mail account; forwarding services and "
             "some mailing lists break the signature")
    base.errors = [error.to_dict()]
    with m.db.atomic():
        if _notice_due(f"unverified {member.email}", ctx.clock(), timedelta(hours=1)):
            reply = _reply_to_author(mail, "error", ctx.renderer.error(mail=mail, campaign=campaign, errors=[error]),
                                     to=member.email)
            base.replies = _send([reply], campaign, mail.id, ctx)
        else:
            base.reason = reason + "; the member was told within the last hour"
        _INSERT_MESSAGE(**record, campaign=campaign, status="rejected", result=base.to_dict())
    return base


def _bounced(base, record, post: NeutralPost, ctx) -> PostOutcome:
    """A delivery report about one of pbp's mails: recorded against the member
    (:mod:`pbp.bounces`), the GM told when an address is now held; never answered."""
    with m.db.atomic():
        campaign, notices = bounces.record(post.report, ctx.clock())
        failed = [r.address for r in post.report.recipients if r.failed]
        base.reason = (f"a delivery report: {', '.join(failed)} failed" if failed else "a delivery report")
        if campaign is not None:
            base.campaign = campaign.slug
            base.replies = _send(notices, campaign, post.id, ctx)
        _INSERT_MESSAGE(**record, campaign=campaign, status="ignored", result=base.to_dict())
    return base


def _mute(base, record, post: NeutralPost, campaign, member, ctx, on: bool) -> PostOutcome:
    """A member's mail whose subject is "mute" (the List-Unsubscribe mailto) or "unmute"."""
    with m.db.atomic():
        base.replies = _send(bounces.mute(campaign, member.email, on), campaign, post.id, ctx)
        base.reason = f"{member.email} {'muted' if on else 'unmuted'} the table's mail"
        _INSERT_MESSAGE(**record, campaign=campaign, status="ignored", result=base.to_dict())
    return base


def _notice_due(key: str, now: datetime, every: timedelta) -> bool:
    """Whether a rate-limited notice for ``key`` (an address, or a kind and an address) may
    go out at ``now``; if so it is noted as sent (inside the caller's transaction)."""
    key = key[:255]
    notice = m.StrangerNotice.get_or_none(m.StrangerNotice.email == key)
    if notice is not None and now - notice.last_sent_at < every:
        return False
    if notice is None:
        m.StrangerNotice.create(email=key, last_sent_at=now)
    else:
        notice.last_sent_at = now
        notice.save()
    return True


def _stored(message: m.Message, status: str, reason: str = "") -> PostOutcome:
    stored = dict(message.result or {})
    results = stored.get("results", [])
    if stored.get("archive") is not None:      # results the table read as they are: the archive's facts
        found = _FACTS(stored["archive"])
        facts = found[0]["facts"] if found else []
        results = [{k: v for k, v in sorted({**facts[r["fact"]], **r}.items()) if k != "fact"}
                   if "fact" in r and r["fact"] < len(facts) else r for r in results]
    if any("ledger" in r and "command" not in r for r in results):    # kept short (_kept_result)
        rolls = {row.hash[:8]: row for row in m.RollRecord.select().where(m.RollRecord.message_id == message.message_id)}
        results = [{**repo.ledger_view(rolls[r["ledger"]]), **r} if "command" not in r and r.get("ledger") in rolls
                   else r for r in results]
    return PostOutcome(
        message_id=message.message_id,
        campaign=stored.get("campaign"),
        author=message.author,
        status=status,
        errors=stored.get("errors", []),
        results=results,
        replies=[],
        reason=reason or f"first handled with status {message.status}",
    )


def _answer_duplicate(seen: m.Message, mail: NeutralPost, ctx: Context) -> PostOutcome:
    """A resent copy never rolls again: its author, if a member, gets the original result
    back. ``seen`` is the same post (the same campaign, author and id: :func:`_post_key`),
    so what goes back is the author's own. A copy of a post whose sender nobody vouched for
    is not answered (the notice went out once, rate-limited: resending must not make more)."""
    outcome = _stored(seen, "duplicate")
    campaign = seen.campaign
    if (campaign is None or seen.status not in ("applied", "rejected", "duplicate") or not mail.answer_copies
            or mail.unverified):
        return outcome
    if not m.Member.select().where((m.Member.campaign == campaign) & (m.Member.email == mail.author)).exists():
        return outcome
    with m.db.atomic():
        return _send_duplicate_note(outcome, mail, campaign, ctx, "resent", seen, _first_reply(seen),
                                    seen.message_id)


def _answer_copy(base: PostOutcome, record: dict, mail: NeutralPost, campaign: m.Campaign, copy: copies.Copy,
                 ctx: Context) -> PostOutcome:
    """An edited copy, a copy sent anew or a forward of an earlier post: nothing is applied, the original
    result goes back to the author alone (its own content, never another member's), and
    the copy is recorded so that it, resent, is a duplicate too."""
    seen = copy.original
    if copy.kind == "forward_of_other":
        base.status, base.reason = "duplicate", "forwards another member's post; its commands are not the sender's"
        original = None
    else:
        what = {"copy": "an edited copy", "retyped": "a copy (the same commands, nearly the same words)"}
        base = _stored(seen, "duplicate", reason=f"{what.get(copy.kind, 'a forward')} "
                                                 f"of post {seen.message_id}; nothing was applied again")
        base.message_id, base.author, base.duplicate_of = mail.id, mail.author, seen.message_id
        original = _first_reply(seen)
    with m.db.atomic():
        _send_duplicate_note(base, mail, campaign, ctx, copy.kind, seen, original, mail.id)
        _INSERT_MESSAGE(**record, campaign=campaign, status="duplicate", result=base.to_dict())
    return base


def _first_reply(seen: m.Message):
    """The first reply pbp wrote to a post: its result to the table, or its error. Found by
    the reply's own id, kept in the post's record: another sender's mail with the same
    Message-ID is another post, with replies of its own."""
    replies = (seen.result or {}).get("replies") or []
    if not replies or not replies[0].get("message_id"):
        return None
    return m.OutboxMail.get_or_none(m.OutboxMail.message_id == replies[0]["message_id"])


def _send_duplicate_note(outcome: PostOutcome, mail: NeutralPost, campaign, ctx: Context, kind: str, seen: m.Message,
                         original, source_id: str) -> PostOutcome:
    """The note to the sender alone, threaded to the post they sent (inside the caller's
    transaction)."""
    body = ctx.renderer.duplicate(mail=mail, campaign=campaign, seen=seen, original=original, kind=kind)
    outcome.replies = _send([_reply_to_author(mail, "duplicate", body)], campaign, source_id, ctx)
    return outcome


def _reply_to_author(post: NeutralPost, kind: str, body: tuple[str, str], *, to: str | None = None,
                     thread_subject: str | None = None) -> Reply:
    """A reply for the post's author alone (an error, a note, the stranger's notice),
    threaded to the post; ``to`` when it must go to the member's registered address."""
    text, html = body
    return Reply(kind=kind, audience=Audience.PLAYER, to=(to or post.author,), text=text, html=html,
                 thread=post.thread, thread_subject=thread_subject if thread_subject is not None else post.subject)


def _send(replies: list[Reply], campaign, source_id: str | None, ctx: Context, *,
          threads: dict | None = None, people: dict | None = None) -> list[dict]:
    """The one place every reply leaves the pipeline: the campaign's adapter, as the
    adapter table (:mod:`pbp.adapters`) finds it, writes it and it goes into the outbox
    with its channel and thread, inside the caller's transaction. A reply that others
    answer (``reply.refs``) is noted in ``threads`` under the id the adapter gave it.
    Its dates are written for its readers first (:func:`_dated_for`)."""
    out = []
    now = ctx.clock()
    language = of_settings(getattr(campaign, "settings", None))
    replies = [_dated_for(reply, now, people or {}, language) for reply in replies]
    held = bounces.not_mailed(campaign, "held")
    for reply, written_rows in adapters.write(replies, campaign, ctx.config, now, ctx.adapters):
        for written in written_rows:
            for address in (a for a in written.recipients if a in held):   # waits until the address works
                _INSERT_OUTBOX(campaign=campaign, source_id=source_id, status="held", sender=written.sender,
                               message_id=written.id + bounces.held_suffix(address), recipients=[address],
                               subject=written.subject, raw=written.raw, channel=written.channel,
                               thread=thread_to_dict(written.thread))
            live = [a for a in written.recipients if a not in held]
            if not live:  # every address was refused by the adapter (logged there), or is held
                continue
            _INSERT_OUTBOX(campaign=campaign, source_id=source_id, message_id=written.id, sender=written.sender,
                           recipients=live, subject=written.subject, raw=written.raw,
                           channel=written.channel, thread=thread_to_dict(written.thread))
            if reply.refs and threads is not None:
                threads[written.id] = list(reply.refs)
            out.append({"to": live, "subject": written.subject, "in_reply_to": written.in_reply_to,
                        "message_id": written.id, "audience": reply.audience.value})
    return out


def _dated_for(reply: Reply, now, people: dict, language: Language = ENGLISH) -> Reply:
    """The reply with each deadline in it read by its readers (:func:`pbp.play.dates.for_reader`):
    the table's shared mail in UTC, a mail to members of one time zone (their
    ``/settings tz=``) in theirs; a date still to come says how far off it is."""
    zones = {None} if reply.audience is Audience.TABLE else {
        (people[to].tz if to in people else None) for to in reply.to}
    tz = next(iter(zones)) if len(zones) == 1 else None
    zone = people_zone(tz) if tz else None
    return replace(reply, text=for_reader(reply.text, now, zone, language),
                   html=for_reader(reply.html, now, zone, language),
                   markdown=for_reader(reply.markdown, now, zone, language),
                   subject=for_reader(reply.subject, now, zone, language) if reply.subject else reply.subject)


# --------------------------------------------------------------------------- deadlines


def _thread_of(threads: dict[str, list[str]], closed_refs: list[str]) -> tuple[ThreadRef, str] | None:
    """The first of our replies that asked about something this deadline round settled (the
    table's, where the conversation is; later ones are reminders), as a thread to answer
    in, and its subject."""
    closed = set(closed_refs)
    asked = [msgid for msgid, refs in threads.items() if closed & set(refs)]
    if not asked:
        return None
    row = (m.OutboxMail.select(m.OutboxMail.thread, m.OutboxMail.subject).where(m.OutboxMail.message_id.in_(asked))
           .order_by(m.OutboxMail.id).first())
    thread = thread_from_dict(row.thread) if row is not None else None
    return (thread, row.subject) if thread is not None else None


def apply_deadlines(ctx: Context) -> int:
    """Apply every deadline and reminder due at ``ctx.clock()`` (pending defences and
    absorptions, compels, story details), one campaign per transaction, and tell each
    table what happened. Returns how many campaigns had something due."""
    now = ctx.clock()
    due = [row.id for row in m.Campaign.select(m.Campaign.id).where(m.Campaign.next_deadline <= now)]
    for campaign_id in due:
        with m.db.atomic():
            campaign = m.Campaign.get_by_id(campaign_id)
            members = [Author(**row) for row in _MEMBERS(campaign.id)]
            post = _open_post(campaign, Author(email=ctx.config.from_address, role="gm"), ctx)
            commit_dice(post, campaign, ctx, f"deadline-{campaign.slug}-{now.strftime('%Y%m%dT%H%M%SZ')}", "")
            threads = dict(post.play.threads)
            parallel.due_elsewhere(post, timedelta(hours=campaign_hours(campaign, ctx.config, "reminder_hours")))
            post.turn_before = mailing.turn_holders(post)
            post.gms = tuple(mb.email for mb in members if mb.is_gm)     # their quiet hours hold the GM's reminders
            results = run_deadline_jobs(post)
            letters = _digests(post, campaign, members, ctx)
            if results or post.asks or post.tells:
                thread, subject = _thread_of(threads, post.closed_refs) or (None, None)
                _commit_post(post, campaign, members, ctx, results, source=None, commands=None, relay=False,
                             thread=thread, thread_subject_=subject)
            else:
                _save_play(campaign, post.play, ctx.config)
            _send(letters, campaign, None, ctx, people=post.play.people)
    return len(due)


def _digests(post: Post, campaign: m.Campaign, members: list[Author], ctx: Context) -> list[Reply]:
    """The daily digests due now (:mod:`pbp.digest`), each a mail of its own to its member;
    a member for whom nothing was held gets none, and their next digest is a day later."""
    letters = []
    gms = {mb.email for mb in members if mb.is_gm}
    for email in digest.due(post):
        made = digest.compose(post, campaign, email, gms, parallel.readers(post, gms))
        if made is not None:
            text, html = ctx.renderer.tell(campaign=campaign, tell=Tell(to=(email,), subject=made[0], text=made[1]))
            letters.append(Reply(kind="digest", audience=Audience.PLAYER, to=(email,), text=text, html=html,
                                 subject=made[0]))
    return letters
