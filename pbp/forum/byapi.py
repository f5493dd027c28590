"""Discourse by its REST API (path 2 of docs/forum.md) as a post adapter of the pipeline.

Inbound (:func:`post_from`): an :class:`~pbp.forum.models.InboundPost` the client polled
becomes a :class:`~pbp.posts.NeutralPost` of the campaign bound to its category
(``Campaign.forum["category_id"]`` on the ``[discourse]`` site). Its id is the one the mail
path gives the same post (``topic/T/P@site``; a topic's first post ``topic/T@site``), so a
post seen both ways rolls once. The author is the member whose ``forum_username`` is the
post's username, bound to the forum's user id (:func:`member_of`); an edit of a post pbp read
is that post's id (a copy), an edit seen first the post itself; BBCode quotes are not the
author's (:func:`pbp.forum.markdown.own_text`).

Outbound (:func:`write`): the table's answer to a post in a topic is a ``POST /posts.json``
in that topic, replying to the post; an answer for one person goes as a private message to
their forum username (for a member without one, by mail); members who play by mail get the
table's mail as well. The outbox keeps each as the JSON of an
:class:`~pbp.forum.models.OutboundReply` (``Written.raw``), its ``sender`` naming the site
(``discourse:forum.example.org``); :class:`ForumSender` posts it. A reply whose fate is
unknown is sent again only as the client allows (see docs/forum.md, "When the forum is
busy or down").
"""
from __future__ import annotations

import asyncio
import json
import logging
import uuid
from dataclasses import dataclass, replace
from urllib.parse import urlsplit

from pbp.config import Config
from pbp.i18n import of_settings
from pbp.forum.bymail import mail_players
from pbp.forum.markdown import own_text
from pbp.forum.models import ForumAudience, InboundPost, OutboundReply
from pbp.mail.compose import reply_mail_subject, write_mail
from pbp.posts import (Audience, Binding, Claim, NeutralPost, Reply, Roster, RosterMember,
                       ThreadRef, Written, without_approve_hints)
from pbp.transport.base import SendReceipt

log = logging.getLogger("pbp.forum")

SOURCE = CHANNEL = "discourse"
#: the envelope sender its rows carry (``discourse:SITE``): a label in ``pbp outbox``,
#: never how a row is told apart (its ``channel`` is)
SENDER_PREFIX = "discourse:"


@dataclass(frozen=True)
class ApiArrival:
    """A post the forum's API brought (polled, or by the webhook): ``bot`` the bot's
    username, ``cursor`` how far the poll had read when a webhook brought it."""

    inbound: InboundPost
    bot: str = ""
    cursor: int | None = None


def site_of(config: Config) -> str:
    return (urlsplit(config.discourse["url"]).hostname or "").lower() if config.discourse else ""


def active(campaign, config: Config) -> bool:
    """Whether the campaign plays on the ``[discourse]`` site by its API."""
    forum = dict(campaign.forum or {}) if campaign is not None else {}
    return bool(config.discourse) and forum.get("site") == site_of(config) and bool(forum.get("category_id"))


def campaign_for(inbound: InboundPost, bindings, config: Config) -> Binding | None:
    return next((c for c in bindings() if active(c, config)
                 and c.forum.get("category_id") == inbound.category_id), None)


def post_id(inbound: InboundPost) -> str:
    """The id the mail path gives the same post (:func:`pbp.forum.bymail.normal_id`)."""
    if inbound.post_number == 1:
        return f"topic/{inbound.topic_id}@{inbound.site}"
    return f"topic/{inbound.topic_id}/{inbound.post_id}@{inbound.site}"


