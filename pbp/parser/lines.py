"""Finding the command lines of a post, and the lines that only look like commands.

A command line is cut from the author's new text (after :mod:`pbp.mail` removed quotes
and signatures); the parser reads each one on its own (:mod:`pbp.parser.drive`).
"""
from __future__ import annotations

import re

from pbp.ooc import ooc_lines
from pbp.parser.spec import COMMAND_NAMES
from pbp.textsafety import strip_invisible


def find_commands(text: str) -> list[tuple[int, str]]:
    """The command lines of a post as ``(line number, stripped line)``, numbered from 1.

    A command line's first non-blank character is ``/`` followed at once by a letter, and its
    first word has no other ``/``: ``/roll 4dF`` is a command, while ``/ roll``, ``//``,
    ``/2`` and paths such as ``/usr/bin/env`` are prose. The invisible characters mail
    clients slip in (BOM, zero-width space, word joiner, LRM/RLM, soft hyphen) are removed
    first, so ``\u200b/ro\u00adll`` is ``/roll``. Lines out of character (``((...))``,
    ``/ooc``: :mod:`pbp.ooc`) are never command lines, whatever they hold.
    """
    found = []
    ooc = ooc_lines(text)
    for number, raw in enumerate(text.splitlines(), start=1):
        stripped = strip_invisible(raw).strip()
        if number not in ooc and _is_command_line(stripped):
            found.append((number, stripped))
    return found


def _is_command_line(stripped: str) -> bool:
    if len(stripped) > 1 and stripped[0] == "/" and stripped[1].isalpha():
        return "/" not in stripped.split(None, 1)[0][1:]
    return False


#: characters that look like the slash but are not it
_LOOKALIKE_SLASHES = {"\uff0f": "a fullwidth slash (U+FF0F)", "\u2215": "a division slash (U+2215)",
                      "\u2044": "a fraction slash (U+2044)", "\u29f8": "a big solidus (U+29F8)",
                      "\\": "a backslash"}
_SPACED_COMMAND = re.compile(r"/\s+([^\W\d_]+)")


def find_near_commands(text: str) -> list[tuple[int, str, str]]:
    """Lines that look like a command but are not read as one, as ``(line number, stripped
    line, why)``: a look-alike slash (fullwidth ``／roll``, division slash, ``\\roll``)
    before a letter, or ``/ roll`` (a space after the slash) before a command word. A reply
    names them, so a player never wonders why a command did nothing."""
    found = []
    ooc = ooc_lines(text)
    for number, raw in enumerate(text.splitlines(), start=1):
        stripped = strip_invisible(raw).strip()
        if number in ooc or len(stripped) < 2 or _is_command_line(stripped):
            continue
        first = stripped[0]
        if first in _LOOKALIKE_SLASHES and stripped[1].isalpha():
            word = stripped[1:].split(None, 1)[0].lower()
            if first != "\\" or word in COMMAND_NAMES:
                found.append((number, stripped, f"it starts with {_LOOKALIKE_SLASHES[first]}, not /"))
            continue
        spaced = _SPACED_COMMAND.match(stripped)
        if spaced and spaced.group(1).lower() in COMMAND_NAMES:
            found.append((number, stripped, "a space follows the /"))
    return found
