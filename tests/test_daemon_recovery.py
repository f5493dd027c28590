"""The daemon recovers in seconds: IMAP or SMTP back after an outage, a hung SMTP server,
a restart with replies still pending, and its logs while idle. Real Dovecot, real SMTP
servers on loopback; the outages are real (servers stopped and started on the same port)."""
from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from aiosmtpd.controller import Controller

from pbp.daemon import Daemon
from pbp.rules.dice import FixedDice
from pbp.store import models as m
from tests.helpers import eml
from tests.rig.fixtures import TABLE_USER, USERS, MailAccount
from tests.rig.smtp import SmtpServer
from tests.test_daemon_live import REPO, set_up_table, write_config

pytestmark = pytest.mark.live

#: Long enough that the old schedule (retry at the next poll, deliver every 30 s) fails.
SLOW_POLL = 30


class ComeAndGoSmtp:
    """A plain recording SMTP server (aiosmtpd) that can go away and come back on its port."""

    def __init__(self) -> None:
        self.server = SmtpServer().start()
        self.auth = None

    @property
    def port(self) -> int:
        return self.server.port

    @property
    def received(self):
        return self.server.received

    def stop(self) -> None:
        self.server.stop()

    def start(self) -> None:
        s = self.server
        s.controller = Controller(s.handler, hostname=s.host, port=s.port, server_hostname="localhost")
        s.start()


class HungSmtp:
    """Accepts connections (the kernel's backlog does) and never says a word."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.port = self.sock.getsockname()[1]
        self.auth = None

    def close(self) -> None:
        self.sock.close()


@pytest.fixture
def smtp_come_and_go():
    server = ComeAndGoSmtp()
    yield server
    try:
        server.stop()
    except Exception:
        pass


@pytest.fixture
def own_dovecot(dovecot_factory, tls_files):
    """A Dovecot of this test's own that keeps its mail across a stop and a start."""
    root = Path(tempfile.mkdtemp(prefix="pbp-dc-", dir="/tmp"))
    server = dovecot_factory(root=root, keep=True)
    yield MailAccount(server, TABLE_USER, USERS[TABLE_USER])
    server.stop()
    shutil.rmtree(root, ignore_errors=True)


def env_for(account) -> dict:
    return {**os.environ, "PBP_IMAP_PASSWORD": account.password}


def wait_until(predicate, seconds: float, step: float = 0.02) -> float | None:
    """Seconds until ``predicate()`` held, or None if it did not within ``seconds``."""
    began = time.monotonic()
    while time.monotonic() - began < seconds:
        if predicate():
            return time.monotonic() - began
        time.sleep(step)
    return None


def spawn(config_path: Path, env: dict) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "pbp.cli", "-c", str(config_path), "run"],
                            env={**env, "PBP_DICE": ",".join(["0+00"] * 50)}, cwd=REPO, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)


def sigterm(child: subprocess.Popen, within: float) -> tuple[float, str]:
    began = time.monotonic()
    child.send_signal(signal.SIGTERM)
    try:
        out, _ = child.communicate(timeout=within + 10)
    finally:
        if child.poll() is None:
            child.kill()
    return time.monotonic() - began, out


def test_imap_back_after_an_outage_next_post_answered_within_5s(tmp_path, own_dovecot, smtp_come_and_go, tls_ca,
                                                                 caplog):
    caplog.set_level("DEBUG", logger="pbp")
    account = own_dovecot
    config = set_up_table(write_config(tmp_path, account, smtp_come_and_go, tls_ca, poll=SLOW_POLL,
                                       smtp_security="plain"), account.user)
    d = Daemon(config, dice=FixedDice(",".join(["0+00"] * 20)), environ=env_for(account))
    d.start()
    try:
        account.append(eml("/overcome Investigate vs Fair\n", to=account.user))
        assert wait_until(lambda: len(smtp_come_and_go.received) == 1, 30) is not None, caplog.text
        account.server.stop()          # the IDLE session breaks; reconnects are refused
        time.sleep(1.0)
        account.server.start()
        account.append(eml("/overcome Investigate vs Fair\n", to=account.user, message_id="after-outage@t"))
        took = wait_until(lambda: len(smtp_come_and_go.received) == 2, 10)
        assert took is not None and took < 5, f"answered {took} s after Dovecot came back\n{caplog.text}"
        assert d.watchers[0].failures == 0       # the watcher says it is back
    finally:
        d.stop()


