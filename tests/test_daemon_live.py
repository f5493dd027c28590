"""The daemon end to end against a real Dovecot (IMAP in) and a real SMTP server (out),
both on loopback, started by the test rig. Crashes are real: the daemon runs as a child
process that ``pbp.faults`` ends with ``os._exit`` at a named point, then runs again."""
from __future__ import annotations

import email
import os
import signal
import subprocess
import sys
import time
from email import policy
from pathlib import Path

import pytest

from pbp import faults
from pbp.config import load_config
from pbp.daemon import Daemon
from pbp.rules.dice import FixedDice
from pbp.store import models as m
from pbp.store.db import open_database
from tests.helpers import eml
from tests.rig.fixtures import SMTP_PASSWORD, SMTP_USER

pytestmark = pytest.mark.live

REPO = Path(__file__).resolve().parent.parent


def write_config(tmp_path, mailbox, smtp, tls_ca, *, imap_security="starttls", poll=1, smtp_security="starttls",
                 log_level="INFO") -> Path:
    port = mailbox.imaps_port if imap_security == "tls" else mailbox.imap_port
    auth = f'username = "{SMTP_USER}"\npassword_env = "PBP_SMTP_PASSWORD"\n' if getattr(smtp, "auth", None) else ""
    path = tmp_path / "pbp.toml"
    path.write_text(f"""
[database]
url = "sqlite:///pbp.db"
[mail]
transport = "imap"
domain = "pbp.test"
from_address = "{mailbox.user}"
[imap]
host = "127.0.0.1"
port = {port}
security = "{imap_security}"
username = "{mailbox.user}"
password_env = "PBP_IMAP_PASSWORD"
ca_file = "{tls_ca}"
timeout = 10
[smtp]
host = "127.0.0.1"
port = {smtp.port}
security = "{smtp_security}"
ca_file = "{tls_ca}"
timeout = 10
{auth}
[[mailboxes]]
name = "INBOX"
campaign = "chicago"
[daemon]
poll_seconds = {poll}
log_level = "{log_level}"
""")
    return path


@pytest.fixture
def env(mailbox):
    return {**os.environ, "PBP_IMAP_PASSWORD": mailbox.password, "PBP_SMTP_PASSWORD": SMTP_PASSWORD}


@pytest.fixture
def table(tmp_path, mailbox, smtp_auth_server, tls_ca, env):
    """A campaign on the rig's table@ mailbox, replies through STARTTLS+AUTH SMTP."""
    return set_up_table(write_config(tmp_path, mailbox, smtp_auth_server, tls_ca), mailbox.user)


def set_up_table(path: Path, address: str):
    """Open the config's database and create the Chicago campaign with the sample characters."""
    config = load_config(path)
    open_database(config.database_url)
    from pbp.campaigns import create_campaign, import_character
    from pbp.demo import sample_dir

    campaign = create_campaign("chicago", "Chicago Nights", address=address, gms=["gm@pbp.localhost"])
    for sheet in sorted(sample_dir().glob("*.toml")):
        if sheet.name != "campaign.toml":
            import_character(campaign, str(sheet))
    return config


def daemon(config, env, dice="0+00,0000,0000,0000"):
    return Daemon(config, dice=FixedDice(dice), environ=env)


def body_of(raw: bytes) -> str:
    return email.message_from_bytes(raw, policy=policy.default).get_body(("plain",)).get_content()


