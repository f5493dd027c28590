"""Bounces and who is not mailed: a delivery report recorded against the member it was
for, a bounce score kept as GNU Mailman 3 keeps it, mail held for a dead address, the
GM told once when an address fails and once when it works again; and a member who asks
(the ``List-Unsubscribe`` mailto) muted, with the GM told.

The score is Mailman's (``model/bounce.py``, ``app/bounces.py``; the list defaults
``bounce_score_threshold: 5``, ``bounce_info_stale_after: 7d``): a failed delivery adds
one, at most once a day; a bounce more than :data:`STALE_AFTER` after the last starts the
score again at one; at :data:`THRESHOLD` the address is held. Where Mailman disables
delivery and later unsubscribes, pbp holds: the table's mail to that address waits in
the outbox (status ``held``), the GM is told which address and why, and it all goes out
when the member posts again from it (their mailbox works: pbp releases what it held,
and tells the GM). A report that the mail was delivered is recorded and scores nothing.

What a campaign does not mail is in ``Campaign.not_mailed`` (read with the campaign, so a
post costs no query for it): ``held`` and ``muted`` addresses.
"""
from __future__ import annotations

import logging
from datetime import datetime, timedelta
from html import escape

from pbp.posts import Audience, DeliveryReport, Reply
from pbp.store import models as m

log = logging.getLogger("pbp.bounces")

#: Mailman 3's ``bounce_score_threshold`` default
THRESHOLD = 5.0
#: Mailman 3's ``bounce_info_stale_after`` default
STALE_AFTER = timedelta(days=7)
#: what a subject of a mail to the table's address asks (List-Unsubscribe's mailto)
MUTE, UNMUTE = "mute", "unmute"


def not_mailed(campaign, kind: str) -> set[str]:
    """The addresses a campaign holds mail for (``held``) or does not mail (``muted``)."""
    return set((getattr(campaign, "not_mailed", None) or {}).get(kind, ()))


def _mark(campaign: m.Campaign, kind: str, address: str, on: bool) -> None:
    fresh = m.Campaign.get_by_id(campaign.id)
    state = dict(fresh.not_mailed or {})
    found = set(state.get(kind, ()))
    found = found | {address} if on else found - {address}
    state[kind] = sorted(found)
    m.Campaign.update(not_mailed=state).where(m.Campaign.id == campaign.id).execute()
    campaign.not_mailed = state


def _gms(campaign: m.Campaign) -> tuple[str, ...]:
    return tuple(sorted(mb.email for mb in m.Member.select(m.Member.email).where(
        (m.Member.campaign == campaign) & (m.Member.role == "gm"))))


def _notice(campaign: m.Campaign, subject: str, text: str) -> Reply | None:
    """A mail to the campaign's GMs (None when it has none)."""
    to = _gms(campaign)
    if not to:
        return None
    html = f'<p style="white-space: pre-wrap;">{escape(text)}</p>'
    return Reply(kind="notice", audience=Audience.GM, to=to, text=text + "\n", html=html,
                 subject=subject)


def record(report: DeliveryReport, now: datetime) -> tuple[m.Campaign | None, list[Reply]]:
    """Record a delivery report: each recipient's status against the member of the
    campaign whose mail it was (found by the original's Message-ID in the outbox), the
    score moved as Mailman moves it; returns the campaign and the notices for its GM."""
    row = (m.OutboxMail.get_or_none(m.OutboxMail.message_id == report.original_id)
           if report.original_id else None)
    campaign = row.campaign if row is not None and row.campaign_id else None
    if campaign is None:
        log.info("a delivery report about %s, which is no mail of a campaign: not recorded",
                 report.original_id or "an unnamed mail")
        return None, []
    notices = []
    for status in report.recipients:
        m.BounceEvent.create(campaign=campaign, email=status.address, message_id=report.original_id,
                             action=status.action, status=status.status, diagnostic=status.diagnostic,
                             reporter=report.reporter[:250], received_at=now)
        member = m.Member.get_or_none((m.Member.campaign == campaign) & (m.Member.email == status.address))
        if member is None or not status.failed:
            continue
        notice = _score(campaign, member, status, now)
        if notice is not None:
            notices.append(notice)
    return campaign, notices


