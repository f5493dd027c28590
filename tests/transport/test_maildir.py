"""The offline Maildir transport: drop .eml files in, read replies out (no servers needed)."""
from __future__ import annotations

import os
import threading
import time

from pbp.transport import Inbox, MaildirInbox, MaildirSender, OutboundMessage, Sender
from pbp.transport.maildir import UIDLIST

from .conftest import make_message, run


def drop(inbox_dir, name: str, raw: bytes, sub: str = "new") -> None:
    """What a user does: copy a saved message into the Maildir."""
    (inbox_dir / sub / name).write_bytes(raw)


def test_dropped_messages_are_fetched_in_order_with_stable_uids(tmp_path):
    inbox = MaildirInbox(tmp_path / "inbox")
    drop(inbox.path, "a.eml", make_message("first"))
    time.sleep(0.01)
    drop(inbox.path, "b.eml", make_message("second"))

    result = inbox.fetch_new()

    assert isinstance(inbox, Inbox) and not inbox.supports_idle
    assert [m.uid for m in result] == [1, 2]
    assert b"Subject: first" in result.messages[0].raw
    assert result.messages[0].mailbox == f"maildir:{tmp_path / 'inbox'}"
    assert MaildirInbox(tmp_path / "inbox").fetch_new().uidvalidity == result.uidvalidity


def test_mark_seen_moves_to_cur_with_the_s_flag_and_hides_it(tmp_path):
    inbox = MaildirInbox(tmp_path / "inbox")
    drop(inbox.path, "a.eml", make_message("first"))
    drop(inbox.path, "b.eml", make_message("second"))
    first, second = inbox.fetch_new().messages

    inbox.mark_handled([first.uid], "seen")

    assert os.listdir(inbox.path / "cur") == ["a.eml:2,S"]
    assert os.listdir(inbox.path / "new") == ["b.eml"]
    assert [m.uid for m in inbox.fetch_new()] == [second.uid]  # seen ones never come back


def test_last_uid_bookkeeping_and_unseen_messages_in_cur(tmp_path):
    inbox = MaildirInbox(tmp_path / "inbox")
    drop(inbox.path, "old.eml:2,S", make_message("read already"), sub="cur")
    drop(inbox.path, "flagged.eml:2,F", make_message("flagged, unread"), sub="cur")

    first = inbox.fetch_new()
    again = inbox.fetch_new(first.last_uid, first.uidvalidity)
    drop(inbox.path, "new.eml", make_message("new"))
    later = inbox.fetch_new(first.last_uid, first.uidvalidity)

    assert [b"flagged, unread" in m.raw for m in first] == [True]
    assert again.messages == []
    assert [b"Subject: new" in m.raw for m in later] == [True]


def test_losing_the_uid_list_is_a_uidvalidity_change(tmp_path, monkeypatch):
    inbox = MaildirInbox(tmp_path / "inbox")
    drop(inbox.path, "a.eml", make_message("first"))
    before = inbox.fetch_new()
    (inbox.path / UIDLIST).unlink()
    later = time.time() + 5  # UIDVALIDITY is a timestamp in seconds, as in Dovecot
    monkeypatch.setattr(time, "time", lambda: later)

    after = inbox.fetch_new(before.last_uid, before.uidvalidity)

    assert after.uidvalidity_changed and after.previous_uidvalidity == before.uidvalidity
    assert [m.uid for m in after] == [1]


def test_move_to_a_folder(tmp_path):
    inbox = MaildirInbox(tmp_path / "inbox")
    drop(inbox.path, "a.eml", make_message("first"))
    [message] = inbox.fetch_new().messages

    inbox.mark_handled([message.uid], "move:pbp-done")

    assert os.listdir(inbox.path / ".pbp-done" / "cur") == ["a.eml:2,S"]
    assert inbox.fetch_new().messages == []
    inbox.mark_handled([message.uid], "none")  # unknown by now: nothing happens


def test_idle_wait_polls_for_new_files(tmp_path):
    inbox = MaildirInbox(tmp_path / "inbox", poll_interval=0.05)
    inbox.fetch_new()
    assert inbox.idle_wait(0.1) is False

    threading.Timer(0.1, drop, args=[inbox.path, "late.eml", make_message("late")]).start()
    started = time.monotonic()
    assert inbox.idle_wait(3)
    assert time.monotonic() - started < 1.0


def test_sender_writes_to_an_outbox_that_an_inbox_reads_back(tmp_path):
    sender = MaildirSender(tmp_path / "outbox")
    raw = make_message("Outcome", "Ruth succeeds.\n", sender="table@example.test")

    receipt = run(sender.send(raw, "table@example.test", ["gm@example.test", "player@example.test"]))
    results = run(sender.send_many([OutboundMessage(make_message("second"), "table@example.test", ["gm@example.test"])]))

    assert isinstance(sender, Sender)
    assert receipt.code == 250 and receipt.accepted == ("gm@example.test", "player@example.test")
    assert results[0].code == 250
    first, second = MaildirInbox(tmp_path / "outbox").fetch_new().messages
    assert first.raw.startswith(b"Return-Path: <table@example.test>\nX-Pbp-Envelope-To: gm@example.test, player@example.test\n")
    assert first.raw.endswith(raw)
    assert b"Subject: second" in second.raw
