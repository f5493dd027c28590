"""Where the shared reply-trimmer data lives, and how to plant commands into its cases.

The data (``tests/data/reply-trimmer``, see its README and LICENSE) holds 64 real reply
bodies: ``emails/NAME.txt`` as received, ``trimmed/NAME.txt`` the author's new text and
``elided/NAME.txt`` what is cut away. The elided files were written by Discourse's trimmer
after it had joined wrapped attributions and rewritten quote markers (``Richard>`` and
``|`` became ``>``), so they are used here only to find where the elided part starts.
"""
from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
REPLY_TRIMMER = REPO / "tests" / "data" / "reply-trimmer"

NEW_COMMAND = "/overcome Fight vs Fair"
OLD_COMMAND = "/attack Ghoul with Fight"

_QUOTE_PREFIX = re.compile(r"^\s*(?:>+|\||[A-Za-z]{1,12}>)")
_HEADER_LIKE = re.compile(r"^[\s*]*[^\s:<>]+(?:[ -][^\s:<>]+){0,2}[\s*]*:")


def case_names() -> list[str]:
    if not REPLY_TRIMMER.is_dir():
        return []
    return sorted(p.stem for p in (REPLY_TRIMMER / "emails").glob("*.txt"))


def read_case(name: str, part: str) -> str:
    """``part`` is ``emails``, ``trimmed`` or ``elided``; line breaks normalised."""
    return (REPLY_TRIMMER / part / f"{name}.txt").read_text(encoding="utf-8").replace("\r\n", "\n")


def normalise(text: str) -> str:
    """Trailing white space of each line and blank lines at both ends do not count."""
    lines = [line.rstrip() for line in text.replace("\r\n", "\n").split("\n")]
    while lines and not lines[-1]:
        lines.pop()
    while lines and not lines[0]:
        lines.pop(0)
    return "\n".join(lines)


def command_lines(text: str) -> list[str]:
    """The lines a post's parser runs (``pbp.parser.find_commands``): first non-blank
    character ``/`` followed by a letter. A quoted ``> /attack`` never is one."""
    found = []
    for line in text.splitlines():
        stripped = line.strip()
        if len(stripped) > 1 and stripped[0] == "/" and stripped[1].isalpha():
            found.append(stripped)
    return found


@dataclass(frozen=True)
class Planted:
    text: str  # the email with the commands in it
    old_planted: bool  # False when the elided part holds no old text to plant into
    old_line: str = ""  # the old command as planted (quoted like its neighbours)
    why_not: str = ""


def plant_commands(name: str, where: str) -> Planted:
    """Put :data:`NEW_COMMAND` just after the first line of the author's text, and
    :data:`OLD_COMMAND` into the old text that is elided, as a mail client would have
    carried an old command along: with the quote marker of the lines around it.

    ``where="head"`` plants the old command where the old text starts: after the first
    line of the (largest) elided run, its wrapped continuation and any embedded mail
    headers (``From:``, ``Sent:``...). ``where="tail"`` plants it after the run's last line.
    The old command is not planted where the next line is the author's own text and no
    quote marker tells the two apart: the elided run is then only a marker line (an
    attribution or a forward header), with no old text in it.
    """
    raw = read_case(name, "emails").split("\n")
    kept = read_case(name, "trimmed").split("\n")
    elided = [line for line in read_case(name, "elided").split("\n") if line.strip()]
    kept_raw = _kept_lines(raw, kept)
    first_kept = min(kept_raw, default=-1)
    inserts = {first_kept + 1: NEW_COMMAND}
    runs = _elided_runs(raw, kept_raw)
    if not runs or not elided:
        return Planted(_with(raw, inserts), False, why_not="nothing is elided")
    run = max(runs, key=len)
    if where == "head":
        at = _end_of_wrapped(raw, run[0], elided[0])
        spot = at + 1
        while spot < len(raw) and spot not in kept_raw and (not raw[spot].strip() or _HEADER_LIKE.match(raw[spot])):
            spot += 1
        neighbour = spot if spot < len(raw) else None
    else:
        spot, neighbour = run[-1] + 1, run[-1]
        after = next((i for i in range(spot, len(raw)) if raw[i].strip()), None)
        if after is not None and not _QUOTE_PREFIX.match(raw[neighbour]):
            return Planted(_with(raw, inserts), False, why_not="the elided run ends right above the author's text")
    marker = _QUOTE_PREFIX.match(raw[neighbour]) if neighbour is not None else None
    if where == "head" and neighbour is not None and neighbour in kept_raw and not marker:
        return Planted(_with(raw, inserts), False, why_not="the elided part is only a marker line")
    old_line = (marker.group(0).strip() + " " if marker else "") + OLD_COMMAND
    inserts[spot] = old_line
    return Planted(_with(raw, inserts), True, old_line)


def _kept_lines(raw: list[str], kept: list[str]) -> set[int]:
    matcher = difflib.SequenceMatcher(None, [l.rstrip() for l in raw], [l.rstrip() for l in kept], autojunk=False)
    found: set[int] = set()
    for a, _, size in matcher.get_matching_blocks():
        found.update(i for i in range(a, a + size) if raw[i].strip())
    return found


def _elided_runs(raw: list[str], kept_raw: set[int]) -> list[list[int]]:
    runs, current = [], []
    for i, line in enumerate(raw):
        if i in kept_raw:
            if current:
                runs.append(current)
            current = []
        elif line.strip():
            current.append(i)
    if current:
        runs.append(current)
    return runs


def _end_of_wrapped(raw: list[str], start: int, first_elided: str) -> int:
    """The last raw line of the elided part's first line, which the elided file may
    show joined from several raw lines (a wrapped attribution)."""
    target = re.sub(r"\s+", "", first_elided)
    joined, end = re.sub(r"\s+", "", raw[start]), start
    while joined != target and target.startswith(joined) and end + 1 < len(raw):
        end += 1
        joined += re.sub(r"\s+", "", raw[end])
    return end if joined == target else start


def _with(raw: list[str], inserts: dict[int, str]) -> str:
    out = []
    for i in range(len(raw) + 1):
        if i in inserts:
            out.append(inserts[i])
        if i < len(raw):
            out.append(raw[i])
    return "\n".join(out)
