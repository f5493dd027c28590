"""The clock's own posts: deadlines that passed, reminders, stalls and digests, each
applied as a post of its campaign (:func:`apply_deadlines`)."""
from __future__ import annotations

import logging
from datetime import timedelta

from pbp import digest
from pbp.flow.commit import commit_dice, commit_post, open_post, save_play
from pbp.flow.context import MEMBERS, Context
from pbp.flow.send import send_replies
from pbp.play import Author, Post, run_deadline_jobs
from pbp.play import mailing, parallel
from pbp.play.core import campaign_hours, Tell
from pbp.posts import Audience, Reply, thread_from_dict, ThreadRef
from pbp.store import models as m

log = logging.getLogger("pbp.pipeline")


def thread_of(threads: dict[str, list[str]], closed_refs: list[str]) -> tuple[ThreadRef, str] | None:
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
            members = [Author(**row) for row in MEMBERS(campaign.id)]
            post = open_post(campaign, Author(email=ctx.config.from_address, role="gm"), ctx)
            commit_dice(post, campaign, ctx, f"deadline-{campaign.slug}-{now.strftime('%Y%m%dT%H%M%SZ')}", "")
            threads = dict(post.play.threads)
            parallel.due_elsewhere(post, timedelta(hours=campaign_hours(campaign, ctx.config, "reminder_hours")))
            post.turn_before = mailing.turn_holders(post)
            post.gms = tuple(mb.email for mb in members if mb.is_gm)     # their quiet hours hold the GM's reminders
            results = run_deadline_jobs(post)
            letters = digests(post, campaign, members, ctx)
            if results or post.asks or post.tells:
                thread, subject = thread_of(threads, post.closed_refs) or (None, None)
                commit_post(post, campaign, members, ctx, results, source=None, commands=None, relay=False,
                             thread=thread, thread_subject_=subject)
            else:
                save_play(campaign, post.play, ctx.config)
            send_replies(letters, campaign, None, ctx, people=post.play.people)
    return len(due)


def digests(post: Post, campaign: m.Campaign, members: list[Author], ctx: Context) -> list[Reply]:
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
