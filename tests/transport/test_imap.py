"""ImapInbox against a real Dovecot on loopback (started once per session by the rig)."""
from __future__ import annotations

import threading
import time

import pytest

from pbp.transport import (
    AuthFailed,
    ConnectFailed,
    ImapInbox,
    Inbox,
    MailboxMissing,
    TlsFailed,
    TransportTimeout,
)
from .conftest import free_ports, make_certificate, make_message

pytestmark = pytest.mark.live


@pytest.fixture
def open_inbox(imap_settings):
    """``open_inbox(security="tls", **overrides)`` -> a connected ImapInbox, closed after the test."""
    opened: list[ImapInbox] = []

    def make(security: str = "tls", **overrides) -> ImapInbox:
        inbox = ImapInbox(imap_settings(security, **overrides))
        opened.append(inbox)
        inbox.connect()
        return inbox

    yield make
    for inbox in opened:
        inbox.close()


def append_later(account, raw: bytes, delay: float, folder: str = "INBOX") -> threading.Thread:
    thread = threading.Thread(target=lambda: (time.sleep(delay), account.append(raw, folder)))
    thread.start()
    return thread


# ---- connecting ----------------------------------------------------------------------------


@pytest.mark.parametrize("security", ["plain", "starttls", "tls"])
def test_login_each_security_with_verified_certificate(open_inbox, security):
    inbox = open_inbox(security)

    assert "IMAP4REV1" in inbox.capabilities
    assert inbox.supports_idle and inbox.supports_move
    assert inbox.connected_in < 1.0
    assert isinstance(inbox, Inbox)
    assert inbox.fetch_new().messages == []


@pytest.mark.parametrize("security", ["starttls", "tls"])
def test_certificate_from_another_ca_is_refused(imap_settings, tmp_path, security):
    other_ca = make_certificate(tmp_path, "other").cert
    inbox = ImapInbox(imap_settings(security, ca_file=str(other_ca)))

    with pytest.raises(TlsFailed) as caught:
        inbox.connect()

    error = caught.value
    assert "certificate" in str(error) and "ca_file" in error.hint
    assert (error.host, error.port) == ("127.0.0.1", inbox.settings.port)
    assert isinstance(error, ConnectionError)


def test_system_cas_do_not_trust_a_self_signed_server(imap_settings):
    with pytest.raises(TlsFailed):
        ImapInbox(imap_settings("tls", ca_file=None)).connect()


def test_wrong_password_is_auth_failed_with_hint(imap_settings):
    inbox = ImapInbox(imap_settings("tls", password="not-the-password"))

    started = time.monotonic()
    with pytest.raises(AuthFailed) as caught:
        inbox.connect()

    error = caught.value
    assert "PBP_IMAP_PASSWORD" in error.hint and "app password" in error.hint
    assert error.port == inbox.settings.port and not error.temporary
    assert isinstance(error, PermissionError)
    assert time.monotonic() - started < 1.0  # auth_failure_delay = 0 in the rig


def test_nothing_listening_is_connect_failed(imap_settings):
    port = free_ports(1)[0]
    with pytest.raises(ConnectFailed) as caught:
        ImapInbox(imap_settings("plain", port=port)).connect()
    assert caught.value.temporary and caught.value.port == port


def test_missing_mailbox(open_inbox, mailbox):
    mailbox.server.create_folder(mailbox.user, "Archive")
    inbox = open_inbox("tls", mailbox="Table")

    with pytest.raises(MailboxMissing) as caught:
        inbox.fetch_new()

    error = caught.value
    assert error.mailbox == "Table" and "Archive" in error.existing and "INBOX" in error.existing
    assert "Table" in error.hint
    assert isinstance(error, LookupError)


# ---- fetching ------------------------------------------------------------------------------


def test_appended_message_is_fetched_with_peek_and_stays_unseen(open_inbox, mailbox):
    raw = make_message("The warehouse", "I kick the door.\n/overcome Athletics vs Fair\n")
    uid = mailbox.append(raw)
    inbox = open_inbox("tls")

    result = inbox.fetch_new()

    assert [m.uid for m in result] == [uid]
    message = result.messages[0]
    assert message.raw.replace(b"\r\n", b"\n") == raw.replace(b"\r\n", b"\n")
    assert message.mailbox == f"imap://{mailbox.user}@127.0.0.1/INBOX"
    assert message.uidvalidity == result.uidvalidity == mailbox.server.uidvalidity(mailbox.user)
    assert not result.uidvalidity_changed
    [stored] = mailbox.messages()
    assert "\\Seen" not in stored.flags


