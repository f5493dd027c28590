"""The daemon survives its database: PostgreSQL restarted under it, its sessions terminated,
and (when the operator asks for it) an exit for the supervisor after a long outage. Real
PostgreSQL (a cluster of each test's own, since it is stopped), real Dovecot, real SMTP."""
from __future__ import annotations

import logging
import os
import subprocess
import sys
import time

import pytest

from pbp.daemon import Daemon
from pbp.rules.dice import FixedDice
from pbp.store import models as m
from pbp.store.outage import EXIT_DATABASE_DOWN, reopen
from tests.helpers import eml
from tests.rig.postgres import Postgres
from tests.test_daemon_live import REPO, set_up_table, write_config
from tests.test_daemon_recovery import env_for, wait_until

pytestmark = pytest.mark.live

POSTS = 10


@pytest.fixture
def own_postgres():
    server = Postgres().start()
    yield server
    try:
        server.stop()
    except subprocess.CalledProcessError:   # stopped by the test already
        pass


def pg_config(tmp_path, postgres, mailbox, smtp, tls_ca, name: str, **daemon):
    url = postgres.create_database(name)
    path = write_config(tmp_path, mailbox, smtp, tls_ca, smtp_security="plain")
    text = path.read_text().replace('url = "sqlite:///pbp.db"', f'url = "{url}"')
    for key, value in daemon.items():
        text = text.replace("[daemon]\n", f"[daemon]\n{key} = {value}\n")
    path.write_text(text)
    return path


def replies(smtp) -> int:
    return len(smtp.received)


def answered() -> int:
    """Posts applied whose replies are all sent (read on a connection of this thread)."""
    try:
        pending = {r.source_id for r in m.OutboxMail.select(m.OutboxMail.source_id)
                   .where(m.OutboxMail.status != "sent")}
        return sum(1 for r in m.Message.select(m.Message.message_id).where(m.Message.status == "applied")
                   if r.message_id not in pending)
    except Exception:
        reopen()
        return -1


def test_postgresql_restarted_under_a_running_daemon_every_post_answered_in_seconds(
        tmp_path, own_postgres, mailbox, smtp_server, tls_ca, caplog):
    caplog.set_level(logging.INFO, logger="pbp")
    config = set_up_table(pg_config(tmp_path, own_postgres, mailbox, smtp_server, tls_ca, "pbp_restart"),
                          mailbox.user)
    d = Daemon(config, dice=FixedDice(",".join(["0+00"] * 40)), environ=env_for(mailbox))
    d.start()
    try:
        mailbox.append(eml("/overcome Investigate vs Fair\n", to=mailbox.user))
        # sent and marked (stopping between the two is the documented resend window)
        assert wait_until(lambda: replies(smtp_server) == 1 and answered() == 1, 15) is not None, caplog.text
        own_postgres.pg_ctl("stop", "-m", "fast")      # every session of every thread is cut
        for i in range(POSTS):
            mailbox.append(eml(f"Post {i}.\n/fp\n", to=mailbox.user, message_id=f"while-down-{i}@t"))
        time.sleep(4)                                   # the daemon meets the outage, more than once
        assert replies(smtp_server) == 1
        own_postgres.pg_ctl("start")
        reopen()   # this test's own connection went with the restart too
        took = wait_until(lambda: replies(smtp_server) >= 1 + POSTS and answered() == 1 + POSTS, 20)
        assert took is not None and took < 10, f"{answered()} posts answered, {took} s after the restart\n" \
                                               f"{caplog.text}"
    finally:
        d.stop()
    assert m.Message.select().where(m.Message.status == "applied").count() == 1 + POSTS
    outbox = list(m.OutboxMail.select())
    assert {r.status for r in outbox} == {"sent"}
    ids = [r.raw.split(b"Message-ID: ", 1)[1].split(b"\r\n", 1)[0].split(b"\n", 1)[0].strip().decode()
           for r in smtp_server.received]
    assert sorted(ids) == sorted(f"<{r.message_id.strip('<>')}>" for r in outbox)   # each reply once
    said = [r for r in caplog.records if r.getMessage().startswith("database: ")]
    assert [r.levelname for r in said] == ["WARNING", "INFO"], caplog.text     # once down, once back
    assert "working again" in said[1].getMessage()
    assert not any(r.exc_info for r in caplog.records), "a known outage logs no traceback"
    print(f"\nPostgreSQL restart: {POSTS} posts answered {took:.2f} s after it was back "
          f"(load {open('/proc/loadavg').read().split()[0]})")


