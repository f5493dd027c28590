"""End to end on loopback: a real Dovecot (IMAP in, IDLE) and a real SMTP server (out).

    python benchmarks/mail_e2e.py [--posts 1000] [--campaigns 10] [--latency-samples 40]

1. Burst: N posts, spread over C campaigns by plus-address (table+cK@...), are appended to
   the table's mailbox; the daemon then handles them (fetch in batches, one transaction per
   post, replies sent meanwhile by the sender thread, one SMTP session per wake-up). Prints posts per second from
   the first fetch to the last reply accepted by the SMTP server.
2. Latency: the daemon idles on the mailbox; one post at a time is appended and the time
   until its reply reaches the SMTP server is measured. Dovecot's IDLE wakes 0.5 s after
   new mail, which is the floor. Prints p50 and p95.

Targets (issue 3): burst >= 100 posts/s; latency p50 < 0.65 s.

    python benchmarks/mail_e2e.py --daemons 1,2,3 [--posts 600]

3. Several daemons: the same burst over six mailboxes on one PostgreSQL, shared out between
   1, 2, 3 ``pbp run`` processes (each its own ``[[mailboxes]]``); posts per second.
    python benchmarks/mail_e2e.py --workers 1,2,4 [--posts 400] [--campaigns 10]

4. Apply workers: the burst in one catch-all mailbox (campaigns by plus-address) on one
   PostgreSQL, read by one daemon and applied by 1, 2, 4 ``pbp run`` processes with
   ``[daemon] apply_workers = 1`` each (processes, so that more than one core can work).
   Prints posts per second from the first APPEND to the last reply at the SMTP server, and
   CPU time per post of the pbp processes and of PostgreSQL's (from /proc, start-up left out).
Needs Dovecot (bash scripts/install-test-services) and root, like the live tests.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.rig.dovecot import Dovecot  # noqa: E402
from tests.rig.smtp import SmtpServer  # noqa: E402

USER, PASSWORD = "table@example.test", "table-secret"

POST = """From: {sender}
To: Table <table+c{k}@example.test>
Subject: Scene {i}
Message-ID: <e2e-{i}@bench.test>
Date: Sun, 29 Nov 2026 20:00:00 +0000
MIME-Version: 1.0
Content-Type: text/plain; charset=utf-8

Ruth keeps to the shadows along the loading dock.

/overcome Investigate vs Fair

She cracks her knuckles.
"""


def own_words(raw: str, i) -> bytes:
    """The post with prose of its own (the same words and command from the same player within
    a day would be a copy of the first, pbp.copies, and the burst would measure duplicates)."""
    import hashlib

    own = hashlib.sha256(f"e2e-{i}".encode()).hexdigest()
    words = " ".join(own[k:k + 8] for k in range(0, 64, 8))
    return raw.replace("Ruth keeps to the shadows along the loading dock.", f"Beat {words}\n{words[::-1]} and on.").encode()


def set_up(root: Path, dovecot: Dovecot, smtp: SmtpServer, campaigns: int):
    from pbp.campaigns import create_campaign, import_character
    from pbp.config import load_config
    from pbp.demo import sample_dir
    from pbp.store.db import open_database

    config_path = root / "pbp.toml"
    config_path.write_text(f"""
[database]
url = "sqlite:///pbp.db"
[mail]
transport = "imap"
domain = "bench.test"
from_address = "{USER}"
[imap]
host = "127.0.0.1"
port = {dovecot.imap_port}
security = "starttls"
username = "{USER}"
ca_file = "{dovecot.tls.cert}"
[smtp]
host = "127.0.0.1"
port = {smtp.port}
security = "plain"
[[mailboxes]]
name = "INBOX"
campaign = ""
[daemon]
poll_seconds = 1
""")
    config = load_config(config_path)
    open_database(config.database_url)
    sheets = [s for s in sorted(sample_dir().glob("*.toml")) if s.name != "campaign.toml"]
    for k in range(campaigns):
        campaign = create_campaign(f"c{k}", f"Campaign {k}", address=f"table+c{k}@example.test", gms=["gm@example.test"])
        for sheet in sheets:
            import_character(campaign, str(sheet))
    return config


def wait_for(count: int, smtp: SmtpServer, timeout: float) -> float:
    end = time.monotonic() + timeout
    while len(smtp.received) < count:
        if time.monotonic() > end:
            raise SystemExit(f"only {len(smtp.received)} of {count} replies arrived")
        time.sleep(0.005)
    return time.monotonic()


def several_daemons(counts: list[int], posts: int, folders: int = 6) -> None:
    """Posts per second with 1, 2, 3... ``pbp run`` processes on one PostgreSQL database,
    the ``folders`` mailboxes (one campaign each) shared out between them."""
    import subprocess

    from pbp.campaigns import create_campaign, import_character
    from pbp.demo import sample_dir
    from pbp.store import models as m
    from pbp.store.db import open_database
    from tests.rig.postgres import Postgres

    names = ["INBOX"] + [f"Table{k}" for k in range(1, folders)]
    per_folder = posts // folders
    postgres = Postgres().start()
    try:
        with Dovecot() as dovecot, SmtpServer() as smtp:
            dovecot.add_user(USER, PASSWORD)
            for name in names[1:]:
                dovecot.create_folder(USER, name)
            print(f"several daemons on one PostgreSQL: {per_folder * folders} posts over {folders} mailboxes")
            for n in counts:
                dovecot.clear(USER)
                smtp.clear()
                url = postgres.create_database(f"bench_{n}")
                open_database(url)
                ruth = sample_dir() / "ruth.toml"
                for k in range(folders):
                    import_character(create_campaign(f"c{k}", f"Campaign {k}", gms=["gm@example.test"]), str(ruth))
                m.db.close()
                for k, name in enumerate(names):
                    dovecot.append_many(USER, [POST.format(i=f"{n}-{k}-{i}", k=k, sender="ruth@pbp.localhost").encode()
                                               for i in range(per_folder)], name)
                root = Path(tempfile.mkdtemp(prefix="pbp-bench-"))
                paths = []
                for d in range(n):
                    mine = [(k, name) for k, name in enumerate(names) if k % n == d]
                    boxes = "".join(f'[[mailboxes]]\nname = "{name}"\ncampaign = "c{k}"\n' for k, name in mine)
                    path = root / f"pbp-{d}.toml"
                    path.write_text(f"""
