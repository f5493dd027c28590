"""The two ways a post reaches a table, for tests that play every system on both: a mail to
the campaign's address, and a forum post arriving by Discourse's mailing-list mode
(tests/forum/discourse_mail.py builds it as Discourse does). Each post returns its outcome
and the mails pbp wrote for it (recipients and every text part), so a test reads what the
players got and what the GM got."""
from __future__ import annotations

import email
import itertools
from dataclasses import dataclass, field
from email import policy

from pbp.flow.context import Context
from pbp.pipeline import process_message
from pbp.rules.dice import FixedDice
from pbp.store import models as m
from tests.forum.discourse_mail import BOT, LIST_ID, SITE, discourse_mail
from tests.helpers import FIXED_NOW, eml, plain_text

CHANNELS = ("mail", "forum")
_POSTS = itertools.count(1)      # every post's id is new, across channels and tables
GM = "gm@pbp.localhost"


@dataclass(frozen=True)
class Mail:
    to: tuple[str, ...]
    subject: str
    parts: tuple[str, ...]

    @property
    def to_players(self) -> bool:
        return any(a != GM for a in self.to)

    @property
    def text(self) -> str:
        return self.parts[0] if self.parts else ""

    def says(self, words: str) -> bool:
        words = words.casefold()
        return words in self.subject.casefold() or any(words in p.casefold() for p in self.parts)


def read_mail(row) -> Mail:
    msg = email.message_from_string(row.raw, policy=policy.default)
    parts = []
    for part in msg.walk():
        if part.get_content_maintype() != "text":
            continue
        flowed = part.get_content_subtype() == "plain" and part.get_param("format") == "flowed"
        parts.append(plain_text(msg) if flowed else part.get_content())
    return Mail(tuple(row.recipients), str(msg["Subject"]), tuple(parts))


class Steady:
    """Dice that never run out: every Fate die a 0, every other die its middle face (a d10's
    5, no hit): for examples sent back, whose throws no test wrote."""

    def fate(self, n: int = 4) -> tuple[int, ...]:
        return (0,) * n

    def die(self, sides: int, n: int) -> tuple[int, ...]:
        return ((sides + 1) // 2,) * n


@dataclass
class Posted:
    outcome: object
    mails: list[Mail]

    @property
    def status(self) -> str:
        return self.outcome.status

    @property
    def text(self) -> str:
        return self.mails[0].text if self.mails else ""

    def for_players(self) -> list[Mail]:
        return [mail for mail in self.mails if mail.to_players]

    def for_gm(self) -> list[Mail]:
        return [mail for mail in self.mails if GM in mail.to]


@dataclass
class Channel:
    """Posts to ``campaign`` by ``kind`` ("mail" or "forum"). On the forum every member has a
    forum name (their address's local part), bound when the channel is opened; the forum
    mails usernames (``names="usernames"``), the one setting under which a forum mail may
    be the GM's (docs/forum.md), so the GM's commands play on both channels."""

    kind: str
    campaign: m.Campaign
    config: object
    count: int = 0
    names: dict = field(default_factory=dict)

    def __post_init__(self):
        if self.kind == "forum":
            from pbp.campaigns import add_member, bind_forum

            bind_forum(self.campaign, site=SITE, list_id=LIST_ID, bot=BOT, names="usernames")
            for member in m.Member.select().where(m.Member.campaign == self.campaign):
                self.names[member.email] = member.email.split("@")[0].replace(".", "_")
                add_member(self.campaign, member.email, member.role, forum_username=self.names[member.email])

    def post(self, who: str, body: str, *, dice: str | object = "") -> Posted:
        """``dice``: the throws as FixedDice reads them, or a dice source (:class:`Steady`)."""
        self.count = next(_POSTS)
        if self.kind == "forum":
            raw = discourse_mail(body, poster=self.names[who], post=100000 + self.count, number=self.count + 1,
                                 random=f"r{self.count}", to=self.campaign.address)
        else:
            raw = eml(body, sender=who, message_id=f"matrix-{self.campaign.slug}-{self.count}@pbp.test",
                      subject="The table", to=self.campaign.address)
        last = m.OutboxMail.select(m.OutboxMail.id).order_by(m.OutboxMail.id.desc()).first()
        outcome = process_message(raw, Context(config=self.config, dice=FixedDice(dice) if isinstance(dice, str) else dice, clock=lambda: FIXED_NOW))
        rows = m.OutboxMail.select().where(m.OutboxMail.id > (last.id if last else 0)).order_by(m.OutboxMail.id)
        return Posted(outcome, [read_mail(r) for r in rows])
