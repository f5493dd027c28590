"""The adapter table: which adapter reads an arrival and which writes a campaign's
replies, asked in this one place, inbound and outbound.

As httpx keeps its transports in one ordered mount table and asks it once per request
(``Client._transport_for_url``), pbp keeps its post adapters (:class:`pbp.posts.Adapter`)
in :data:`TABLE`, most particular first: Discourse by its API, Discourse by mail, plain
mail last (it claims any mail and serves any campaign). Inbound, the first adapter that
claims an arrival reads it (:func:`read`); outbound, the first that serves the campaign
writes each reply (:func:`write`). What an adapter needs of the database it is handed as
values (:mod:`pbp.store.rosters`: the campaigns' bindings, a campaign's roster and the
threads of its latest answers), so no adapter reads the database, and the pipeline names
none of them. A new adapter is a class with the protocol's five members and a row here.
"""
from __future__ import annotations

from pbp.config import Config
from pbp.forum.byapi import ApiAdapter, ApiArrival
from pbp.forum.bymail import ForumMailAdapter
from pbp.mail.adapter import MailAdapter, MailArrival
from pbp.posts import Adapter, Binding, NeutralPost, Reply, Written
from pbp.store import rosters

#: the post adapters, asked in this order
TABLE: list[Adapter] = [ApiAdapter(), ForumMailAdapter(), MailAdapter()]

__all__ = ["TABLE", "ApiArrival", "MailArrival", "read", "read_mail", "write", "writer"]


class _Bindings:
    """The campaigns' bindings, loaded once and only when an adapter asks."""

    def __init__(self) -> None:
        self._found: tuple[Binding, ...] | None = None

    def __call__(self) -> tuple[Binding, ...]:
        if self._found is None:
            self._found = rosters.forum_bindings()
        return self._found


def read(arrival, config: Config, table: list[Adapter] | None = None) -> NeutralPost:
    """The post an arrival carries, read by the first adapter of the table that claims it,
    with the roster of the campaign it claimed it for; a forum account the adapter learned
    its member posts from is kept (:func:`pbp.store.rosters.bind_account`)."""
    bindings = _Bindings()
    for adapter in table or TABLE:
        claim = adapter.claims(arrival, bindings, config)
        if claim is None:
            continue
        campaign = rosters.campaign_of(claim.campaign) if claim.campaign else None
        roster = rosters.roster(campaign) if campaign is not None else None
        post = adapter.read(arrival, roster, config)
        if post.account is not None and post.campaign:
            rosters.bind_account(post.campaign, post.author, post.account)
        return post
    raise ValueError(f"no adapter claims {type(arrival).__name__}")


def read_mail(raw: bytes, config: Config, size: int | None = None) -> NeutralPost:
    """The post raw mail bytes carry (a bound forum's list mail, or a mail)."""
    return read(MailArrival(raw, size), config)


def writer(campaign, config: Config, table: list[Adapter] | None = None) -> Adapter:
    """The adapter that writes a campaign's replies: the first that serves it."""
    binding = rosters.binding(campaign)
    return next(a for a in (table or TABLE) if a.serves(binding, config))


def write(replies: list[Reply], campaign, config: Config, now,
          table: list[Adapter] | None = None) -> list[tuple[Reply, list[Written]]]:
    """What the campaign's adapter makes of each reply (one :class:`~pbp.posts.Written` per
    channel it goes by), given the campaign's roster (loaded once for them all, with the
    thread of the latest answer in the adapter's channel, when it needs them)."""
    if not replies:
        return []
    adapter = writer(campaign, config, table)
    roster = rosters.roster(campaign, members=adapter.needs_members,
                            channels=(adapter.channel,) if adapter.needs_members else ())
    return [(reply, adapter.write(reply, roster, config=config, now=now)) for reply in replies]
