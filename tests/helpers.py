"""Builders shared by the tests: posts as mail clients send them, pipeline contexts, and a
table set up with the command line."""
from __future__ import annotations

import textwrap
from contextlib import contextmanager
from datetime import datetime

FIXED_NOW = datetime(2026, 11, 29, 18, 0, 0)


def make_ctx(config, dice: str | None = None):
    from pbp.flow.context import Context
    from pbp.rules.dice import FixedDice, RandomDice

    return Context(config=config, dice=FixedDice(dice) if dice else RandomDice(), clock=lambda: FIXED_NOW)


def cli_table(tmp_path, monkeypatch, *, address: str | None = "table+chicago@pbp.localhost", sheets=()):
    """A table set up with the CLI as an operator would: ``pbp init`` in ``tmp_path`` (the
    working directory from then on), the chicago campaign (with its table ``address``, or
    none) and the ``sheets`` imported into it."""
    from pbp.cli import main

    monkeypatch.chdir(tmp_path)
    assert main(["init"]) == 0
    assert main(["campaign", "create", "chicago", "--name", "Chicago Nights", "--gm", "gm@pbp.localhost",
                 *(["--address", address] if address else [])]) == 0
    if sheets:
        assert main(["character", "import", *map(str, sheets), "--campaign", "chicago"]) == 0
    return tmp_path


def eml(body: str, *, sender: str = "ruth@pbp.localhost", subject: str = "The warehouse",
        message_id: str = "post-1@pbp.test", to: str = "table+chicago@pbp.localhost", extra: str = "") -> bytes:
    """A plain-text post as a mail client would send it."""
    head = (f"From: {sender}\nTo: {to}\nSubject: {subject}\nMessage-ID: <{message_id}>\n"
            f"Date: Sun, 29 Nov 2026 18:00:00 +0000\nMIME-Version: 1.0\n{extra}"
            "Content-Type: text/plain; charset=utf-8\n\n")
    return (head + textwrap.dedent(body).lstrip("\n")).encode("utf-8")


def plain_text(msg) -> str:
    """The plain text of one of pbp's replies as a reader's client shows it, checked as it
    travels: ``format=flowed`` with no line longer than 78 characters (only a single word
    longer than a line may be), then unflowed (RFC 3676) back to the lines pbp wrote."""
    from pbp.mail.decoding import unflow

    part = msg.get_body(("plain",))
    assert part.get_param("format") == "flowed", part["Content-Type"]
    wire = part.get_content()
    long = [line for line in wire.splitlines() if len(line) > 78 and " " in line.strip()]
    assert not long, f"lines longer than 78 characters: {long}"
    return unflow(wire.replace("\r\n", "\n"))


@contextmanager
def counting_queries(counts: list[int]):
    """Count the SQL statements the store runs into ``counts[-1]``: the caller appends a 0
    before each step it measures (a post, a session's post)."""
    from pbp.store import models as m

    db = m.db.obj
    original = db.execute_sql

    def counting(sql, params=None, *a, **k):
        counts[-1] += 1
        return original(sql, params, *a, **k)

    db.execute_sql = counting
    try:
        yield counts
    finally:
        db.execute_sql = original
