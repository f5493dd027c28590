"""Discourse by mail (path 1 of docs/forum.md): a forum category's mailing-list mails in,
answers by reply-by-email out.

A campaign bound to a forum (``Campaign.forum``: its ``site``, the category's ``list_id``,
the ``bot`` account's username) reads the mails Discourse's mailing-list mode sends the bot
for each new post of that category. What they look like (``From`` the forum's notification
address with the poster's name as display name, ``Reply-To`` a reply-key address,
``Message-ID`` in one of several forms with ``X-Discourse-Post-Id``/``X-Discourse-Topic-Id``,
``List-ID``, ``Auto-Submitted: auto-generated``,
``Precedence: list``) is in docs/forum.md; so is what Discourse refuses when
a reply comes in by mail (:func:`refusals` encodes it, and every forum mail pbp writes is
checked against it).

Inbound (:func:`read_forum_mail`): a mail whose ``List-ID`` is a bound category's and whose
``From`` is the forum's own domain becomes a :class:`~pbp.posts.NeutralPost` whose id is the post's
(``topic/T/P@site``, from the X-Discourse ids or the Message-ID whatever its form: every copy
of a post is the same post and rolls once), whose author is the one member the poster's name
("NAME via SITE": a username or a full name, :func:`members_named`) is, never the GM unless
the forum mails usernames, and whose text is the raw Markdown without Discourse's footers
and without BBCode quotes. The forum's list headers are allowed for that forum
only; a post by the bot itself, echoed back, is never answered; a poster who is no member
is ignored quietly (no notice goes to a forum's no-reply address).

Outbound (:func:`write`): the table's answer to a forum post goes to the post's reply-key
address from the bot's address, Markdown first in a single text part, without
``Auto-Submitted``, ``Precedence`` or anything else the receiver refuses; members who play
by mail (no forum username) get the table's mail as well, with the post's text relayed. The
answer to a post that came by mail goes to the topic of the table's latest forum answer. Private answers (an error, an
absorb prompt, an approval request for the GM) go to that person by mail, never to the topic.
"""
from __future__ import annotations

import logging
import re

import email
import email.policy
from dataclasses import replace
from email.quoprimime import body_encode
from email.utils import getaddresses

from pbp.config import Config
from pbp.i18n import of_settings
from pbp.forum.markdown import own_text
from pbp.mail.adapter import MailArrival
from pbp.mail.compose import campaign_sender, checked_recipients, reply_headers, reply_mail_subject, write_mail
from pbp.mail.reading import Mail
from pbp.policy import sender_unverified
from pbp.posts import (Audience, Binding, Claim, NeutralPost, Reply, Roster, RosterMember,
                       ThreadRef, Written, without_approve_hints)
from pbp.textsafety import MAX_NAME, header_text, is_addr_spec

log = logging.getLogger("pbp.forum")

SOURCE = CHANNEL = "discourse-mail"

#: the Message-IDs Discourse has written for a post: ``<discourse/post/POST@host>`` (current,
#: Email::MessageIdService), ``<topic/TOPIC/POST.RANDOM@host>`` and ``<topic/TOPIC/POST@host>``
#: (older sites), and for a topic's first post ``<topic/TOPIC.RANDOM@host>`` or the
#: canonical ``<topic/TOPIC@host>``
_MESSAGE_ID = re.compile(r"^(?:discourse/post/(?P<post_only>\d+)|topic/(?P<topic>\d+)(?:/(?P<post>\d+))?)"
                         r"(?:\.[^@/]*)?@(?P<host>[^@\s]+)$")
#: the topic's address in ``List-Archive`` (``https://site/t/slug/TOPIC``, ``/t/TOPIC``)
_ARCHIVE = re.compile(r"/t/(?:[^/\s]+/)?(\d+)(?:/\d+)?/?>?\s*$")
_LIST_ID = re.compile(r"<([^<>\s]+)>\s*$")
#: where Discourse's footer begins in the text part: its "reply above this line" marker,
#: the separator before "Visit Topic", the unsubscribe lines
_FOOTER = re.compile(r"^\s*(-{3,}|_{3,}|\(\(.*reply above this line.*\)\)|.*reply above this line.*|"
                     r"\[visit topic\].*|to unsubscribe from these emails.*|visit topic .*)\s*$", re.I)

