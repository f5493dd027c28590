"""One post, from raw bytes to applied state and a written reply: read, route, authorise,
parse, resolve, persist, render.

This is the code path of both ``pbp process FILE.eml`` and the daemon. One message is one
database transaction: its commands all apply and its reply is written to the outbox, or
nothing applies and its author gets a reply that says why.
"""
from __future__ import annotations

import email.parser
import logging
import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Callable

from peewee import InterfaceError, OperationalError

from pbp import commands as c
from pbp import copies, faults
from pbp.config import Config
from pbp.errors import CommandError, NotAllowedError
from pbp.mail.reading import Mail, read_headers, read_message
from pbp.parser import find_commands, find_near_commands, parse_lines
from pbp.policy import auto_reply_reason, bulk_reason, is_own_mail, sender_unverified
from pbp.play import Author, Post, apply_post, run_deadline_jobs, status_lines
from pbp.play.core import campaign_hours
from pbp.play.invoking import open_roll_ids
from pbp.play.state import PlayState, dump_play, load_play
from pbp.render import Renderer, build_reply, reply_subject
from pbp.rules.dice import DiceSource
from pbp.rules.results import ActionResult
from pbp.rules import ladder
from pbp.rules.systems import campaign_system, get_system
from pbp.sheets_view import table_sheet
from pbp.store import models as m
from pbp.store import repo
from pbp.store.prepared import Insert, Select
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


@dataclass
class Outcome:
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


# --------------------------------------------------------------------------- routing

_CAMPAIGN_BY_SLUG = Select(lambda slug: m.Campaign.select().where(m.Campaign.slug == slug))
_MEMBERS = Select(lambda campaign_id: m.Member.select(m.Member.email, m.Member.role).where(m.Member.campaign == campaign_id))
_SEEN_ID = Select(lambda message_id: m.Message.select(m.Message.id).where(m.Message.message_id == message_id))
_SEEN_UID = Select(lambda mailbox, uidvalidity, uid: m.Message.select(m.Message.id).where(
    (m.Message.mailbox == mailbox) & (m.Message.uidvalidity == uidvalidity) & (m.Message.uid == uid)))
_INSERT_MESSAGE = Insert(m.Message, ("message_id", "campaign", "mailbox", "uidvalidity", "uid", "author", "subject",
                                     "status", "result", "received_at", "copy_key", "forward_key"))
_INSERT_OUTBOX = Insert(m.OutboxMail, ("campaign", "source_id", "message_id", "sender", "recipients", "subject", "raw",
                                       "status", "attempts", "next_attempt_at", "last_error", "created_at"))


def _campaign(slug: str) -> m.Campaign | None:
    rows = _CAMPAIGN_BY_SLUG(slug)
    return m.Campaign(**rows[0]) if rows else None


def route(mail: Mail, *, campaign_slug: str | None = None) -> m.Campaign | None:
    """Which campaign a mail is for: the mailbox's binding, a plus-address
    (``table+slug@``), the campaign's own address, or the only campaign there is."""
    if campaign_slug:
        return _campaign(campaign_slug)
    addresses = [a.lower() for a in (*mail.to, *mail.cc, *_header_list(mail, "Delivered-To"))]
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


def _header_list(mail: Mail, name: str) -> list[str]:
    value = mail.header(name)
    return [value.strip().strip("<>")] if value else []


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
) -> Outcome:
    """Run one raw message through the whole pipeline. Never raises for anything a sender
    can cause; the returned :class:`Outcome` says what happened. ``size`` is the mail's
    real size when ``raw`` holds only its headers (an IMAP fetch of an oversized mail)."""
    started = time.perf_counter()
    try:
        with ladder.shown(ladder.LADDER):     # the campaign's ladder, once routed (_process)
            outcome = _process(raw, ctx, mailbox=mailbox, uidvalidity=uidvalidity, uid=uid,
                               campaign_slug=campaign_slug, size=size)
    except (OperationalError, InterfaceError):
        raise  # the database is away: nothing was kept, the daemon tries the message again later
    except Exception as exc:  # a bug: this post must not block the ones behind it
        outcome = _internal_error(raw, ctx, exc, mailbox=mailbox, uidvalidity=uidvalidity, uid=uid,
                                  campaign_slug=campaign_slug)
    outcome.elapsed_ms = (time.perf_counter() - started) * 1000
    return outcome


