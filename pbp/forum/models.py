"""The neutral value objects a forum adapter yields and takes.

They name no HTTP, no JSON and no Discourse field layout, so the coming post-speaking
pipeline (issue 12, item 1) can consume them beside the mail adapter's posts: an
``InboundPost`` is what arrived (with ``key`` the identity that makes a post roll at most
once, and ``edited`` so an edit never rolls again); an ``OutboundReply`` is what to say and to
whom (the table's topic, or privately to one player or the GM).
"""
from __future__ import annotations

import enum
from dataclasses import dataclass
from datetime import datetime


class ForumAudience(enum.Enum):
    """Who may read a reply: everyone at the table, or one person privately."""

    TABLE = "table"     # a reply in the table's topic
    PLAYER = "player"   # a private message to one player (an absorb prompt, a hidden result)
    GM = "gm"           # a private message to the GM (an approval request, hidden stats)


@dataclass(frozen=True)
class InboundPost:
    """One post read from a forum.

    ``site`` is the forum's host (``forum.example.org``), ``post_id`` its id there (the
    identity: ids only grow and never come back), ``post_number`` its place in the topic,
    ``reply_to_post_number`` the post it answers in the same topic (None for none),
    ``raw`` the author's Markdown as written, ``version`` the forum's edit counter and
    ``edited`` true for an edit of a post already made (``version`` > 1 or a ``post_edited``
    event); ``user_id`` the forum's id of the author's account (None where the forum did
    not say): the member is bound to it, since a username can be freed and taken anew.
    """

    source: str
    site: str
    post_id: int
    topic_id: int
    post_number: int
    reply_to_post_number: int | None
    username: str
    raw: str
    version: int
    edited: bool
    created_at: datetime
    category_id: int | None = None
    private: bool = False
    user_id: int | None = None

    @property
    def key(self) -> tuple[str, str, int]:
        """What identifies the post wherever it is seen again: (source, site, post id)."""
        return (self.source, self.site, self.post_id)


@dataclass(frozen=True)
class OutboundReply:
    """A reply to post on a forum.

    For ``Audience.TABLE``, ``topic_id`` is the table's topic and ``reply_to_post_number`` the
    post answered. For ``PLAYER`` and ``GM``, ``recipient`` is that person's forum username and
    the reply opens a private message titled ``title``; ``topic_id`` is never used for those, so
    a private answer cannot land in the table's topic by mistake.
    """

    audience: ForumAudience
    raw: str
    topic_id: int | None = None
    reply_to_post_number: int | None = None
    recipient: str | None = None
    title: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.audience, ForumAudience):
            raise ValueError(f"audience must be an Audience, not {self.audience!r}")
        if not isinstance(self.raw, str) or not self.raw.strip():
            raise ValueError("a reply needs some text")
        if self.audience is ForumAudience.TABLE:
            if not _positive(self.topic_id):
                raise ValueError("a reply to the table needs the topic id")
            if self.recipient is not None:
                raise ValueError("a reply to the table has no recipient")
        else:
            if not isinstance(self.recipient, str) or not self.recipient.strip():
                raise ValueError(f"a private reply ({self.audience.value}) needs the recipient's username")
            if "," in self.recipient:
                raise ValueError("a private reply goes to exactly one person")
        if self.reply_to_post_number is not None and not _positive(self.reply_to_post_number):
            raise ValueError("reply_to_post_number must be a positive post number")

    @property
    def private(self) -> bool:
        return self.audience is not ForumAudience.TABLE


@dataclass(frozen=True)
class SentPost:
    """What the forum made of an ``OutboundReply``: the new post's id and place."""

    post_id: int
    topic_id: int
    post_number: int


def _positive(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0
