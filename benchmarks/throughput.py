"""Throughput of the offline pipeline on these machines.

    python benchmarks/throughput.py [--posts N] [--repeats N] [--systems a,b] [--check] [--calls]
    python benchmarks/throughput.py --history 2200 [--systems fate-condensed]
    python benchmarks/throughput.py --posts 0        (the parse and reading figures only)

Prints commands parsed per second (the Lark grammar alone), the time to read a 5 MB HTML
mail (issue 8: well under a second), and whole posts processed per second through
`pbp process`'s code path: read the mail, parse, resolve, persist to a SQLite file, render
the reply and write it to the outbox. Target (issue 2): 300 posts/s on one core; the parse
rate is shown for reference (its old target of 50,000 commands/s was retired in issue 15:
parsing is about 1% of a post).

Issues 9 and 10: each system's whole posts within 10% of Fate Condensed's. Every system
plays the same 15-post session (``SESSIONS``: a scene and a conflict, an attack, an invoke
after the dice, an advantage, an NPC's attack, a defence, an absorb, a compel accepted, the
next exchange, the scene's end) in its own words on its own table of two PCs and one NPC
(``TABLES``: pbp/samples, or benchmarks/tables for Fate Core and the d10 hack), with fixed
dice (``BenchDice``) so that every run plays the same. Rates are measured in CPU time
(``time.process_time``: this machine is shared, and wall time moves with the load) and in
wall time; the systems alternate run by run, in an order that turns each round, and each is
run ``--repeats`` times (best and median); the ratio to Fate Condensed is the median of each
run's ratio to the Fate Condensed run of the same round. ``--check`` exits 1 if a ratio is outside 90%-110%. ``--calls`` adds
Python function calls per post, a measure of the work that the load cannot move.
``--history N`` plays N posts in one campaign and prints each 195-post block's CPU time and
queries per post, with the play state's size and the history's rows after it.

``--against REF`` (issue 23) compares this checkout with a git ref: the ref is checked out
into a temporary directory (``git worktree add --detach``) and each run is a fresh process
(``--child``) importing one checkout's ``pbp`` first on its path; the processes alternate,
this checkout's and the ref's, in an order that turns each round, playing the same posts on
the same sheets (this checkout's ``SESSIONS`` and tables, whatever the ref has). It prints
each system's CPU posts/s on both sides and the ratio (the median of each round's ratio,
with the lowest and highest as the spread) and the load average. A system the ref does not
know is compared with the ref's Fate Condensed rate of the same round (the same session in
Fate Condensed's words): the ref's cost of a post, which is what the ratio is about.
"""
from __future__ import annotations

import argparse
import gc
import hashlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib
from datetime import datetime, timedelta
from pathlib import Path

HERE = Path(__file__).resolve().parent
# --against runs a child process per run with the checkout it measures first on the path
sys.path.insert(0, os.environ.get("PBP_BENCH_ROOT") or str(HERE.parent))

_PROSE = "Ruth keeps to the shadows along the loading dock, looking for whatever\ntore the door off its hinges."

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


class BenchDice:
    """The faces a session's post asks for, in order: ``"--00"`` for a 4dF throw, ``"8 3"``
    for a pool of d10s (cycled to the pool's size); a throw past the list shows 0000 or 5s.
    Fixed faces make every session play the same on every system (an attack ties, an invoke
    after the dice turns it into a hit, a defence fails by the shifts the absorb names)."""

    def __init__(self, throws=()):
        self.throws = list(throws)

    def _next(self, default: str) -> str:
        return self.throws.pop(0) if self.throws else default

    def fate(self, n: int = 4) -> tuple[int, ...]:
        faces = self._next("0" * n)
        assert len(faces) == n, (faces, n)
        return tuple({"-": -1, "0": 0, "+": 1}[c] for c in faces)

    def die(self, sides: int, n: int) -> tuple[int, ...]:
        faces = [int(f) for f in self._next("5").split()]
        return tuple(faces[i % len(faces)] for i in range(n))