def test_last_uid_bookkeeping(open_inbox, mailbox):
    mailbox.append(make_message("one"))
    mailbox.append(make_message("two"))
    inbox = open_inbox("plain")

    first = inbox.fetch_new()
    again = inbox.fetch_new(first.last_uid, first.uidvalidity)
    third_uid = mailbox.append(make_message("three"))
    later = inbox.fetch_new(first.last_uid, first.uidvalidity)

    assert len(first) == 2
    assert again.messages == [] and again.last_uid is None
    assert [m.uid for m in later] == [third_uid]


def test_last_uid_above_every_message_returns_nothing(open_inbox, mailbox):
    # "UID n:*" matches the highest message even when n is above it: it must be filtered.
    uid = mailbox.append(make_message("only"))
    assert open_inbox("plain").fetch_new(last_uid=uid + 5).messages == []


def test_uidvalidity_change_refetches_from_scratch(open_inbox, mailbox):
    server = mailbox.server
    mailbox.append(make_message("before"), folder="Table")
    inbox = open_inbox("tls", mailbox="Table")
    before = inbox.fetch_new()

    server.delete_folder(mailbox.user, "Table")  # while the inbox has it selected
    mailbox.append(make_message("after one"), folder="Table")
    mailbox.append(make_message("after two"), folder="Table")
    after = inbox.fetch_new(before.last_uid, before.uidvalidity)

    assert after.uidvalidity_changed and after.previous_uidvalidity == before.uidvalidity
    assert after.uidvalidity != before.uidvalidity
    assert [m.uid for m in after] == [1, 2]
    assert all(m.uidvalidity == after.uidvalidity for m in after)


def test_many_messages_come_in_few_fetches(open_inbox, mailbox):
    mailbox.server.append_many(mailbox.user, [make_message(f"post {n}") for n in range(120)])
    inbox = open_inbox("tls", fetch_batch=50)
    inbox.commands.clear()

    result = inbox.fetch_new()

    assert len(result) == 120
    assert [m.uid for m in result] == sorted(m.uid for m in result)
    assert inbox.commands["fetch"] == 3  # 50 + 50 + 20, not 120 round trips
    assert inbox.commands["search"] == 1


def test_limit_leaves_the_rest_for_the_next_call(open_inbox, mailbox):
    mailbox.server.append_many(mailbox.user, [make_message(f"post {n}") for n in range(5)])
    inbox = open_inbox("plain")

    first = inbox.fetch_new(limit=3)
    rest = inbox.fetch_new(first.last_uid, first.uidvalidity, limit=3)

    assert (len(first), first.more) == (3, True)
    assert (len(rest), rest.more) == (2, False)


# ---- marking -------------------------------------------------------------------------------


def test_mark_seen(open_inbox, mailbox):
    mailbox.append(make_message("one"))
    mailbox.append(make_message("two"))
    inbox = open_inbox("tls")
    first, second = inbox.fetch_new().messages

    inbox.mark_handled([first.uid], "seen")

    flags = {m.uid: m.flags for m in mailbox.messages()}
    assert "\\Seen" in flags[first.uid] and "\\Seen" not in flags[second.uid]


def test_mark_none_changes_nothing(open_inbox, mailbox):
    mailbox.append(make_message("one"))
    inbox = open_inbox("tls")
    inbox.mark_handled([m.uid for m in inbox.fetch_new()], "none")
    assert ["\\Seen" in m.flags for m in mailbox.messages()] == [False]


def test_mark_move_to_a_folder_creates_it(open_inbox, mailbox):
    mailbox.append(make_message("one"))
    mailbox.append(make_message("two"))
    inbox = open_inbox("tls")
    first, second = inbox.fetch_new().messages

    inbox.mark_handled([first.uid], "move:pbp-done")

    assert [m.uid for m in mailbox.messages()] == [second.uid]
    [moved] = mailbox.messages("pbp-done")
    assert moved.raw == first.raw
    assert inbox.commands["move"] == 1


