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
from typing import Any, Protocol

from pbp.i18n import LANGUAGES, N_, language


#: what a request to the GM says of the bare answer, where a reply by mail reads it
#: (pbp.pipeline's BARE_ANSWERS); an adapter whose replies are no mail thread (a forum
#: topic, a forum's private message) leaves it out: there it would not work
BARE_APPROVE_HINT = N_(' (a bare "approve" in a reply to this mail works too)')


def without_approve_hints(text: str) -> str:
    """A reply as a post in a forum topic, no mail thread: :data:`BARE_APPROVE_HINT` left
    out, in every language pbp speaks."""
    for code in LANGUAGES:
        text = text.replace(language(code).gettext(BARE_APPROVE_HINT), "")
    return text


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
class RecipientStatus:
    """One recipient of a delivery status report (RFC 3464): the address, the ``action``
    (failed, delayed, delivered, relayed, expanded), the ``status`` code (5.1.1) and the
    server's diagnostic."""

    address: str
    action: str
    status: str = ""
    diagnostic: str = ""

    @property
    def failed(self) -> bool:
        return self.action == "failed"


@dataclass(frozen=True)
class DeliveryReport:
    """What a bounce says of one of pbp's mails: its Message-ID (``original_id``, None
    when the report does not carry it), each recipient's status, and who reported."""

    original_id: str | None
    recipients: tuple[RecipientStatus, ...] = ()
    reporter: str = ""


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
    account: int | None = None
    report: DeliveryReport | None = None

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
    (kept when it is sent again), the envelope and the bytes as its transport takes them.
    ``channel`` names the adapter that wrote it (the outbox keeps it, and delivery maps it
    to its sender); ``thread`` is where a later reply in the same thread goes (the outbox
    keeps it, so a thread is found again from the stored reference, never from the bytes)."""

    id: str
    sender: str
    recipients: list[str]
    subject: str
    in_reply_to: str | None
    raw: str
    channel: str = "mail"
    thread: ThreadRef | None = None


def thread_to_dict(thread: ThreadRef | None) -> dict | None:
    """A thread reference as the outbox stores it (JSON): what it has, not its empty fields
    nor the usual source, "mail" (:func:`thread_from_dict` reads either form; issue 23:
    55 bytes less a reply)."""
    if thread is None:
        return None
    whole = {"source": thread.source, "id": thread.id, "parent": thread.parent, "chain": list(thread.chain),
             "topic": thread.topic, "reply_to": thread.reply_to}
    kept = {k: v for k, v in whole.items() if v is not None and v != [] and not (k == "source" and v == "mail")}
    return kept or {"source": thread.source}     # never {}, which reads as no thread


def thread_from_dict(data: dict | None) -> ThreadRef | None:
    """The thread reference :func:`thread_to_dict` stored (None for none)."""
    if not data:
        return None
    return ThreadRef(source=data.get("source") or "mail", id=data.get("id"), parent=data.get("parent"),
                     chain=tuple(data.get("chain") or ()), topic=data.get("topic"), reply_to=data.get("reply_to"))


# --------------------------------------------------------------------------- what adapters are given


@dataclass(frozen=True)
class RosterMember:
    """One member as an adapter sees them: the key they are matched by (their address),
    their role and what the forum calls them. A value: adapters read no database."""

    email: str
    role: str = "player"
    display_name: str = ""
    forum_username: str = ""
    forum_name: str = ""
    forum_user_id: int | None = None

    @property
    def forum_names(self) -> set[str]:
        """The names they answer to on a forum, case-folded: the username and the full
        name (``forum_name``, else pbp's display name of them)."""
        return {n.strip().casefold() for n in (self.forum_username, self.forum_name or self.display_name)
                if n and n.strip()}


@dataclass(frozen=True)
class Binding:
    """What a campaign is, to an adapter: its slug, name, address and forum binding
    (``Campaign.forum``: site, list_id, bot, category_id, names; {} for none)."""

    slug: str
    name: str = ""
    address: str = ""
    forum: dict = field(default_factory=dict)
    language: str = "en"        # the campaign's (pbp.i18n): the words of the subjects adapters write

    @property
    def settings(self) -> dict:
        """The settings :func:`pbp.i18n.of_settings` reads, as a campaign's."""
        return {"language": self.language}


@dataclass(frozen=True)
class Roster:
    """A campaign and its members, handed to an adapter (the store loads it) so that no
    adapter reads the database. ``latest`` is, per channel, the thread of the table's
    latest answer there (from the outbox's stored references): a forum answers a post
    that came by mail in the topic the table last answered in."""

    campaign: Binding
    members: tuple[RosterMember, ...] = ()
    latest: dict = field(default_factory=dict)

    @property
    def slug(self) -> str:
        return self.campaign.slug

    @property
    def settings(self) -> dict:
        return self.campaign.settings

    @property
    def name(self) -> str:
        return self.campaign.name

    @property
    def address(self) -> str:
        return self.campaign.address

    @property
    def forum(self) -> dict:
        return dict(self.campaign.forum or {})

    def member(self, email: str) -> RosterMember | None:
        return next((mb for mb in self.members if mb.email == email), None)


@dataclass(frozen=True)
class Claim:
    """An adapter's answer to "is this arrival yours?": the campaign it is for, when the
    adapter knows from the arrival itself (a forum binding), else None."""

    campaign: str | None = None


class Adapter(Protocol):
    """A post adapter (the table of them is :mod:`pbp.adapters`, asked in one place).

    ``channel`` names it, on the outbox rows it writes and in delivery's map of senders;
    ``markdown`` says its posts and answers are Markdown (a forum); ``needs_members`` that
    its ``write`` reads the roster's members (else it is given the campaign alone). Inbound, ``claims``
    says whether an arrival (raw mail bytes, a forum's polled post) is its own, from the
    campaigns' bindings alone, and ``read`` makes the :class:`NeutralPost` of it with the
    claimed campaign's roster. Outbound, ``serves`` says whether a campaign's replies go
    its way, and ``write`` turns a :class:`Reply` into :class:`Written` rows, each with
    its channel and the thread a later reply in it answers (``Written.thread``)."""

    channel: str
    markdown: bool
    needs_members: bool

    def claims(self, arrival: Any, bindings: tuple[Binding, ...], config: Any) -> Claim | None: ...

    def read(self, arrival: Any, roster: Roster | None, config: Any) -> NeutralPost: ...

    def serves(self, campaign: Binding, config: Any) -> bool: ...

    def write(self, reply: Reply, roster: Roster, *, config: Any, now: datetime) -> list[Written]: ...