# One session of play, the same shape on every system, in each system's own words on its own
# table of two PCs and one NPC: the GM opens a scene and a conflict; A attacks the NPC (a tie),
# invokes the scene's aspect after the dice (a hit the NPC absorbs); B creates an advantage;
# the NPC attacks A, A defends (fails by 2) and absorbs; the GM compels A, A accepts; the next
# exchange: A attacks (a miss), the NPC attacks B, B defends (fails by 1) and absorbs; the GM
# ends the scene (stress clears, so the next session starts as this one did). 15 posts; each
# is (who, text, dice). A fate point spent on the invoke comes back with the compel.
SESSIONS = {
    "fate-condensed": ("Ruth", "Charles", "Ghoul", [
        ("GM", '/scene start "The Warehouse"\n/aspect add "Stacked Crates"\n'
               "/conflict start Ruth, Charles, Ghoul first Ruth", ()),
        ("Ruth", "/attack Ghoul with Fight\n/next Charles", ("--00", "0000")),   # 2 vs 2: a tie
        ("Ruth", '/invoke "Stacked Crates"', ()),                                 # +2: a 2-shift hit
        ("Charles", '/advantage Lore "Cornered" on Ghoul\n/next Ghoul', ("0000", "0000")),
        ("GM", "/as Ghoul attack Ruth with Fight\n/as Ghoul next Ruth", ("++00",)),
        ("Ruth", "/defend Athletics", ("-000",)),                                 # 4 vs 2: 2 short
        ("Ruth", "/absorb stress 2", ()),
        ("GM", '/compel Ruth "Hair-Trigger Temper" event "Ruth punches the wall and the ghoul hears"', ()),
        ("Ruth", "/accept", ()),
        ("Ruth", "/attack Ghoul with Fight\n/next Charles", ("----", "0000")),   # 0 vs 2: a miss
        ("Charles", "/overcome Athletics vs Fair\n/next Ghoul", ("0000",)),
        ("GM", "/as Ghoul attack Charles with Fight\n/as Ghoul next Ruth", ("+000",)),
        ("Charles", "/defend Athletics", ("-000",)),                              # 3 vs 2: 1 short
        ("Charles", "/absorb stress 1", ()),
        ("GM", "/conflict end\n/scene end", ()),
    ]),
    "fate-core": ("Ruth", "Charles", "Ghoul", [      # escalating boxes: "box N", not "stress N"
        ("GM", '/scene start "The Crypt"\n/aspect add "Crumbling Pillars"\n'
               "/conflict start Ruth, Charles, Ghoul first Ruth", ()),
        ("Ruth", "/attack Ghoul with Fight\n/next Charles", ("--00", "0000")),
        ("Ruth", '/invoke "Crumbling Pillars"', ()),
        ("Charles", '/advantage Lore "Cornered" on Ghoul\n/next Ghoul', ("0000", "0000")),
        ("GM", "/as Ghoul attack Ruth with Fight\n/as Ghoul next Ruth", ("++00",)),
        ("Ruth", "/defend Athletics", ("-000",)),
        ("Ruth", "/absorb box 2", ()),
        ("GM", '/compel Ruth "Hair-Trigger Temper" event "Ruth kicks over a candelabra and the ghoul turns"', ()),
        ("Ruth", "/accept", ()),
        ("Ruth", "/attack Ghoul with Fight\n/next Charles", ("----", "0000")),
        ("Charles", "/overcome Athletics vs Fair\n/next Ghoul", ("0000",)),
        ("GM", "/as Ghoul attack Charles with Fight\n/as Ghoul next Ruth", ("+000",)),
        ("Charles", "/defend Athletics", ("-000",)),
        ("Charles", "/absorb box 1", ()),
        ("GM", "/conflict end\n/scene end", ()),
    ]),
    "early-fate": ("Jet", "Mara", "Brute", [
        ("GM", '/scene start "Pier 9"\n/aspect add "Slick Planks"\n'
               "/conflict start Jet, Mara, Brute first Jet", ()),
        ("Jet", "/attack Brute with Fists\n/next Mara", ("-000", "0000")),
        ("Jet", '/invoke "Slick Planks"', ()),
        ("Mara", '/advantage Investigation "Cornered" on Brute\n/next Brute', ("0000", "0000")),
        ("GM", "/as Brute attack Jet with Fists\n/as Brute next Jet", ("+000",)),
        ("Jet", "/defend Athletics", ("-000",)),
        ("Jet", "/absorb stress 2", ()),
        ("GM", '/compel Jet "Never Backs Down From a Fight" event "Jet squares up to the whole Tong"', ()),
        ("Jet", "/accept", ()),
        ("Jet", "/attack Brute with Fists\n/next Mara", ("----", "0000")),
        ("Mara", "/overcome Athletics vs Fair\n/next Brute", ("0000",)),
        ("GM", "/as Brute attack Mara with Fists\n/as Brute next Jet", ("0000",)),
        ("Mara", "/defend Athletics", ("-000",)),
        ("Mara", "/absorb stress 1", ()),
        ("GM", "/conflict end\n/scene end", ()),
    ]),
    "d10-pool": ("Ruth", "Charles", "Captain", [     # pools of skill + approach d10s; strain
        ("GM", '/scene start "The Scrapyard"\n/aspect add "Rusting Hulks"\n'
               '/conflict start Ruth, Charles, "Raider Captain" first Ruth', ()),
        ("Ruth", '/attack Captain with "Fight Boldly"\n/next Charles', ("5", "8 5 5 5 5")),   # 1 (stunt) vs 1
        ("Ruth", '/invoke "Rusting Hulks"', ()),
        ("Charles", '/advantage "Tinker Cleverly" "Cornered" on Captain\n/next Captain', ("8 8 5 5 5", "5")),
        ("GM", '/as Captain attack Ruth with "Fight Boldly"\n/as Captain next Ruth', ("8 8 5 5 5",)),
        ("Ruth", '/defend "Move Quickly"', ("5",)),
        ("Ruth", "/absorb strain 2", ()),
        ("GM", '/compel Ruth "Reckless When Cornered" event "Dock Bravo charges the crawler alone"', ()),
        ("Ruth", "/accept", ()),
        ("Ruth", '/attack Captain with "Fight Boldly"\n/next Charles', ("5", "8 8 5 5 5")),
        ("Charles", '/overcome "Move Carefully" vs 1\n/next Captain', ("8 8 5 5",)),
        ("GM", '/as Captain attack Charles with "Fight Boldly"\n/as Captain next Ruth', ("8 5 5 5 5",)),
        ("Charles", '/defend "Move Carefully"', ("5",)),
        ("Charles", "/absorb strain 1", ()),
        ("GM", "/conflict end\n/scene end", ()),
    ]),
    "dresden-files-condensed": ("Nora", "Marcus", "Lake Thing", [
        ("GM", '/scene start "The Basement"\n/aspect add "Lake Ice on the Walls"\n'
               '/conflict start Nora, Marcus, "Lake Thing" first Nora', ()),
        ("Nora", '/attack "Lake Thing" with Fight\n/next Marcus', ("+000", "0000")),   # 4 vs 2 + 2 (scale)
        ("Nora", '/invoke "Lake Ice on the Walls"', ()),
        ("Marcus", '/advantage Academics "Cornered" on "Lake Thing"\n/next "Lake Thing"', ("+000", "0000")),
        ("GM", '/as "Lake Thing" attack Nora with Fight\n/as "Lake Thing" next Nora', ("0000",)),
        ("Nora", "/defend Athletics", ("0000",)),
        ("Nora", "/absorb stress 2", ()),
        ("GM", '/compel Nora "Promised My Grandmother I\'d Never Leave It Open" event "Nora goes back for the door"', ()),
        ("Nora", "/accept", ()),
        ("Nora", '/attack "Lake Thing" with Fight\n/next Marcus', ("----", "0000")),
        ("Marcus", "/overcome Athletics vs Fair\n/next \"Lake Thing\"", ("0000",)),
        ("GM", '/as "Lake Thing" attack Marcus with Fight\n/as "Lake Thing" next Nora', ("--00",)),
        ("Marcus", "/defend Athletics", ("-000",)),
        ("Marcus", "/absorb stress 1", ()),
        ("GM", "/conflict end\n/scene end", ()),
    ]),
}

