"""The conformance matrix (issue 21, item 5): every command of docs/commands.md x every
registered system x both channels (a mail to the table; a forum post by Discourse's
mailing-list mode, tests/channels.py), through the whole pipeline, on each system's table.

Each cell sends the docs' first example of the command, as a player (the GM when the
command is the GM's). The cell either plays (its replies checked for the system's words:
no word of another system, :data:`FOREIGN`) or is refused, and then every refusal must say
what was expected and give an example that, sent back by the same author against the same
table, plays itself (the error examples of issue 21, item 2, and issue 27). So a refusal
names the campaign's own characters, skills, zones and held invokes, or it fails here.

The table is each system's sample table with a scene of two zones, made once per module;
each cell runs in a transaction rolled back after it (a savepoint per post), so the cells
share it and stay independent. A command or a system added without an answer here fails
:func:`test_the_matrix_covers_every_command_and_system`.
"""
from __future__ import annotations

import re

import pytest

from pbp.config import config_from_dict
from pbp.demo import create_sample_campaign
from pbp.parser.spec import COMMAND_NAMES
from pbp.rules.systems import campaign_system
from pbp.rules.systems import SYSTEMS as REGISTERED
from pbp.samples import SAMPLES
from pbp.store import models as m
from pbp.store import repo
from pbp.store.db import open_database
from tests.channels import CHANNELS, GM, Channel, Steady
from tests.test_parser import DOC_COMMANDS

#: Words a reply of the system never says (a Fate word in the d10 hack, the hack's in Fate).
FOREIGN = {
    "d10-pool": ("stress box", "Average (+1)", "Fair (+2)", "Good (+3)", "Great (+4)", "Poor (-1)", "Mediocre (+0)",
                 "4dF", "shifts"),
    "fate-condensed": ("strain", "hits of harm", "d10s"),
    "fate-core": ("strain", "hits of harm", "d10s"),
    "early-fate": ("strain", "hits of harm", "d10s"),
    "dresden-files-condensed": ("strain", "hits of harm", "d10s"),
}


def first_examples() -> dict[str, str]:
    """The first docs example of each command word (``/as NAME ...`` counted as ``as``)."""
    found: dict[str, str] = {}
    for line in DOC_COMMANDS:
        word = line.split()[0].lstrip("/").lower()
        found.setdefault(word, line)
    return found


EXAMPLES = first_examples()
SYSTEMS = tuple(SAMPLES)
CELLS = [(system, channel, command) for system in SYSTEMS for channel in CHANNELS for command in COMMAND_NAMES]


def test_the_matrix_covers_every_command_and_system():
    assert set(SYSTEMS) == {s.name for s in REGISTERED.values()}, "a registered system without a sample table in the matrix"
    missing = [c for c in COMMAND_NAMES if c not in EXAMPLES]
    assert not missing, f"commands without a docs example to send: {missing}"
    assert len(CELLS) == len(SYSTEMS) * len(CHANNELS) * len(COMMAND_NAMES)


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    """Every system's sample table with a scene, in one database for the module."""
    path = tmp_path_factory.mktemp("matrix")
    database = open_database("sqlite:///:memory:")      # one table for the module, rolled back per cell
    config = config_from_dict({"database": {"url": "sqlite:///:memory:"},
                               "mail": {"domain": "pbp.test", "from_address": "table@pbp.test"},
                               "maildir": {"inbox": str(path / "in"), "outbox": str(path / "out")}}, base=path)
    campaigns = {}
    for system in SYSTEMS:
        campaign = create_sample_campaign(system)
        posted = Channel("mail", campaign, config).post(GM, '/scene start "The Yard" zones Gate, Shed borders Gate-Shed\n')
        assert posted.status == "applied", posted.text
        campaigns[system] = campaign
    yield config, campaigns
    database.close()


def players(campaign) -> list[str]:
    return [ch.player for ch in repo.load_table(campaign).characters.values() if ch.player]


def in_system(system: str, line: str, campaign) -> str:
    """The docs' line (Chicago Nights' names) as the command's shape only: the GM's names
    are kept, the table's refusal must then name what works here."""
    return line


def rolled_back(fn):
    with m.db.atomic() as txn:
        try:
            return fn()
        finally:
            txn.rollback()


def foreign_words(system: str, text: str) -> list[str]:
    return [w for w in FOREIGN[system] if w.casefold() in text.casefold()]


def examples_of(posted) -> list[str]:
    lines = []
    for error in posted.outcome.errors:
        lines += [ln.strip() for ln in (error.get("example") or "").splitlines() if ln.strip().startswith("/")]
    return lines


def check_cell(config, campaign, system: str, channel: str, command: str) -> list[str]:
    """What is wrong with one cell (empty: it plays, or is refused with examples that play)."""
    problems: list[str] = []
    line = EXAMPLES[command]
    player = players(campaign)[0]

    def send(author: str, body: str):
        return Channel(channel, m.Campaign.get_by_id(campaign.id), config).post(author, body + "\n", dice=Steady())

    def attempt(author: str, body: str):
        posted = send(author, body)
        if posted.status == "rejected" and author != GM and any(
                e.get("type") == "NotAllowedError" or "for the GM" in (e.get("message") or "")
                for e in posted.outcome.errors):
            return GM, send(GM, body)
        return author, posted

    def words(posted, what: str):
        for mail in posted.mails:
            for part in mail.parts:
                # the author's own line, quoted back, is theirs, not the system's words
                bad = [w for w in foreign_words(system, part) if w.casefold() not in what.casefold()]
                if bad:
                    problems.append(f"{what}: says {bad} in {system}: {part[:300]!r}")
                    return

    author, posted = rolled_back(lambda: attempt(GM if command == "as" else player, line))
    words(posted, line)
    if posted.status == "applied":
        return problems
    if not posted.outcome.errors:
        return problems + [f"{line}: {posted.status} with no error"]
    for error in posted.outcome.errors:
        if not (error.get("expected") or "").strip() or not (error.get("example") or "").strip():
            problems.append(f"{line}: refused without expected and example: {error}")
    for example in examples_of(posted):
        back = rolled_back(lambda: send(author, example))
        words(back, example)
        if back.status != "applied":
            why = "; ".join(e.get("message", "") for e in back.outcome.errors)
            problems.append(f"{line} -> refused ({posted.outcome.errors[0].get('message', '')}); its example "
                            f"{example!r} sent back by {author} is refused too: {why}")
    return problems


@pytest.mark.parametrize("system", SYSTEMS)
@pytest.mark.parametrize("channel", CHANNELS)
def test_every_command_plays_or_is_refused_with_an_example_that_plays(tables, system, channel):
    config, campaigns = tables
    campaign = campaigns[system]
    problems = []
    for command in COMMAND_NAMES:
        problems += check_cell(config, campaign, system, channel, command)
    assert not problems, f"{len(problems)} cells of {system} by {channel}:\n" + "\n".join(problems)
