"""Out of character: the lines of a post its author marked as table talk, not play.

A line that begins with ``((`` is out of character, and so is every line after it until
one that ends with ``))`` (one line, ``((back Tuesday))``, or a block). A line that begins
with ``/ooc`` and has words after it is out of character; ``/ooc`` alone on a line makes it
and every line after it so (first in a post: the whole post). Such lines are never read
for commands (:func:`pbp.parser.find_commands` skips them, and no bare ``approve`` is read
in them); a relay shows them apart from the story (:mod:`pbp.render`), and so does the
archive (:mod:`pbp.archive`). A leaf: the parser, the renderer and the archive use it.
"""
from __future__ import annotations

import re

from pbp.textsafety import strip_invisible

_OOC_WORD = re.compile(r"/ooc(?=\s|$)", re.IGNORECASE)


def ooc_lines(text: str) -> frozenset[int]:
    """The numbers (from 1) of the lines of ``text`` that are out of character."""
    found: set[int] = set()
    in_block = rest = False
    for number, raw in enumerate(text.splitlines(), start=1):
        line = strip_invisible(raw).strip()
        if rest:
            found.add(number)
        elif in_block:
            found.add(number)
            in_block = not line.endswith("))")
        elif line.startswith("(("):
            found.add(number)
            in_block = not line[2:].rstrip().endswith("))")
        elif _OOC_WORD.match(line):
            found.add(number)
            rest = not line[4:].strip()
    return frozenset(found)


def ooc_text(line: str) -> str:
    """A line as shown among the out-of-character words: without its marks (``((``,
    ``))``, ``/ooc``); a line that was only a mark is ""."""
    text = strip_invisible(line).strip()
    if _OOC_WORD.match(text):
        text = text[4:].strip()
    if text.startswith("(("):
        text = text[2:].lstrip()
    if text.endswith("))"):
        text = text[:-2].rstrip()
    return text


def split_ooc(text: str) -> tuple[list[tuple[int, str]], list[str]]:
    """``text`` as (in-character lines with their numbers, the out-of-character words with
    their marks taken off and blank ones dropped)."""
    ooc = ooc_lines(text)
    story, apart = [], []
    for number, line in enumerate(text.splitlines(), start=1):
        if number in ooc:
            shown = ooc_text(line)
            if shown:
                apart.append(shown)
        else:
            story.append((number, line))
    return story, apart
