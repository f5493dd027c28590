"""The mail adapter's outbound half: a neutral :class:`~pbp.posts.Reply` written as a MIME
mail (text and HTML parts, threading headers), and the text conventions of pbp's mails
(``format=flowed``, "Re: [Campaign] ..." subjects).

It knows nothing of the rules or the templates: :mod:`pbp.render` makes the body, the
pipeline says who the reply is for and what it answers, this writes the mail.
"""
from __future__ import annotations

import logging
import re
import uuid
from datetime import timezone
from email.header import Header
from email.utils import format_datetime, formataddr

from pbp.i18n import ENGLISH, Language, of_settings
from pbp.mail.reading import SYNTHETIC_ID_DOMAIN
from pbp.posts import Audience, Reply, ThreadRef, Written
from pbp.textsafety import MAX_NAME, MAX_SUBJECT, header_text, is_addr_spec, is_msg_id, shorten

log = logging.getLogger("pbp.render")

#: the mail adapter's channel (and its posts' source), on the outbox rows it writes
CHANNEL = "mail"


#: Longest line of the plain text part as sent (RFC 5322's "SHOULD" of 78 characters).
TEXT_WIDTH = 78
_STUFF = (" ", ">", "From ")


def flow(text: str, width: int = TEXT_WIDTH) -> str:
    """Plain text as ``format=flowed`` (RFC 3676): a line longer than ``width`` is cut at
    spaces into lines that end in a space (soft breaks), which a phone's client joins and
    reflows to its screen, and other clients show as they are, within ``width``. Lines
    starting with a space, ">" or "From " are space-stuffed, so the working table keeps its
    indentation. :func:`pbp.mail.decoding.unflow` gives back the text exactly (the text
    comes from :func:`tidy`: no line ends in a space of its own)."""
    out: list[str] = []
    for line in text.split("\n"):
        while len(line) + line.startswith(_STUFF) > width:
            indent = len(line) - len(line.lstrip(" "))
            cut = line.rfind(" ", indent + 1, width - 1)   # the piece keeps its space: <= width - 1
            if cut < 0:
                cut = line.find(" ", width - 1)             # a word longer than the line: cut after it
                if cut < 0:
                    break
            piece, line = line[:cut + 1], line[cut + 1:]
            out.append(" " + piece if piece.startswith(_STUFF) else piece)
        out.append(" " + line if line.startswith(_STUFF) else line)
    return "\n".join(out)


def plain_text(msg) -> str:
    """The plain text of a reply (an ``email.message``) as pbp wrote it: its flowed lines
    joined again, for printing (``pbp process``, the demo)."""
    from pbp.mail.decoding import unflow

    part = msg.get_body(("plain",))
    text = part.get_content()
    return unflow(text.replace("\r\n", "\n")) if (part.get_param("format") or "").lower() == "flowed" else text


_QP_UNSAFE = re.compile(r"[^\t\n\r -<>-~]")      # all but printable ASCII (not "="), tab and line ends
_QP_CODES = {chr(i): f"={i:02X}" for i in range(256)}


def quoted_printable(body: str) -> str:
    """What ``email.quoprimime.body_encode(body, eol="\n")`` gives, character for character
    (``tests/mail`` compares them): ``body`` holds code points below 256 (UTF-8 bytes as
    latin-1). Its characters are quoted by one regular expression, not ``str.translate``
    with a 256-entry table, which was most of writing a reply's MIME (issue 23); the lines
    are then broken at 76 characters as there."""
    if not body:
        return body
    body = _QP_UNSAFE.sub(lambda found: _QP_CODES[found.group()], body)
    out: list[str] = []
    for line in body.splitlines():
        start, laststart = 0, len(line) - 1 - 76
        while start <= laststart:
            stop = start + 75
            if line[stop - 2] == "=":           # never break an escape
                out.append(line[start:stop - 1])
                start = stop - 2
            elif line[stop - 1] == "=":
                out.append(line[start:stop])
                start = stop - 1
            else:
                out.append(line[start:stop] + "=")
                start = stop
        if line and line[-1] in " \t":          # whitespace at a line's end is quoted
            room = start - laststart
            if room >= 3:
                end = _QP_CODES[line[-1]]
            elif room == 2:
                end = line[-1] + "=\n"
            else:
                end = "=\n" + _QP_CODES[line[-1]]
            out.append(line[start:-1] + end)
        else:
            out.append(line[start:])
    if body[-1] in "\r\n":
        out.append("")
    return "\n".join(out)