# --------------------------------------------------------------------------- bindings


def forum_of(campaign) -> dict:
    """The campaign's forum binding ({} when it has none)."""
    return dict(campaign.forum or {}) if campaign is not None else {}


def bound(campaign) -> bool:
    return bool(forum_of(campaign).get("list_id"))


def list_id(mail: Mail) -> str:
    """The id of a ``List-ID: "Site | Category" <category.host>`` header, lower-cased."""
    found = _LIST_ID.search(mail.header("List-Id") or "")
    return found.group(1).lower() if found else ""


def post_key(message_id: str | None) -> tuple[str | None, str | None, str] | None:
    """(topic, post, host) of a Discourse Message-ID, each None where the id does not say:
    ``<discourse/post/P@host>`` names no topic, ``<topic/T.R@host>`` (a first post) no post."""
    found = _MESSAGE_ID.match((message_id or "").strip().strip("<>"))
    if not found:
        return None
    return (found.group("topic"), found.group("post") or found.group("post_only"), found.group("host").lower())


def normal_id(message_id: str | None, topic: str | None = None, first: str | None = None) -> str | None:
    """A Discourse Message-ID as the post's id in pbp, the same for every mail about that
    post whichever format the site writes: ``topic/T/P@host``, a topic's first post
    ``topic/T@host`` (the ids :func:`pbp.forum.byapi.post_id` gives the same posts).
    ``topic`` is the topic when the id does not name it; ``first`` the id of the topic's
    first post, when known (a current id names posts only)."""
    key = post_key(message_id)
    if key is None:
        return None
    their_topic, post, host = key
    topic = their_topic or topic
    if topic is None:
        return None
    if post is None or post == first:
        return f"topic/{topic}@{host}"
    return f"topic/{topic}/{post}@{host}"


def _header_int(mail: Mail, name: str) -> str | None:
    value = (mail.header(name) or "").strip()
    return value if value.isdigit() else None


def post_ids(mail: Mail) -> tuple[str | None, str | None, str | None, str | None]:
    """(topic, post, the topic's first post, host) of one forum mail: from its
    ``X-Discourse-Topic-Id`` and ``X-Discourse-Post-Id`` first, else from its Message-ID, the
    topic's address in ``List-Archive`` and the thread's first id (``References``)."""
    key = post_key(mail.message_id) or (None, None, None)
    chain = [post_key(i) for i in mail.references] or [post_key(mail.in_reply_to)]
    root = chain[0] if chain and chain[0] else None
    archive = _ARCHIVE.search(mail.header("List-Archive") or "")
    topic = (_header_int(mail, "X-Discourse-Topic-Id") or key[0] or (root[0] if root else None)
             or (archive.group(1) if archive else None))
    post = _header_int(mail, "X-Discourse-Post-Id") or key[1]
    if not (mail.in_reply_to or mail.references):
        first = post   # a topic's first post answers nothing (Email::Sender)
    else:
        first = root[1] if root and root[1] and not root[0] else None
    if key[0] and not key[1]:
        first = post   # <topic/T.R@host> is the first post's
    return topic, post, first, key[2] or (root[2] if root else None)


def _from_forum(mail: Mail, forum: dict) -> bool:
    """The mail's From is the forum's (its notification address, or an address at its
    site): anyone can write a List-ID header, not the forum's domain past DKIM."""
    site = (forum.get("site") or "").lower()
    notify = (forum.get("from") or "").lower()
    domain = mail.from_addr.rpartition("@")[2]
    return bool(mail.from_addr) and (mail.from_addr == notify or domain == site or domain.endswith("." + site))


def new_text(text: str) -> str:
    """The post's Markdown without the footer Discourse puts below it."""
    lines = text.splitlines()
    for index, line in enumerate(lines):
        if _FOOTER.match(line):
            lines = lines[:index]
            break
    return "\n".join(lines).strip("\n") + ("\n" if lines else "")


def poster_name(mail: Mail) -> str:
    """The poster's name on a forum mail: the From display name, which Discourse writes
    ``NAME via SITE`` (``email_from``; NAME the full name or the username) and older sites
    as NAME alone; the suffix is cut (the site's title as the List-ID names it, else the
    last " via ...")."""
    name = " ".join(mail.from_name.split())
    title = (mail.header("List-Id") or "").strip().lstrip('"').partition(" | ")[0].strip().strip('"')
    if title and name.casefold().endswith(f" via {title}".casefold()):
        return name[: -len(f" via {title}")].strip()
    head, via, _ = name.rpartition(" via ")
    return head.strip() if via and head.strip() else name


