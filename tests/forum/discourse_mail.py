"""Mails as Discourse's mailing-list mode sends them, and the receiver's refusal rules for
what pbp sends back, written here on their own so the adapter's own guard is checked against
them, not against itself.

Built from Discourse's source (github.com/discourse/discourse, MIT):
- ``lib/email/sender.rb``: ``Message-ID`` (a topic's first post the topic's id, a later post
  its own), ``In-Reply-To`` the post replied to or the topic's first, ``References`` the
  topic's first then the posts replied to, ``List-ID "TITLE | CATEGORY" <category.host>``
  (a subcategory ``"TITLE | PARENT CHILD" <child.parent.host>``), ``List-Archive`` the
  topic's URL, ``Precedence: list``;
- ``lib/email/message_id_service.rb``: the ids' formats over the years: current sites
  ``<discourse/post/POST_ID@host>`` (``generate_or_use_existing``), sites of about 2021-2023
  ``<topic/TOPIC/POST.RANDOM@host>`` and ``<topic/TOPIC.RANDOM@host>`` for a first post,
  older ones the canonical ``<topic/TOPIC/POST@host>`` and ``<topic/TOPIC@host>``;
- ``lib/email/message_builder.rb``: ``X-Discourse-Post-Id``, ``X-Discourse-Topic-Id``,
  ``Reply-To`` with the reply key, ``List-Unsubscribe``, ``X-Auto-Response-Suppress``,
  ``Auto-Submitted: auto-generated``;
- ``app/mailers/user_notifications.rb``: the From display name ``email_from``,
  "%{user_name} via %{site_name}" (config/locales/server.en.yml), the full name when the
  site shows names (``enable_names``, ``display_name_on_email_from``), else the username;
  its spec expects ``"John Doe via Discourse"``.
"""
from __future__ import annotations

import email
import email.policy
import re
import textwrap

from .reply_trimmer import trim

SITE = "forum.example.org"
TITLE = "Example Forum"
LIST_ID = "game-table.forum.example.org"
BOT = "pbp-bot"
BOT_ADDRESS = "table+chicago@pbp.localhost"
NOTIFY = f"noreply@{SITE}"

FOOTER = ("\n\n---\n[Visit Topic](https://forum.example.org/t/the-warehouse/{topic}/{number}) or reply to this "
          "email to respond.\n\nTo unsubscribe from these emails, [click here]"
          "(https://forum.example.org/email/unsubscribe/0f1e2d).\n")

#: the Message-ID formats, by the sites that write them (message_id_service.rb)
STYLES = ("current", "2021", "canonical")


def message_id(style: str, topic: int, post: int | None, random: str = "a1b2c3") -> str:
    """A post's Message-ID in one of :data:`STYLES`; ``post`` None is the topic's first
    post in the older styles (the current style names every post by its own id)."""
    if style == "current":
        assert post is not None, "the current style names the first post by its id"
        return f"discourse/post/{post}@{SITE}"
    tail = f".{random}" if style == "2021" else ""
    return f"topic/{topic}/{post}{tail}@{SITE}" if post else f"topic/{topic}{tail}@{SITE}"


