"""What the store hands a post adapter (:mod:`pbp.adapters`), so that no adapter reads
the database: the campaigns' bindings (:class:`~pbp.posts.Binding`), one campaign's
roster of members (:class:`~pbp.posts.Roster`) with the threads of its latest answers per
channel, read from the outbox's stored references; and the one fact an adapter may learn
about a member for the store to keep (the forum account they post from)."""
from __future__ import annotations

from pbp.posts import Binding, Roster, RosterMember, thread_from_dict
from pbp.store import models as m

#: how many of a campaign's latest outbox rows are looked through for a channel's thread
_LATEST_ROWS = 20


def binding(campaign: m.Campaign) -> Binding:
    return Binding(slug=campaign.slug, name=campaign.name, address=campaign.address or "",
                   forum=dict(campaign.forum or {}), language=(campaign.settings or {}).get("language") or "en")


def forum_bindings() -> tuple[Binding, ...]:
    """The bindings of the campaigns that play on a forum (a category by mail or by API):
    the only ones an arrival can name by itself."""
    rows = m.Campaign.select().where(m.Campaign.forum.is_null(False) & (m.Campaign.forum != "{}"))
    return tuple(binding(c) for c in rows if c.forum)


def campaign_of(slug: str) -> m.Campaign | None:
    return m.Campaign.get_or_none(m.Campaign.slug == slug)


def roster(campaign: m.Campaign, *, members: bool = True, channels: tuple[str, ...] = ()) -> Roster:
    """The campaign's roster: its members (when ``members``) and, for each of
    ``channels``, the thread of the table's latest answer there (from ``OutboxMail.thread``)."""
    found = ()
    if members:
        found = tuple(RosterMember(email=mb.email, role=mb.role, display_name=mb.display_name or "",
                                   forum_username=mb.forum_username or "", forum_name=mb.forum_name or "",
                                   forum_user_id=mb.forum_user_id)
                      for mb in m.Member.select().where(m.Member.campaign == campaign).order_by(m.Member.id))
    latest = {}
    for channel in channels:
        rows = (m.OutboxMail.select(m.OutboxMail.thread)
                .where((m.OutboxMail.campaign == campaign) & (m.OutboxMail.channel == channel)
                       & m.OutboxMail.thread.is_null(False))
                .order_by(m.OutboxMail.id.desc()).limit(_LATEST_ROWS))
        thread = next((t for t in (thread_from_dict(r.thread) for r in rows) if t is not None), None)
        if thread is not None:
            latest[channel] = thread
    return Roster(campaign=binding(campaign), members=found, latest=latest)


def bind_account(slug: str, email: str, account: int) -> None:
    """Bind a member to the forum account they first posted from (``Member.forum_user_id``),
    only when none is bound yet: a new account that takes a freed username is not them."""
    campaign = campaign_of(slug)
    if campaign is None:
        return
    m.Member.update(forum_user_id=account).where(
        (m.Member.campaign == campaign) & (m.Member.email == email) & m.Member.forum_user_id.is_null()).execute()
