"""One post, from raw bytes to applied state and a written reply: read, route, authorise,
parse, resolve, persist, render.

This is the code path of both ``pbp process FILE.eml`` and the daemon. One message is one
database transaction: its commands all apply and its reply is written to the outbox, or
nothing applies and its author gets a reply that says why.
"""
from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Callable

from pbp import commands as c
from pbp import faults
from pbp.config import Config
from pbp.errors import CommandError, NotAllowedError, UnknownNameError
from pbp.mail.reading import Mail, read_message
from pbp.parser import find_commands, parse_command
from pbp.policy import auto_reply_reason, bulk_reason, is_own_mail, sender_unverified
from pbp.render import Renderer, build_reply
from pbp.rules.actions import resolve
from pbp.rules.dice import DiceSource
from pbp.rules.economy import adjust_fate_points, spend_fate_point
from pbp.rules.results import ActionResult
from pbp.rules.systems import get_system
from pbp.store import models as m
from pbp.store import repo
from pbp.store.prepared import Insert, Select

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
class NoteResult:
    """A command that rolls nothing: a sheet shown, a fate point spent or given."""

    command: str
    actor: str
    action: str
    text: str = ""
    sheet: dict | None = None
    changes: list = field(default_factory=list)

    def to_dict(self) -> dict:
        return {
            "command": self.command,
            "actor": self.actor,
            "action": self.action,
            "skill": None,
            "dice": None,
            "effort": None,
            "opposition": None,
            "shifts": None,
            "outcome": None,
            "effects": [{"kind": self.action, "text": self.text}] if self.text else [],
            "changes": [{"what": ch.what, "subject": ch.subject, "before": ch.before, "after": ch.after} for ch in self.changes],
            **({"sheet": self.sheet} if self.sheet is not None else {}),
        }


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
        return d


# --------------------------------------------------------------------------- routing

_CAMPAIGN_BY_SLUG = Select(lambda slug: m.Campaign.select().where(m.Campaign.slug == slug))
_MEMBERS = Select(lambda campaign_id: m.Member.select(m.Member.email, m.Member.role).where(m.Member.campaign == campaign_id))
_SEEN_ID = Select(lambda message_id: m.Message.select(m.Message.id).where(m.Message.message_id == message_id))
_SEEN_UID = Select(lambda mailbox, uidvalidity, uid: m.Message.select(m.Message.id).where(
    (m.Message.mailbox == mailbox) & (m.Message.uidvalidity == uidvalidity) & (m.Message.uid == uid)))
_INSERT_MESSAGE = Insert(m.Message, ("message_id", "campaign", "mailbox", "uidvalidity", "uid", "author", "subject",
                                     "status", "result", "received_at"))
_INSERT_OUTBOX = Insert(m.OutboxMail, ("campaign", "source_id", "message_id", "sender", "recipients", "subject", "raw",
                                       "status", "attempts", "next_attempt_at", "last_error", "created_at"))


@dataclass(frozen=True)
class Author:
    """The sender of a post as a member of its campaign."""

    email: str
    role: str  # "player" | "gm"


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
) -> Outcome:
    """Run one raw message through the whole pipeline. Never raises for anything a sender
    can cause; the returned :class:`Outcome` says what happened."""
    started = time.perf_counter()
    outcome = _process(raw, ctx, mailbox=mailbox, uidvalidity=uidvalidity, uid=uid, campaign_slug=campaign_slug)
    outcome.elapsed_ms = (time.perf_counter() - started) * 1000
    return outcome


