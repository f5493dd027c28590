"""Replies out of the pipeline: who reads the table's mail, the thread's subject, and
:func:`send_replies`, where the campaign's adapter (as :mod:`pbp.adapters` finds it) writes
each reply into the outbox, dated for its reader. The pipeline names no adapter."""
from __future__ import annotations

import logging
from dataclasses import replace

from pbp import adapters, bounces
from pbp.flow.context import Context
from pbp.i18n import ENGLISH, Language, of_settings
from pbp.play import Author, Post
from pbp.play import mailing, parallel
from pbp.play.dates import for_reader
from pbp.play.people import zone as people_zone
from pbp.posts import Audience, NeutralPost, Reply, thread_to_dict
from pbp.sheets_view import table_sheet
from pbp.store import models as m
from pbp.store import repo
from pbp.store.prepared import Insert, Select
from pbp.views import public_sheets, shows_anything

log = logging.getLogger("pbp.pipeline")


_INSERT_OUTBOX = Insert(m.OutboxMail, ("campaign", "source_id", "message_id", "sender", "recipients", "subject", "raw",
                                       "status", "attempts", "next_attempt_at", "last_error", "created_at",
                                       "compacted", "channel", "thread"))


def send_replies(replies: list[Reply], campaign, source_id: str | None, ctx: Context, *,
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


def reply_to_author(post: NeutralPost, kind: str, body: tuple[str, str], *, to: str | None = None,
                     thread_subject: str | None = None) -> Reply:
    """A reply for the post's author alone (an error, a note, the stranger's notice),
    threaded to the post; ``to`` when it must go to the member's registered address."""
    text, html = body
    return Reply(kind=kind, audience=Audience.PLAYER, to=(to or post.author,), text=text, html=html,
                 thread=post.thread, thread_subject=thread_subject if thread_subject is not None else post.subject)


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


def table_readers(post: Post, campaign: m.Campaign, members: list[Author], source: NeutralPost | None,
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


def addresses(post: Post, members: list[Author], names) -> list[str]:
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


def only_for_gm(seen, post: Post, sheets: list, source: NeutralPost | None, commands, relay: bool) -> bool:
    """A post whose every result is for the GM alone (a hidden aspect added, the GM's
    /sheet), with no prose to relay and nothing else to tell: the table gets no mail."""
    if not seen.table or any(shows_anything(r) for r in seen.table) or post.asks or sheets:
        return False
    if relay and source is not None:
        lines = {cmd.line for cmd in commands or ()}
        if any(text.strip() for n, text in enumerate(source.new_text.splitlines(), start=1) if n not in lines):
            return False
    return True


def table_sheets(post: Post, changed_names: list[str]) -> list[dict]:
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
