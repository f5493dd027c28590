"""kill -9 during a burst, again and again: how many replies reach the SMTP server twice.

A reply is sent again only when the daemon dies between the server's 250 and the sent mark
(docs/operating.md). The daemon runs as a child process (``pbp run``) over real Dovecot and
a real SMTP server, on SQLite and on PostgreSQL; each round starts it, waits until replies
flow, kills it with SIGKILL at a varying moment, and starts it again until every reply is
out. The figure (resends per kill) is printed; the assertion is that the window is small."""
from __future__ import annotations

import os
import random
import re
import signal
import subprocess
import sys
import time
from collections import Counter

import pytest

from pbp.store import models as m
from pbp.store.outage import reopen
from tests.helpers import eml
from tests.rig.smtp import SmtpServer
from tests.test_daemon_live import REPO, set_up_table, write_config
from tests.test_daemon_recovery import env_for, wait_until

pytestmark = [pytest.mark.live, pytest.mark.slow]

POSTS = 80
KILLS = 10


@pytest.fixture
def own_smtp():
    with SmtpServer() as server:
        yield server


def message_ids(received) -> Counter:
    ids = Counter()
    for r in received:
        head = r.raw.split(b"\r\n\r\n", 1)[0].replace(b"\r\n", b"\n")
        for line in head.split(b"\n"):
            if line.lower().startswith(b"message-id:"):
                ids[line.split(b":", 1)[1].strip().decode()] += 1
    return ids


def windows(text: str) -> tuple[tuple[float, float, float], tuple[float, float, float]]:
    """p50, p90 and max of the daemons' "noted ... and marked sent ... after" figures (ms)."""
    found = re.findall(r"noted ([0-9.]+) ms and marked sent ([0-9.]+) ms after", text)
    assert found, text[-2000:]

    def spread(values):
        values = sorted(values)
        return values[len(values) // 2], values[int(len(values) * 0.9)], values[-1]

    return spread([float(a) for a, _ in found]), spread([float(b) for _, b in found])


@pytest.mark.parametrize("database", ["sqlite", "postgresql"])
def test_kill_9_during_bursts_resends_almost_nothing(database, tmp_path, mailbox, own_smtp, tls_ca, postgres):
    path = write_config(tmp_path, mailbox, own_smtp, tls_ca, smtp_security="plain", imap_security="plain",
                        log_level="DEBUG")
    if database == "postgresql":
        url = postgres.create_database(f"pbp_kills_{os.getpid()}")
        path.write_text(path.read_text().replace('url = "sqlite:///pbp.db"', f'url = "{url}"'))
    set_up_table(path, mailbox.user)
    reopen()
    mailbox.server.append_many(mailbox.user, [
        eml(f"Post {i}.\n/fp\n", to=mailbox.user, message_id=f"burst-{i}@t") for i in range(POSTS)])
    env = env_for(mailbox)
    rng = random.Random(28)
    kills = 0
    log = tmp_path / "daemon.log"

    def spawn():
        return subprocess.Popen([sys.executable, "-m", "pbp.cli", "-c", str(path), "run"], env=env, cwd=REPO,
                                stdout=log.open("a"), stderr=subprocess.STDOUT)

    def all_out() -> bool:
        try:
            return (m.Message.select().count() == POSTS
                    and not m.OutboxMail.select().where(m.OutboxMail.status != "sent").exists())
        finally:
            reopen()   # no connection of this test's own kept across the daemon's rounds

    while kills < KILLS and not all_out():
        child = spawn()
        try:
            before = len(own_smtp.received)
            if wait_until(lambda: len(own_smtp.received) >= before + 2, 60) is None:
                break
            time.sleep(rng.uniform(0.0, 0.4))     # somewhere in the stream of replies
            child.send_signal(signal.SIGKILL)
            child.wait(10)
            kills += 1
        finally:
            if child.poll() is None:
                child.kill()
    started = log.read_text().count("pbp running") if log.exists() else 0
    child = spawn()
    try:
        assert wait_until(all_out, 120, step=0.2) is not None, log.read_text()[-3000:]
        # the last kill may leave nothing to do: SIGTERM only once this daemon runs (before its
        # handler is set, a SIGTERM ends Python at start-up with -15, which says nothing of pbp)
        assert wait_until(lambda: log.read_text().count("pbp running") > started, 60) is not None, \
            log.read_text()[-3000:]
        child.send_signal(signal.SIGTERM)
        assert child.wait(15) == 0
    finally:
        if child.poll() is None:
            child.kill()
    outbox = list(m.OutboxMail.select())
    ids = message_ids(own_smtp.received)
    assert {r.status for r in outbox} == {"sent"}
    assert set(ids) == {f"<{r.message_id.strip('<>')}>" for r in outbox}     # every reply reached the server
    resends = sum(ids.values()) - len(ids)
    noted, marked = windows(log.read_text())
    print(f"\n{database}: {kills} kills -9 during a burst of {POSTS} posts, {len(outbox)} replies, "
          f"{resends} sent twice (load {open('/proc/loadavg').read().split()[0]}); from the server's 250 to "
          f"the note p50 {noted[0]:.3f} p90 {noted[1]:.3f} max {noted[2]:.3f} ms, to the row marked p50 "
          f"{marked[0]:.1f} p90 {marked[1]:.1f} max {marked[2]:.1f} ms")
    assert kills >= KILLS // 2, "the daemon was killed while replies were going out"
    # The window differs by database, so does the bound. SQLite: the note in pbp.db-sent comes
    # 0.05 ms (p50) after the 250, and a resend is rare (0 or 1 in 10 kills). PostgreSQL: the
    # window is the mark's UPDATE and commit, 2 ms p50 and up to 20 ms when the thread waits
    # for the GIL behind a post being applied: about one kill in ten lands in it, so two in a
    # run happen (CI saw 2 once); three or more says the window grew.
    allowed = 1 if database == "sqlite" else 2
    assert resends <= allowed, [k for k, v in ids.items() if v > 1]
