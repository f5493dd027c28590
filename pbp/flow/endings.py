"""The ways a post ends other than applied: refused with the reasons and examples that
work at this table, a stranger's or an unverified sender's mail, a bounce, mute, a
duplicate or a copy of a post already handled."""
from __future__ import annotations

import logging
import random
from datetime import datetime, timedelta

from pbp import commands as c
from pbp import copies
from pbp import bounces
from pbp.errors import CommandError, NotAllowedError
from pbp.flow.commit import commit_dice, open_post
from pbp.flow.context import INSERT_MESSAGE, Context, PostOutcome, stored
from pbp.flow.send import reply_to_author, send_replies, thread_subject
from pbp.parser import parse_command
from pbp.play import apply_post, Author, status_lines
from pbp.posts import NeutralPost
from pbp.rules.dice import RandomDice
from pbp.rules.systems import campaign_system
from pbp.store import models as m
from pbp.textsafety import is_addr_spec, shorten

log = logging.getLogger("pbp.pipeline")


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
                post = open_post(campaign, member, trial)
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


def reject(base, record, mail, campaign, member, ctx, errors: list[CommandError],
            commands: list[c.Command] = ()) -> PostOutcome:
    base.status = "rejected"
    _working_examples(errors, campaign, member, ctx, commands)
    base.errors = [e.to_dict() for e in errors]
    with m.db.atomic():
        reply = reply_to_author(mail, "error", ctx.renderer.error(mail=mail, campaign=campaign, errors=errors,
                                                                   status=_status_after_error(campaign, member, ctx)),
                                 thread_subject=thread_subject(mail, campaign))
        base.replies = send_replies([reply], campaign, mail.id, ctx)
        INSERT_MESSAGE(**record, campaign=campaign, status="rejected", result=base.to_dict())
    return base


def _status_after_error(campaign, member, ctx) -> list[str]:
    """Whose turn it is and what pbp waits for, for a refused post in a campaign where that
    matters (a conflict, or reactions waiting); the state is as it was before the post."""
    play = campaign.play or {}
    if member is None or not (play.get("conflict") or play.get("pending")):
        return []
    try:
        return status_lines(open_post(campaign, member, ctx))
    except Exception:  # the error reply must go out even if a status line cannot be made
        log.exception("status lines for an error reply failed")
        return []


def answer_stranger(base, record, mail, campaign, ctx) -> PostOutcome:
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
            reply = reply_to_author(mail, "stranger", ctx.renderer.stranger(mail=mail, campaign=campaign))
            base.replies = send_replies([reply], campaign, mail.id, ctx)
        else:
            base.reason = "stranger already answered in the last day"
        INSERT_MESSAGE(**record, campaign=campaign, status="rejected", result=base.to_dict())
    return base


def answer_unverified(base, record, mail, campaign, member, ctx, reason: str) -> PostOutcome:
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
            reply = reply_to_author(mail, "error", ctx.renderer.error(mail=mail, campaign=campaign, errors=[error]),
                                     to=member.email)
            base.replies = send_replies([reply], campaign, mail.id, ctx)
        else:
            base.reason = reason + "; the member was told within the last hour"
        INSERT_MESSAGE(**record, campaign=campaign, status="rejected", result=base.to_dict())
    return base


def bounced(base, record, post: NeutralPost, ctx) -> PostOutcome:
    """A delivery report about one of pbp's mails: recorded against the member
    (:mod:`pbp.bounces`), the GM told when an address is now held; never answered."""
    with m.db.atomic():
        campaign, notices = bounces.record(post.report, ctx.clock())
        failed = [r.address for r in post.report.recipients if r.failed]
        base.reason = (f"a delivery report: {', '.join(failed)} failed" if failed else "a delivery report")
        if campaign is not None:
            base.campaign = campaign.slug
            base.replies = send_replies(notices, campaign, post.id, ctx)
        INSERT_MESSAGE(**record, campaign=campaign, status="ignored", result=base.to_dict())
    return base


def mute(base, record, post: NeutralPost, campaign, member, ctx, on: bool) -> PostOutcome:
    """A member's mail whose subject is "mute" (the List-Unsubscribe mailto) or "unmute"."""
    with m.db.atomic():
        base.replies = send_replies(bounces.mute(campaign, member.email, on), campaign, post.id, ctx)
        base.reason = f"{member.email} {'muted' if on else 'unmuted'} the table's mail"
        INSERT_MESSAGE(**record, campaign=campaign, status="ignored", result=base.to_dict())
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


def answer_duplicate(seen: m.Message, mail: NeutralPost, ctx: Context) -> PostOutcome:
    """A resent copy never rolls again: its author, if a member, gets the original result
    back. ``seen`` is the same post (the same campaign, author and id: :func:`_post_key`),
    so what goes back is the author's own. A copy of a post whose sender nobody vouched for
    is not answered (the notice went out once, rate-limited: resending must not make more)."""
    outcome = stored(seen, "duplicate")
    campaign = seen.campaign
    if (campaign is None or seen.status not in ("applied", "rejected", "duplicate") or not mail.answer_copies
            or mail.unverified):
        return outcome
    if not m.Member.select().where((m.Member.campaign == campaign) & (m.Member.email == mail.author)).exists():
        return outcome
    with m.db.atomic():
        return _send_duplicate_note(outcome, mail, campaign, ctx, "resent", seen, _first_reply(seen),
                                    seen.message_id)


def answer_copy(base: PostOutcome, record: dict, mail: NeutralPost, campaign: m.Campaign, copy: copies.Copy,
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
        base = stored(seen, "duplicate", reason=f"{what.get(copy.kind, 'a forward')} "
                                                 f"of post {seen.message_id}; nothing was applied again")
        base.message_id, base.author, base.duplicate_of = mail.id, mail.author, seen.message_id
        original = _first_reply(seen)
    with m.db.atomic():
        _send_duplicate_note(base, mail, campaign, ctx, copy.kind, seen, original, mail.id)
        INSERT_MESSAGE(**record, campaign=campaign, status="duplicate", result=base.to_dict())
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
    outcome.replies = send_replies([reply_to_author(mail, "duplicate", body)], campaign, source_id, ctx)
    return outcome