def test_smtp_back_pending_replies_sent_within_5s(tmp_path, mailbox, smtp_come_and_go, tls_ca):
    config = set_up_table(write_config(tmp_path, mailbox, smtp_come_and_go, tls_ca, poll=SLOW_POLL,
                                       smtp_security="plain"), mailbox.user)
    smtp_come_and_go.stop()
    d = Daemon(config, dice=FixedDice(",".join(["0+00"] * 20)), environ=env_for(mailbox))
    d.start()
    try:
        mailbox.append(eml("/overcome Investigate vs Fair\n", to=mailbox.user))
        mailbox.append(eml("/fp\n", to=mailbox.user, message_id="post-2@pbp.test"))
        assert wait_until(lambda: m.Message.select().count() == 2, 10) is not None   # read while SMTP is down
        time.sleep(2.0)
        pending = list(m.OutboxMail.select())
        assert len(pending) == 2 and {r.status for r in pending} == {"pending"}
        assert all(r.attempts == 0 and r.last_error for r in pending)   # the outage is not charged to them
        smtp_come_and_go.start()
        took = wait_until(lambda: len(smtp_come_and_go.received) == 2, 10)
        assert took is not None and took < 5, f"sent {took} s after the SMTP server came back"
    finally:
        d.stop()
    assert {r.status for r in m.OutboxMail.select()} == {"sent"}


def test_hung_smtp_server_posts_still_applied_and_sigterm_within_5s(tmp_path, mailbox, tls_ca):
    hung = HungSmtp()
    try:
        path = write_config(tmp_path, mailbox, hung, tls_ca, smtp_security="plain")
        set_up_table(path, mailbox.user)
        child = spawn(path, env_for(mailbox))
        for i in range(3):
            mailbox.append(eml("/overcome Investigate vs Fair\n", to=mailbox.user, message_id=f"hung-{i}@t"))
        applied = wait_until(lambda: m.Message.select().where(m.Message.status == "applied").count() == 3, 15)
        took, out = sigterm(child, within=5)
        assert applied is not None, out
        assert child.returncode == 0, out
        assert took < 5, f"SIGTERM took {took:.1f} s\n{out}"
        assert "pbp stopped" in out
        assert {r.status for r in m.OutboxMail.select()} == {"pending"}   # kept for the next start
    finally:
        hung.close()


def test_restart_with_pending_replies_sends_them_at_once(tmp_path, mailbox, smtp_come_and_go, tls_ca):
    path = write_config(tmp_path, mailbox, smtp_come_and_go, tls_ca, poll=SLOW_POLL, smtp_security="plain")
    config = set_up_table(path, mailbox.user)
    mailbox.append(eml("/overcome Investigate vs Fair\n", to=mailbox.user))
    d = Daemon(config, dice=FixedDice("0+00"), environ=env_for(mailbox))
    assert d.poll(d.watchers[0]) == 1          # applied and committed; the process "dies" before sending
    d.watchers[0].inbox.close()
    assert m.OutboxMail.get().status == "pending"
    began = time.monotonic()
    child = spawn(path, env_for(mailbox))
    sent = wait_until(lambda: len(smtp_come_and_go.received) == 1, 15)
    _, out = sigterm(child, within=5)
    assert sent is not None and time.monotonic() - began > sent and sent < 5, out
    assert m.OutboxMail.get().status == "sent"


def test_log_level_warning_keeps_the_log_quiet(tmp_path, mailbox, smtp_come_and_go, tls_ca):
    path = write_config(tmp_path, mailbox, smtp_come_and_go, tls_ca, smtp_security="plain", log_level="WARNING")
    set_up_table(path, mailbox.user)
    child = spawn(path, env_for(mailbox))
    mailbox.append(eml("/overcome Investigate vs Fair\n", to=mailbox.user))
    replied = wait_until(lambda: len(smtp_come_and_go.received) == 1, 15)
    _, out = sigterm(child, within=5)
    assert replied is not None, out
    assert child.returncode == 0 and out.strip() == "", out


