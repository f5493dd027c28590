"""Builders shared by the tests: posts as mail clients send them, and pipeline contexts."""
from __future__ import annotations

import textwrap
from datetime import datetime

FIXED_NOW = datetime(2026, 11, 29, 18, 0, 0)


def make_ctx(config, dice: str | None = None):
    from pbp.pipeline import Context
    from pbp.rules.dice import FixedDice, RandomDice

    return Context(config=config, dice=FixedDice(dice) if dice else RandomDice(), clock=lambda: FIXED_NOW)


def eml(body: str, *, sender: str = "ruth@pbp.localhost", subject: str = "The warehouse",
        message_id: str = "post-1@pbp.test", to: str = "table+chicago@pbp.localhost", extra: str = "") -> bytes:
    """A plain-text post as a mail client would send it."""
    head = (f"From: {sender}\nTo: {to}\nSubject: {subject}\nMessage-ID: <{message_id}>\n"
            f"Date: Sun, 29 Nov 2026 18:00:00 +0000\nMIME-Version: 1.0\n{extra}"
            "Content-Type: text/plain; charset=utf-8\n\n")
    return (head + textwrap.dedent(body).lstrip("\n")).encode("utf-8")
