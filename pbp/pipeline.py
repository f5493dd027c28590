"""One post, from what an adapter read to applied state and written replies: route,
authorise, parse, resolve, persist, render.

The pipeline speaks neutral posts and replies (:mod:`pbp.posts`): the adapter table
(:mod:`pbp.adapters`) turns what arrived into a :class:`~pbp.posts.NeutralPost`, and every
reply the pipeline makes, whichever way a post ends, goes through :func:`send_replies`, where the
campaign's adapter, as the table finds it, writes it into the outbox. The pipeline names
no adapter. ``process_message`` is the mail entry point of both ``pbp process FILE.eml`` and
the daemon. One post is one database transaction: its commands all apply and its replies
are written to the outbox, or nothing applies and its author gets a reply that says why.
"""
from __future__ import annotations

import logging
import time

from peewee import IntegrityError, InterfaceError, OperationalError

from pbp import commands as c
from pbp import copies
from pbp import adapters, bounces
from pbp.errors import CommandError, DiceExhausted
from pbp.flow.commit import commit_dice, commit_post, open_post
from pbp.flow.context import INSERT_MESSAGE, MEMBERS, Context, finish, PostOutcome, stored
from pbp.flow.endings import answer_copy, answer_duplicate, answer_stranger, answer_unverified, bounced, mute, reject
from pbp.flow.send import reply_to_author, send_replies
from pbp.i18n import of_settings
from pbp.ooc import ooc_lines
from pbp.parser import find_commands, find_near_commands, parse_lines
from pbp.parser.spec import BY_WORD
from pbp.play import apply_post, Author
from pbp.play import mailing, parallel
from pbp.posts import NeutralPost
from pbp.rules.systems import campaign_system
from pbp.store import models as m
from pbp.store import repo
from pbp.store.prepared import Select
from pbp.textsafety import shorten

log = logging.getLogger("pbp.pipeline")


# --------------------------------------------------------------------------- routing

_CAMPAIGN_BY_SLUG = Select(lambda slug: m.Campaign.select().where(m.Campaign.slug == slug))
_SEEN_KEY = Select(lambda key: m.Message.select(m.Message.id).where(m.Message.post_key == key))
_SEEN_UID = Select(lambda mailbox, uidvalidity, uid: m.Message.select(m.Message.id).where(
    (m.Message.mailbox == mailbox) & (m.Message.uidvalidity == uidvalidity) & (m.Message.uid == uid)))


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
    return stored(m.Message.get_by_id(found[0]["id"]), "duplicate", reason="handled by another daemon at the same time")


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
        members = [Author(**row) for row in MEMBERS(campaign.id)] if campaign is not None else []
        if campaign is not None and any(mb.email == post.author for mb in members):
            base.campaign = campaign.slug
            reply = reply_to_author(post, "error", ctx.renderer.error(mail=post, campaign=campaign, errors=[error]))
            base.replies = send_replies([reply], campaign, post.id, ctx)
        INSERT_MESSAGE(**record, campaign=campaign, status="rejected", result=base.to_dict())
    return base