def _internal_error(raw, ctx, exc: Exception, *, mailbox, uidvalidity, uid, campaign_slug) -> Outcome:
    """Record a post that pbp failed on (its transaction rolled back: nothing changed), so
    it is not retried forever, and tell its author, if a member, that it was not applied."""
    log.exception("internal error on a post from mailbox %s uid %s", mailbox, uid)
    mail = read_message(raw)
    error = CommandError(f"pbp could not process this post ({type(exc).__name__}); nothing was applied",
                         expected="the GM or the operator to look at pbp's log",
                         example="send the post again later, or without the command that failed")
    error_dict = {**error.to_dict(), "type": "InternalError"}
    base = Outcome(message_id=mail.message_id, campaign=None, author=mail.from_addr, status="rejected",
                   errors=[error_dict], reason=f"internal error: {exc}")
    record = dict(message_id=mail.message_id, mailbox=mailbox, uidvalidity=uidvalidity, uid=uid,
                  author=mail.from_addr, subject=mail.subject)
    with m.db.atomic():
        campaign = route(mail, campaign_slug=campaign_slug)
        members = [Author(**row) for row in _MEMBERS(campaign.id)] if campaign is not None else []
        if campaign is not None and any(mb.email == mail.from_addr for mb in members):
            base.campaign = campaign.slug
            reply = build_reply(ctx, mail=mail, campaign=campaign, kind="error", to=[mail.from_addr],
                                body=ctx.renderer.error(mail=mail, campaign=campaign, errors=[error]))
            base.replies = _enqueue([reply], campaign, mail.message_id)
        _INSERT_MESSAGE(**record, campaign=campaign, status="rejected", result=base.to_dict())
    return base


def _process(raw, ctx, *, mailbox, uidvalidity, uid, campaign_slug, size=None) -> Outcome:
    if mailbox is not None and uid is not None and uidvalidity is not None:
        found = _SEEN_UID(mailbox, uidvalidity, uid)
        if found:
            return _stored(m.Message.get_by_id(found[0]["id"]), "duplicate",
                           reason="this mailbox copy was handled already")

    mail = read_within_limits(raw, ctx.config, size)
    found = _SEEN_ID(mail.message_id)
    if found:
        return _answer_duplicate(m.Message.get_by_id(found[0]["id"]), mail, ctx)

    base = Outcome(message_id=mail.message_id, campaign=None, author=mail.from_addr, status="ignored")
    record = dict(message_id=mail.message_id, mailbox=mailbox, uidvalidity=uidvalidity, uid=uid,
                  author=mail.from_addr, subject=mail.subject, received_at=ctx.clock())

    reason = is_own_mail(mail, ctx.config) or auto_reply_reason(mail)
    if reason:
        base.reason = reason
        return _finish(base, record, None)

    campaign = route(mail, campaign_slug=campaign_slug)
    if campaign is None:
        base.reason = "no campaign matches this mail's addresses"
        return _finish(base, record, None)
    base.campaign = campaign.slug
    ladder.show(get_system(campaign.system).ladder)     # replies name values with this system's ladder

    members = [Author(**row) for row in _MEMBERS(campaign.id)]
    member = next((mb for mb in members if mb.email == mail.from_addr), None)
    unverified = sender_unverified(mail, ctx.config.trust_authserv_id)
    if member is None:
        quiet = bulk_reason(mail)
        if quiet or unverified:  # no notice to list mail, nor to an address nobody vouched for
            base.reason = (quiet or unverified) + " from a non-member"
            return _finish(base, record, campaign)
        return _answer_stranger(base, record, mail, campaign, ctx)
    if unverified:
        return _answer_unverified(base, record, mail, campaign, member, ctx, unverified)

    if mail.unread:
        err = CommandError(f"pbp did not read this post: {mail.unread}",
                           expected="a shorter post in plain text or HTML, without attachments",
                           example="/overcome Athletics vs Fair")
        return _reject(base, record, mail, campaign, member, ctx, [err])

    lines = find_commands(mail.new_text)
    bare = _bare_answer(mail, campaign)
    if bare is not None and bare[0] not in {n for n, _ in lines}:
        lines = [bare, *lines]
    if len(lines) > ctx.config.limits.max_commands:
        err = CommandError(
            f"the post has {len(lines)} commands; this table accepts at most {ctx.config.limits.max_commands} in one post",
            expected="fewer commands per post",
            example="split the post in two",
        )
        return _reject(base, record, mail, campaign, member, ctx, [err])

    parsed, errors = parse_lines(lines, campaign_system(campaign).words)
    if errors:
        return _reject(base, record, mail, campaign, member, ctx, errors)

    keys = copies.fingerprint(campaign.id, member.email, mail, lines, parsed)
    copy = copies.find_copy(campaign.id, member.email, mail, raw, lines, keys)
    if copy is not None:
        return _answer_copy(base, record, mail, campaign, copy, ctx)

    try:
        with m.db.atomic():
            return _apply(base, record, mail, campaign, member, members, parsed, ctx, keys, notes=reader_notes(mail))
    except CommandError as exc:
        return _reject(base, record, mail, campaign, member, ctx, [exc])


