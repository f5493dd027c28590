"""Issue 8, item 6 on the real Dovecot rig: an oversized post is never loaded whole. The
fetch reads RFC822.SIZE first and takes only the header block of a mail over the limit,
which is still enough to route it and tell its author why nothing was read."""
from __future__ import annotations

import email
from email import policy

import pytest

from pbp.pipeline import process_message
from pbp.store import models as m
from pbp.transport.imap import ImapInbox
from tests.helpers import eml, make_ctx
from .conftest import make_message

LIMIT = 100_000


@pytest.fixture
def inbox(imap_settings):
    box = ImapInbox(imap_settings("tls"))
    yield box
    box.close()


def test_an_oversized_mail_comes_as_its_headers_only(inbox, mailbox):
    big = make_message("The huge post", "/roll 4dF\n" + "x" * 79 + "\n" * 0 + ("word " * 15 + "\n") * 4000)
    small = make_message("A small post", "/roll 4dF\n")
    assert len(big) > 2 * LIMIT
    big_uid, small_uid = mailbox.append(big), mailbox.append(small)
    inbox.commands.clear()

    result = inbox.fetch_new(max_bytes=LIMIT)

    by_uid = {msg.uid: msg for msg in result}
    assert set(by_uid) == {big_uid, small_uid}
    assert by_uid[small_uid].size is None
    assert by_uid[small_uid].raw.replace(b"\r\n", b"\n") == small.replace(b"\r\n", b"\n")
    head = by_uid[big_uid]
    assert head.size is not None and head.size >= len(big) - 10_000  # the server's count (CRLF)
    assert len(head.raw) < 2_000 and b"Subject: The huge post" in head.raw and b"word" not in head.raw
    assert inbox.commands["fetch-size"] == 1 and inbox.commands["fetch"] == 2
    assert "\\Seen" not in mailbox.messages()[0].flags


def test_without_a_limit_the_fetch_is_as_before(inbox, mailbox):
    big = make_message("The huge post", ("word " * 15 + "\n") * 4000)
    mailbox.append(big)
    inbox.commands.clear()
    [message] = inbox.fetch_new().messages
    assert message.size is None and len(message.raw) >= len(big) - 10
    assert inbox.commands["fetch-size"] == 0 and inbox.commands["fetch"] == 1


def test_the_author_of_an_oversized_post_is_told_and_nothing_runs(inbox, mailbox, chicago, config):
    from dataclasses import replace

    from pbp.config import Limits

    small_limit = replace(config, limits=Limits(max_message_bytes=LIMIT, max_commands=20))
    raw = eml("/roll 4dF\n" + ("word " * 15 + "\n") * 4000, message_id="huge@pbp.test")
    mailbox.append(raw)
    [item] = inbox.fetch_new(max_bytes=LIMIT).messages
    assert item.size is not None

    out = process_message(item.raw, make_ctx(small_limit), mailbox=item.mailbox, uidvalidity=item.uidvalidity,
                          uid=item.uid, size=item.size)

    assert out.status == "rejected" and out.message_id == "huge@pbp.test"
    assert m.RollRecord.select().count() == 0
    [reply] = out.replies
    assert reply["to"] == ["ruth@pbp.localhost"]
    row = m.OutboxMail.get(m.OutboxMail.message_id == reply["message_id"])
    text = email.message_from_string(row.raw, policy=policy.default).get_body(("plain",)).get_content()
    assert f"the message is {item.size:,} bytes; this table accepts at most {LIMIT:,}" in text
    assert "example:" in text