def _process(raw, ctx, *, mailbox, uidvalidity, uid, campaign_slug) -> Outcome:
    if mailbox is not None and uid is not None and uidvalidity is not None:
        found = _SEEN_UID(mailbox, uidvalidity, uid)
        if found:
            return _stored(m.Message.get_by_id(found[0]["id"]), "duplicate",
                           reason="this mailbox copy was handled already")

    mail = read_message(raw)
    found = _SEEN_ID(mail.message_id)
    if found:
        return _answer_duplicate(m.Message.get_by_id(found[0]["id"]), mail, ctx)

    base = Outcome(message_id=mail.message_id, campaign=None, author=mail.from_addr, status="ignored")
    record = dict(message_id=mail.message_id, mailbox=mailbox, uidvalidity=uidvalidity, uid=uid,
                  author=mail.from_addr, subject=mail.subject)

    reason = (is_own_mail(mail, ctx.config) or auto_reply_reason(mail)
              or sender_unverified(mail, ctx.config.trust_authserv_id))
    if reason:
        base.reason = reason
        return _finish(base, record, None)

    campaign = route(mail, campaign_slug=campaign_slug)
    if campaign is None:
        base.reason = "no campaign matches this mail's addresses"
        return _finish(base, record, None)
    base.campaign = campaign.slug

    members = [Author(**row) for row in _MEMBERS(campaign.id)]
    member = next((mb for mb in members if mb.email == mail.from_addr), None)
    if member is None:
        bulk = bulk_reason(mail)
        if bulk:
            base.reason = bulk + " from a non-member"
            return _finish(base, record, campaign)
        return _answer_stranger(base, record, mail, campaign, ctx)

    if len(raw) > ctx.config.limits.max_message_bytes:
        err = CommandError(
            f"the message is {len(raw):,} bytes; this table accepts at most {ctx.config.limits.max_message_bytes:,}",
            expected="a shorter post (attachments are not needed)",
            example="/overcome Athletics vs Fair",
        )
        return _reject(base, record, mail, campaign, member, ctx, [err])

    lines = find_commands(mail.new_text)
    if len(lines) > ctx.config.limits.max_commands:
        err = CommandError(
            f"the post has {len(lines)} commands; this table accepts at most {ctx.config.limits.max_commands} in one post",
            expected="fewer commands per post",
            example="split the post in two",
        )
        return _reject(base, record, mail, campaign, member, ctx, [err])

    parsed, errors = [], []
    for number, text in lines:
        try:
            parsed.append(parse_command(text, line=number))
        except CommandError as exc:
            errors.append(exc.at(number, text))
    if errors:
        return _reject(base, record, mail, campaign, member, ctx, errors)

    try:
        with m.db.atomic():
            return _apply(base, record, mail, campaign, member, members, parsed, ctx)
    except CommandError as exc:
        return _reject(base, record, mail, campaign, member, ctx, [exc])


def _apply(base: Outcome, record: dict, mail: Mail, campaign: m.Campaign, member: Author,
           members: list[Author], commands: list[c.Command], ctx: Context) -> Outcome:
    """Resolve every command against the campaign's table; the caller's transaction makes
    it all-or-nothing."""
    system = get_system(campaign.system)
    table = repo.load_table(campaign, system.skills)
    before = repo.snapshot(table)
    results = [_run(cmd, table, member, ctx, system) for cmd in commands]
    changed_names = repo.save_table(campaign, before, table)
    faults.reached("mid_transaction")

    prev = repo.last_ledger_hash(campaign)
    result_dicts, ledger = [], {}
    for res in results:
        d = res.to_dict()
        if isinstance(res, ActionResult):
            row = repo.record_roll(campaign, mail.message_id, d, prev)
            prev = row.hash
            d["roll_id"], d["ledger"] = row.id, row.hash[:8]
            ledger[id(res)] = (row.id, row.hash[:8])
        result_dicts.append(d)

    changed = [sheet_dict(table.characters[name], table) for name in changed_names]
    reply = build_reply(
        ctx, mail=mail, campaign=campaign, kind="result", to=table_recipients(campaign, members),
        body=ctx.renderer.result(mail=mail, campaign=campaign, results=results, ledger=ledger,
                                 commands=commands, sheets=changed, relay=campaign.delivery == "relay"),
    )
    base.status = "applied"
    base.results = result_dicts
    base.replies = _enqueue([reply], campaign, mail.message_id)
    _INSERT_MESSAGE(**record, campaign=campaign, status="applied", result=base.to_dict())
    return base


def table_recipients(campaign: m.Campaign, members: list[Author]) -> list[str]:
    """Who gets a result: in list mode the list address, else every member of the table."""
    if campaign.delivery == "list" and campaign.address:
        return [campaign.address]
    return sorted({mb.email for mb in members})