def test_terminated_sessions_are_reopened_and_the_next_post_answered(tmp_path, own_postgres, mailbox, smtp_server,
                                                                      tls_ca, caplog):
    caplog.set_level(logging.DEBUG, logger="pbp")
    config = set_up_table(pg_config(tmp_path, own_postgres, mailbox, smtp_server, tls_ca, "pbp_terminate"),
                          mailbox.user)
    d = Daemon(config, dice=FixedDice(",".join(["0+00"] * 20)), environ=env_for(mailbox))
    d.start()
    try:
        mailbox.append(eml("/fp\n", to=mailbox.user))
        assert wait_until(lambda: replies(smtp_server) == 1, 15) is not None, caplog.text
        assert own_postgres.terminate_backends("pbp_terminate") >= 2    # the watcher's, the sender's, ours
        mailbox.append(eml("/fp\n", to=mailbox.user, message_id="after-terminate@t"))
        took = wait_until(lambda: replies(smtp_server) == 2, 15)
        assert took is not None and took < 5, caplog.text
    finally:
        d.stop()
    # a fresh connection answered at once: reopened quietly, no outage to report
    assert "database: reopened the connection of INBOX" in caplog.text, caplog.text
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING], caplog.text


def test_database_down_exit_seconds_exits_75_for_the_supervisor_with_one_line(tmp_path, own_postgres, mailbox,
                                                                              smtp_server, tls_ca):
    path = pg_config(tmp_path, own_postgres, mailbox, smtp_server, tls_ca, "pbp_exit", database_down_exit_seconds=3)
    set_up_table(path, mailbox.user)
    m.db.close()
    log = tmp_path / "daemon.log"
    child = subprocess.Popen([sys.executable, "-m", "pbp.cli", "-c", str(path), "run"],
                             env=env_for(mailbox), cwd=REPO, stdout=log.open("w"), stderr=subprocess.STDOUT)
    try:
        assert wait_until(lambda: "watching (" in log.read_text(), 30) is not None, log.read_text()
        own_postgres.pg_ctl("stop", "-m", "fast")
        mailbox.append(eml("/fp\n", to=mailbox.user))   # the watcher wakes and meets the outage
        child.wait(30)
    finally:
        if child.poll() is None:
            child.kill()
    out = log.read_text()
    assert child.returncode == EXIT_DATABASE_DOWN, out
    lines = out.strip().splitlines()
    assert sum("database: unreachable (" in line for line in lines) == 1, out
    assert sum("exiting with status 75" in line for line in lines) == 1, out
    assert "Traceback" not in out
    assert lines[-1].endswith("pbp stopped"), out


def test_sqlite_locked_past_its_busy_timeout_the_post_is_answered_when_released(tmp_path, mailbox, smtp_server,
                                                                                tls_ca, caplog):
    """Another program holds SQLite's write lock longer than the 5 s busy timeout: the post
    waits in the mailbox, the outage is said once, and the post is answered once released."""
    import sqlite3

    caplog.set_level(logging.INFO, logger="pbp")
    config = set_up_table(write_config(tmp_path, mailbox, smtp_server, tls_ca, smtp_security="plain"), mailbox.user)
    d = Daemon(config, dice=FixedDice(",".join(["0+00"] * 20)), environ=env_for(mailbox))
    d.start()
    other = sqlite3.connect(m.db.obj.database, isolation_level=None)
    try:
        mailbox.append(eml("/fp\n", to=mailbox.user))
        assert wait_until(lambda: replies(smtp_server) == 1, 15) is not None, caplog.text
        other.execute("BEGIN EXCLUSIVE")                 # e.g. a backup tool, a manual sqlite3 session
        mailbox.append(eml("/fp\n", to=mailbox.user, message_id="while-locked@t"))
        assert wait_until(lambda: "database: unreachable" in caplog.text, 20) is not None, caplog.text
        other.execute("COMMIT")
        took = wait_until(lambda: replies(smtp_server) == 2, 15)
        assert took is not None and took < 5, caplog.text
    finally:
        other.close()
        d.stop()
    said = [r for r in caplog.records if r.getMessage().startswith("database: ")]
    assert [r.levelname for r in said] == ["WARNING", "INFO"], caplog.text
    assert "database is locked" in said[0].getMessage()