def _process(raw, ctx, *, mailbox, uidvalidity, uid, campaign_slug, size=None) -> PostOutcome:
    if mailbox is not None and uid is not None and uidvalidity is not None:
        found = _SEEN_UID(mailbox, uidvalidity, uid)
        if found:
            return stored(m.Message.get_by_id(found[0]["id"]), "duplicate",
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
        return answer_duplicate(m.Message.get_by_id(found[0]["id"]), post, ctx)

    base = PostOutcome(message_id=post.id, campaign=None, author=post.author, status="ignored")
    record = dict({"mailbox": None, "uidvalidity": None, "uid": None, **(where or {})}, message_id=post.id,
                  post_key=key, author=post.author, subject=post.subject, received_at=ctx.clock())

    if post.report is not None:
        return bounced(base, record, post, ctx)
    if post.ignored:
        base.reason = post.ignored
        return finish(base, record, None)

    if campaign is None:
        base.reason = "no campaign matches this mail's addresses"
        return finish(base, record, None)
    base.campaign = campaign.slug

    members = [Author(**row) for row in MEMBERS(campaign.id)]
    member = next((mb for mb in members if mb.email == post.author), None)
    unverified = post.unverified
    if member is None:
        quiet = post.quiet
        if quiet or unverified:  # no notice to list mail, nor to an address nobody vouched for
            base.reason = f"{quiet or unverified} (a non-member's mail: no reply)"
            return finish(base, record, campaign)
        return answer_stranger(base, record, post, campaign, ctx)
    if unverified:
        return answer_unverified(base, record, post, campaign, member, ctx, unverified)
    if member.email in bounces.not_mailed(campaign, "held"):   # they posted: their mailbox works again
        with m.db.atomic():
            send_replies(bounces.recovered(campaign, member.email, ctx.clock()), campaign, post.id, ctx)
    wish = bounces.mute_request(post.subject)   # the subject first: most posts stop there
    if wish is not None and not find_commands(post.new_text):
        return mute(base, record, post, campaign, member, ctx, wish == bounces.MUTE)

    if post.unread:
        err = CommandError(f"pbp did not read this post: {post.unread}",
                           expected="a shorter post in plain text or HTML, without attachments",
                           example="/overcome Athletics vs Fair")
        return reject(base, record, post, campaign, member, ctx, [err])

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
        return reject(base, record, post, campaign, member, ctx, [err])

    parsed, errors = parse_lines(lines, campaign_system(campaign).words)
    if errors:
        return reject(base, record, post, campaign, member, ctx, errors, commands=parsed)
    hidden = [cmd for cmd in parsed if getattr(cmd, "hidden", False)] if post.public else []
    if hidden:   # the forum already shows it to everyone: refused, and the author told where to send it
        return reject(base, record, post, campaign, member, ctx, [CommandError(
            f"this post is public: everyone at the table has read {shorten(hidden[0].source)!r}, so pbp does not "
            "keep it hidden; nothing in the post was applied", expected="a hidden command sent by mail to the "
            f"table's address, {campaign.address or ctx.config.from_address}, from your own address",
            example=hidden[0].source).at(hidden[0].line, hidden[0].source)], commands=parsed)

    keys = copies.fingerprint(campaign.id, member.email, post, lines, parsed)
    copy = copies.find_copy(campaign.id, member.email, post, lines, keys, ctx.clock())
    if copy is not None:
        return answer_copy(base, record, post, campaign, copy, ctx)

    try:
        with m.db.atomic():
            return _apply(base, record, post, campaign, member, members, parsed, ctx, keys, notes=reader_notes(post))
    except CommandError as exc:
        return reject(base, record, post, campaign, member, ctx, [exc], commands=parsed)


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
    post = open_post(campaign, member, ctx, replied_to=mail.replied_to, kept=True)
    post.post_id = mail.id
    parallel.enter_thread(post, (*mail.thread.chain, *((mail.replied_to,) if mail.replied_to else ())), mail.subject)
    post.turn_before = mailing.turn_holders(post)       # a mail that passes the turn concerns the next
    commit_dice(post, campaign, ctx, mail.id, mail.new_text)
    results = apply_post(post, commands)
    sent = commit_post(post, campaign, members, ctx, results, source=mail, commands=commands,
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
    INSERT_MESSAGE(**record, **keys, campaign=campaign, status="applied",
                    result=_kept_result(base, results, post.__dict__.get("_recorded", {}), post.__dict__.get("_archived")))
    return base


def _kept_result(base: PostOutcome, results: list, recorded: dict, archived: tuple[int, list] | None) -> dict:
    """What an applied post's message row keeps of its outcome (issue 23): not what the
    row's columns, the outbox (its replies), the archive and the ledger hold already. A
    result the table read as it is (the archive record's ``facts``, ``archived`` its id and
    facts) keeps only its place there, ``{"fact": 0}``, with its ledger hash; another in the
    ledger keeps its ledger hash and only what differs from what was recorded there (its
    changes; effects added after the roll was recorded). :func:`pbp.flow.context.stored`
    puts them back together from the archive and ledger rows."""
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