TABLES = {      # each system's table: its sample (pbp/samples) or benchmarks/tables, three sheets
    "fate-condensed": ("../pbp/samples/chicago", ["ruth", "charles", "ghoul"]),
    "fate-core": ("tables/fate-core", ["ruth", "charles", "ghoul"]),
    "d10-pool": ("tables/d10-pool", ["ruth", "charles", "captain"]),
    "early-fate": ("../pbp/samples/early_fate", ["jet", "mara", "brute"]),
    "dresden-files-condensed": ("../pbp/samples/dresden", ["nora", "marcus", "lake-thing"]),
}
SYSTEMS = tuple(SESSIONS)


def _table_dir(system: str) -> Path:
    """This checkout's sheets (under --against the ref plays them too: the same sheets)."""
    return (HERE / TABLES[system][0]).resolve()


class Campaign:
    """A fresh SQLite file with ``system``'s table; ``play(n)`` plays n posts of its session
    (whole sessions over and over) and returns the CPU seconds, wall seconds and queries."""

    def __init__(self, system: str) -> None:
        from pbp.campaigns import create_campaign, import_character
        from pbp.config import config_from_dict
        from pbp.flow.context import Context
        from pbp.store import models as m
        from pbp.store.db import open_database

        self.system = system
        tmp = Path(tempfile.mkdtemp(prefix="pbp-bench-"))
        config = config_from_dict({"database": {"url": f"sqlite:///{tmp / 'bench.db'}"}}, base=tmp)
        open_database(config.database_url)
        self.slug = "bench-" + system
        self.address = f"table+{self.slug}@pbp.localhost"
        campaign = create_campaign(self.slug, "Bench", address=self.address,     # one name: one subject length
                                   gms=["gm@pbp.localhost"], system=system)
        where = _table_dir(system)
        if (where / "mantles").is_dir():     # Dresden Files Condensed: the sheets name their mantle file
            (tmp / "mantles").mkdir(exist_ok=True)
            for mantle in (where / "mantles").glob("*.toml"):
                (tmp / "mantles" / mantle.name).write_bytes(mantle.read_bytes())
        for name in TABLES[system][1]:
            copy = tmp / f"{name}.toml"
            copy.write_bytes((where / f"{name}.toml").read_bytes())
            import_character(campaign, str(copy))
        self.now = datetime(2026, 12, 1, 9, 0)
        self.ctx = Context(config=config, dice=BenchDice(), clock=lambda: self.now)
        self.db = m.db.obj
        self.queries = 0
        self.done = 0
        original = self.db.execute_sql

        def counting(sql, params=None, *a, **k):
            self.queries += 1
            return original(sql, params, *a, **k)

        self.db.execute_sql = counting
        a, b, npc, script = SESSIONS[system]
        self.addresses = {"GM": "gm@pbp.localhost", a: f"{a.lower()}@pbp.localhost",
                          b: f"{b.lower()}@pbp.localhost"}
        self.script = script

    def post(self, i: int) -> tuple[bytes, tuple]:
        who, text, dice = self.script[i % len(self.script)]
        raw = POST.replace("Chicago Nights <table+chicago@pbp.localhost>", f"Bench <{self.address}>").format(
            i=f"{self.system}-{i}", sender=self.addresses[who], command=text)
        # words of its own for each post of a session (as long as the usual prose): the same
        # words and command from the same player within a day would be a copy (pbp.copies)
        own = hashlib.sha256(f"{self.system}-{i % len(self.script)}".encode()).hexdigest()
        words = " ".join(own[k:k + 8] for k in range(0, 64, 8))
        raw = raw.replace(_PROSE, f"Beat {words}\n{words[::-1]} and on.")
        return raw.encode(), dice

    def play(self, n: int) -> tuple[float, float, int]:
        from pbp import copies
        from pbp.pipeline import process_message

        # a ref from before copies by content (--against) has no window: a day is past any
        COPY_WINDOW = getattr(copies, "COPY_WINDOW", timedelta(hours=24))

        posts = [self.post(self.done + k) for k in range(n)]
        queries, cpu, wall = self.queries, time.process_time(), time.perf_counter()
        for raw, dice in posts:
            self.ctx.dice = BenchDice(dice)
            # a session's posts a minute apart; the next session a day later, or its posts
            # (the same words and commands) would be copies of the last one's (pbp.copies)
            again = self.done and self.done % len(self.script) == 0
            self.now += COPY_WINDOW if again else timedelta(minutes=1)
            out = process_message(raw, self.ctx)
            if out.status != "applied":     # every post must apply, or the figure means nothing
                raise SystemExit(f"{self.system} post {self.done}: {out.status} {out.errors}")
            self.done += 1
        return time.process_time() - cpu, time.perf_counter() - wall, self.queries - queries


