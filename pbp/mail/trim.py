"""Cut a reply down to the author's new text: the scanner half of the reply trimmer.

Players answer the daemon's mails, so their clients append the older mails, and the
commands in them, below (or above) what they wrote. Only the new text may be read for
commands. :mod:`pbp.mail.lines` gives each line a kind (``t`` text, ``q`` quote, ``b``
attribution, ``h`` header, ``d`` delimiter, ``s`` footer, ``e`` empty); the rules below
read that kind string, in order, and each keeps a part of it. The approach, and the test
data that pins it, come from Discourse's ``email_reply_trimmer`` (MIT).

What stays in the new text on purpose: quote lines *between* paragraphs of the author's
(inline answers) and a mail that is nothing but an unattributed quote. Those lines begin
with ``>``, so they can never be read as commands (a command line starts with ``/``).
"""
from __future__ import annotations

import re
from typing import Callable, Sequence

from pbp.mail.lines import (
    ATTRIBUTION,
    EMPTY,
    QUOTE,
    TEXT,
    classify,
    header_name,
    is_forward_marker,
    is_date_header,
    is_original_marker,
    is_recipient_header,
    is_sender_header,
)

#: below a quote, this many lines of text or more are an answer, not a signature
MAX_TEXT_BELOW_QUOTE = 7
#: a header block names at least this many distinct headers (From, Sent, To, Subject...),
#: or two when one is a date with a clock time (see :func:`_is_header_block`)
MIN_HEADER_BLOCK = 3

_LINE_BREAK = re.compile(r"\r\n?")
_FOOTER_START = re.compile(r"[ds]")
_REPLY_BELOW_QUOTE = re.compile(r"b[^t]+(t[te]*)$")
_REPLY_ABOVE_UNQUOTED = re.compile(r"te*(b)[^q]*$")
_REPLY_ABOVE_QUOTE = re.compile(r"te*(b)[eqbh]*([te]*)$")
_HEADER_BLOCK = re.compile(r"h(?:[ht]*h)?(?:t(?=e|$))?")

Kept = Sequence[int] | None  # positions (into the current kind string) that a rule keeps
Rule = Callable[[str, list[str]], Kept]


def trim_reply(text: str) -> str:
    """The author's new text of a reply body: quotes, attributions, embedded older mails,
    signatures and client footers cut. Line breaks are normalised to ``\\n``."""
    lines = _LINE_BREAK.sub("\n", text).split("\n")
    return _join(lines, _scan(lines))


def split_reply(text: str) -> tuple[str, str]:
    """``(kept, elided)``: the author's new text and every line that was cut from it."""
    lines = _LINE_BREAK.sub("\n", text).split("\n")
    kept = _scan(lines)
    dropped = set(range(len(lines))).difference(kept)
    return _join(lines, kept), _join(lines, sorted(dropped))


def _scan(lines: list[str]) -> list[int]:
    """The indices of the lines that are the author's new text, in order. A quote line
    kept between the author's paragraphs that does not begin with ``>`` (a tab-indented
    quote) gets a ``>`` in ``lines``, so it can never be read as a command."""
    kinds = classify(lines)
    quotes = kinds
    first, end = len(kinds) - len(kinds.lstrip(EMPTY)), len(kinds.rstrip(EMPTY))
    keep, kinds = list(range(first, end)), kinds[first:end]
    for rule in _RULES:
        chosen = rule(kinds, [lines[i] for i in keep] if rule in _NEEDS_LINES else [])
        if chosen is not None:
            keep = [keep[p] for p in chosen]
            kinds = "".join(kinds[p] for p in chosen)
    for i in keep:
        if quotes[i] == QUOTE and lines[i].startswith("\t"):
            lines[i] = ">" + lines[i]
    return keep


def _join(lines: list[str], indices: Sequence[int]) -> str:
    picked = [lines[i] for i in indices]
    while picked and not picked[-1].strip():
        picked.pop()
    start = 0
    while start < len(picked) and not picked[start].strip():
        start += 1
    return "\n".join(picked[start:])


# --------------------------------------------------------------------------- rules


def cut_footer(kinds: str, lines: list[str]) -> Kept:
    """A delimiter (``-- ``, ``____``) or a client footer (``Sent from my iPhone``) ends
    what the author typed: below it come the signature and the older mail.

    Except a scene break: players separate scenes with ``---``, ``***`` or ``===``, so such a
    line followed by a command line before any other delimiter, quote, attribution or
    header line is the author's own text, and the search goes on. A phone's ``Sent from my
    iPhone`` is a footer only where it ends the new text: when the author typed a command
    right below it (the next line that is not blank) and no older mail follows (no quote,
    attribution, header, delimiter or other footer), it is passed too. Prose below a footer
    is taken for an older mail that the phone appended unquoted. The mail conventions
    (``--`` and ``-- `` before a signature, Outlook's ``____`` line) always cut."""
    pos = 0
    while (found := _FOOTER_START.search(kinds, pos)) is not None:
        at = found.start()
        if kinds[at] == "d" and _SCENE_BREAK.match(lines[at]) and _command_follows(kinds, lines, at + 1):
            pos = at + 1
            continue
        if kinds[at] == "s" and _only_commands_follow(kinds, lines, at + 1):
            pos = at + 1
            continue
        return range(at)
    return None