def members_named(roster: Roster, name: str) -> list[RosterMember]:
    """The members a poster's name may be, without regard to case: by forum username, and
    unless the forum mails usernames only (``forum["names"] == "usernames"``) by full name
    (``forum_name``, else the display name). One is the poster; none or two are nobody
    (never guessed)."""
    wanted = name.strip().casefold()
    if not wanted:
        return []
    members = roster.members
    found = [mb for mb in members if (mb.forum_username or "").strip().casefold() == wanted]
    if roster.forum.get("names") != "usernames":
        found += [mb for mb in members if wanted in mb.forum_names and mb not in found]
    return found


# --------------------------------------------------------------------------- inbound


def claimed(mail: Mail, bindings) -> Binding | None:
    """The bound campaign whose forum sent this list mail, or None when it is no bound
    forum's (it then goes the mail adapter's way, whose loop guard refuses list and
    auto-generated mail). ``bindings`` is asked only for a mail with a List-ID."""
    ident = list_id(mail)
    if not ident:
        return None
    campaign = next((c for c in bindings() if bound(c) and forum_of(c)["list_id"].lower() == ident), None)
    if campaign is None or not _from_forum(mail, forum_of(campaign)):
        return None
    return campaign


def read_forum_mail(mail: Mail, roster: Roster, config: Config) -> NeutralPost:
    """The post a bound forum's list mail carries (:func:`claimed` found its campaign,
    whose roster this is)."""
    forum = roster.forum
    topic, post, first, host = post_ids(mail)
    host = host or forum.get("site") or ""
    post_id = (normal_id(f"topic/{topic}/{post}@{host}", first=first) if topic and post
               else normal_id(mail.message_id, topic, first)) or mail.message_id
    parent = next((n for n in (normal_id(i, topic, first) for i in (mail.in_reply_to, *reversed(mail.references)))
                   if n and n != post_id), None)
    reply_to = next((a for a in _addresses(mail.header("Reply-To"))), None)
    name = poster_name(mail)
    named = members_named(roster, name)
    member = named[0] if len(named) == 1 else None
    ignored = ""
    if name and name.casefold() == (forum.get("bot") or "").casefold():
        ignored = "the bot's own post, echoed back by the forum"
    elif reply_to is None or not is_addr_spec(reply_to):
        ignored = "a forum mail without a reply address (not a post pbp can answer)"
    elif len(named) > 1:
        ignored = (f"a forum post by {name!r}, a name {' and '.join(mb.email for mb in named)} both answer to: "
                   "never guessed (give each member a name of their own, docs/forum.md)")
    elif member is not None and member.role == "gm" and forum.get("names") != "usernames":
        # anyone can type any full name on a forum, and a forum's mail comes from the
        # forum's address: unless the forum mails usernames (unique on the site), a forum
        # mail is never the GM's; the GM mails commands from their own address
        ignored = (f"a forum post under the GM's name {name!r}: this forum's mail shows names anyone can "
                   "choose, so a forum post is never the GM's (the GM mails commands from their own address, "
                   "or the forum mails usernames: docs/forum.md)")
        member = None
    if ignored and member is None and named:
        log.warning("forum post %s: %s", post_id, ignored)
    quiet = "" if member is not None else f"a forum post by {name or 'someone unnamed'}, who is no member"
    root = f"topic/{topic}@{host}" if topic else None
    return NeutralPost(
        source=SOURCE,
        id=post_id,
        author=member.email if member is not None else f"{name or 'unknown'} (forum)",
        author_name=name,
        subject=mail.subject,
        new_text=own_text(new_text(mail.new_text)),
        thread=ThreadRef(source=SOURCE, id=mail.message_id, parent=parent,
                         chain=tuple(i for i in (root,) if i and i != post_id), topic=topic, reply_to=reply_to),
        unread=mail.unread,
        campaign=roster.slug,
        ignored=ignored,
        unverified=sender_unverified(mail, config.trust_authserv_id),
        quiet=quiet,
        answer_copies=False,
        public=True,
        date=mail.date,
    )