def bench_systems(posts: int, repeats: int, systems=SYSTEMS) -> dict[str, dict]:
    """Each system's session on its table, ``posts`` posts a run (after one warm-up session),
    the systems alternating run by run, ``repeats`` runs each: CPU and wall posts/s (best and
    median), queries per post, and the ratio to fate-condensed: the median over the runs of
    each run's ratio (the runs of one round are close in time, so a change of load between
    rounds moves both; the order turns each round, so none always runs first)."""
    runs: dict[str, list] = {s: [] for s in systems}
    for n in range(repeats):
        # the order turns each round, so no system always runs first (or right after another)
        for system in systems[n % len(systems):] + systems[:n % len(systems)]:
            campaign = Campaign(system)
            campaign.play(len(campaign.script))          # warm up: one whole session
            gc.collect()
            runs[system].append(campaign.play(posts))
    out = {}
    base = runs[systems[0]]
    for system, rs in runs.items():
        cpu = sorted(posts / c for c, _, _ in rs)
        wall = sorted(posts / w for _, w, _ in rs)
        out[system] = {"cpu_best": cpu[-1], "cpu_median": statistics.median(cpu),
                       "wall_best": wall[-1], "wall_median": statistics.median(wall),
                       "queries": rs[0][2] / posts,
                       "ratio": statistics.median(b[0] / r[0] for r, b in zip(rs, base))}
    return out