def read_within_limits(raw: bytes, config: Config, size: int | None = None) -> Mail:
    """The mail, with its body read only when the raw bytes are within the size limit
    (checked before any decoding); over it, only the headers, to route the mail and tell
    its author. ``size`` is the size the mailbox reported when ``raw`` is just the headers."""
    size = max(len(raw), size or 0)
    limit = config.limits.max_message_bytes
    if size > limit:
        return read_headers(raw, f"the message is {size:,} bytes; this table accepts at most {limit:,}")
    return read_message(raw)


def reader_notes(mail: Mail) -> list[str]:
    """What the result reply says about lines of the new text that look like commands but
    were not read as ones (``／roll``, ``/ roll``): a post that applies nothing is then
    never silent about the command its author meant."""
    return [f'line {number}, "{shorten(line)}", was not read as a command: {why}; '
            f"write it as {_as_command(line)}" for number, line, why in find_near_commands(mail.new_text)]


def _as_command(line: str) -> str:
    word, _, rest = line[1:].strip().partition(" ")
    return shorten(f"/{word} {rest}".strip())


BARE_ANSWERS = ("approve", "deny", "accept", "refuse")


def _bare_answer(mail: Mail, campaign: m.Campaign) -> tuple[int, str] | None:
    """A reply to one of pbp's mails about a compel or story detail whose first line is just
    "approve", "deny", "accept" or "refuse" (any case, a trailing "." or "!" allowed) is read
    as that slash command: GMs answer from a phone. Anywhere else such a word is prose."""
    if not mail.in_reply_to:
        return None
    refs = ((campaign.play or {}).get("threads") or {}).get(mail.in_reply_to) or ()
    if not any(r.startswith(("compel:", "detail:")) for r in refs):
        return None
    for number, line in enumerate(mail.new_text.splitlines(), start=1):
        if line.strip():
            word = line.strip().rstrip(".!").strip().lower()
            return (number, "/" + word) if word in BARE_ANSWERS else None
    return None


def _apply(base: Outcome, record: dict, mail: Mail, campaign: m.Campaign, member: Author,
           members: list[Author], commands: list[c.Command], ctx: Context, keys: dict,
           notes: list[str] = ()) -> Outcome:
    """Resolve every command against the campaign's table and play state; the caller's
    transaction makes it all-or-nothing (a command an earlier one made moot is skipped
    with a note, see :func:`pbp.play.core.apply_post`). The post is recorded with its fingerprint
    (``keys``, see :mod:`pbp.copies`), so a later copy of it is found."""
    post = _open_post(campaign, member, ctx, replied_to=mail.in_reply_to)
    results = apply_post(post, commands)
    replies = _commit_post(post, campaign, members, ctx, results, source=mail, commands=commands,
                           relay=campaign.delivery == "relay", notes=notes)
    base.status = "applied"
    base.results = [r.to_dict() for r in results]
    for d, res in zip(base.results, results):
        if id(res) in post.ledger:
            d["roll_id"], d["ledger"] = post.ledger[id(res)]
    base.replies = _enqueue(replies, campaign, mail.message_id)
    _INSERT_MESSAGE(**record, **keys, campaign=campaign, status="applied", result=base.to_dict())
    return base