def _only_commands_follow(kinds: str, lines: list[str], start: int) -> bool:
    rest = kinds[start:]
    first = len(rest) - len(rest.lstrip(EMPTY))
    if first == len(rest) or not _COMMAND_LINE.match(lines[start + first]):
        return False
    return not any(kind in "qbhsd" for kind in rest)


_SCENE_BREAK = re.compile(r"^\s*([-*=~#])(?:\s*\1){2,}\s*$")
_COMMAND_LINE = re.compile(r"\s*/[A-Za-z]")


def _command_follows(kinds: str, lines: list[str], start: int) -> bool:
    for kind, line in zip(kinds[start:], lines[start:]):
        if kind in "qbhsd":
            return False
        if _COMMAND_LINE.match(line):
            return True
    return False


def old_mail_first(kinds: str, lines: list[str]) -> Kept:
    """A mail that opens with ``-----Original Message-----`` (or a header block, see
    :func:`cut_header_block`) is a reply sent without a word: all of it is the old mail."""
    if kinds.startswith(ATTRIBUTION) and is_original_marker(lines[0]):
        return range(0)
    return None


def reply_below_quote(kinds: str, lines: list[str]) -> Kept:
    """The mail opens with an attribution and its quote, then has only text to the end:
    the author answered below the quote (bottom-posting). Keep that text."""
    found = _REPLY_BELOW_QUOTE.match(kinds)
    return range(found.start(1), len(kinds)) if found else None


def reply_above_unquoted_mail(kinds: str, lines: list[str]) -> Kept:
    """Text, then an attribution that no quote follows: the older mail comes unquoted
    (Outlook, forwards, many phones). Cut at the attribution."""
    found = _REPLY_ABOVE_UNQUOTED.search(kinds, kinds.rfind("q") + 1)  # no quote may follow
    return range(found.start(1)) if found else None


def reply_above_quote(kinds: str, lines: list[str]) -> Kept:
    """Text, then an attribution and the quote, then at most a few lines of text (the
    author's signature put below the quote). Cut at the attribution."""
    # only the last text line before the last quote can start a match: search there alone
    start = kinds.rfind(TEXT, 0, max(kinds.rfind("q"), kinds.rfind("b"), kinds.rfind("h")))
    found = _REPLY_ABOVE_QUOTE.match(kinds, start) if start >= 0 else None
    if found and found.group(2).count(TEXT) < MAX_TEXT_BELOW_QUOTE:
        return range(found.start(1))
    return None


def cut_old_mail_at_end(kinds: str, lines: list[str]) -> Kept:
    """Quotes and attributions that end the mail are the older mail, once the author has
    written some text. With no text at all: attributed quotes are all old (nothing is
    kept), a bare quote is kept (the author quoting something, as the data wants)."""
    if TEXT not in kinds:
        return range(0) if ATTRIBUTION in kinds else None
    end = len(kinds.rstrip("qbe"))
    return range(end) if end < len(kinds) else None


def drop_attributions(kinds: str, lines: list[str]) -> Kept:
    """Attributions left between paragraphs of the author (inline answers) go."""
    if ATTRIBUTION not in kinds:
        return None
    return [p for p, kind in enumerate(kinds) if kind != ATTRIBUTION]


def cut_header_block(kinds: str, lines: list[str]) -> Kept:
    """A block of mail headers (``From:``, ``Sent:``, ``To:``, ``Subject:`` in any of the
    clients' languages) starts the older mail, which Outlook puts there unquoted: cut at
    the block. Only a forward's block (below ``---------- Forwarded message ---------``,
    with nothing written above) is dropped alone, keeping the forwarded text as the test
    data wants. A single ``To:`` in prose, or a dialogue, is no block."""
    dropped: set[int] = set()
    text_seen, scanned = False, 0
    for block in _HEADER_BLOCK.finditer(kinds):
        if not _is_header_block(lines[block.start():block.end()]):
            continue
        text_seen = text_seen or TEXT in kinds[scanned:block.start()]
        scanned = block.end()
        marker = len(kinds[:block.start()].rstrip(EMPTY)) - 1
        if text_seen or marker < 0 or not is_forward_marker(lines[marker]):
            return [p for p in range(block.start()) if p not in dropped]
        dropped.update(range(marker, block.end()))
    if not dropped:
        return None
    return [p for p in range(len(kinds)) if p not in dropped]


def _is_header_block(block: list[str]) -> bool:
    """Three headers or more, one naming the sender; or just two (``From:`` + ``Date:``,
    ``Date:`` + ``To:``, as some clients and forwards write them) when the date header
    holds a clock time, which a mail's date always has and a letter in a story rarely."""
    named = [(name, line) for line in block if (name := header_name(line))]
    names = {name for name, _ in named}
    if len(names) >= MIN_HEADER_BLOCK:
        return any(is_sender_header(name) for name in names)
    if len(names) != 2:
        return False
    timed = any(is_date_header(name) and _CLOCK.search(line) for name, line in named)
    return timed and any(is_sender_header(name) or is_recipient_header(name) for name in names)


_CLOCK = re.compile(r"\b\d{1,2}[:.]\d{2}\b")


_RULES: tuple[Rule, ...] = (
    cut_footer,
    old_mail_first,
    reply_below_quote,
    reply_above_unquoted_mail,
    reply_above_quote,
    cut_old_mail_at_end,
    cut_header_block,
    drop_attributions,
    cut_old_mail_at_end,
)
_NEEDS_LINES = {cut_footer, old_mail_first, cut_header_block}

__all__ = ["trim_reply", "split_reply"]
