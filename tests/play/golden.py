"""Golden conversations: a campaign played mail by mail from a checked-in script, every
reply compared with the checked-in transcript (``pytest --update-golden`` rewrites it).

``tests/golden/<case>/mails.txt`` holds the posts in order. Each starts with a line
``=== WHO`` (GM, Ruth, ... or an address) or ``=== tick YYYY-MM-DD HH:MM`` (the daemon's
deadline job with the clock at that time), then optional headers, a blank line, and the
post's text::

    === Ruth
    dice: --00,-00+          the fixed faces of this post's rolls, in order
    reply: 4                 the post answers the table reply of step 4 (In-Reply-To), or of
                             the step given ``label: NAME`` (``reply: NAME``)
    at: 2026-11-30 09:00     the clock (default: ten minutes after the previous step)
    subject: The Market      the subject of a post that starts a thread (default "The conflict")

    Ruth throws her knife.
    /attack "Masked Acolyte" with Shoot

``expected.txt`` is the transcript: for each step its status, then every mail pbp sent
(recipients, subject, plain text).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from pbp.store import models as m
from tests.play.table import MailTable, Step

GOLDEN = Path(__file__).resolve().parent.parent / "golden"
_partial = ""   # the transcript so far, written to partial.txt when a case breaks under --update-golden


@dataclass
class Entry:
    who: str
    headers: dict
    body: str


def read_script(path: Path) -> list[Entry]:
    entries: list[Entry] = []
    lines = path.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.startswith("=== "):
            if line.strip() and not line.startswith("#"):
                raise ValueError(f"{path}:{i + 1}: text outside a post: {line!r}")
            i += 1
            continue
        who = line[4:].strip()
        i += 1
        headers = {}
        while i < len(lines) and lines[i].strip() and not lines[i].startswith("=== "):
            key, _, value = lines[i].partition(":")
            headers[key.strip().lower()] = value.strip()
            i += 1
        body: list[str] = []
        while i < len(lines) and not lines[i].startswith("=== "):
            body.append(lines[i])
            i += 1
        entries.append(Entry(who, headers, "\n".join(body).strip("\n") + "\n"))
    return entries


def _time(text: str) -> datetime:
    return datetime.strptime(text, "%Y-%m-%d %H:%M")


def _replied(table: MailTable, entry: Entry, labels: dict[str, int]) -> Step | None:
    """``reply: N`` answers step N's mail to the table (or a ``label:``); ``reply: N.K``
    answers its K-th mail (a private one, such as "Compel #1 needs your approval")."""
    reply = entry.headers.get("reply")
    if not reply:
        return None
    number, _, k = reply.partition(".")
    step = table.steps[(labels[number] if number in labels else int(number)) - 1]
    return Step(None, [step.replies[int(k) - 1]]) if k else step


def play(case: str, config, table=None) -> tuple[MailTable, str]:
    """Run a case; returns the table and the transcript. ``table`` plays it another way
    (tests/forum/forum_table.py: as posts in a forum topic); by mail when None."""
    table = table if table is not None else MailTable(config)
    out: list[str] = []
    labels: dict[str, int] = {}
    for n, entry in enumerate(read_script(GOLDEN / case / "mails.txt"), start=1):
        if "label" in entry.headers:
            labels[entry.headers["label"]] = n
        dice = entry.headers.get("dice", "")
        if entry.who.startswith("tick "):
            step = table.tick(_time(entry.who[5:].strip()), dice=dice)
            out.append(f"=== {n} tick {entry.who[5:].strip()}: {len(step.replies)} mail(s)")
        else:
            step = table.post(entry.who, entry.body, dice=dice, reply_to=_replied(table, entry, labels),
                              at=_time(entry.headers["at"]) if "at" in entry.headers else None,
                              subject=entry.headers.get("subject"))
            out.append(f"=== {n} {entry.who}: {step.status}")
        for r in step.replies:
            out.append(f"--- to: {', '.join(r.to)}")
            out.append(f"--- subject: {r.subject}")
            out.append(r.text.rstrip("\n"))
        out.append("")
        global _partial
        _partial = "\n".join(out)
    return table, "\n".join(out)


def check(case: str, config, update: bool, table=None) -> tuple[MailTable, str]:
    try:
        table, transcript = play(case, config, table)
    except AssertionError:
        if update:
            (GOLDEN / case / "partial.txt").write_text(_partial, encoding="utf-8")
        raise
    path = GOLDEN / case / "expected.txt"
    (GOLDEN / case / "partial.txt").unlink(missing_ok=True)
    if update or not path.exists():
        path.write_text(transcript, encoding="utf-8")
    expected = path.read_text(encoding="utf-8")
    if transcript != expected:
        import difflib
        diff = "\n".join(difflib.unified_diff(expected.splitlines(), transcript.splitlines(), "expected", "got",
                                              lineterm="", n=2))
        raise AssertionError(f"golden case {case} differs (rerun with --update-golden if intended):\n{diff[:6000]}")
    return table, transcript


def sheet(name: str) -> m.Character:
    return m.Character.get(m.Character.name == name)


def statuses(transcript_path: Path) -> list[str]:
    return re.findall(r"^=== \d+ [^:]+: (\w+)", transcript_path.read_text(encoding="utf-8"), flags=re.M)