def _run(cmd: c.Command, table, member: Author, ctx: Context, system):
    """Resolve one command as the character its author controls (or names with /as)."""
    is_gm = member.role == "gm"
    if isinstance(cmd, c.Sheet):
        ch = _character(table, cmd.character, member, cmd, for_reading=True)
        return NoteResult(cmd.source, ch.name, "sheet", sheet=sheet_dict(ch, table))
    if isinstance(cmd, c.FatePoints):
        if cmd.op in ("give", "take"):
            if not is_gm:
                raise NotAllowedError(f"/fp {cmd.op} is for the GM", expected="a fate point command for yourself",
                                      example="/fp spend \"to declare a story detail\"")
            ch = _character(table, cmd.character, member, cmd, for_reading=True)
            change = adjust_fate_points(ch, cmd.amount if cmd.op == "give" else -cmd.amount, cmd.reason or cmd.op)
            return NoteResult(cmd.source, ch.name, "fp", text=f"{ch.name}: fate points {change.before} -> {change.after}", changes=[change])
        ch = _character(table, cmd.character, member, cmd, for_reading=cmd.op == "show")
        if cmd.op == "spend":
            change = spend_fate_point(ch, cmd.reason)
            why = f" ({cmd.reason})" if cmd.reason else ""
            return NoteResult(cmd.source, ch.name, "fp", text=f"{ch.name} spends a fate point{why}: {change.before} -> {change.after}", changes=[change])
        return NoteResult(cmd.source, ch.name, "fp", text=f"{ch.name} has {ch.fate_points} fate point{'s' if ch.fate_points != 1 else ''} (refresh {ch.refresh})")
    actor = _character(table, getattr(cmd, "actor", None), member, cmd)
    return resolve(cmd, table, ctx.dice, actor.name, system)


def _character(table, name: str | None, member: Author, cmd: c.Command, *, for_reading: bool = False):
    """The character a command acts as: the one named (``/as``, ``/sheet NAME``) if the
    author may use it, else the author's own PC."""
    is_gm = member.role == "gm"
    if name:
        ch = table.character(name)
        if ch is None:
            raise UnknownNameError(
                f'no character called "{name}" in this campaign',
                kind="character", name=name,
                suggestions=_close(name, [x.name for x in table.characters.values()]),
                expected="a character of this campaign: " + ", ".join(sorted(x.name for x in table.characters.values())),
                example=f"/sheet {_quote(next(iter(table.characters.values())).name)}" if table.characters else "/sheet",
            )
        if for_reading or is_gm or (ch.player or "").lower() == member.email:
            return ch
        raise NotAllowedError(
            f"{ch.name} is not your character",
            expected="a command for your own character",
            example=cmd.source.split(" ", 3)[-1] if cmd.source.lower().startswith("/as ") else "/sheet",
        )
    own = [x for x in table.characters.values() if (x.player or "").lower() == member.email]
    if len(own) == 1:
        return own[0]
    if is_gm and not own:
        raise NotAllowedError(
            "the GM acts through a character: say which one with /as",
            expected="/as NAME before the command",
            example="/as Ghoul attack Charles with Fight",
        )
    if not own:
        raise NotAllowedError(
            "you have no character in this campaign yet",
            expected="a character sheet imported by the GM (pbp character import)",
            example="ask the GM to run: pbp character import ruth.toml --campaign SLUG",
        )
    raise NotAllowedError(
        "you play several characters: say which one with /as",
        expected="/as NAME before the command",
        example=f"/as {_quote(own[0].name)} overcome Athletics vs Fair",
    )


def _close(name: str, names: list[str]) -> list[str]:
    import difflib

    return difflib.get_close_matches(name, names, n=3, cutoff=0.5)


def _quote(name: str) -> str:
    return f'"{name}"' if " " in name else name


