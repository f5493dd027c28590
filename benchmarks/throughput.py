"""Throughput of the offline pipeline on these machines.

    python benchmarks/throughput.py [--commands N] [--messages N]

Prints commands parsed per second (the Lark grammar alone) and whole messages processed
per second through `pbp process`'s code path: read the mail, parse, resolve, persist to a
SQLite file, render the reply and write it to the outbox. Targets (issue 2): 50,000
simple commands/s and 300 messages/s on one core.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
import tomllib
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

COMMANDS = [
    "/overcome Investigate vs Fair",
    "/attack Ghoul with Fight",
    '/advantage Crafts "On Fire" on Shoggoth vs Good',
    "/roll 4dF+2",
    "/defend Athletics vs Great",
]

POST = """From: {sender}
To: Chicago Nights <table+chicago@pbp.localhost>
Subject: The warehouse, part {i}
Message-ID: <bench-{i}@pbp.localhost>
Date: Sun, 29 Nov 2026 20:00:00 +0000
MIME-Version: 1.0
Content-Type: text/plain; charset=utf-8

Ruth keeps to the shadows along the loading dock, looking for whatever
tore the door off its hinges.

{command}

She cracks her knuckles.

On Sun, 29 Nov 2026 at 18:00, Chicago Nights <table+chicago@pbp.localhost> wrote:
> Charles rolls Investigate.
> /overcome Investigate vs Fair
"""

# A cycle of typical posts; the GM's scene change keeps the table from growing without end
# (boosts, aspects and harm are cleared at a scene's end, as in play).
MESSAGE_COMMANDS = [
    ("gm@pbp.localhost", '/scene start "The Warehouse"\n/aspect add "Deep Shadows" free 1'),
    ("ruth@pbp.localhost", "/overcome Investigate vs Fair"),
    ("ruth@pbp.localhost", "/attack Ghoul with Fight"),
    ("ethan@pbp.localhost", '/advantage Notice "Loose Floorboards" vs Fair'),
    ("charles@pbp.localhost", "/defend Athletics vs Great"),
    ("cassandra@pbp.localhost", "/roll 4dF+2"),
    ("ruth@pbp.localhost", "/sheet"),
    ("gm@pbp.localhost", "/scene end"),
]


def bench_parse(n: int) -> float:
    from pbp.parser import parse_command

    parse_command(COMMANDS[0])  # build the parser outside the timing
    lines = [COMMANDS[i % len(COMMANDS)] for i in range(n)]
    start = time.perf_counter()
    for line in lines:
        parse_command(line)
    return n / (time.perf_counter() - start)


def bench_simple_parse(n: int) -> float:
    from pbp.parser import parse_command

    start = time.perf_counter()
    for _ in range(n):
        parse_command("/overcome Investigate vs Fair")
    return n / (time.perf_counter() - start)


def bench_messages(n: int) -> tuple[float, float]:
    from pbp.campaigns import create_campaign, import_character
    from pbp.config import config_from_dict
    from pbp.demo import sample_dir
    from pbp.pipeline import Context, process_message
    from pbp.rules.dice import RandomDice
    from pbp.store import models as m
    from pbp.store.db import open_database

    tmp = Path(tempfile.mkdtemp())
    config = config_from_dict({"database": {"url": f"sqlite:///{tmp / 'bench.db'}"}}, base=tmp)
    open_database(config.database_url)
    meta = tomllib.loads((sample_dir() / "campaign.toml").read_text())
    campaign = create_campaign(meta["slug"], meta["name"], address=meta["address"], gms=meta["gms"])
    for sheet in sorted(sample_dir().glob("*.toml")):
        if sheet.name != "campaign.toml":
            import_character(campaign, str(sheet))
    ctx = Context(config=config, dice=RandomDice())
    posts = [POST.format(i=i, sender=s, command=c).encode() for i, (s, c) in
             ((i, MESSAGE_COMMANDS[i % len(MESSAGE_COMMANDS)]) for i in range(n))]
    process_message(POST.format(i="warm", sender="ruth@pbp.localhost", command="/fp").encode(), ctx)
    start = time.perf_counter()
    statuses = {}
    for raw in posts:
        out = process_message(raw, ctx)
        statuses[out.status] = statuses.get(out.status, 0) + 1
    elapsed = time.perf_counter() - start
    assert statuses.get("applied", 0) == n, statuses  # every post must apply, or the figure means nothing
    return n / elapsed, elapsed / n * 1000


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--commands", type=int, default=50_000)
    ap.add_argument("--messages", type=int, default=2_000)
    args = ap.parse_args()
    simple = bench_simple_parse(args.commands)
    mixed = bench_parse(args.commands)
    print(f"parse  simple '/overcome Investigate vs Fair': {simple:,.0f} commands/s (target 50,000)")
    print(f"parse  mixed (5 command forms):                {mixed:,.0f} commands/s")
    rate, ms = bench_messages(args.messages)
    print(f"process whole messages (read+parse+resolve+persist+render, SQLite file): "
          f"{rate:,.0f} messages/s, {ms:.2f} ms each (target 300/s)")


if __name__ == "__main__":
    main()
