"""How much the database grows per post, and what compacting sent replies gives back.

    python benchmarks/db_growth.py [--posts 2000]

Plays N posts (the mix of benchmarks/throughput.py) through the pipeline into a SQLite file,
marks every reply sent, and prints the file size per 1,000 posts (after VACUUM) before and
after ``pbp.retention.compact_sent`` (what ``[daemon] compact_sent_after_days`` does).
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import tomllib
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.throughput import MESSAGE_COMMANDS, POST  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--posts", type=int, default=2000)
    args = ap.parse_args()
    from pbp.campaigns import create_campaign, import_character
    from pbp.config import config_from_dict
    from pbp.demo import sample_dir
    from pbp.pipeline import Context, process_message
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
    ctx = Context(config=config, dice=RandomDice())

    def size() -> int:
        database.execute_sql("VACUUM")
        return path.stat().st_size

    empty = size()
    for i in range(args.posts):
        sender, command = MESSAGE_COMMANDS[i % len(MESSAGE_COMMANDS)]
        out = process_message(POST.format(i=i, sender=sender, command=command).encode(), ctx)
        assert out.status == "applied", out
    now = m.utcnow()
    m.OutboxMail.update(status="sent", sent_at=now).execute()
    full = size()
    outbox = sum(len(r.raw) for r in m.OutboxMail.select(m.OutboxMail.raw))
    later = now + timedelta(days=31)
    while compact_sent(later, days=30):
        pass
    compacted = size()
    kept = sum(len(r.raw) for r in m.OutboxMail.select(m.OutboxMail.raw))
    per = 1000 / args.posts
    print(f"database growth over {args.posts} posts (SQLite, after VACUUM):")
    print(f"  {(full - empty) * per / 1024:,.0f} KB per 1,000 posts "
          f"({(full - empty) / args.posts / 1024:.1f} KB a post; outbox MIME {outbox * per / 1024:,.0f} KB of it)")
    print(f"  after compacting sent replies: {(compacted - empty) * per / 1024:,.0f} KB per 1,000 posts "
          f"(outbox {kept * per / 1024:,.0f} KB)")


if __name__ == "__main__":
    main()
