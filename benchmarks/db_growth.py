"""How much the database grows per post, table by table, and what retention gives back.

    python benchmarks/db_growth.py [--posts 20000]

Plays N posts (the mix of benchmarks/throughput.py's ``MESSAGE_COMMANDS``, one campaign,
the clock a minute on per post) through the pipeline into a SQLite file, marks every reply
sent as the sender does (:func:`pbp.delivery.mark_sent`: with ``[daemon] compact_at_send``,
the default, each keeps its headers and text from then on; ``--whole``: as with it false)
and prints the bytes per post of each table (its rows and its indexes, SQLite's ``dbstat``
after VACUUM) and of the whole file: as played, and after the retention of
``[daemon] compact_sent_after_days`` (:func:`pbp.retention.compact_sent`, run in its small
batches until nothing is left to compact), with the compaction's CPU per reply (at send or
in the retention) against a post's.
Targets (issue 23): at 20,000 posts at most 4 KB a post without retention, 2 KB with it.
"""
from __future__ import annotations

import argparse
import hashlib
import sys
import tempfile
import time
import tomllib
from datetime import datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.throughput import _PROSE, MESSAGE_COMMANDS, POST  # noqa: E402


def post_mail(i: int) -> bytes:
    """Post ``i`` of the mix, with words of its own as long as the usual prose (the same words
    and command from the same player within a day would be a copy, :mod:`pbp.copies`)."""
    sender, command = MESSAGE_COMMANDS[i % len(MESSAGE_COMMANDS)]
    own = hashlib.sha256(f"growth-{i}".encode()).hexdigest()
    words = " ".join(own[k:k + 8] for k in range(0, 64, 8))
    return POST.format(i=i, sender=sender, command=command).replace(
        _PROSE, f"Beat {words}\n{words[::-1]} and on.").encode()


def table_bytes(database) -> dict[str, int]:
    """Bytes on disk per table, its indexes counted with it (SQLite's dbstat)."""
    owner = {name: table for name, table in database.execute_sql(
        "SELECT name, tbl_name FROM sqlite_master WHERE type IN ('table', 'index')").fetchall()}
    out: dict[str, int] = {}
    for name, size in database.execute_sql("SELECT name, SUM(pgsize) FROM dbstat GROUP BY name").fetchall():
        table = owner.get(name, name)
        out[table] = out.get(table, 0) + size
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--posts", type=int, default=20_000)
    ap.add_argument("--whole", action="store_true", help="sent replies kept whole (compact_at_send = false)")
    args = ap.parse_args()
    from pbp.delivery import mark_sent
    from pbp.campaigns import create_campaign, import_character
    from pbp.config import config_from_dict
    from pbp.demo import sample_dir
    from pbp.flow.context import Context
    from pbp.pipeline import process_message
    from pbp.retention import compact_sent
    from pbp.rules.dice import RandomDice
    from pbp.store import models as m
    from pbp.store.db import open_database

    tmp = Path(tempfile.mkdtemp(prefix="pbp-growth-"))
    path = tmp / "growth.db"
    config = config_from_dict({"database": {"url": f"sqlite:///{path}"}}, base=tmp)
    database = open_database(config.database_url)
    meta = tomllib.loads((sample_dir() / "campaign.toml").read_text())
    campaign = create_campaign(meta["slug"], meta["name"], address=meta["address"], gms=meta["gms"])
    for sheet in sorted(sample_dir().glob("*.toml")):
        if sheet.name != "campaign.toml":
            import_character(campaign, str(sheet))
    clock = [datetime(2026, 12, 1, 9, 0)]
    ctx = Context(config=config, dice=RandomDice(), clock=lambda: clock[0])

    def sizes() -> tuple[int, dict[str, int]]:
        database.execute_sql("VACUUM")
        database.execute_sql("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()     # the file, not the WAL, holds it
        return path.stat().st_size, table_bytes(database)

    empty, empty_tables = sizes()
    cpu = time.process_time()
    for i in range(args.posts):
        clock[0] += timedelta(minutes=1)
        out = process_message(post_mail(i), ctx)
        assert out.status == "applied", out
    per_post_cpu = (time.process_time() - cpu) / args.posts
    at_send, cpu = 0, time.process_time()
    for row in m.OutboxMail.select().where(m.OutboxMail.status == "pending").iterator():
        mark_sent(row, clock[0], compact_sent=not args.whole)
        at_send += 1
    per_send_cpu = (time.process_time() - cpu) / max(at_send, 1)
    full, full_tables = sizes()
    later = clock[0] + timedelta(days=31)
    replies, cpu = 0, time.process_time()
    while (n := compact_sent(later, days=30)):
        replies += n
    per_reply_cpu = (time.process_time() - cpu) / max(replies, 1)
    compacted, kept_tables = sizes()

    def grown(tables: dict[str, int], name: str) -> float:
        return (tables.get(name, 0) - empty_tables.get(name, 0)) / args.posts

    names = sorted(set(full_tables) | set(kept_tables), key=lambda n: -grown(full_tables, n))
    print(f"database growth over {args.posts:,} posts in one campaign (SQLite, after VACUUM), bytes per post:")
    print(f"  {'table':22} {'played':>8} {'retention':>10}")
    for name in names:
        if grown(full_tables, name) >= 1 or grown(kept_tables, name) >= 1:
            print(f"  {name:22} {grown(full_tables, name):8,.0f} {grown(kept_tables, name):10,.0f}")
    print(f"  {'whole file':22} {(full - empty) / args.posts:8,.0f} {(compacted - empty) / args.posts:10,.0f}"
          f"   ({(full - empty) / args.posts / 1024:.2f} KB a post; {(compacted - empty) / args.posts / 1024:.2f} "
          "KB with retention; targets 4 and 2)")
    what = "marked sent, kept whole" if args.whole else "marked sent and compacted (compact_at_send)"
    print(f"  sender: {at_send:,} replies {what} at {per_send_cpu * 1000:.3f} ms CPU each "
          f"({per_send_cpu / per_post_cpu:.0%} of a post)")
    if replies:
        print(f"  retention: {replies:,} replies compacted at {per_reply_cpu * 1000:.3f} ms CPU each; "
              f"a post took {per_post_cpu * 1000:.2f} ms ({per_reply_cpu / per_post_cpu:.0%} of a post; target under 10%)")
    else:
        print(f"  retention: nothing left to compact; a post took {per_post_cpu * 1000:.2f} ms")


if __name__ == "__main__":
    main()