def sheet_dict(ch, table) -> dict:
    """The ``pbp sheet --json`` shape (also attached to /sheet results)."""
    aspects = [a for a in table.aspects if a.owner == ch.name and a.kind not in ("consequence",)]
    return {
        "name": ch.name,
        "kind": ch.kind,
        "player": ch.player,
        "fate_points": ch.fate_points,
        "refresh": ch.refresh,
        "skills": dict(sorted(ch.skills.items(), key=lambda kv: (-kv[1], kv[0]))),
        "aspects": [{"name": a.name, "kind": a.kind, "free_invokes": dict(a.free_invokes)} for a in aspects],
        "stunts": [{"name": s.name, "skill": s.skill, "action": s.action, "bonus": s.bonus,
                    "circumstance": s.circumstance} for s in ch.stunts],
        "stress": {k: list(v) for k, v in ch.stress.items()},
        "consequences": [{"severity": q.severity, "aspect": q.aspect, "shifts": q.shifts,
                          "recovering": q.recovering, **({"track": q.track} if q.track else {})}
                         for q in ch.consequences],
        "conditions": [],
        "taken_out": ch.taken_out,
        "free_invokes_held": {a.name: a.free_for(ch.name) for a in table.aspects if a.free_for(ch.name)},
    }


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
                            body=ctx.renderer.error(mail=mail, campaign=campaign, errors=errors))
        base.replies = _enqueue([reply], campaign, mail.message_id)
        _INSERT_MESSAGE(**record, campaign=campaign, status="rejected", result=base.to_dict())
    return base


def _answer_stranger(base, record, mail, campaign, ctx) -> Outcome:
    """A stranger gets one polite reply a day, then silence."""
    base.status = "rejected"
    base.errors = [NotAllowedError(
        f"{mail.from_addr} is not a player or GM of {campaign.name}",
        expected="a mail from a registered address", example="ask the GM to add you to the campaign",
    ).to_dict()]
    now = ctx.clock()
    with m.db.atomic():
        notice = m.StrangerNotice.get_or_none(m.StrangerNotice.email == mail.from_addr)
        if notice is None or now - notice.last_sent_at >= timedelta(days=1):
            reply = build_reply(ctx, mail=mail, campaign=campaign, kind="stranger", to=[mail.from_addr],
                                body=ctx.renderer.stranger(mail=mail, campaign=campaign))
            base.replies = _enqueue([reply], campaign, mail.message_id)
            if notice is None:
                m.StrangerNotice.create(email=mail.from_addr, last_sent_at=now)
            else:
                notice.last_sent_at = now
                notice.save()
        else:
            base.reason = "stranger already answered in the last day"
        _INSERT_MESSAGE(**record, campaign=campaign, status="rejected", result=base.to_dict())
    return base


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
    """A resent copy never rolls again; a member gets the original result back."""
    outcome = _stored(seen, "duplicate")
    campaign = seen.campaign
    if campaign is None or seen.status not in ("applied", "rejected"):
        return outcome
    if not m.Member.select().where((m.Member.campaign == campaign) & (m.Member.email == mail.from_addr)).exists():
        return outcome
    original = m.OutboxMail.select().where(m.OutboxMail.source_id == seen.message_id).order_by(m.OutboxMail.id).first()
    with m.db.atomic():
        reply = build_reply(ctx, mail=mail, campaign=campaign, kind="duplicate", to=[mail.from_addr],
                            body=ctx.renderer.duplicate(mail=mail, campaign=campaign, seen=seen, original=original))
        outcome.replies = _enqueue([reply], campaign, seen.message_id)
    return outcome


def _enqueue(replies, campaign, source_id: str) -> list[dict]:
    """Write replies to the outbox (inside the caller's transaction)."""
    out = []
    for r in replies:
        _INSERT_OUTBOX(campaign=campaign, source_id=source_id, message_id=r.message_id, sender=r.sender,
                       recipients=r.to, subject=r.subject, raw=r.raw)
        out.append({"to": r.to, "subject": r.subject, "in_reply_to": r.in_reply_to, "message_id": r.message_id})
    return out


# --------------------------------------------------------------------------- deadlines


def apply_deadlines(ctx: Context) -> int:
    """Apply every deadline that has passed at ``ctx.clock()``; returns how many."""
    return 0