def member_of(roster: Roster, inbound: InboundPost) -> tuple[RosterMember | None, str]:
    """The member who wrote a post read by the API, and why nobody did ("" when found).

    The forum's username is the account's own, unique on the site, and is compared
    without regard to case; the member is bound to the account's user id the first time
    it is seen (the post's ``account``, which the store keeps in ``Member.forum_user_id``),
    so a new account that takes a freed username is not the old member. A display name is
    never compared: anyone can type any."""
    wanted = inbound.username.strip().casefold()
    member = next((mb for mb in roster.members
                   if (mb.forum_username or "").strip().casefold() == wanted), None) if wanted else None
    if member is None or inbound.user_id is None or member.forum_user_id is None:
        return member, ""
    if member.forum_user_id != inbound.user_id:
        return None, (f"a post by {inbound.username} (forum user {inbound.user_id}), not the account "
                      f"{member.email} was bound to (user {member.forum_user_id}): a freed username taken anew?")
    return member, ""


def post_from(inbound: InboundPost, roster: Roster | None, config: Config, *, bot: str = "",
              cursor: int | None = None) -> NeutralPost:
    """The pipeline's post for a post the API brought. ``cursor`` is the highest post id
    the poll had read when a webhook brought it (None for a polled post, always new): an
    edit of a post at or below it that pbp never read was made before pbp's time (the
    first poll starts at the newest post) and is never rolled; above it, the edit came
    before its create (pbp was down, or the webhook was first) and is the post itself."""
    campaign = roster
    member, other_account = member_of(roster, inbound) if roster is not None else (None, "")
    ignored = ""
    if inbound.private:
        ignored = "a private message: pbp reads the table's topics, never private messages (docs/forum.md)"
    elif campaign is None:
        ignored = f"a post in category {inbound.category_id}, which no campaign plays in"
    elif bot and inbound.username.casefold() == bot.casefold():
        ignored = "the bot's own post"
    elif other_account:
        ignored = other_account
        log.warning("forum post %s: %s", inbound.post_id, other_account)
    elif inbound.edited and cursor is not None and inbound.post_id <= cursor:
        ignored = f"an edit (version {inbound.version}) of a post older than pbp's reading: an edit is never rolled"
    # an edit seen first (pbp was down when the post was made) is the post: it is read;
    # an edit of a post already read has its id and is a copy (the pipeline's duplicates)
    return NeutralPost(
        source=SOURCE,
        id=post_id(inbound),
        author=member.email if member is not None else f"{inbound.username} (forum)",
        author_name=inbound.username,
        subject=f"topic {inbound.topic_id}",
        new_text=own_text(inbound.raw),
        thread=ThreadRef(source=SOURCE, id=str(inbound.post_id), topic=str(inbound.topic_id),
                         reply_to=str(inbound.post_number)),
        campaign=campaign.slug if campaign is not None else None,
        ignored=ignored,
        quiet="" if member is not None else f"a forum post by {inbound.username}, who is no member",
        answer_copies=False,
        public=True,
        date=inbound.created_at,
        account=(inbound.user_id if member is not None and member.forum_user_id is None and not other_account
                 else None),
    )


# --------------------------------------------------------------------------- outbound


def write(reply: Reply, roster: Roster, *, config: Config, now) -> list[Written]:
    campaign = roster.campaign
    thread = reply.thread
    if reply.audience is Audience.TABLE:
        # a post by mail, or a deadline round of no forum thread: the topic of the latest answer
        latest = roster.latest.get(CHANNEL)
        topic = thread.topic if thread is not None and thread.topic else (latest.topic if latest else None)
        if topic is None:
            return [write_mail(reply, campaign, config=config, now=now)]
        if not (reply.markdown or reply.text).strip():   # a post of prose alone: no answer in the topic
            return _mail_copy(reply, campaign, config, now, mail_players(roster))
        number = int(thread.reply_to) if thread.source == SOURCE and (thread.reply_to or "").isdigit() else None
        out = [_written(OutboundReply(ForumAudience.TABLE, reply.markdown or reply.text, topic_id=int(topic),
                                      reply_to_post_number=number), reply, campaign, config)]
        return out + _mail_copy(reply, campaign, config, now, mail_players(roster))
    # one person, or the GMs: a private message to each who has a forum username, mail to the others
    names = {mb.email: (mb.forum_username or "").strip() for mb in roster.members}
    out, by_mail = [], []
    for address in reply.to:
        name = names.get(address)
        if name:
            kind = ForumAudience.GM if reply.audience is Audience.GM else ForumAudience.PLAYER
            out.append(_written(OutboundReply(kind, reply.text, recipient=name,
                                              title=reply_mail_subject(reply, campaign.name, of_settings(
                                                  getattr(campaign, "settings", None)))), reply, campaign, config))
        else:
            by_mail.append(address)
    return out + _mail_copy(reply, campaign, config, now, by_mail)


