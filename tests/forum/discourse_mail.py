"""Mails as Discourse's mailing-list mode sends them, built from the header set in
docs/forum.md (Discourse's lib/email/message_builder.rb, message_id_service.rb), and the
receiver's refusal rules for what pbp sends back (receiver.rb), written here on their own
so the adapter's own guard is checked against them, not against itself."""
from __future__ import annotations

import email
import email.policy
import re
import textwrap

SITE = "forum.example.org"
LIST_ID = "game-table.forum.example.org"
BOT = "pbp-bot"
BOT_ADDRESS = "table+chicago@pbp.localhost"
NOTIFY = f"noreply@{SITE}"

FOOTER = ("\n\n---\n[Visit Topic](https://forum.example.org/t/the-warehouse/{topic}/{number}) or reply to this "
          "email to respond.\n\nTo unsubscribe from these emails, [click here]"
          "(https://forum.example.org/email/unsubscribe/0f1e2d).\n")


def discourse_mail(raw: str, *, poster: str, topic: int = 12, post: int | None = None, number: int = 1,
                   parent: int | None = None, key: str = "5f3a9c0d1e2b", random: str = "a1b2c3",
                   title: str = "The warehouse", to: str = BOT_ADDRESS, list_id: str = LIST_ID,
                   notify: str = NOTIFY, auto_submitted: bool = True) -> bytes:
    """One post's mail: ``post`` None is a topic's first post (``<topic/T.R@host>``),
    else ``<topic/T/P.R@host>`` answering ``parent`` (a post id) or the topic."""
    message_id = f"topic/{topic}/{post}.{random}@{SITE}" if post else f"topic/{topic}.{random}@{SITE}"
    thread = [f"<topic/{topic}@{SITE}>"] if post else []
    if parent:
        thread.append(f"<topic/{topic}/{parent}@{SITE}>")
    text = textwrap.dedent(raw).strip("\n") + FOOTER.format(topic=topic, number=number)
    html = "<p>" + textwrap.dedent(raw).strip().replace("\n", "<br>") + "</p>"
    head = [
        f'From: "{poster}" <{notify}>',
        f'Reply-To: "Example Forum" <replies+{key}@{SITE}>',
        f"To: {to}",
        f"Subject: [Example Forum] [Game Table] {title}",
        f"Message-ID: <{message_id}>",
        *([f"In-Reply-To: {thread[-1]}", f"References: {' '.join(thread)}"] if thread else []),
        f'List-ID: "Example Forum | Game Table" <{list_id}>',
        f"List-Archive: https://{SITE}/t/{topic}",
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
    From, quoted lines and a signature or delimiter (trimmed), a too-short post."""
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
    return problems
