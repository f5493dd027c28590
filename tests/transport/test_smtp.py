"""SmtpSender against real aiosmtpd servers on loopback (recording, STARTTLS, AUTH, LMTP relay)."""
from __future__ import annotations

import re
import threading
import time
from email.message import EmailMessage

import pytest

from pbp.transport import (
    AuthFailed,
    ConnectFailed,
    ImapInbox,
    OutboundMessage,
    Sender,
    SendReceipt,
    SmtpRejected,
    SmtpSender,
    TlsFailed,
    TransportTimeout,
)
from .conftest import SMTP_PASSWORD, SMTP_USER, free_ports, make_certificate, make_message, run

pytestmark = pytest.mark.live

GM = "gm@example.test"
PLAYER = "player@example.test"
TABLE = "table@example.test"


def test_plain_send_is_recorded_with_its_envelope(smtp_server, smtp_settings):
    raw = make_message("Outcome", "Ruth succeeds with style.\n", sender=TABLE, to=GM)
    sender = SmtpSender(smtp_settings(smtp_server, "plain"))

    receipt = run(sender.send(raw, TABLE, [GM, PLAYER]))

    assert isinstance(sender, Sender)
    assert (receipt.code, receipt.refused) == (250, {})
    assert re.search(r"queued as RIG\d+$", receipt.message)   # the rig numbers every mail it takes, so the count depends on what ran before
    assert receipt.accepted == (GM, PLAYER)
    [got] = smtp_server.received
    assert (got.mail_from, got.rcpt_tos) == (TABLE, (GM, PLAYER))
    assert got.raw.replace(b"\r\n", b"\n") == raw.replace(b"\r\n", b"\n")
    assert not got.tls and got.login is None
    assert not sender.connected  # a lone send does not keep the connection


def test_starttls_and_auth(smtp_auth_server, smtp_settings):
    settings = smtp_settings(smtp_auth_server, "starttls", username=SMTP_USER, password=SMTP_PASSWORD)

    receipt = run(SmtpSender(settings).send(make_message(sender=TABLE), TABLE, [PLAYER]))

    assert receipt.code == 250
    [got] = smtp_auth_server.received
    assert got.tls and got.login == SMTP_USER
    assert (got.mail_from, got.rcpt_tos) == (TABLE, (PLAYER,))


def test_implicit_tls(smtp_tls_server, smtp_settings):
    receipt = run(SmtpSender(smtp_settings(smtp_tls_server, "tls")).send(make_message(), TABLE, [GM]))
    assert receipt.code == 250
    assert smtp_tls_server.received[0].tls


def test_email_message_objects_are_sent_too(smtp_server, smtp_settings):
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = TABLE, GM, "Fate points: 3 -> 2"
    msg.set_content("Ruth — invokes “Hair-Trigger Temper”.\n")  # non-ASCII body: 8BITMIME

    run(SmtpSender(smtp_settings(smtp_server)).send(msg, TABLE, [GM]))

    [got] = smtp_server.received
    assert b"Subject: Fate points: 3 -> 2" in got.raw
    assert "BODY=8BITMIME" in got.mail_options


def test_wrong_password_is_auth_failed(smtp_auth_server, smtp_settings):
    settings = smtp_settings(smtp_auth_server, "starttls", username=SMTP_USER, password="wrong")

    with pytest.raises(AuthFailed) as caught:
        run(SmtpSender(settings).send(make_message(), TABLE, [GM]))

    error = caught.value
    assert "535" in str(error)
    assert "PBP_SMTP_PASSWORD" in error.hint
    assert (error.host, error.port) == (smtp_auth_server.host, smtp_auth_server.port)
    assert smtp_auth_server.received == []


def test_sending_without_login_where_auth_is_required_is_refused(smtp_auth_server, smtp_settings):
    with pytest.raises(SmtpRejected) as caught:
        run(SmtpSender(smtp_settings(smtp_auth_server, "starttls")).send(make_message(), TABLE, [GM]))
    assert (caught.value.code, caught.value.stage, caught.value.permanent) == (530, "MAIL", True)


def test_certificate_from_another_ca_is_tls_failed(smtp_server, smtp_settings, tmp_path):
    other = make_certificate(tmp_path, "other").cert
    sender = SmtpSender(smtp_settings(smtp_server, "starttls", ca_file=str(other)))

    with pytest.raises(TlsFailed) as caught:
        run(sender.send(make_message(), TABLE, [GM]))

    assert "certificate" in str(caught.value) and "ca_file" in caught.value.hint
    assert smtp_server.received == []


def test_starttls_against_an_implicit_tls_port_times_out_with_a_hint(smtp_tls_server, smtp_settings):
    settings = smtp_settings(smtp_tls_server, "starttls", timeout=0.3)
    with pytest.raises(TransportTimeout) as caught:
        run(SmtpSender(settings).send(make_message(), TABLE, [GM]))
    assert 'security = "tls"' in caught.value.hint


def test_nothing_listening_is_connect_failed(smtp_settings, smtp_server):
    port = free_ports(1)[0]
    with pytest.raises(ConnectFailed) as caught:
        run(SmtpSender(smtp_settings(smtp_server, port=port)).send(make_message(), TABLE, [GM]))
    assert caught.value.temporary and caught.value.port == port