def bench_calls(posts: int, systems=SYSTEMS) -> dict[str, float]:
    """Python function calls per post (``cProfile``'s count): the work a post does, which the
    machine's load cannot change; a figure to set beside the CPU times."""
    import cProfile
    import pstats

    out = {}
    for system in systems:
        campaign = Campaign(system)
        campaign.play(len(campaign.script))
        profile = cProfile.Profile()
        profile.enable()
        campaign.play(posts)
        profile.disable()
        out[system] = pstats.Stats(profile).total_calls / posts
    return out


def bench_history(system: str, posts: int, block: int = 195,
                  calls: bool = False) -> list[tuple[int, float, float, int, int, float]]:
    """One campaign, ``posts`` posts: for each block of ``block`` posts (195: 13 whole
    sessions) the CPU milliseconds and queries per post (and with ``calls`` the Python
    function calls per post, which the load cannot move), and at its end the size of the play
    state (JSON characters) and the rows the campaign has written (ledger, sheet history,
    outbox): whether a post's cost grows with the campaign's history."""
    import cProfile
    import pstats

    from pbp.store import models as m

    warm = Campaign(system)          # the process's first posts compile templates, import lazily
    warm.play(len(warm.script))
    campaign = Campaign(system)      # the campaign measured, from its first post
    rows = []
    while campaign.done < posts:
        start = campaign.done + 1
        profile = cProfile.Profile() if calls else None
        if profile:
            profile.enable()
        cpu, _, queries = campaign.play(min(block, posts - campaign.done))
        if profile:
            profile.disable()
        n = campaign.done - start + 1
        play = len(json.dumps(m.Campaign.get(m.Campaign.slug == campaign.slug).play))
        history = sum(model.select().count() for model in (m.RollRecord, m.SheetChange, m.OutboxMail))
        rows.append((start, cpu / n * 1000, queries / n, play, history,
                     pstats.Stats(profile).total_calls / n if profile else 0.0))
    return rows


def _child(system: str, posts: int, calls: bool) -> int:
    """One run in a process of its own (``--against``): a warm-up session, then ``posts``
    posts; prints the CPU and wall seconds, queries and (``calls``) Python calls as JSON
    (counted on ``posts`` more posts after the timed ones)."""
    campaign = Campaign(system)
    campaign.play(len(campaign.script))
    gc.collect()
    cpu, wall, queries = campaign.play(posts)
    out = {"cpu": cpu, "wall": wall, "queries": queries}
    if calls:       # counted on further posts, so the profiler does not slow the ones timed
        import cProfile
        import pstats

        profile = cProfile.Profile()
        profile.enable()
        campaign.play(posts)
        profile.disable()
        out["calls"] = pstats.Stats(profile).total_calls
    print(json.dumps(out))
    return 0