def test_post_in_over_imap_reply_out_over_smtp_threaded(table, mailbox, smtp_auth_server, env):
    mailbox.append(eml("Ruth searches the dock.\n/overcome Investigate vs Fair\n", to=mailbox.user))
    d = daemon(table, env)
    assert d.run_once() == 1
    (got,) = smtp_auth_server.received
    msg = email.message_from_bytes(got.raw, policy=policy.default)
    assert msg["In-Reply-To"] == "<post-1@pbp.test>" and msg["Subject"] == "Re: [Chicago Nights] The warehouse"
    assert msg["Auto-Submitted"] == "auto-replied"
    assert got.tls and got.login == SMTP_USER
    assert set(got.rcpt_tos) >= {"ruth@pbp.localhost", "gm@pbp.localhost"}
    assert "Ruth searches the dock." in body_of(got.raw) and "+3 Good" in body_of(got.raw)
    assert msg.get_body(("html",)) is not None
    assert all("\\Seen" in str(s.flags) for s in mailbox.messages())
    assert m.OutboxMail.get().status == "sent"

    # a reply to that reply, quoting the old command, does not roll again
    quoted = ("Nice find!\n\nOn Sun, 29 Nov 2026 at 18:01, Chicago Nights <table@example.test> wrote:\n"
              "> Ruth searches the dock.\n> /overcome Investigate vs Fair\n")
    mailbox.append(eml(quoted, to=mailbox.user, message_id="post-2@pbp.test"))
    assert d.run_once() == 1
    assert m.RollRecord.select().count() == 1
    assert "/overcome" not in body_of(smtp_auth_server.received[-1].raw)


def test_implicit_tls_imap(tmp_path, mailbox, smtp_auth_server, tls_ca, env, table):
    config = load_config(write_config(tmp_path, mailbox, smtp_auth_server, tls_ca, imap_security="tls"))
    mailbox.append(eml("/fp\n", to=mailbox.user))
    assert daemon(config, env).run_once() == 1
    assert len(smtp_auth_server.received) == 1


def test_stranger_autoreply_and_bounce(table, mailbox, smtp_auth_server, env):
    d = daemon(table, env)
    mailbox.append(eml("/fp spend\n", sender="eve@evil.test", to=mailbox.user, message_id="s1@t"))
    mailbox.append(eml("/fp spend\n", sender="eve@evil.test", to=mailbox.user, message_id="s2@t"))
    mailbox.append(eml("I am away.\n/fp spend\n", to=mailbox.user, message_id="a1@t", extra="Auto-Submitted: auto-replied\n"))
    mailbox.append(eml("Delivery failed\n/fp spend\n", sender="MAILER-DAEMON@mx.test", to=mailbox.user, message_id="b1@t"))
    mailbox.append(eml("/fp spend\n", sender=mailbox.user, to=mailbox.user, message_id="own@t"))
    assert d.run_once() == 5
    statuses = {row.message_id: row.status for row in m.Message.select()}
    assert statuses == {"s1@t": "rejected", "s2@t": "rejected", "a1@t": "ignored", "b1@t": "ignored", "own@t": "ignored"}
    (reply,) = smtp_auth_server.received  # one polite reply to the stranger, nothing else
    assert reply.rcpt_tos == ("eve@evil.test",)
    from pbp.store import repo

    assert repo.load_table(m.Campaign.get()).character("Ruth").fate_points == 3