def _score(campaign: m.Campaign, member: m.Member, status, now: datetime) -> Reply | None:
    last = member.last_bounce_at
    if last is not None and last.date() == now.date():
        return None          # one bounce a day counts (Mailman: "already scored a bounce today")
    score = 1.0 if last is None or now - last > STALE_AFTER else member.bounce_score + 1
    m.Member.update(bounce_score=score, last_bounce_at=now).where(m.Member.id == member.id).execute()
    log.info("campaign %s: mail to %s bounced (%s %s), score %.0f", campaign.slug, member.email,
             status.status, status.diagnostic, score)
    if score < THRESHOLD or member.email in not_mailed(campaign, "held"):
        return None
    _mark(campaign, "held", member.email, True)
    why = f"{status.status} {status.diagnostic}".strip() or "no reason given"
    return _notice(campaign, f"Mail to {member.email} is failing", (
        f"Mail to {member.email} has bounced on {score:.0f} days since {(now - STALE_AFTER).date()} or later; "
        f"the last bounce said: {why}.\n\npbp holds the table's mail for that address from now on. When they post "
        f"again from it, pbp sends what it held and tells you. If the address changed, add the new one: "
        f"pbp campaign add-member NEW-ADDRESS --campaign {campaign.slug}"))


def recovered(campaign: m.Campaign, address: str, now: datetime) -> list[Reply]:
    """A member whose mail was held posted from that address: it works. The held mail
    goes out, the score starts again, and the GM is told (once: the address is no longer
    held)."""
    if address not in not_mailed(campaign, "held"):
        return []
    _mark(campaign, "held", address, False)
    m.Member.update(bounce_score=0, last_bounce_at=None).where(
        (m.Member.campaign == campaign) & (m.Member.email == address)).execute()
    held = [r.id for r in m.OutboxMail.select(m.OutboxMail.id).where(
        (m.OutboxMail.campaign == campaign) & (m.OutboxMail.status == "held")
        & m.OutboxMail.message_id.endswith(held_suffix(address)))]
    if held:
        m.OutboxMail.update(status="pending", next_attempt_at=now).where(m.OutboxMail.id.in_(held)).execute()
    log.info("campaign %s: %s posted again; %d held mail(s) released", campaign.slug, address, len(held))
    notice = _notice(campaign, f"Mail to {address} works again", (
        f"{address} posted again, so their mailbox works: pbp mails them again and has sent the "
        f"{len(held)} mail(s) it held for them."))
    return [notice] if notice is not None else []


def held_suffix(address: str) -> str:
    """How a held copy's outbox key ends (its ``message_id``: the mail's id, then this)."""
    return f"#held:{address}"


def mute_request(subject: str) -> str | None:
    """``mute`` or ``unmute`` when a mail's subject asks it (a List-Unsubscribe mailto
    writes the subject; a reply's "Re:" is allowed), else None."""
    words = subject.strip().lower()
    while words[:3] in ("re:", "aw:", "sv:"):
        words = words[3:].strip()
    return words if words in (MUTE, UNMUTE) else None


def mute(campaign: m.Campaign, address: str, on: bool) -> list[Reply]:
    """Mute (or unmute) a member: the table's mail no longer goes to them (or does again);
    the GM is told."""
    if (address in not_mailed(campaign, "muted")) == on:
        return []
    _mark(campaign, "muted", address, on)
    log.info("campaign %s: %s %s", campaign.slug, address, "muted" if on else "unmuted")
    subject = f"{address} {'muted' if on else 'unmuted'} the table's mail"
    text = (f"{address} asked not to get the table's mail (the unsubscribe link of their mail client). They stay "
            f"a member: what they post is still played, and mails for them alone still reach them. They get the "
            f"table's mail again when they send the table a mail with the subject \"unmute\"." if on else
            f"{address} asked to get the table's mail again.")
    notice = _notice(campaign, subject, text)
    return [notice] if notice is not None else []