def test_5xx_for_every_recipient_is_permanent_rejection(smtp_server, smtp_settings):
    smtp_server.refuse("nobody@*", "550 5.1.1 No such user here")

    with pytest.raises(SmtpRejected) as caught:
        run(SmtpSender(smtp_settings(smtp_server)).send(make_message(), TABLE, ["nobody@example.test"]))

    error = caught.value
    assert (error.code, error.permanent, error.temporary, error.stage) == (550, True, False, "RCPT")
    assert error.message == "5.1.1 No such user here"
    assert error.recipients == {"nobody@example.test": (550, "5.1.1 No such user here")}
    assert smtp_server.received == []


def test_4xx_is_temporary_rejection(smtp_server, smtp_settings):
    smtp_server.refuse("busy@*", "451 4.3.0 Try again later")
    with pytest.raises(SmtpRejected) as caught:
        run(SmtpSender(smtp_settings(smtp_server)).send(make_message(), TABLE, ["busy@example.test"]))
    assert (caught.value.code, caught.value.permanent, caught.value.temporary) == (451, False, True)


def test_some_recipients_refused_still_sends_to_the_others(smtp_server, smtp_settings):
    smtp_server.refuse("nobody@*")

    receipt = run(SmtpSender(smtp_settings(smtp_server)).send(make_message(), TABLE, [GM, "nobody@example.test"]))

    assert receipt.refused == {"nobody@example.test": (550, "5.1.1 No such user here")}
    assert receipt.accepted == (GM,)
    assert smtp_server.received[0].rcpt_tos == (GM,)


def test_send_many_uses_one_connection_and_each_message_fails_alone(smtp_server, smtp_settings):
    smtp_server.refuse("nobody@*")
    batch = [
        OutboundMessage(make_message("first"), TABLE, [GM]),
        OutboundMessage(make_message("refused"), TABLE, ["nobody@example.test"]),
        OutboundMessage(make_message("third"), TABLE, [PLAYER]),
    ]

    results = run(SmtpSender(smtp_settings(smtp_server)).send_many(batch))

    first, refused, third = results
    assert isinstance(first, SendReceipt) and isinstance(third, SendReceipt)
    assert isinstance(refused, SmtpRejected) and refused.permanent
    received = smtp_server.received
    assert [r.rcpt_tos for r in received] == [(GM,), (PLAYER,)]
    assert received[0].peer == received[1].peer  # same client port: one connection


def test_session_reuses_the_connection(smtp_auth_server, smtp_settings):
    settings = smtp_settings(smtp_auth_server, "starttls", username=SMTP_USER, password=SMTP_PASSWORD)

    async def two_sends():
        async with SmtpSender(settings) as sender:
            await sender.send(make_message("one"), TABLE, [GM])
            await sender.send(make_message("two"), TABLE, [PLAYER])
            return sender.connected

    assert run(two_sends())
    first, second = smtp_auth_server.received
    assert first.peer == second.peer


def test_send_many_with_the_server_down_gives_each_message_the_error(smtp_settings, smtp_server):
    settings = smtp_settings(smtp_server, port=free_ports(1)[0])
    batch = [OutboundMessage(make_message(), TABLE, [GM]), OutboundMessage(make_message(), TABLE, [PLAYER])]

    results = run(SmtpSender(settings).send_many(batch))

    assert len(results) == 2 and all(isinstance(r, ConnectFailed) for r in results)


def test_sent_mail_lands_in_the_imap_inbox_and_wakes_idle(smtp_relay, smtp_settings, imap_settings, mailbox):
    sender = SmtpSender(smtp_settings(smtp_relay))
    sent_at: list[float] = []

    def send_soon():
        time.sleep(0.1)
        sent_at.append(time.monotonic())
        run(sender.send(make_message("Your turn, Ruth", sender=GM), GM, [TABLE]))

    inbox = ImapInbox(imap_settings("tls"))
    try:
        inbox.fetch_new()
        writer = threading.Thread(target=send_soon)
        writer.start()
        woke = inbox.idle_wait(timeout=5)
        latency = time.monotonic() - sent_at[0]
        writer.join()
        [message] = inbox.fetch_new(0).messages
    finally:
        inbox.close()

    assert woke and latency < 2.0  # Dovecot signals IDLE ~0.5 s after delivery
    assert b"Subject: Your turn, Ruth" in message.raw
    assert b"Delivered-To: <table@example.test>" in message.raw or b"Delivered-To: table@example.test" in message.raw


def test_a_server_that_accepts_and_says_nothing_gets_no_tls_hint(smtp_settings):
    """A hung server (the kernel accepts, nobody answers) is not taken for a TLS port: pbp
    tries a TLS handshake on it before it suggests security = "tls"."""
    import socket

    from pbp.transport.errors import TransportTimeout

    with socket.socket() as hung:
        hung.bind(("127.0.0.1", 0))
        hung.listen(8)
        server = type("Hung", (), {"host": "127.0.0.1", "port": hung.getsockname()[1]})()
        settings = smtp_settings(server, "plain", timeout=0.3)
        with pytest.raises(TransportTimeout) as caught:
            run(SmtpSender(settings).send(make_message(), TABLE, [GM]))
    assert 'security = "tls"' not in caught.value.hint and "hung" in caught.value.hint