def mime_alternative(headers: list[tuple[str, str]], text: str, html: str) -> str:
    """A multipart/alternative mail (text, then HTML), both parts UTF-8 quoted-printable;
    the text ``format=flowed`` (:func:`flow`), so no line of it is longer than 78 characters.

    Written directly rather than through ``email.message``: our header values are already
    encoded (and folded where long), and the generator's header folding cost more than
    everything else in a reply. ``tests/test_render.py`` reads the result back with the
    standard parser."""
    boundary = f"=_pbp_{uuid.uuid4().hex}"
    lines = [f"{name}: {value}" for name, value in headers]
    lines += ["MIME-Version: 1.0", f'Content-Type: multipart/alternative;\n boundary="{boundary}"', "",
              "This is a multi-part message in MIME format.", ""]
    for subtype, body in (("plain; charset=\"utf-8\"; format=flowed", flow(text)), ("html; charset=\"utf-8\"", html)):
        lines += [f"--{boundary}", f'Content-Type: text/{subtype}',
                  "Content-Transfer-Encoding: quoted-printable", "",
                  # quoprimime encodes code points below 256 as bytes: hand it UTF-8 bytes as latin-1
                  quoted_printable(body.replace("\r\n", "\n").encode("utf-8").decode("latin-1")).rstrip("\n"), ""]
    lines += [f"--{boundary}--", ""]
    return "\n".join(lines)


#: References kept in a reply: the thread's first id and the latest ones (RFC 5537
#: section 3.4.4 trims so; RFC 5322 section 3.6.4 has the parent's id last).
MAX_REFERENCES = 20
#: Longest subject pbp writes (before encoding): under RFC 5322's 998 characters a line
#: whatever the campaign name and suffix, and still readable in a mail list.
MAX_REPLY_SUBJECT = 2 * MAX_SUBJECT


#: What pbp itself once added to a subject (" — for the GM only"; before threads kept their
#: subject, " — Charles, defend by Tue 18:00 UTC"): cut when a reply to such a mail comes
#: back, while a player's own " — part 2" stays.
OUR_SUFFIX = re.compile(r" — (for the GM only|só para o MJ|[^—]*, (defend|absorb|compel #\d+) by [^—]*)$")


def reply_subject(subject: str, campaign_name: str, suffix: str = "") -> str:
    """"Re: [Campaign] subject": one Re:, one campaign tag. The incoming subject is
    cleaned and shortened to :data:`~pbp.textsafety.MAX_SUBJECT` (a 5,000-character
    subject gets a short reply subject, not a 5,000-character header)."""
    base = header_text(subject, 10 * MAX_SUBJECT)
    while base[:3].lower() in ("re:", "aw:", "sv:"):
        base = base[3:].strip()
    base = header_text(OUR_SUFFIX.sub("", base), MAX_SUBJECT)
    tag = f"[{header_text(campaign_name, MAX_NAME)}]"
    if tag.lower() not in base.lower():
        base = f"{tag} {base}".strip()
    return f"Re: {base}{suffix}"


def encode_header(name: str, value: str) -> str:
    """A header value as written: ASCII as it is when the line is short, otherwise RFC 2047
    encoded words (UTF-8) or ASCII folded at spaces, each line well under 998 characters."""
    if value.isascii() and len(name) + len(value) < 76:
        return value
    return Header(value, "utf-8" if not value.isascii() else "us-ascii", header_name=name).encode()


def threading(thread: ThreadRef | None) -> tuple[str | None, list[str]]:
    """The ids to write into In-Reply-To and References: only ids that :func:`is_msg_id`
    accepts (never raw 8-bit bytes or a broken id), each once, the first and the last
    :data:`MAX_REFERENCES` - 1 when the chain is longer. A post without a usable id of its
    own (none, or one too long to keep: it has a synthetic id) is answered unthreaded."""
    if thread is None:
        return None, []
    own = thread.id and not thread.id.endswith("@" + SYNTHETIC_ID_DOMAIN)  # not one pbp made up
    parent = thread.id if own and is_msg_id(thread.id) else None
    refs = [r for r in dict.fromkeys([*thread.chain, *([parent] if parent else [])]) if is_msg_id(r)]
    if len(refs) > MAX_REFERENCES:
        refs = refs[:1] + refs[-(MAX_REFERENCES - 1):]
    return parent, refs


def reply_mail_subject(reply: Reply, campaign_name: str, language: Language = ENGLISH) -> str:
    """The subject a reply goes out with: "Re: [Campaign] ..." of the subject its thread
    began with (``reply.thread_subject``, :func:`pbp.flow.send.thread_subject`), so a reply
    to a private mail, or a subject edited mid-thread, does not rename the table's thread;
    a reply with a subject of its own (a private tell) keeps it, tagged; a deadline round
    without a thread is "[Campaign] Deadlines" (in the campaign's ``language``)."""
    name = header_text(campaign_name, MAX_NAME)
    subject = reply.subject
    if subject is None:
        not_applied = language.gettext("not applied")
        suffix = f" ({not_applied})" if reply.kind == "error" else ""
        base = reply.thread_subject
        deadlines = language.gettext("Deadlines")
        subject = reply_subject(base, name, suffix) if base is not None else f"[{name}] {deadlines}"
    elif f"[{name}]" not in subject:
        subject = f"[{name}] {subject}"
    return header_text(subject, MAX_REPLY_SUBJECT)


