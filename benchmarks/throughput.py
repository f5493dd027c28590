"""Throughput of the offline pipeline on these machines.

    python benchmarks/throughput.py [--commands N] [--messages N]   (--messages 0: no whole messages)

Prints commands parsed per second (the Lark grammar alone), the time to read a 5 MB HTML
mail (issue 8: well under a second), and whole messages processed
per second through `pbp process`'s code path: read the mail, parse, resolve, persist to a
SQLite file, render the reply and write it to the outbox. Target (issue 2): 300 messages/s
on one core; the parse rate is shown for reference (its old target of 50,000 commands/s
was retired in issue 15: parsing is about 1% of a post).
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
import tomllib
from datetime import datetime
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

# The same cycle under the d10 dice-pool hack, on the scrapyard table of its golden
# conversation (tests/golden/d10_pool_conflict): each action names its approach.
D10_COMMANDS = [
    ("gm@pbp.localhost", '/scene start "The Scrapyard"\n/aspect add "Rusting Hulks" free 1'),
    ("ruth@pbp.localhost", '/overcome "Move Quickly" vs 2'),
    ("ruth@pbp.localhost", '/attack Captain with "Fight Boldly"'),
    ("charles@pbp.localhost", '/advantage "Notice Carefully" "Loose Floorboards" vs 2'),
    ("charles@pbp.localhost", '/defend "Move Carefully" vs 3'),
    ("ruth@pbp.localhost", "/roll 4d10+2"),
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


def bench_reading(rounds: int = 3) -> tuple[float, float]:
    """Milliseconds to read (MIME + trim) a short plain post, and the real clients' mails in
    tests/mail/fixtures (Gmail, Outlook HTML-only, Apple Mail, Thunderbird...)."""
    from pbp.mail.reading import read_message

    post = POST.format(i=0, sender="ruth@pbp.localhost", command="/overcome Investigate vs Fair").encode()
    clients = [p.read_bytes() for p in sorted((Path(__file__).resolve().parent.parent / "tests/mail/fixtures").glob("*.eml"))]

    def best(raws):
        out = float("inf")
        for _ in range(rounds):
            start = time.perf_counter()
            for raw in raws:
                read_message(raw)
            out = min(out, (time.perf_counter() - start) / len(raws))
        return out * 1000

    return best([post] * 500), best(clients * 50)


def html_mail(size: int = 5_000_000) -> bytes:
    """A 5 MB HTML-only reply as Outlook writes one: the answer on top, then a long thread of
    styled paragraphs (``MsoNormal``, spans, ``<o:p>``) and quoted replies."""
    para = ('<p class=MsoNormal style="margin:0cm;font-size:11.0pt;font-family:Calibri,sans-serif">'
            "<span style='font-size:11.0pt;color:#1F497D'>Ruth keeps to the shadows along the loading "
            "dock, looking for whatever tore the door off its hinges.</span><o:p></o:p></p>\n")
    quoted = '<blockquote type="cite"><div>On Sun, 29 Nov 2026 at 18:00, GM wrote:</div>' + para * 20 + "</blockquote>\n"
    body = "<html><body><p>/overcome Athletics vs Fair</p>" + quoted * (size // len(quoted)) + "</body></html>"
    head = ("From: ruth@pbp.localhost\nTo: table+chicago@pbp.localhost\nSubject: Re: The warehouse\n"
            "Message-ID: <bench-html@pbp.localhost>\nMIME-Version: 1.0\nContent-Type: text/html; charset=utf-8\n\n")
    return (head + body).encode()


def bench_html(rounds: int = 3) -> float:
    """Seconds to read the 5 MB HTML mail (MIME, HTML to text, trimming)."""
    from pbp.mail.reading import read_message

    raw = html_mail()
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        mail = read_message(raw)
        best = min(best, time.perf_counter() - start)
    assert mail.new_text.startswith("/overcome Athletics vs Fair"), mail.new_text[:80]
    return best


def bench_open_roll(n: int = 2000) -> float:
    """Extra milliseconds per action for keeping its roll open for invokes after the dice
    (the before/after hooks and the play state they add to)."""
    from pbp.commands import Opposition, Overcome
    from pbp.config import config_from_dict
    from pbp.play import invoking
    from pbp.play.core import Author, Post
    from pbp.play.state import PlayState, dump_play
    from pbp.rules.actions import resolve
    from pbp.rules.dice import FixedDice
    from pbp.rules.state import Character, Table
    from pbp.rules.systems import get_system

    system = get_system("fate-condensed")
    table = Table(system=system.name, characters={"Ruth": Character(name="Ruth", player="ruth@x", skills={"Athletics": 3})})
    cmd = Overcome(line=1, source="/overcome Athletics vs Good", skill="Athletics", opposition=Opposition(rating=3))
    config = config_from_dict({})

    def run(hooks: bool) -> float:
        start = time.perf_counter()
        for _ in range(n):
            post = Post(campaign=None, table=table, play=PlayState(), author=Author("ruth@x", "player"),
                        now=datetime(2026, 1, 1), dice=FixedDice("0000"), system=system,
                        settings=config)
            if hooks:
                invoking._before(post, cmd, "Ruth")
            result = resolve(cmd, table, post.dice, "Ruth", system)
            if hooks:
                invoking._after(post, cmd, "Ruth", result)
            dump_play(post.play)
        return (time.perf_counter() - start) / n * 1000

    run(True), run(False)
    return min(run(True) for _ in range(3)) - min(run(False) for _ in range(3))


# A system with its own sample table plays the same kinds of post on it (early Fate's skills
# are not Fate Condensed's): the GM's scene, an overcome, an attack, an advantage, a defence,
# a roll, a sheet, the scene's end.
OWN_TABLE_COMMANDS = {
    "early-fate": [
        ("gm@pbp.localhost", '/scene start "Pier 9"\n/aspect add "Slick Planks" free 1'),
        ("jet@pbp.localhost", "/overcome Alertness vs Fair"),
        ("jet@pbp.localhost", "/attack Brute with Fists"),
        ("mara@pbp.localhost", '/advantage Investigation "Loose Crate" vs Fair'),
        ("mara@pbp.localhost", "/defend Athletics vs Great"),
        ("mara@pbp.localhost", "/roll 4dF+2"),
        ("jet@pbp.localhost", "/sheet"),
        ("gm@pbp.localhost", "/scene end"),
    ],
    "dresden-files-condensed": [
        ("gm@pbp.localhost", '/scene start "The Basement"\n/aspect add "Lake Ice on the Walls" free 1'),
        ("nora@pbp.localhost", "/overcome Lore vs Fair"),
        ("nora@pbp.localhost", '/attack "Lake Thing" with Fight'),
        ("marcus@pbp.localhost", '/advantage Notice "Loose Floorboards" vs Fair'),
        ("marcus@pbp.localhost", "/defend Athletics vs Great"),
        ("marcus@pbp.localhost", "/roll 4dF+2"),
        ("nora@pbp.localhost", "/sheet"),
        ("gm@pbp.localhost", "/scene end"),
    ],
}


def bench_messages(n: int, system: str = "fate-condensed") -> tuple[float, float]:
    """Whole posts per second on the Chicago table under ``system``. Fate Core has no
    Academics, so Charles's Academics becomes Crafts there; the posts are the same. A system
    with its own sample table (early Fate) plays ``OWN_TABLE_COMMANDS`` on it; the d10 hack
    plays ``D10_COMMANDS`` on its golden table's sheets."""
    from pbp.campaigns import create_campaign, import_character
    from pbp.config import config_from_dict
    from pbp.demo import sample_dir
    from pbp.pipeline import Context, process_message
    from pbp.rules.dice import RandomDice
    from pbp.store.db import open_database

    tmp = Path(tempfile.mkdtemp())
    config = config_from_dict({"database": {"url": f"sqlite:///{tmp / 'bench.db'}"}}, base=tmp)
    open_database(config.database_url)
    own = system in OWN_TABLE_COMMANDS
    samples = sample_dir(system) if own else sample_dir()
    commands = OWN_TABLE_COMMANDS[system] if own else D10_COMMANDS if system == "d10-pool" else MESSAGE_COMMANDS
    meta = tomllib.loads((samples / "campaign.toml").read_text())
    campaign = create_campaign(meta["slug"], meta["name"], address=meta["address"], gms=meta["gms"],
                               system=system)
    d10 = system == "d10-pool"
    sheets = (Path(__file__).resolve().parent.parent / "tests/golden/d10_pool_conflict/sheets") if d10 else samples
    if (sheets / "mantles").is_dir():     # Dresden Files Condensed: the sheets name their mantle file
        (tmp / "mantles").mkdir(exist_ok=True)
        for mantle in (sheets / "mantles").glob("*.toml"):
            (tmp / "mantles" / mantle.name).write_bytes(mantle.read_bytes())
    for sheet in sorted(sheets.glob("*.toml")):
        if sheet.name != "campaign.toml":
            copy = tmp / sheet.name
            text = sheet.read_text(encoding="utf-8")
            copy.write_text(text if system != "fate-core" else text.replace("Academics =", "Crafts ="),
                            encoding="utf-8")
            import_character(campaign, str(copy))
    ctx = Context(config=config, dice=RandomDice())
    posts = [POST.format(i=i, sender=s, command=c).encode() for i, (s, c) in
             ((i, commands[i % len(commands)]) for i in range(n))]
    process_message(POST.format(i="warm", sender=commands[1][0], command="/fp").encode(), ctx)
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
    print(f"parse  simple '/overcome Investigate vs Fair': {simple:,.0f} commands/s")
    print(f"parse  mixed (5 command forms):                {mixed:,.0f} commands/s")
    plain, clients = bench_reading()
    print(f"read   a short plain post: {plain:.3f} ms; real clients' mails: {clients:.3f} ms each")
    print(f"read   a 5 MB HTML mail (Outlook thread): {bench_html():.2f} s")
    print(f"open   keeping a roll open for invokes: {bench_open_roll():.3f} ms extra per action (budget 0.3)")
    if args.messages <= 0:      # --messages 0: the parse and reading figures only
        return
    rates = {}
    for system in ("fate-condensed", "fate-core", "early-fate", "d10-pool", "dresden-files-condensed"):
        rate, ms = bench_messages(args.messages, system)
        rates[system] = rate
        print(f"process whole messages, {system} (read+parse+resolve+persist+render, SQLite file): "
              f"{rate:,.0f} messages/s, {ms:.2f} ms each (target 300/s)")
    for system in ("fate-core", "early-fate", "d10-pool", "dresden-files-condensed"):
        print(f"        {system} at {rates[system] / rates['fate-condensed']:.0%} of fate-condensed (target within 10%)")


if __name__ == "__main__":
    main()