def _mail_copy(reply, campaign, config, now, to) -> list[Written]:
    return [write_mail(replace(reply, to=tuple(to)), campaign, config=config, now=now)] if to else []


def _written(outbound: OutboundReply, reply: Reply, campaign, config: Config) -> Written:
    # a forum post or private message is no mail thread: a bare "approve" there is not read
    body = {"audience": outbound.audience.value, "raw": without_approve_hints(outbound.raw),
            "topic_id": outbound.topic_id,
            "reply_to_post_number": outbound.reply_to_post_number, "recipient": outbound.recipient,
            "title": outbound.title}
    where = f"topic:{outbound.topic_id}" if outbound.topic_id else f"user:{outbound.recipient}"
    thread = ThreadRef(source=SOURCE, topic=str(outbound.topic_id)) if outbound.topic_id else None
    return Written(id=f"pbp.{uuid.uuid4().hex}@{config.domain}", sender=SENDER_PREFIX + site_of(config),
                   recipients=[where], subject=outbound.title or f"topic {outbound.topic_id}", in_reply_to=None,
                   raw=json.dumps(body, ensure_ascii=False), channel=CHANNEL, thread=thread)


def outbound_of(raw: bytes | str) -> OutboundReply:
    data = json.loads(raw)
    return OutboundReply(ForumAudience(data["audience"]), data["raw"], topic_id=data.get("topic_id"),
                         reply_to_post_number=data.get("reply_to_post_number"), recipient=data.get("recipient"),
                         title=data.get("title"))


class ForumPoster:
    """The sender of the rows this adapter writes (channel ``discourse``): each row's JSON
    posted by the API client. :func:`pbp.delivery.make_sender` maps the channel to it; it
    has the :class:`~pbp.transport.base.Sender` shape."""

    def __init__(self, client) -> None:
        self.client = client

    async def send(self, raw, sender: str, recipients) -> SendReceipt:
        sent = await asyncio.to_thread(self.client.send, outbound_of(raw))
        return SendReceipt(code=200, message=f"post {sent.post_id} (topic {sent.topic_id} #{sent.post_number})",
                           sender=sender, recipients=tuple(recipients))


class ApiAdapter:
    """Discourse by its API in the adapter table (:mod:`pbp.adapters`), first: it claims
    every post the API brought and serves a campaign bound to a category of the
    ``[discourse]`` site."""

    channel = CHANNEL
    markdown = True
    needs_members = True

    def claims(self, arrival, bindings, config: Config) -> Claim | None:
        if not isinstance(arrival, ApiArrival):
            return None
        campaign = campaign_for(arrival.inbound, bindings, config)
        return Claim(campaign.slug if campaign is not None else None)

    def read(self, arrival: ApiArrival, roster: Roster | None, config: Config) -> NeutralPost:
        return post_from(arrival.inbound, roster, config, bot=arrival.bot, cursor=arrival.cursor)

    def serves(self, campaign: Binding, config: Config) -> bool:
        return active(campaign, config)

    def write(self, reply: Reply, roster: Roster, *, config: Config, now) -> list[Written]:
        return write(reply, roster, config=config, now=now)