def _addresses(value: str | None) -> list[str]:
    return [addr.lower() for _, addr in getaddresses([value or ""]) if addr]


# --------------------------------------------------------------------------- outbound


def write(reply: Reply, roster: Roster, *, config, now) -> list[Written]:
    """What a reply in a forum-bound campaign becomes: the table's answer to a forum post
    goes to its reply-key address (:func:`write_forum_mail`) and, as mail, to the members
    who have no forum username; everything else (private answers, a post that came by
    mail, a deadline round with no forum thread) goes by mail."""
    campaign = roster.campaign
    if reply.audience is not Audience.TABLE:
        return [write_mail(reply, campaign, config=config, now=now)]
    thread = reply.thread
    on_forum = thread is not None and thread.source == SOURCE and bool(thread.reply_to)
    # a post that came by mail, or a deadline round of no forum thread: in the topic the
    # table's answers last went to, by that answer's reply key
    forum_thread = thread if on_forum else roster.latest.get(CHANNEL)
    out = []
    if forum_thread is not None and (reply.markdown or reply.text).strip():   # a post of prose alone: no answer there
        out.append(write_forum_mail(replace(reply, thread=forum_thread), campaign, config=config, now=now))
    by_mail = mail_players(roster) if forum_thread is not None else list(reply.to)
    if by_mail:
        out.append(write_mail(replace(reply, to=tuple(by_mail)), campaign, config=config, now=now))
    return out


def mail_players(roster: Roster) -> list[str]:
    """The members who play by mail: those without a forum username."""
    return sorted(mb.email for mb in roster.members if not (mb.forum_username or "").strip())


def write_forum_mail(reply: Reply, campaign, *, config, now) -> Written:
    """The table's answer as a mail Discourse turns into a reply in the topic: to the
    reply-key address of the post answered, from the bot's address (the key's user), the
    Markdown in a single text part, result first; threading headers so the bot's own
    mail client keeps the topic together; no ``Auto-Submitted``, no ``Precedence``, none
    of the words Discourse's receiver takes for an auto-reply (:func:`refusals`)."""
    sender = campaign_sender(campaign, config)
    to = checked_recipients([reply.thread.reply_to], campaign)
    subject = reply_mail_subject(reply, campaign.name, of_settings(getattr(campaign, "settings", None)))
    name = header_text(campaign.name, MAX_NAME)
    if _AUTO_WORDS.search(subject) or _AUTO_SUBJECT.search(subject):  # a topic or campaign so named
        subject = f"Re: topic {reply.thread.topic or ''}".strip()
    if _AUTO_WORDS.search(name):
        name = "pbp"
    headers, message_id, parent = reply_headers(reply, name=name, sender=sender, to=to, subject=subject,
                                                config=config, now=now)
    headers += [("X-PBP-Campaign", header_text(campaign.slug, 63))]
    topic = header_text(reply.thread.topic, 20) if reply.thread.topic else None
    if topic:
        headers += [("X-PBP-Topic", topic)]
    text = without_approve_hints(reply.markdown or reply.text)   # a post in the topic, no mail thread
    if len(text.strip()) < MIN_POST_LENGTH:   # Discourse refuses a post this short
        text = text.rstrip("\n") + f"\n\n*({name})*\n"
    raw = markdown_mail(headers, text)
    problems = refusals(raw.encode("utf-8"), bot=sender)
    if problems:  # a bug in this writer: never hand Discourse a mail it would refuse
        raise ValueError(f"a forum reply Discourse would refuse: {'; '.join(problems)}")
    # a later answer in this topic (a deadline round, a post by mail) goes to the same reply key
    thread = ThreadRef(source=SOURCE, id=parent, topic=topic, reply_to=to[0]) if topic and to else None
    return Written(id=message_id.strip("<>"), sender=sender, recipients=to, subject=subject, in_reply_to=parent,
                   raw=raw, channel=CHANNEL, thread=thread)