def test_an_idle_minute_logs_nothing_at_info(tmp_path, mailbox, smtp_come_and_go, tls_ca):
    """A minute with no mail (a tick, IDLE renewed every 10 s): only the start and stop lines."""
    path = write_config(tmp_path, mailbox, smtp_come_and_go, tls_ca, smtp_security="plain", poll=1)
    set_up_table(path, mailbox.user)
    child = spawn(path, env_for(mailbox))
    mailbox.append(eml("/overcome Investigate vs Fair\n", to=mailbox.user))
    assert wait_until(lambda: len(smtp_come_and_go.received) == 1, 15) is not None
    time.sleep(62)
    _, out = sigterm(child, within=5)
    lines = [line.split(" ", 3)[-1] for line in out.strip().splitlines()]
    assert child.returncode == 0, out
    assert len(lines) == 6, out
    assert lines[0].startswith("pbp.daemon: pbp running: 1 IMAP mailbox (INBOX of table@example.test on 127.0.0.1:")
    assert lines[1].startswith("pbp.daemon: INBOX of table@example.test") and "(IDLE: the server wakes" in lines[1]
    assert "message post-1@pbp.test campaign=chicago author=ruth@pbp.localhost status=applied commands=1" in lines[2]
    assert lines[3].startswith("pbp.daemon: reply ") and " sent campaign=chicago to=" in lines[3]
    assert lines[4:] == ["pbp.daemon: signal SIGTERM: stopping after the message in hand", "pbp.daemon: pbp stopped"]


#: A long outage: under the old backoff (then every 10 s) recovery took up to 10 s.
LONG_OUTAGE = 12


@pytest.mark.slow
def test_smtp_long_outage_few_attempts_working_again_logged_first_back_within_5s(tmp_path, mailbox,
                                                                                   smtp_come_and_go, tls_ca, caplog):
    caplog.set_level("INFO", logger="pbp")
    config = set_up_table(write_config(tmp_path, mailbox, smtp_come_and_go, tls_ca, poll=SLOW_POLL,
                                       smtp_security="plain"), mailbox.user)
    smtp_come_and_go.stop()
    d = Daemon(config, dice=FixedDice(",".join(["0+00"] * 60)), environ=env_for(mailbox))
    d.start()
    try:
        began, posts = time.monotonic(), 0
        while time.monotonic() - began < LONG_OUTAGE:     # posts keep coming: each one wakes the sender
            mailbox.append(eml("/fp\n", to=mailbox.user, message_id=f"during-{posts}@t"))
            posts += 1
            time.sleep(0.5)
        assert wait_until(lambda: m.Message.select().count() == posts, 15) is not None
        attempts = d.outbox.backoff.failures
        # 0.5, 1, 2, then every 3 s: a handful of tries, not one per committed post
        assert 3 <= attempts <= LONG_OUTAGE // 3 + 4, f"{attempts} attempts for {posts} posts"
        smtp_come_and_go.start()
        back = time.monotonic()
        first = wait_until(lambda: len(smtp_come_and_go.received) >= 1, 10)
        assert first is not None and first < 5, f"first reply {first} s after the SMTP server came back"
        assert wait_until(lambda: len(smtp_come_and_go.received) == posts, 20) is not None
        print(f"\nSMTP outage {LONG_OUTAGE} s: {attempts} attempts, {posts} posts; first reply {first:.2f} s and all "
              f"{time.monotonic() - back:.2f} s after it was back (load {open('/proc/loadavg').read().split()[0]})")
    finally:
        d.stop()
    messages = [r.getMessage() for r in caplog.records]
    again = next(i for i, text in enumerate(messages) if "working again" in text)
    first_sent = next(i for i, text in enumerate(messages) if text.startswith("reply ") and " sent " in text)
    assert again < first_sent, "'working again' is said when the server answers, before the backlog"


@pytest.mark.slow
def test_imap_long_outage_next_post_answered_within_5s(tmp_path, own_dovecot, smtp_come_and_go, tls_ca, caplog):
    caplog.set_level("INFO", logger="pbp")
    account = own_dovecot
    config = set_up_table(write_config(tmp_path, account, smtp_come_and_go, tls_ca, poll=SLOW_POLL,
                                       smtp_security="plain"), account.user)
    d = Daemon(config, dice=FixedDice(",".join(["0+00"] * 20)), environ=env_for(account))
    d.start()
    try:
        account.append(eml("/fp\n", to=account.user))
        assert wait_until(lambda: len(smtp_come_and_go.received) == 1, 30) is not None, caplog.text
        account.server.stop()
        time.sleep(LONG_OUTAGE)
        account.server.start()
        back = time.monotonic()
        account.append(eml("/fp\n", to=account.user, message_id="after-long-outage@t"))
        took = wait_until(lambda: len(smtp_come_and_go.received) == 2, 15)
        assert took is not None and took < 5, f"answered {took} s after Dovecot came back\n{caplog.text}"
        print(f"\nIMAP outage {LONG_OUTAGE} s: answered {time.monotonic() - back:.2f} s after it was back "
              f"(load {open('/proc/loadavg').read().split()[0]})")
    finally:
        d.stop()
    assert "working again" in caplog.text