def _open_post(campaign: m.Campaign, author: Author, ctx: Context, replied_to: str | None = None) -> Post:
    system = campaign_system(campaign)
    table = repo.load_table(campaign, system.skills)
    play = load_play(campaign.play)
    if not play.rolls_numbered:     # rolls used to show ledger row ids: new numbers start past them
        play.next_id = max(play.next_id, repo.max_roll_row(campaign) + 1)
        play.rolls_numbered = True
    post = Post(campaign=campaign, table=table, play=play, author=author, now=ctx.clock(),
                dice=ctx.dice, system=system, settings=ctx.config, replied_to=replied_to)
    post.snapshot = repo.snapshot(table)
    post.names_at_start = tuple((a.name, a.hidden, a.owner) for a in table.aspects)
    return post


def read_post(campaign: m.Campaign, ctx: Context) -> Post:
    """The campaign as its GM sees it, for tools that only read (``pbp table``): nothing
    is saved."""
    return _open_post(campaign, Author("", "gm"), ctx)


def _commit_post(post: Post, campaign: m.Campaign, members: list[Author], ctx: Context, results: list, *,
                 source: Mail | None, commands: list[c.Command] | None, relay: bool, thread=None,
                 notes: list[str] = ()) -> list:
    """Persist what a post (or a deadline round) changed, record its rolls in the ledger
    and write its replies: the result to the table (threaded to ``source``, or for a
    deadline round to ``thread``: the mail that asked), then any private mails."""
    changed_names = repo.save_table(campaign, post.snapshot, post.table)
    if changed_names:   # every sheet change by play goes into the history (pbp character history)
        from pbp.sheetedit import record_play

        record_play(campaign, post.snapshot, post.table, who=post.author.email or "pbp (deadline)",
                    message_id=source.message_id if source is not None else None)
    faults.reached("mid_transaction")
    prev = repo.last_ledger_hash(campaign)
    for res in results:
        if isinstance(res, ActionResult):
            number = post.play.new_id()      # the one numbering of what players type (#12)
            row = repo.record_roll(campaign, source.message_id if source else None, res.to_dict(), prev, number)
            prev = row.hash
            post.ledger[id(res)] = (number, row.hash[:8])
    for hook in post.after_ledger:
        hook(post.ledger)

    # The table's mail shows what every member may know; what it leaves out goes to the GM
    # in a mail of their own (pbp.views says who is told what).
    seen = views(results, post.table, names_at_start=post.names_at_start, author_is_gm=post.author.is_gm)
    table_ledger = {id(shown): post.ledger[id(res)] for shown, res in zip(seen.table, results) if id(res) in post.ledger}
    changed = _table_sheets(post, changed_names)
    subject = thread_subject(source) if source is not None else None  # None: the thread's (mail=thread)
    replies = []
    # a deadline round with only reminders tells only; a post with only the GM's business, too
    if (source is not None or results or post.asks) and not _only_for_gm(seen, post, changed, source, commands, relay):
        body = ctx.renderer.result(mail=source, campaign=campaign, results=seen.table, ledger=table_ledger,
                                   commands=commands, sheets=changed, relay=relay, asks=post.asks,
                                   status=status_lines(post), notes=notes)
        replies.append(build_reply(ctx, mail=source or thread, campaign=campaign, kind="result",
                                   to=table_recipients(campaign, members), body=body, thread_subject=subject))
    table_reply = replies[0] if replies else None
    # the thread map names only what is still open, so it does not grow with the campaign
    open_ids = open_roll_ids(post.play)
    refs = [a.ref for a in post.asks] + [f"roll:{rid}" for rid, _ in post.ledger.values() if rid in open_ids]
    if refs and table_reply is not None:
        post.play.threads[table_reply.message_id] = refs
    for tell in post.tells:
        to = _addresses(post, members, tell.to)
        if to:
            replies.append(build_reply(ctx, mail=source or thread, campaign=campaign, kind="tell", to=to,
                                       body=ctx.renderer.tell(campaign=campaign, tell=tell), subject=tell.subject))
            if tell.refs:
                post.play.threads[replies[-1].message_id] = list(tell.refs)
    gms = sorted({mb.email for mb in members if mb.is_gm})
    if seen.gm and gms:             # what the table's mail left out, for the GM (pbp.views)
        origin = source or thread
        replies.append(build_reply(
            ctx, mail=origin, campaign=campaign, kind="tell", to=gms,
            subject=reply_subject(subject or (origin.subject if origin is not None else "Deadlines"), campaign.name,
                                  " — for the GM only"),
            body=ctx.renderer.result(mail=source, campaign=campaign, results=seen.gm, ledger=post.ledger,
                                     commands=None, sheets=[], relay=False, template="gm_copy")))
    _save_play(campaign, post.play, ctx.config)
    return replies


