"""The mail adapter's inbound half: raw bytes in, a neutral :class:`~pbp.posts.NeutralPost` out.

Everything that is mail and not play lives here or below: MIME and charsets
(:mod:`pbp.mail.reading`), the loop, auto-reply and bounce policy and sender
authentication (:mod:`pbp.policy`), which addresses route a mail, and what a forward
carries; and outbound, the reply written as a mail (:mod:`pbp.mail.compose`). It is the
last row of the adapter table (:mod:`pbp.adapters`): a forum's list mail is claimed by the
forum's own adapter before it.
"""
from __future__ import annotations

from pbp.config import Config
from pbp.mail.forwards import attached_ids, forwarded_inline
from pbp.mail.reading import Mail, read_headers, read_message
from pbp.policy import auto_reply_reason, bulk_reason, is_own_mail, sender_unverified
from pbp.mail.bounces import is_report, read_report
from pbp.mail.compose import CHANNEL, write_mail
from pbp.posts import Binding, Claim, Forwarded, NeutralPost, Reply, Roster, ThreadRef, Written

SOURCE = CHANNEL


def read_mail(raw: bytes, config: Config, size: int | None = None) -> Mail:
    """The mail, with its body read only when the raw bytes are within the size limit
    (checked before any decoding); over it, only the headers, to route the mail and tell
    its author. ``size`` is the size the mailbox reported when ``raw`` is just the headers."""
    size = max(len(raw), size or 0)
    limit = config.limits.max_message_bytes
    if size > limit:
        return read_headers(raw, f"the message is {size:,} bytes; this table accepts at most {limit:,}")
    return read_message(raw)


def routes(mail: Mail) -> tuple[str, ...]:
    """The addresses a campaign may be found by: To, Cc and Delivered-To."""
    delivered = mail.header("Delivered-To")
    extra = [delivered.strip().strip("<>")] if delivered else []
    return tuple(a.lower() for a in (*mail.to, *mail.cc, *extra))


def post_from_mail(mail: Mail, raw: bytes, config: Config) -> NeutralPost:
    """The post a mail is: its author is the From address, its id the Message-ID, its
    thread In-Reply-To and References; ``ignored`` when pbp must never answer it (its own
    mail, an auto-reply, a bounce)."""
    inline, sender = forwarded_inline(mail)
    return NeutralPost(
        source=SOURCE,
        id=mail.message_id,
        author=mail.from_addr,
        author_name=mail.from_name,
        subject=mail.subject,
        new_text=mail.new_text,
        thread=ThreadRef(source=SOURCE, id=mail.message_id, parent=mail.in_reply_to, chain=thread_chain(mail)),
        unread=mail.unread,
        routes=routes(mail),
        ignored=is_own_mail(mail, config) or auto_reply_reason(mail),
        unverified=sender_unverified(mail, config.trust_authserv_id),
        quiet=bulk_reason(mail),
        forwarded=Forwarded(inline=inline, sender=sender, attached=tuple(attached_ids(raw))),
        date=mail.date,
        report=read_report(raw) if is_report(mail.header("Content-Type")) else None,
    )




def thread_chain(mail) -> tuple[str, ...]:
    """The ids of the thread a mail is in, oldest first: its References; a mail with
    In-Reply-To alone (some clients write no References) is in its parent's thread, as RFC
    5322 (3.6.4) has a reply build References from a parent's In-Reply-To."""
    if mail.references:
        return tuple(mail.references)
    return (mail.in_reply_to,) if mail.in_reply_to else ()


class MailArrival:
    """Raw mail bytes as they arrived (``size``: what the mailbox said, when ``raw`` is the
    headers alone), read once whichever adapter asks (:mod:`pbp.adapters` asks the forum's
    mail adapter, then this one)."""

    def __init__(self, raw: bytes, size: int | None = None) -> None:
        self.raw = raw
        self.size = size
        self._mail: Mail | None = None

    def mail(self, config: Config) -> Mail:
        if self._mail is None:
            self._mail = read_mail(self.raw, config, self.size)
        return self._mail


class MailAdapter:
    """The adapter for plain mail, last in the table: it claims any mail no other adapter
    claimed and serves any campaign no other adapter serves."""

    channel = CHANNEL
    markdown = False
    needs_members = False

    def claims(self, arrival, bindings, config: Config) -> Claim | None:
        return Claim() if isinstance(arrival, MailArrival) else None

    def read(self, arrival: MailArrival, roster: Roster | None, config: Config) -> NeutralPost:
        return post_from_mail(arrival.mail(config), arrival.raw, config)

    def serves(self, campaign: Binding, config: Config) -> bool:
        return True

    def write(self, reply: Reply, roster: Roster, *, config: Config, now) -> list[Written]:
        return [write_mail(reply, roster.campaign, config=config, now=now)]
