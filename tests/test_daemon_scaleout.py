"""Several daemons share one catch-all mailbox on PostgreSQL (``[daemon] apply_workers``):
one reads and stores, every daemon's workers apply; each post once, each campaign's posts in
the order they were read, each reply once. Real Dovecot, real SMTP server, real PostgreSQL;
the daemons are child processes, one of them killed (-9) in the middle."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections import Counter, defaultdict

import pytest

from pbp.campaigns import create_campaign, import_character
from pbp.demo import sample_dir
from pbp.store import models as m
from pbp.store.db import open_database
from pbp.store.outage import reopen
from tests.helpers import eml
from tests.rig.smtp import SmtpServer
from tests.test_daemon_live import REPO
from tests.test_daemon_recovery import wait_until

pytestmark = pytest.mark.live

CAMPAIGNS = 3
POSTS = 60


def config_text(url, mailbox, smtp) -> str:
    return f"""
[database]
url = "{url}"
[mail]
transport = "imap"
domain = "pbp.test"
from_address = "{mailbox.user}"
[imap]
host = "127.0.0.1"
port = {mailbox.imap_port}
security = "plain"
username = "{mailbox.user}"
password_env = "PBP_IMAP_PASSWORD"
[smtp]
host = "127.0.0.1"
port = {smtp.port}
security = "plain"
[[mailboxes]]
name = "INBOX"
campaign = ""
[daemon]
poll_seconds = 1
apply_workers = 2
"""


@pytest.fixture
def own_smtp():
    with SmtpServer() as server:
        yield server


def test_three_daemons_share_one_catch_all_mailbox_in_each_campaigns_order(tmp_path, postgres, mailbox, own_smtp):
    user, domain = mailbox.user.split("@")
    url = postgres.create_database("pbp_scaleout")
    open_database(url)
    for k in range(CAMPAIGNS):
        campaign = create_campaign(f"c{k}", f"Campaign {k}", address=f"{user}+c{k}@{domain}", gms=["gm@pbp.localhost"])
        import_character(campaign, str(sample_dir() / "ruth.toml"))
    path = tmp_path / "pbp.toml"
    path.write_text(config_text(url, mailbox, own_smtp))
    env = {**os.environ, "PBP_IMAP_PASSWORD": mailbox.password}
    logs = [tmp_path / f"daemon-{i}.log" for i in range(3)]
    daemons = [subprocess.Popen([sys.executable, "-m", "pbp.cli", "-c", str(path), "run"], env=env, cwd=REPO,
                                stdout=log.open("w"), stderr=subprocess.STDOUT) for log in logs]
    try:
        assert wait_until(lambda: sum("watching (" in log.read_text() for log in logs) == 1, 30) is not None
        mailbox.server.append_many(mailbox.user, [
            eml(f"Post {i}.\n/fp\n", to=f"{user}+c{i % CAMPAIGNS}@{domain}", message_id=f"post-{i}@t")
            for i in range(POSTS)])
        wait_until(lambda: len(own_smtp.received) >= POSTS // 3, 60)
        reader = next(i for i, log in enumerate(logs) if "watching (" in log.read_text())
        victim = (reader + 1) % 3                         # an apply worker's daemon, mid-burst
        daemons[victim].send_signal(signal.SIGKILL)
        daemons[victim].wait(10)

        def all_out() -> bool:
            try:
                return (m.Message.select().count() == POSTS and m.InboundMail.select().count() == 0
                        and not m.OutboxMail.select().where(m.OutboxMail.status != "sent").exists())
            finally:
                reopen()

        assert wait_until(all_out, 90, step=0.2) is not None, [log.read_text()[-2000:] for log in logs]
        for i, d in enumerate(daemons):
            if i != victim:
                d.send_signal(signal.SIGTERM)
                assert d.wait(15) == 0
    finally:
        for d in daemons:
            if d.poll() is None:
                d.kill()
    messages = list(m.Message.select().order_by(m.Message.id))
    assert {r.status for r in messages} == {"applied"} and len(messages) == POSTS
    by_campaign = defaultdict(list)
    for row in messages:
        by_campaign[row.campaign_id].append(row.uid)
    assert all(uids == sorted(uids) for uids in by_campaign.values()), by_campaign   # each campaign in order
    applied_by = [log.read_text().count("status=applied") for log in logs]
    assert sum(1 for n in applied_by if n) >= 2, applied_by        # more than one daemon applied posts
    outbox = list(m.OutboxMail.select())
    sent = Counter(r.raw.split(b"Message-ID: ", 1)[1].split(b"\r\n", 1)[0].split(b"\n", 1)[0].strip().decode()
                   for r in own_smtp.received)
    assert set(sent) == {f"<{r.message_id.strip('<>')}>" for r in outbox}
    assert sum(sent.values()) - len(sent) <= 1                      # the kill's one window, at most
    print(f"\napplied by daemon: {applied_by} (killed: {victim}, reader: {reader})")