_SUBJECT_OF = Select(lambda message_id: m.Message.select(m.Message.subject).where(m.Message.message_id == message_id))
_OUR_SUBJECT = Select(lambda message_id: m.OutboxMail.select(m.OutboxMail.subject)
                      .where(m.OutboxMail.message_id == message_id))


def thread_subject(mail: Mail) -> str:
    """The subject the mail's thread began with: that of the thread's first mail
    (References' first id, else In-Reply-To) when pbp has it, else the mail's own. Replies
    keep it, so the table's thread is not renamed by a player answering a private mail
    ("Re: [Campaign] Compel #3 on ...: accept or refuse") nor by one who edits the subject."""
    for msgid in dict.fromkeys(i for i in (*mail.references[:1], mail.in_reply_to) if i):
        rows = _SUBJECT_OF(msgid) or _OUR_SUBJECT(msgid)
        if rows:
            return rows[0]["subject"]
    return mail.subject


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


def _only_for_gm(seen, post: Post, sheets: list, source: Mail | None, commands, relay: bool) -> bool:
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
        if name == "GM":
            out += [mb.email for mb in members if mb.is_gm]
            continue
        ch = post.table.character(name)
        if ch is not None and ch.player:
            out.append(ch.player)
        elif ch is not None:
            out += [mb.email for mb in members if mb.is_gm]
    return sorted(set(out))


def _save_play(campaign: m.Campaign, play: PlayState, config: Config) -> None:
    data = dump_play(play)
    if data != campaign.play:
        due = play.next_deadline(timedelta(hours=campaign_hours(campaign, config, "reminder_hours")))
        m.Campaign.update(play=data, next_deadline=due).where(m.Campaign.id == campaign.id).execute()
        campaign.play = data


def table_recipients(campaign: m.Campaign, members: list[Author]) -> list[str]:
    """Who gets a result: in list mode the list address, else every member of the table."""
    if campaign.delivery == "list" and campaign.address:
        return [campaign.address]
    return sorted({mb.email for mb in members})


# --------------------------------------------------------------------------- other outcomes


def _finish(base: Outcome, record: dict, campaign) -> Outcome:
    """Record a message that needs no reply (ignored), so a second copy is a duplicate."""
    with m.db.atomic():
        m.Message.create(**record, campaign=campaign, status=base.status, result=base.to_dict())
    return base


def _reject(base, record, mail, campaign, member, ctx, errors: list[CommandError]) -> Outcome:
    base.status = "rejected"
    base.errors = [e.to_dict() for e in errors]
    with m.db.atomic():
        reply = build_reply(ctx, mail=mail, campaign=campaign, kind="error", to=[mail.from_addr],
                            body=ctx.renderer.error(mail=mail, campaign=campaign, errors=errors,
                                                    status=_status_after_error(campaign, member, ctx)),
                            thread_subject=thread_subject(mail))
        base.replies = _enqueue([reply], campaign, mail.message_id)
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