def test_move_without_the_move_capability_copies_and_expunges(bare_dovecot, imap_settings, mailbox):
    bare = bare_dovecot
    for n in range(3):
        bare.append(mailbox.user, make_message(f"post {n}"))
    bare.append(mailbox.user, make_message("deleted by the player"), flags=(b"\\Deleted",))
    inbox = ImapInbox(imap_settings("tls", port=bare.imaps_port))
    try:
        assert not inbox.supports_move and not inbox.supports_idle
        one, two, three, flagged = inbox.fetch_new().messages
        inbox.mark_handled([one.uid, three.uid], "move:Done")
    finally:
        inbox.close()

    remaining = bare.messages(mailbox.user)
    assert [m.uid for m in remaining] == [two.uid, flagged.uid]  # UID EXPUNGE spared the other one
    assert sorted(m.raw for m in bare.messages(mailbox.user, "Done")) == sorted([one.raw, three.raw])


# ---- waiting -------------------------------------------------------------------------------


def test_idle_wakes_soon_after_new_mail(open_inbox, mailbox):
    inbox = open_inbox("tls")
    inbox.fetch_new()
    writer = append_later(mailbox, make_message("a new post"), delay=0.1)

    started = time.monotonic()
    woke = inbox.idle_wait(timeout=5)
    waited = time.monotonic() - started
    writer.join()

    assert woke
    assert waited < 2.0  # Dovecot signals ~0.5 s after delivery
    assert len(inbox.fetch_new(0)) == 1


def test_idle_times_out_without_mail(open_inbox):
    inbox = open_inbox("tls")
    inbox.fetch_new()
    started = time.monotonic()
    assert inbox.idle_wait(timeout=0.3) is False
    assert 0.25 < time.monotonic() - started < 1.5
    assert inbox.fetch_new().messages == []  # the connection is usable after IDLE


def test_idle_returns_at_once_when_mail_is_already_waiting(open_inbox, mailbox):
    inbox = open_inbox("plain")
    first = inbox.fetch_new()
    mailbox.append(make_message("arrived between fetch and idle"))

    started = time.monotonic()
    assert inbox.idle_wait(timeout=5, last_uid=first.last_uid or 0)
    assert time.monotonic() - started < 0.5


def test_idle_survives_the_server_dropping_the_connection(open_inbox, mailbox):
    inbox = open_inbox("tls")
    inbox.fetch_new()
    threading.Timer(0.2, mailbox.server.kick, args=[mailbox.user]).start()
    writer = append_later(mailbox, make_message("after the restart"), delay=0.5)

    assert inbox.idle_wait(timeout=5)
    writer.join()
    assert len(inbox.fetch_new()) == 1


def test_without_idle_the_mailbox_is_polled(bare_dovecot, imap_settings, mailbox):
    bare = bare_dovecot
    inbox = ImapInbox(imap_settings("tls", port=bare.imaps_port, poll_interval=0.1))
    try:
        inbox.fetch_new()
        writer = threading.Thread(target=lambda: (time.sleep(0.2), bare.append(mailbox.user, make_message("x"))))
        writer.start()
        started = time.monotonic()
        assert inbox.idle_wait(timeout=3)
        assert time.monotonic() - started < 1.5
        writer.join()
    finally:
        inbox.close()


# ---- lifecycle -----------------------------------------------------------------------------


def test_close_is_idempotent_and_the_inbox_reconnects(open_inbox, mailbox):
    inbox = open_inbox("tls")
    inbox.close()
    inbox.close()
    mailbox.append(make_message("after close"))
    assert len(inbox.fetch_new()) == 1


def test_a_dropped_connection_is_reopened_on_the_next_call(open_inbox, mailbox):
    inbox = open_inbox("tls")
    inbox.fetch_new()
    mailbox.server.kick(mailbox.user)
    mailbox.append(make_message("after the kick"))
    assert len(inbox.fetch_new()) == 1


def test_starttls_against_the_implicit_tls_port_times_out_with_a_hint(imap_settings, mailbox):
    inbox = ImapInbox(imap_settings("starttls", port=mailbox.imaps_port, timeout=0.3))
    with pytest.raises(TransportTimeout) as caught:
        inbox.connect()
    assert 'security = "tls"' in caught.value.hint


def test_implicit_tls_against_the_plaintext_port_is_tls_failed(imap_settings, mailbox):
    with pytest.raises(TlsFailed):
        ImapInbox(imap_settings("tls", port=mailbox.imap_port)).connect()