[database]
url = "{url}"
[mail]
transport = "imap"
domain = "bench.test"
from_address = "{USER}"
[imap]
host = "127.0.0.1"
port = {dovecot.imap_port}
security = "plain"
username = "{USER}"
[smtp]
host = "127.0.0.1"
port = {smtp.port}
security = "plain"
{boxes}
[daemon]
poll_seconds = 1
log_level = "WARNING"
""")
                    paths.append(path)
                start = time.monotonic()
                children = [subprocess.Popen([sys.executable, "-m", "pbp.cli", "-c", str(p), "run"], cwd=REPO,
                                             env={**os.environ, "PBP_IMAP_PASSWORD": PASSWORD}) for p in paths]
                try:
                    done = wait_for(per_folder * folders, smtp, 300)
                finally:
                    for child in children:
                        child.terminate()
                    for child in children:
                        child.wait(30)
                elapsed = done - start
                print(f"  {n} daemon{'s' if n > 1 else ' '}: {per_folder * folders / elapsed:,.0f} posts/s "
                      f"({elapsed:.2f} s from start, Python start-up included)")
    finally:
        postgres.stop()


def cpu_seconds(pids) -> float:
    """User + system CPU time of these processes so far (/proc/PID/stat), in seconds."""
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except (FileNotFoundError, ProcessLookupError):
            continue
        total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


def postgres_pids(postgres) -> list[int]:
    """The cluster's postmaster and its children (the backends serving the daemons)."""
    main = int((postgres.data / "postmaster.pid").read_text().split()[0])
    children = Path(f"/proc/{main}/task/{main}/children").read_text().split()
    return [main, *map(int, children)]