def _answer_stranger(base, record, mail, campaign, ctx) -> Outcome:
    """A stranger gets one polite reply a day, then silence; a From that is not a plain
    addr-spec gets none (nothing is ever written to an address pbp cannot vouch for)."""
    base.status = "rejected"
    base.errors = [NotAllowedError(
        f"{shorten(mail.from_addr, 80)} is not a player or GM of {campaign.name}",
        expected="a mail from a registered address", example="ask the GM to add you to the campaign",
    ).to_dict()]
    with m.db.atomic():
        if not is_addr_spec(mail.from_addr):
            base.reason = "the sender's address is not a valid addr-spec: no reply"
        elif _notice_due(mail.from_addr, ctx.clock(), timedelta(days=1)):
            reply = build_reply(ctx, mail=mail, campaign=campaign, kind="stranger", to=[mail.from_addr],
                                body=ctx.renderer.stranger(mail=mail, campaign=campaign))
            base.replies = _enqueue([reply], campaign, mail.message_id)
        else:
            base.reason = "stranger already answered in the last day"
        _INSERT_MESSAGE(**record, campaign=campaign, status="rejected", result=base.to_dict())
    return base


def _answer_unverified(base, record, mail, campaign, member, ctx, reason: str) -> Outcome:
    """A post in a member's name that the receiving server did not authenticate
    (``[security] trust_authserv_id``): nothing applies, and the member is told why. The
    notice goes only to the registered address, never to one the sender chose, so it
    cannot reflect mail at a third party; at most one an hour per member, so forged posts
    cannot turn the table into a mail bomb."""
    base.status = "rejected"
    error = NotAllowedError(
        f"this mail says it is from {member.email}, but the receiving mail server did not confirm it ({reason})",
        expected="a post sent through your own mail provider, which signs it (DKIM) or is allowed to send for "
                 "your domain (SPF)",
        example="/overcome Athletics vs Fair",
        hint="if you did send it, send it again from your usual mail account; forwarding services and "
             "some mailing lists break the signature")
    base.errors = [error.to_dict()]
    with m.db.atomic():
        if _notice_due(f"unverified {member.email}", ctx.clock(), timedelta(hours=1)):
            reply = build_reply(ctx, mail=mail, campaign=campaign, kind="error", to=[member.email],
                                body=ctx.renderer.error(mail=mail, campaign=campaign, errors=[error]))
            base.replies = _enqueue([reply], campaign, mail.message_id)
        else:
            base.reason = reason + "; the member was told within the last hour"
        _INSERT_MESSAGE(**record, campaign=campaign, status="rejected", result=base.to_dict())
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


def _stored(message: m.Message, status: str, reason: str = "") -> Outcome:
    stored = dict(message.result or {})
    return Outcome(
        message_id=message.message_id,
        campaign=stored.get("campaign"),
        author=message.author,
        status=status,
        errors=stored.get("errors", []),
        results=stored.get("results", []),
        replies=[],
        reason=reason or f"first handled with status {message.status}",
    )


def _answer_duplicate(seen: m.Message, mail: Mail, ctx: Context) -> Outcome:
    """A resent copy never rolls again. Its author, if a member, gets the original result
    back; another member who sends a mail with the same Message-ID (they can read it in
    References) is told only that the id was taken: the original may be a private error
    reply, so nothing of it is shown."""
    outcome = _stored(seen, "duplicate")
    campaign = seen.campaign
    if campaign is None or seen.status not in ("applied", "rejected", "duplicate"):
        return outcome
    if not m.Member.select().where((m.Member.campaign == campaign) & (m.Member.email == mail.from_addr)).exists():
        return outcome
    if mail.from_addr != seen.author:
        outcome = Outcome(message_id=mail.message_id, campaign=campaign.slug, author=mail.from_addr, status="duplicate",
                          reason="this Message-ID was first used by another sender; nothing was read or applied")
        kind, original = "not_yours", None
    else:
        kind, original = "resent", _first_reply(seen.message_id)
    with m.db.atomic():
        return _send_duplicate_note(outcome, mail, campaign, ctx, kind, seen, original, seen.message_id)