def discourse_mail(raw: str, *, poster: str, topic: int = 12, post: int | None = None, number: int = 1,
                   parent: int | None = None, key: str = "5f3a9c0d1e2b", random: str = "a1b2c3",
                   title: str = "The warehouse", to: str = BOT_ADDRESS, list_id: str = LIST_ID,
                   notify: str = NOTIFY, auto_submitted: bool = True, style: str = "2021",
                   first: int = 300, via: bool = False, x_headers: bool | None = None,
                   category: str = "Game Table") -> bytes:
    """One post's mail. In the older styles ``post`` None is a topic's first post
    (``<topic/T.R@host>``), else ``<topic/T/P.R@host>``; in the current style ``first`` is
    the id of the topic's first post and ``post`` None means that one. ``parent`` is the
    post replied to (an id), else the topic. ``via`` writes the From name as current sites
    do (``NAME via TITLE``); ``x_headers`` the X-Discourse ids (by default in the current
    style only)."""
    x_headers = style == "current" if x_headers is None else x_headers
    if style == "current":
        own = post or first
        head_id = message_id(style, topic, own)
        thread = [f"<{message_id(style, topic, first)}>"] if post and post != first else []
        if thread and parent:
            thread.append(f"<{message_id(style, topic, parent)}>")
    else:
        own = post
        head_id = message_id(style, topic, post, random)
        thread = [f"<{message_id('canonical', topic, None)}>"] if post else []
        if parent:
            thread.append(f"<topic/{topic}/{parent}@{SITE}>")
    text = textwrap.dedent(raw).strip("\n") + FOOTER.format(topic=topic, number=number)
    html = "<p>" + textwrap.dedent(raw).strip().replace("\n", "<br>") + "</p>"
    name = f"{poster} via {TITLE}" if via else poster
    head = [
        f'From: "{name}" <{notify}>',
        f'Reply-To: "{TITLE}" <replies+{key}@{SITE}>',
        f"To: {to}",
        f"Subject: [{TITLE}] [{category}] {title}",
        f"Message-ID: <{head_id}>",
        *([f"In-Reply-To: {thread[-1]}", f"References: {' '.join(thread)}"] if thread else []),
        *([f"X-Discourse-Post-Id: {own}", f"X-Discourse-Topic-Id: {topic}"] if x_headers and own else []),
        f'List-ID: "{TITLE} | {category}" <{list_id}>',
        f"List-Archive: https://{SITE}/t/the-warehouse/{topic}",
        f"List-Post: <mailto:replies+{key}@{SITE}>",
        f"List-Unsubscribe: <https://{SITE}/email/unsubscribe/0f1e2d>",
        "Precedence: list",
        "X-Auto-Response-Suppress: All",
        *(["Auto-Submitted: auto-generated"] if auto_submitted else []),
        "Date: Sun, 29 Nov 2026 18:00:00 +0000",
        "MIME-Version: 1.0",
        'Content-Type: multipart/alternative; boundary="--==_mimepart_1"',
        "",
        "----==_mimepart_1",
        "Content-Type: text/plain; charset=UTF-8",
        "Content-Transfer-Encoding: 8bit",
        "",
        text,
        "----==_mimepart_1",
        "Content-Type: text/html; charset=UTF-8",
        "Content-Transfer-Encoding: 8bit",
        "",
        html,
        "----==_mimepart_1--",
        "",
    ]
    return "\n".join(head).encode("utf-8")


_AUTO = re.compile(r"auto[\-_]?(response|submitted|replied|reply|generated|respond)|autoresponder|autorespond", re.I)


def receiver_refuses(raw: bytes, *, key_user_address: str) -> list[str]:
    """What Discourse's Email::Receiver would refuse or cut in a reply by mail (forum.md):
    a sender other than the key's user, a From that is the reply address, any
    auto-generated sign in the header block (block_auto_generated_emails), an automatic
    From, quoted lines and a signature or delimiter (trimmed), a too-short post, and
    anything Discourse's reply trimmer (tests/forum/reply_trimmer.py) would cut."""
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    head = raw.split(b"\n\n", 1)[0].decode("utf-8", "replace")
    problems = []
    sender = msg["From"].addresses[0].addr_spec.lower()
    if sender != key_user_address:
        problems.append(f"sender {sender} is not the key's user")
    if sender.startswith("replies+") or any(a.addr_spec.lower() == sender for a in msg["To"].addresses):
        problems.append("From is the reply address")
    if _AUTO.search(head):
        problems.append("auto-generated header")
    if msg["Precedence"] is not None:
        problems.append("a Precedence header")
    if re.search(r"(mailer[\-_]?daemon|post[\-_]?master|no[\-_]?reply)@", str(msg["From"]), re.I):
        problems.append("an automatic From")
    body = msg.get_body(("plain",)).get_content()
    if any(line.startswith(">") for line in body.splitlines()):
        problems.append("quoted lines")
    if any(re.fullmatch(r"(-- ?|-{3,}|_{3,})\s*", line) for line in body.splitlines()):
        problems.append("a signature or delimiter line")
    if len(body.strip()) < 20:
        problems.append("too short")
    body = body.replace("\r\n", "\n")   # as the trimmer reads it (a mail over SMTP has CRLF)
    kept = trim(body) or ""
    if kept != body.strip():   # Discourse's Email::Receiver keeps only what its trimmer keeps
        changed = [line for line in body.strip().splitlines() if line not in kept.splitlines()]
        problems.append(f"the reply trimmer keeps {len(kept)} of {len(body.strip())} characters "
                        f"(first line lost or changed: {changed[:1]}; kept {kept!r})")
    return problems
