"""The neutral values the pipeline speaks: a post that came in and a reply to go out.

They name no MIME, no Message-ID header and no mailbox. An adapter turns what it reads
into a :class:`NeutralPost` (the mail adapter, :mod:`pbp.mail.adapter`: raw bytes, with its loop,
auto-reply and sender policy; the Discourse-by-mail adapter, :mod:`pbp.forum.bymail`: a
forum's mailing-list mail) and turns each :class:`Reply` the pipeline makes into what its
transport carries (a MIME mail with threading headers, a forum post). The pipeline
(:mod:`pbp.pipeline`) resolves posts and produces replies, as httpx keeps its transports
behind ``handle_request(Request) -> Response``.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass, field
from datetime import datetime


#: what a request to the GM says of the bare answer, where a reply by mail reads it
#: (pbp.pipeline's BARE_ANSWERS); an adapter whose replies are no mail thread (a forum
#: topic, a forum's private message) leaves it out: there it would not work
BARE_APPROVE_HINT = ' (a bare "approve" in a reply to this mail works too)'


class Audience(enum.Enum):
    """Who a reply is for: everyone at the table, one player, or the GM(s)."""

    TABLE = "table"
    PLAYER = "player"
    GM = "gm"


@dataclass(frozen=True)
class ThreadRef:
    """Where a post sits, or where a reply goes, in its source's own ids.

    ``source`` names the adapter (``mail``, ``discourse-mail``); ``id`` is the post's id
    there (a mail's Message-ID; a forum post's key); ``parent`` what it answers (a mail's
    In-Reply-To, the forum post replied to); ``chain`` the ids above it, oldest first (a
    mail's References); ``topic`` a forum's topic (None for mail); ``reply_to`` where an
    answer to it is sent when that is not its author (a forum's reply-key address).
    """

    source: str
    id: str | None = None
    parent: str | None = None
    chain: tuple[str, ...] = ()
    topic: str | None = None
    reply_to: str | None = None


@dataclass(frozen=True)
class Forwarded:
    """What an adapter found of another post carried inside this one: the command text of
    a forward written inline (``inline``, with the original ``sender`` when it says), and
    the ids of attached posts. :mod:`pbp.copies` looks them up."""

    inline: bool = False
    sender: str | None = None
    attached: tuple[str, ...] = ()


@dataclass(frozen=True)
class NeutralPost:
    """One post as the pipeline reads it.

    ``author`` is the key the campaign's members are matched by (a mail address, or for a
    forum the member's address found from the poster's name); ``author_name`` what the
    source calls them; ``new_text`` the author's own new words (quotes and footers cut),
    the only text commands are read from; ``thread`` where it sits. ``unread`` says why the
    body was not read (too big, nested too deep), "" when it was. ``routes`` are the
    addresses (or other names) a campaign may be found by; ``campaign`` a campaign the
    adapter already knows it is for. ``unverified`` is the adapter's reason not to trust
    the author (a mail the receiving server did not authenticate). ``quiet`` marks list or
    bulk mail, never answered when its author is not a member. ``ignored`` is the
    adapter's reason never to answer it at all (pbp's own mail, an auto-reply, a bounce).
    ``answer_copies``: a second copy of it (the same id) is answered with a note, as a
    person who resends a mail is; False where copies are the source's doing (a forum
    mails each post to several of its members). ``public``: everyone at the table reads
    the post itself (a forum topic shows it), so a command that keeps something from the
    players (``hidden``) is refused in it, whoever wrote it.
    """

    source: str
    id: str
    author: str
    subject: str
    new_text: str
    thread: ThreadRef
    author_name: str = ""
    unread: str = ""
    routes: tuple[str, ...] = ()
    campaign: str | None = None
    unverified: str = ""
    quiet: str = ""
    ignored: str = ""
    answer_copies: bool = True
    public: bool = False
    forwarded: Forwarded = field(default_factory=Forwarded)
    date: datetime | None = None

    @property
    def replied_to(self) -> str | None:
        """The id of what this post answers, in its source."""
        return self.thread.parent

    @property
    def thread_root(self) -> str | None:
        """The first id of the thread it belongs to (its topic, or the first mail)."""
        return self.thread.chain[0] if self.thread.chain else None


@dataclass(frozen=True)
class Reply:
    """One reply the pipeline made, before any adapter has written it.

    ``kind`` is what it is (``result``, ``tell``, ``error``, ``stranger``, ``duplicate``);
    ``audience`` who may read it; ``to`` the members' keys (addresses) it goes to;
    ``thread`` the post it answers (None: a thread of its own, as a deadline round's first
    mail); ``subject`` the thread's subject as the pipeline chose it (None: the adapter
    makes one from the thread); ``thread_subject`` the subject the thread began with;
    ``text`` and ``html`` the rendered body, ``markdown`` the same for a forum.
    ``refs`` are the play-state references a reply to it answers (a compel, an open roll):
    the adapter's id for it is written into the thread map under them.
    """

    kind: str
    audience: Audience
    to: tuple[str, ...]
    text: str
    html: str
    thread: ThreadRef | None = None
    subject: str | None = None
    thread_subject: str | None = None
    markdown: str = ""
    refs: tuple[str, ...] = ()


@dataclass(frozen=True)
class Written:
    """What an adapter made of a reply, ready for the outbox: the id it goes out under
    (kept when it is sent again), the envelope and the bytes as its transport takes them."""

    id: str
    sender: str
    recipients: list[str]
    subject: str
    in_reply_to: str | None
    raw: str