def _answer_copy(base: Outcome, record: dict, mail: Mail, campaign: m.Campaign, copy: copies.Copy,
                 ctx: Context) -> Outcome:
    """An edited copy or a forward of an earlier post: nothing is applied, the original
    result goes back to the author alone (its own content, never another member's), and
    the copy is recorded so that it, resent, is a duplicate too."""
    seen = copy.original
    if copy.kind == "forward_of_other":
        base.status, base.reason = "duplicate", "forwards another member's post; its commands are not the sender's"
        original = None
    else:
        base = _stored(seen, "duplicate", reason=f"{'an edited copy' if copy.kind == 'copy' else 'a forward'} "
                                                 f"of post {seen.message_id}; nothing was applied again")
        base.message_id, base.author, base.duplicate_of = mail.message_id, mail.from_addr, seen.message_id
        original = _first_reply(seen.message_id)
    with m.db.atomic():
        _send_duplicate_note(base, mail, campaign, ctx, copy.kind, seen, original, mail.message_id)
        _INSERT_MESSAGE(**record, campaign=campaign, status="duplicate", result=base.to_dict())
    return base


def _first_reply(message_id: str):
    """The first reply pbp wrote to a post: its result to the table, or its error."""
    return m.OutboxMail.select().where(m.OutboxMail.source_id == message_id).order_by(m.OutboxMail.id).first()


def _send_duplicate_note(outcome: Outcome, mail: Mail, campaign, ctx: Context, kind: str, seen: m.Message,
                         original, source_id: str) -> Outcome:
    """The note to the sender alone, threaded to the mail they sent (inside the caller's
    transaction)."""
    body = ctx.renderer.duplicate(mail=mail, campaign=campaign, seen=seen, original=original, kind=kind)
    reply = build_reply(ctx, mail=mail, campaign=campaign, kind="duplicate", to=[mail.from_addr], body=body)
    outcome.replies = _enqueue([reply], campaign, source_id)
    return outcome


def _enqueue(replies, campaign, source_id: str) -> list[dict]:
    """Write replies to the outbox (inside the caller's transaction)."""
    out = []
    for r in replies:
        if not r.to:  # every address was refused by build_reply (logged there)
            continue
        _INSERT_OUTBOX(campaign=campaign, source_id=source_id, message_id=r.message_id, sender=r.sender,
                       recipients=r.to, subject=r.subject, raw=r.raw)
        out.append({"to": r.to, "subject": r.subject, "in_reply_to": r.in_reply_to, "message_id": r.message_id})
    return out


# --------------------------------------------------------------------------- deadlines


@dataclass(frozen=True)
class _Thread:
    """Enough of one of our earlier mails to answer it: a deadline's result goes in the
    thread of the mail that asked for the reaction."""

    message_id: str
    references: list[str]
    subject: str


def _thread_of(threads: dict[str, list[str]], closed_refs: list[str]) -> _Thread | None:
    """The first of our mails that asked about something this deadline round settled (the
    table's mail, where the conversation is; later ones are reminders)."""
    closed = set(closed_refs)
    asked = [msgid for msgid, refs in threads.items() if closed & set(refs)]
    if not asked:
        return None
    row = m.OutboxMail.select().where(m.OutboxMail.message_id.in_(asked)).order_by(m.OutboxMail.id).first()
    if row is None:
        return None
    headers = email.parser.HeaderParser().parsestr(row.raw, headersonly=True)
    refs = [r.strip("<>") for r in (headers.get("References") or "").split()]
    return _Thread(message_id=row.message_id, references=refs, subject=row.subject)


def apply_deadlines(ctx: Context) -> int:
    """Apply every deadline and reminder due at ``ctx.clock()`` (pending defences and
    absorptions, compels, story details), one campaign per transaction, and tell each
    table what happened. Returns how many campaigns had something due."""
    now = ctx.clock()
    due = [row.id for row in m.Campaign.select(m.Campaign.id).where(m.Campaign.next_deadline <= now)]
    for campaign_id in due:
        with m.db.atomic(), ladder.shown(get_system(m.Campaign.get_by_id(campaign_id).system).ladder):
            campaign = m.Campaign.get_by_id(campaign_id)
            members = [Author(**row) for row in _MEMBERS(campaign.id)]
            post = _open_post(campaign, Author(email=ctx.config.from_address, role="gm"), ctx)
            threads = dict(post.play.threads)
            results = run_deadline_jobs(post)
            if results or post.asks or post.tells:
                replies = _commit_post(post, campaign, members, ctx, results, source=None, commands=None, relay=False,
                                       thread=_thread_of(threads, post.closed_refs))
                _enqueue(replies, campaign, None)
            else:
                _save_play(campaign, post.play, ctx.config)
    return len(due)