def markdown_mail(headers: list[tuple[str, str]], markdown: str) -> str:
    """A single-part text/plain mail, UTF-8 quoted-printable, holding Markdown as written
    (not ``format=flowed``: Discourse reads the part as the post's raw Markdown)."""
    lines = [f"{name}: {value}" for name, value in headers]
    lines += ["MIME-Version: 1.0", 'Content-Type: text/plain; charset="utf-8"',
              "Content-Transfer-Encoding: quoted-printable", "",
              body_encode(markdown.replace("\r\n", "\n").encode("utf-8").decode("latin-1"), eol="\n").rstrip("\n"), ""]
    return "\n".join(lines)


class ForumMailAdapter:
    """Discourse by mail in the adapter table (:mod:`pbp.adapters`), before plain mail:
    it claims a bound category's list mail and serves a campaign bound to a category."""

    channel = CHANNEL
    markdown = True
    needs_members = True

    def claims(self, arrival, bindings, config: Config) -> Claim | None:
        if not isinstance(arrival, MailArrival):
            return None
        campaign = claimed(arrival.mail(config), bindings)
        return Claim(campaign.slug) if campaign is not None else None

    def read(self, arrival: MailArrival, roster: Roster | None, config: Config) -> NeutralPost:
        return read_forum_mail(arrival.mail(config), roster, config)

    def serves(self, campaign: Binding, config: Config) -> bool:
        return bound(campaign)

    def write(self, reply: Reply, roster: Roster, *, config: Config, now) -> list[Written]:
        return write(reply, roster, config=config, now=now)


# --------------------------------------------------------------------------- what Discourse refuses

#: Discourse's ``Email::Receiver#is_auto_generated?``: any of these words anywhere in the
#: header block, a Precedence of list, junk, bulk or auto_reply, an automatic From
_AUTO_WORDS = re.compile(r"auto[\-_]?(response|submitted|replied|reply|generated|respond)|autoresponder|autorespond",
                         re.I)
_AUTO_PRECEDENCE = re.compile(r"list|junk|bulk|auto_reply", re.I)
_AUTO_FROM = re.compile(r"(mailer[\-_]?daemon|post[\-_]?master|no[\-_]?reply)@", re.I)
_AUTO_SUBJECT = re.compile(r"^\s*(Auto:|Automatic reply|Autosvar|Automatisk svar|Automatische Antwort|"
                           r"Automatyczna odpowiedź|Automaattinen vastaus)", re.I)
#: a line after which Discourse's trimmer drops the rest (a signature, a delimiter)
_DELIMITER = re.compile(r"^(-- |--|-{3,}|_{3,}|={3,})\s*$")
MIN_POST_LENGTH = 20


def refusals(raw: bytes, *, bot: str) -> list[str]:
    """Why Discourse's mail receiver (reply-by-email, ``block_auto_generated_emails`` on)
    would refuse or cut ``raw`` as a reply from the ``bot`` account, as listed in
    docs/forum.md: empty when it would take it whole."""
    problems = []
    head, _, _ = raw.partition(b"\n\n")
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    sender = (msg["From"].addresses[0].addr_spec.lower() if msg["From"] and msg["From"].addresses else "")
    if sender != bot.lower():
        problems.append(f"From is {sender or 'missing'}, not the bot's address {bot}")
    to = [a.addr_spec.lower() for a in (msg["To"].addresses if msg["To"] else ())]
    if sender in to:
        problems.append("From is the reply address")
    found = _AUTO_WORDS.search(head.decode("utf-8", "replace"))
    if found:
        problems.append(f"the header block holds {found.group(0)!r} (taken for an auto-reply)")
    if msg["Precedence"] and _AUTO_PRECEDENCE.search(str(msg["Precedence"])):
        problems.append(f"Precedence: {msg['Precedence']}")
    if _AUTO_FROM.search(str(msg["From"] or "")):
        problems.append("an automatic From address")
    if _AUTO_SUBJECT.search(str(msg["Subject"] or "")):
        problems.append("an auto-reply's subject")
    part = msg.get_body(("plain",))
    text = part.get_content() if part is not None else ""
    lines = text.splitlines()
    if any(line.startswith(">") for line in lines):
        problems.append("a quoted line (trimmed by the receiver)")
    cut = next((i for i, line in enumerate(lines) if _DELIMITER.match(line)), None)
    if cut is not None:
        problems.append(f"line {cut + 1} is a delimiter; the receiver drops what follows")
    if len(text.strip()) < MIN_POST_LENGTH:
        problems.append(f"shorter than {MIN_POST_LENGTH} characters")
    return problems