def run_child(config_path: Path, env: dict, *, fault: str | None = None, dice="0+00") -> subprocess.CompletedProcess:
    child_env = {**env, "PBP_DICE": dice}
    child_env.pop("PBP_FAULT", None)
    if fault:
        child_env["PBP_FAULT"] = fault
    return subprocess.run([sys.executable, "-m", "pbp.cli", "-c", str(config_path), "run", "--once"],
                          env=child_env, cwd=REPO, capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("point", faults.POINTS)
def test_killed_at_each_point_then_restarted_applies_once(point, table, mailbox, smtp_auth_server, env):
    """Kill the daemon at ``point`` (os._exit, like a power cut), restart it: the post is
    applied once, rolled once, and its reply reaches the SMTP server once."""
    mailbox.append(eml("/overcome Investigate vs Fair\n", to=mailbox.user))
    crashed = run_child(table.path, env, fault=point, dice="0+00")
    assert crashed.returncode == faults.EXIT_CODE, crashed.stderr
    again = run_child(table.path, env, dice="----")   # a second roll would show these dice
    assert again.returncode == 0, again.stderr

    # before the commit nothing was kept, so the restart rolls afresh; after it, never again
    committed = faults.POINTS.index(point) >= faults.POINTS.index("after_commit")
    expected = [0, 1, 0, 0] if committed else [-1, -1, -1, -1]
    rolls = list(m.RollRecord.select())
    assert len(rolls) == 1 and rolls[0].dice == expected
    assert [r.status for r in m.Message.select()] == ["applied"]
    received = smtp_auth_server.received
    assert len(received) == 1, [r.mail_from for r in received]
    assert ("[0] [+] [0] [0]" if committed else "[-] [-] [-] [-]") in body_of(received[0].raw)
    assert [o.status for o in m.OutboxMail.select()] == ["sent"]
    assert all("\\Seen" in str(s.flags) for s in mailbox.messages())
    # a third run finds nothing to do and sends nothing
    assert run_child(table.path, env).returncode == 0
    assert len(smtp_auth_server.received) == 1


def test_run_uses_idle_and_stops_cleanly_on_sigterm(table, mailbox, smtp_auth_server, env):
    child = subprocess.Popen([sys.executable, "-m", "pbp.cli", "-c", str(table.path), "run"],
                             env={**env, "PBP_DICE": "0+00"}, cwd=REPO, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True)
    try:
        time.sleep(1.5)  # connected and idling
        sent_at = time.monotonic()
        mailbox.append(eml("/overcome Investigate vs Fair\n", to=mailbox.user))
        while not smtp_auth_server.received and time.monotonic() - sent_at < 10:
            time.sleep(0.02)
        latency = time.monotonic() - sent_at
        assert smtp_auth_server.received, "no reply within 10 s"
        assert latency < 8.0  # a generous guard on a loaded machine; the figure is benchmarks/mail_e2e.py's
        child.send_signal(signal.SIGTERM)
        out, _ = child.communicate(timeout=15)
    finally:
        if child.poll() is None:
            child.kill()
    assert child.returncode == 0, out
    assert "campaign=chicago author=ruth@pbp.localhost status=applied" in out
    assert "pbp stopped" in out


def test_wrong_password_is_logged_with_a_hint(table, mailbox, env, tmp_path):
    bad = {**env, "PBP_IMAP_PASSWORD": "wrong"}
    out = subprocess.run([sys.executable, "-m", "pbp.cli", "-c", str(table.path), "check-config"],
                         env=bad, cwd=REPO, capture_output=True, text=True, timeout=60)
    assert out.returncode == 1
    assert "FAIL  imap" in out.stdout and "hint:" in out.stdout
    assert "ok    smtp" in out.stdout
    good = subprocess.run([sys.executable, "-m", "pbp.cli", "-c", str(table.path), "check-config"],
                          env=env, cwd=REPO, capture_output=True, text=True, timeout=60)
    assert good.returncode == 0, good.stdout
    assert good.stderr == "" and out.stderr == "", good.stderr + out.stderr   # no library noise, no traceback
    assert all(line.startswith(("  ok    ", "  FAIL  ", "      hint: ")) for line in good.stdout.splitlines())


def test_reconnects_after_the_server_drops_the_connection(table, mailbox, smtp_auth_server, env, dovecot):
    d = daemon(table, env)
    mailbox.append(eml("/fp\n", to=mailbox.user))
    assert d.run_once() == 1
    dovecot.kick(mailbox.user)              # the server closes every session of the table
    mailbox.append(eml("/fp\n", to=mailbox.user, message_id="post-2@pbp.test"))
    assert d.run_once() == 1
    assert len(smtp_auth_server.received) == 2


def test_connection_problems_are_logged_with_a_hint_and_retried(table, mailbox, env, caplog):
    d = daemon(table, {**env, "PBP_IMAP_PASSWORD": "wrong"})
    watcher = d.watchers[0]
    with caplog.at_level("DEBUG", logger="pbp.daemon"):
        first = d.watch(watcher)
        second = d.watch(watcher)
    lines = [r for r in caplog.records if r.name == "pbp.daemon" and "retrying in" in r.getMessage()]
    assert [r.levelname for r in lines] == ["WARNING", "DEBUG"]   # the same problem again: not repeated loudly
    assert "hint:" in lines[0].getMessage() and "@@" not in lines[0].getMessage()
    assert f"retrying in {first}s" in lines[0].getMessage()
    # a refused login needs the operator: no hammering the account every second
    assert watcher.failures == 2 and 30 <= first <= second


def test_handled_mail_can_be_moved_to_a_folder(tmp_path, mailbox, smtp_auth_server, tls_ca, env, table):
    from dataclasses import replace

    config = replace(table, handled="move:Done")
    mailbox.append(eml("/fp\n", to=mailbox.user))
    assert daemon(config, env).run_once() == 1
    assert mailbox.messages() == [] and len(mailbox.messages("Done")) == 1


def test_two_mailboxes_each_bound_to_its_campaign(tmp_path, mailbox, smtp_auth_server, tls_ca, env, table):
    """[[mailboxes]]: INBOX is Chicago's table, the folder "Harbour" another campaign's."""
    from dataclasses import replace

    from pbp.campaigns import add_member, create_campaign
    from pbp.config import MailboxBinding

    harbour = create_campaign("harbour", "Harbour Lights", gms=["gm@pbp.localhost"])
    add_member(harbour, "ruth@pbp.localhost")
    mailbox.server.create_folder(mailbox.user, "Harbour")
    config = replace(table, mailboxes=(MailboxBinding("INBOX", "chicago"), MailboxBinding("Harbour", "harbour")))
    mailbox.append(eml("/fp\n", to=mailbox.user, message_id="in-chicago@t"))
    mailbox.append(eml("Ruth walks the pier.\n", to=mailbox.user, message_id="in-harbour@t"), folder="Harbour")
    d = daemon(config, env)
    assert len(d.watchers) == 2
    assert d.run_once() == 2
    campaigns = {row.message_id: (row.campaign.slug, row.status) for row in m.Message.select()}
    assert campaigns == {"in-chicago@t": ("chicago", "applied"), "in-harbour@t": ("harbour", "applied")}
    subjects = sorted(email.message_from_bytes(r.raw)["Subject"] for r in smtp_auth_server.received)
    assert subjects == ["Re: [Chicago Nights] The warehouse", "Re: [Harbour Lights] The warehouse"]


def test_a_server_without_idle_is_polled(tmp_path, dovecot_factory, smtp_auth_server, tls_ca, env):
    """No IDLE in the server's capabilities: the watch job polls on its interval instead."""
    from tests.rig.fixtures import TABLE_USER, USERS, MailAccount

    bare = dovecot_factory(capabilities="IMAP4rev1 SASL-IR LOGIN-REFERRALS ID ENABLE LITERAL+ UIDPLUS")
    account = MailAccount(bare, TABLE_USER, USERS[TABLE_USER])
    config = load_config(write_config(tmp_path, account, smtp_auth_server, tls_ca))
    open_database(config.database_url)
    from pbp.campaigns import add_member, create_campaign

    add_member(create_campaign("chicago", "Chicago Nights", gms=["gm@pbp.localhost"]), "ruth@pbp.localhost")
    d = daemon(config, env)
    account.append(eml("/fp\n", to=account.user))
    watcher = d.watchers[0]
    started = time.monotonic()
    wait = d.watch(watcher)                # one poll, then a sleep of poll_seconds (no IDLE to wait in)
    assert time.monotonic() - started < 5 and wait == config.poll_seconds
    assert watcher.inbox.supports_idle is False
    assert m.Message.select().count() == 1
    assert d.deliver() == 1 and len(smtp_auth_server.received) == 1