def checked_recipients(to, campaign) -> list[str]:
    """The addresses of ``to`` that are addr-specs; the others are dropped and logged."""
    good = [a for a in to if is_addr_spec(a)]
    if len(good) != len(to):
        log.warning("campaign %s: not writing to invalid address(es) %s", campaign.slug,
                    ", ".join(repr(shorten(a, 80)) for a in to if not is_addr_spec(a)))
    return good


def new_message_id(domain: str) -> str:
    return f"<pbp.{uuid.uuid4().hex}@{domain}>"


def campaign_sender(campaign, config) -> str:
    """The address a campaign's replies come from: its own when it is an addr-spec."""
    return campaign.address if campaign.address and is_addr_spec(campaign.address) else config.from_address


def reply_headers(reply: Reply, *, name: str, sender: str, to: list[str], subject: str, config, now):
    """The headers every reply mail starts with (From, To, Subject, Date, a new Message-ID and
    the threading of ``reply.thread``), from values already checked; returns the headers,
    the Message-ID and the parent id (or None)."""
    message_id = new_message_id(config.domain)
    headers = [
        ("From", formataddr((f"{name} (pbp)", sender), charset="utf-8")),
        ("To", ",\n ".join(to)),
        ("Subject", encode_header("Subject", subject)),
        ("Date", format_datetime(now.replace(tzinfo=timezone.utc))),
        ("Message-ID", message_id),
    ]
    parent, refs = threading(reply.thread)
    if parent:
        headers += [("In-Reply-To", f"<{parent}>"), ("References", "\n ".join(f"<{r}>" for r in refs))]
    return headers, message_id, parent


def list_headers(campaign, sender: str, config) -> list[tuple[str, str]]:
    """The list headers of the table's mail (RFC 2919 ``List-Id``, RFC 2369 ``List-Post``
    and ``List-Unsubscribe``), which mailbox providers expect of mail sent to a group:
    the list's id is the campaign's slug under pbp's domain; posting is writing to the
    table; unsubscribing is a mail to the table with the subject "mute", which stops the
    table's mail to that member and tells the GM (:mod:`pbp.bounces`)."""
    label = re.sub(r"[^a-z0-9-]+", "-", campaign.slug.lower()).strip("-")[:63] or "table"
    domain = config.domain if is_addr_spec(f"x@{config.domain}") else "invalid"
    name = header_text(campaign.name, MAX_NAME).replace("\\", "").replace('"', "")
    phrase = f'"{name}"' if name.isascii() else Header(name, "utf-8").encode()   # RFC 2047 words in a phrase
    return [("List-Id", f"{phrase} <{label}.{domain}>"),
            ("List-Post", f"<mailto:{sender}>"),
            ("List-Unsubscribe", f"<mailto:{sender}?subject=mute>")]


def write_mail(reply: Reply, campaign, *, config, now) -> Written:
    """The outgoing mail for ``reply``, threaded to ``reply.thread`` when there is one (a
    deadline round starts a thread of its own), from the campaign's address.

    Nothing that reaches a header here is trusted, even what pbp checked when it was
    stored: recipients and the sender must be addr-specs (others are dropped and logged; a
    reply left with no recipient has ``recipients == []`` and is not queued), names and
    subjects pass through :func:`~pbp.textsafety.header_text`, ids through
    :func:`~pbp.textsafety.is_msg_id`. So no value can end a header line early, add a
    header, or make a line longer than RFC 5322 allows."""
    name = header_text(campaign.name, MAX_NAME)
    sender = campaign_sender(campaign, config)
    good = checked_recipients(reply.to, campaign)
    subject = reply_mail_subject(reply, campaign.name, of_settings(getattr(campaign, "settings", None)))
    headers, message_id, parent = reply_headers(reply, name=name, sender=sender, to=good, subject=subject,
                                                config=config, now=now)
    headers += [("Auto-Submitted", "auto-replied"), ("X-PBP-Campaign", header_text(campaign.slug, 63))]
    if reply.audience is Audience.TABLE:
        headers += list_headers(campaign, sender, config)
    raw = mime_alternative(headers, reply.text, reply.html)
    own = message_id.strip("<>")
    refs = threading(reply.thread)[1] if parent else []   # as the References header says
    return Written(id=own, sender=sender, recipients=good, subject=subject, in_reply_to=parent, raw=raw,
                   channel=CHANNEL, thread=ThreadRef(source=CHANNEL, id=own, chain=tuple(refs)))