def _knows(root: Path, system: str) -> bool:
    """Whether the checkout at ``root`` has ``system`` (an older ref may have fewer)."""
    probe = f"from pbp.rules.systems import get_system; get_system({system!r})"
    return subprocess.run([sys.executable, "-c", probe], env={**os.environ, "PYTHONPATH": str(root)},
                          cwd=root, capture_output=True).returncode == 0


def bench_against(ref: str, posts: int, repeats: int, systems, calls: bool = False) -> int:
    """This checkout against ``ref``, each run a process of its own, alternating."""
    import tempfile as _tempfile

    here = HERE.parent
    where = Path(_tempfile.mkdtemp(prefix="pbp-against-")) / "ref"
    subprocess.run(["git", "-C", str(here), "worktree", "add", "--detach", "--quiet", str(where), ref], check=True)
    try:
        sides = {"this": here, ref: where}
        known = {s: _knows(where, s) for s in systems}
        if "fate-condensed" not in systems and not all(known.values()):
            systems = ["fate-condensed", *systems]
            known["fate-condensed"] = _knows(where, "fate-condensed")
        runs = {(side, s): [] for side in sides for s in systems}
        load = []

        def run(side: str, system: str) -> dict:
            root = sides[side]
            argv = [sys.executable, str(Path(__file__).resolve()), "--child", system, "--posts", str(posts)]
            if calls:
                argv.append("--calls")
            done = subprocess.run(argv, env={**os.environ, "PBP_BENCH_ROOT": str(root), "PYTHONPATH": str(root)},
                                  cwd=root, capture_output=True, text=True)
            if done.returncode != 0:
                raise SystemExit(f"{side} {system}: {done.stdout[-2000:]}{done.stderr[-2000:]}")
            return json.loads(done.stdout.strip().splitlines()[-1])

        for n in range(repeats):
            order = systems[n % len(systems):] + systems[:n % len(systems)]
            for system in order:
                pair = ["this", ref] if n % 2 == 0 else [ref, "this"]
                for side in pair:
                    if side == ref and not known[system]:
                        continue
                    runs[(side, system)].append(run(side, system))
            load.append(os.getloadavg()[0])
        print(f"this checkout against {ref}: {posts} posts a run, {repeats} rounds, each run a process of its "
              f"own, alternating; CPU posts/s (median), ratio = median of the rounds' ratios (lowest-highest); "
              f"load average {min(load):.1f}-{max(load):.1f}")
        for system in systems:
            base = system if known[system] else "fate-condensed"
            mine = [posts / r["cpu"] for r in runs[("this", system)]]
            theirs = [posts / r["cpu"] for r in runs[(ref, base)]]
            ratios = sorted(a / b for a, b in zip(mine, theirs))
            line = (f"  {system:24} this {statistics.median(mine):5.0f}  {ref} {statistics.median(theirs):5.0f}"
                    f"{'' if known[system] else ' (its fate-condensed)'}  ratio {statistics.median(ratios):.2f} "
                    f"({ratios[0]:.2f}-{ratios[-1]:.2f})  queries/post "
                    f"{runs[('this', system)][0]['queries'] / posts:.1f} vs {runs[(ref, base)][0]['queries'] / posts:.1f}")
            if calls:
                line += (f"  calls/post {runs[('this', system)][0]['calls'] / posts:,.0f} vs "
                         f"{runs[(ref, base)][0]['calls'] / posts:,.0f}")
            print(line)
    finally:
        subprocess.run(["git", "-C", str(here), "worktree", "remove", "--force", str(where)], check=False)
    return 0


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--commands", type=int, default=50_000)
    ap.add_argument("--posts", type=int, default=60, help="posts a run, per system (default 60: 4 sessions)")
    ap.add_argument("--repeats", type=int, default=None,
                    help="runs per system, alternating (default 10; with --against 3 rounds)")
    ap.add_argument("--messages", type=int, default=None, help="old name of --posts (0: no whole posts)")
    ap.add_argument("--systems", default=",".join(SYSTEMS), help="comma-separated (default: all)")
    ap.add_argument("--check", action="store_true",
                    help="exit 1 unless each system's CPU rate is within 10%% of fate-condensed's (median ratio)")
    ap.add_argument("--history", type=int, default=0, metavar="N",
                    help="instead: one campaign of N posts, CPU ms and queries per 195-post block (13 sessions)")
    ap.add_argument("--calls", action="store_true",
                    help="also count Python function calls per post (cProfile; with --history too)")
    ap.add_argument("--only-posts", action="store_true", help="skip the parse and reading figures")
    ap.add_argument("--against", metavar="REF", help="instead: this checkout against a git ref (issue 23), "
                    "alternating processes; prints the ratio of CPU posts/s per system")
    ap.add_argument("--child", metavar="SYSTEM", help=argparse.SUPPRESS)   # one run of --against
    args = ap.parse_args()
    systems = [s.strip() for s in args.systems.split(",") if s.strip()]
    if args.child:
        return _child(args.child, args.posts, args.calls)
    if args.against:
        return bench_against(args.against, args.posts, args.repeats or 3, systems,
                             calls=args.calls)
    if args.history:
        for system in systems:
            rows = bench_history(system, args.history, calls=args.calls)
            for start, ms, q, play, history, calls in rows:
                print(f"history {system}: posts {start}-{start + 194}: {ms:.2f} ms CPU/post, {q:.1f} queries/post"
                      + (f", {calls:,.0f} calls/post" if calls else "")
                      + f"; then play state {play:,} chars, {history:,} rows of ledger, sheet history and outbox")
            first, last = rows[:3], rows[-3:]
            print(f"history {system}: the last 3 blocks' median CPU/post at "
                  f"{statistics.median(r[1] for r in last) / statistics.median(r[1] for r in first):.0%} of the first 3's; "
                  f"queries/post {statistics.mean(r[2] for r in first):.2f} then {statistics.mean(r[2] for r in last):.2f}"
                  + (f"; calls/post {first[0][5]:,.0f} then {last[-1][5]:,.0f}" if args.calls else ""))
        return 0
    if not args.only_posts:
        simple = bench_simple_parse(args.commands)
        mixed = bench_parse(args.commands)
        print(f"parse  simple '/overcome Investigate vs Fair': {simple:,.0f} commands/s")
        print(f"parse  mixed (5 command forms):                {mixed:,.0f} commands/s")
        plain, clients = bench_reading()
        print(f"read   a short plain post: {plain:.3f} ms; real clients' mails: {clients:.3f} ms each")
        print(f"read   a 5 MB HTML mail (Outlook thread): {bench_html():.2f} s")
        print(f"open   keeping a roll open for invokes: {bench_open_roll():.3f} ms extra per action (budget 0.3)")
    posts = args.posts if args.messages is None else args.messages
    if posts <= 0:      # --posts 0: the parse and reading figures only
        return 0
    systems = ["fate-condensed"] + [s for s in systems if s != "fate-condensed"]   # the base runs first
    args.repeats = args.repeats or 10
    figures = bench_systems(posts, args.repeats, systems)
    print(f"whole posts (read+parse+resolve+persist+render, SQLite file): the same "
          f"{len(SESSIONS['fate-condensed'][3])}-post session on each system's table, {posts} posts a run, "
          f"{args.repeats} runs each, the systems alternating")
    print("  posts/s by CPU time (best / median) and by wall time (best / median); target 300/s; "
          "ratio: the median of each run's CPU rate over fate-condensed's in the same round, target within 10%")
    failed = []
    for system in systems:
        f = figures[system]
        print(f"  {system:24} CPU {f['cpu_best']:5.0f} / {f['cpu_median']:5.0f} posts/s "
              f"({1000 / f['cpu_median']:.2f} ms)  wall {f['wall_best']:5.0f} / {f['wall_median']:5.0f}  "
              f"{f['queries']:.1f} queries/post  {f['ratio']:4.0%} of fate-condensed")
        if abs(f["ratio"] - 1) > 0.10:
            failed.append(f"{system} at {f['ratio']:.0%}")
    if args.calls:
        calls = bench_calls(posts, systems)
        print("  Python function calls per post (cProfile; the work, whatever the load): " + ", ".join(
            f"{s} {calls[s]:,.0f} ({calls[s] / calls['fate-condensed']:.0%})" for s in systems))
    if args.check and failed:
        print("check failed: outside 10% of fate-condensed: " + ", ".join(failed))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