def apply_workers(counts: list[int], posts: int, campaigns: int) -> None:
    """Posts per second and CPU per post with 1, 2, 4... apply workers (one per ``pbp run``
    process) on one PostgreSQL database and one catch-all mailbox."""
    import subprocess

    from pbp.campaigns import create_campaign, import_character
    from pbp.demo import sample_dir
    from pbp.store import models as m
    from pbp.store.db import open_database
    from tests.rig.postgres import Postgres

    user, domain = USER.split("@")
    postgres = Postgres().start()
    try:
        with Dovecot() as dovecot, SmtpServer() as smtp:
            dovecot.add_user(USER, PASSWORD)
            print(f"apply workers on one PostgreSQL: {posts} posts over {campaigns} campaigns in one mailbox "
                  f"(load {open('/proc/loadavg').read().split()[0]}, {os.cpu_count()} cores)")
            for n in counts:
                dovecot.clear(USER)
                smtp.clear()
                url = postgres.create_database(f"bench_workers_{n}")
                open_database(url)
                ruth = sample_dir() / "ruth.toml"
                for k in range(campaigns):
                    import_character(create_campaign(f"c{k}", f"Campaign {k}", address=f"{user}+c{k}@{domain}",
                                                     gms=["gm@example.test"]), str(ruth))
                m.db.close()
                root = Path(tempfile.mkdtemp(prefix="pbp-bench-"))
                path = root / "pbp.toml"
                path.write_text(f"""
[database]
url = "{url}"
[mail]
transport = "imap"
domain = "bench.test"
from_address = "{USER}"
[imap]
host = "127.0.0.1"
port = {dovecot.imap_port}
security = "plain"
username = "{USER}"
[smtp]
host = "127.0.0.1"
port = {smtp.port}
security = "plain"
[[mailboxes]]
name = "INBOX"
campaign = ""
[daemon]
poll_seconds = 1
log_level = "WARNING"
apply_workers = 1
""")
                children = [subprocess.Popen([sys.executable, "-m", "pbp.cli", "-c", str(path), "run"], cwd=REPO,
                                             env={**os.environ, "PBP_IMAP_PASSWORD": PASSWORD}) for _ in range(n)]
                try:
                    time.sleep(3 + n)          # started, connected, one of them reading
                    pids = [c.pid for c in children]
                    pbp_before, pg_before = cpu_seconds(pids), cpu_seconds(postgres_pids(postgres))
                    raws = [POST.format(i=f"w{n}-{i}", k=i % campaigns, sender="ruth@pbp.localhost").encode()
                            for i in range(posts)]
                    start = time.monotonic()
                    dovecot.append_many(USER, raws)
                    done = wait_for(posts, smtp, 600)
                    pbp_cpu = cpu_seconds(pids) - pbp_before
                    pg_cpu = cpu_seconds(postgres_pids(postgres)) - pg_before
                finally:
                    for child in children:
                        child.terminate()
                    for child in children:
                        child.wait(30)
                elapsed = done - start
                print(f"  {n} worker{'s' if n > 1 else ' '}: {posts / elapsed:6,.1f} posts/s ({elapsed:.2f} s); "
                      f"CPU per post: pbp {pbp_cpu / posts * 1000:.1f} ms, PostgreSQL {pg_cpu / posts * 1000:.1f} ms; "
                      f"load {open('/proc/loadavg').read().split()[0]}")
    finally:
        postgres.stop()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--posts", type=int, default=1000)
    ap.add_argument("--campaigns", type=int, default=10)
    ap.add_argument("--latency-samples", type=int, default=40)
    ap.add_argument("--daemons", help="instead: posts/s with this many daemons on one PostgreSQL, e.g. 1,2,3")
    ap.add_argument("--workers", help="instead: posts/s and CPU per post with this many apply workers on one "
                                      "PostgreSQL and one catch-all mailbox, e.g. 1,2,4")
    args = ap.parse_args()
    os.environ["PBP_IMAP_PASSWORD"] = PASSWORD
    if args.workers:
        apply_workers([int(n) for n in args.workers.split(",")], args.posts, args.campaigns)
        return
    if args.daemons:
        several_daemons([int(n) for n in args.daemons.split(",")], args.posts)
        return

    from pbp.daemon import Daemon
    from pbp.rules.dice import RandomDice

    root = Path(tempfile.mkdtemp(prefix="pbp-bench-"))
    with Dovecot() as dovecot, SmtpServer() as smtp:
        dovecot.add_user(USER, PASSWORD)
        config = set_up(root, dovecot, smtp, args.campaigns)
        posts = [own_words(POST.format(i=i, k=i % args.campaigns, sender="ruth@pbp.localhost"), i)
                 for i in range(args.posts)]
        began = time.monotonic()
        dovecot.append_many(USER, posts)
        appended = time.monotonic() - began

        daemon = Daemon(config, dice=RandomDice())
        daemon.start_sender()          # replies go out from their own thread while posts are read
        start = time.monotonic()
        handled = daemon.poll(daemon.watchers[0])
        done = wait_for(args.posts, smtp, 120)
        elapsed = done - start
        assert handled == args.posts, handled
        print(f"burst: {args.posts} posts over {args.campaigns} campaigns (APPEND took {appended:.2f} s)")
        print(f"  handled and replied in {elapsed:.2f} s: {args.posts / elapsed:,.0f} posts/s (target 100)")

        # latency: the daemon idles; one post at a time
        watcher = daemon.watchers[0]
        thread = threading.Thread(target=daemon.watch_forever, args=(watcher,), daemon=True)
        thread.start()
        time.sleep(1.0)
        samples = []
        for j in range(args.latency_samples):
            before = len(smtp.received)
            raw = own_words(POST.format(i=f"lat{j}", k=j % args.campaigns, sender="ruth@pbp.localhost"), f"lat{j}")
            t0 = time.monotonic()
            dovecot.append(USER, raw)
            samples.append(wait_for(before + 1, smtp, 10) - t0)
            time.sleep(0.05)
        daemon.stop()
        thread.join(10)
        q = statistics.quantiles(samples, n=20)
        print(f"latency APPEND -> reply at the SMTP server over {len(samples)} posts:")
        print(f"  p50 {statistics.median(samples):.3f} s, p95 {q[18]:.3f} s, min {min(samples):.3f} s, "
              f"max {max(samples):.3f} s (IDLE floor 0.5 s; target p50 < 0.65 s)")


if __name__ == "__main__":
    main()
