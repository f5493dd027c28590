"""What text a user types may hold before pbp keeps it: names, aspects, stunts, campaign
names, subjects and addresses end up in replies and some of them in mail headers, so they
must never carry line breaks, NUL, other control characters, bidi overrides or zero-width
characters (which can forge headers, reorder a reply on screen or hide a second name behind
the first).

One definition for every place that takes such a value: sheet files, commands, campaign
settings and the CLI. :func:`unsafe_text` says what is wrong (or ``""``), :func:`strip_invisible`
removes the harmless invisible characters mail clients insert (BOM, zero-width space, word
joiner, soft hyphen, LRM/RLM) from text that is about to be parsed, and :func:`is_addr_spec`
checks a bare mail address.

The header writer (``pbp.mail.compose.write_mail``) is the last line of defence: whatever slipped
past these checks into the database, :func:`header_text` and :func:`is_msg_id` make sure it
can never break a header line or add a header of its own.
"""
from __future__ import annotations

import functools
import re
import unicodedata

#: Bidi embeddings, overrides and isolates (U+202A..U+202E, U+2066..U+2069) and marks.
BIDI = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c")
#: Zero-width and invisible formatting characters.
INVISIBLE = frozenset("\u200b\u200c\u200d\u2060\u2061\u2062\u2063\u2064\ufeff\u00ad\u180e")

#: What mail clients slip into text that a parser should not see (removed, not refused).
_STRIPPABLE = re.compile("[\ufeff\u200b\u200c\u200d\u2060\u00ad\u200e\u200f]")

#: The longest name pbp keeps (a character, an aspect, a stunt, a campaign).
MAX_NAME = 200
#: The longest subject pbp keeps before it shortens it.
MAX_SUBJECT = 200


def describe_char(ch: str) -> str:
    """``U+000A (LINE FEED)``: how an error names a character nobody can see."""
    name = unicodedata.name(ch, "")
    if not name and ch in "\r\n\t\0":
        name = {"\r": "CARRIAGE RETURN", "\n": "LINE FEED", "\t": "TAB", "\0": "NUL"}[ch]
    return f"U+{ord(ch):04X}" + (f" ({name})" if name else "")


def bad_char(text: str, *, allow_tab: bool = False) -> str | None:
    """The first character ``text`` must not hold, or None."""
    for ch in text:
        if ch in BIDI or ch in INVISIBLE:
            return ch
        cat = unicodedata.category(ch)
        if cat in ("Cc", "Cs", "Co", "Cn") or ch in "\u2028\u2029":
            if allow_tab and ch == "\t":
                continue
            return ch
    return None


def unsafe_text(text: str, *, what: str = "the value", max_length: int = MAX_NAME) -> str:
    """Why ``text`` cannot be kept as a name, aspect, stunt, campaign name or subject, or
    ``""`` when it can. The reason names the character (``U+000A (LINE FEED)``) and its
    position, never echoing more than a short prefix of a long value."""
    ch = bad_char(text)
    if ch is not None:
        return f"{what} holds {describe_char(ch)} at character {text.index(ch) + 1}; line breaks, control, bidi and zero-width characters are not allowed"
    if len(text) > max_length:
        return f"{what} is {len(text):,} characters long; at most {max_length} are allowed"
    return ""


def strip_invisible(text: str) -> str:
    """``text`` without the invisible characters mail clients insert (BOM, zero-width
    space/joiners, word joiner, soft hyphen, LRM/RLM)."""
    return _STRIPPABLE.sub("", text)


def shorten(text: str, limit: int = 60) -> str:
    """``text`` cut to ``limit`` characters with an ellipsis, for echoing in messages."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


_ATOM = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+"
_DOT_ATOM = rf"{_ATOM}(?:\.{_ATOM})*"
_DOMAIN = r"(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*"
_ADDR_SPEC = re.compile(rf"{_DOT_ATOM}@{_DOMAIN}")


@functools.lru_cache(maxsize=4096)  # the same few member addresses are checked for every reply
def is_addr_spec(address: str) -> bool:
    """A bare ``local@domain`` address (RFC 5322's dot-atom form, an LDH domain, at most
    254 characters): no display name, no comments, no quoted local parts, no spaces or
    line breaks. That is what pbp writes into To, Cc and Reply-To."""
    return len(address) <= 254 and _ADDR_SPEC.fullmatch(address) is not None


_CONTROL_RUN = re.compile(r"\s+")


def header_text(text: str, limit: int = MAX_SUBJECT) -> str:
    """``text`` made fit for one header value: every character :func:`bad_char` refuses
    (line breaks, NUL, controls, bidi, zero-width) becomes a space, runs of white space
    become one, and the result is cut to ``limit`` characters with an ellipsis. Used where
    pbp writes text it did not check itself (an incoming subject) and as a second guard on
    text it did (names)."""
    if text.isascii() and text.isprintable() and len(text) <= limit and "  " not in text:
        return text.strip()  # the common case, without a scan per character
    if bad_char(text) is not None:
        text = "".join(" " if bad_char(ch) is not None else ch for ch in text)
    return shorten(_CONTROL_RUN.sub(" ", text).strip(), limit)


#: A message id without its angle brackets: printable ASCII, no brackets, no spaces.
_MSG_ID = re.compile(r"[!-;=?-~]{1,250}")


def is_msg_id(value: str) -> bool:
    """Whether ``value`` (an id from an incoming Message-ID, In-Reply-To or References,
    brackets removed) may be written back into our own threading headers: printable ASCII
    without ``<``, ``>`` or white space, at most 250 characters. Anything else (8-bit
    bytes, encoded words, a 5,000-character id) is dropped rather than copied raw."""
    return _MSG_ID.fullmatch(value) is not None


def visible(text: str, limit: int = 60) -> str:
    """``text`` for an error message on a terminal or in a reply: cut to ``limit`` and every
    character :func:`bad_char` refuses shown as its code (``\\u202e``), so echoing a bad
    value can neither break the line nor reorder it."""
    text = shorten(text, limit)
    if bad_char(text) is None:
        return text
    return "".join(ch if bad_char(ch) is None else f"\\u{ord(ch):04x}" for ch in text)


#: The longest run without a space an error message echoes, and the longest message.
MAX_ECHO_WORD = 60
MAX_ECHO = 400
#: How much of a command line an error reply shows around the place it points at.
SOURCE_WINDOW = 100

_LONG_RUN = re.compile(r"[^\s\"“”„«»'‘’]{%d,}" % (MAX_ECHO_WORD + 1))


def clip_echo(text: str, *, word: int = MAX_ECHO_WORD, limit: int = MAX_ECHO) -> str:
    """``text`` (an error's message, expected or hint) with every run longer than ``word``
    characters cut (:func:`shorten`) and the whole cut to ``limit``: a 10,000-character name
    typed into a command is named in the reply, never echoed whole."""
    if len(text) <= word:
        return text
    clipped = shorten(_LONG_RUN.sub(lambda m: shorten(m.group(0), word), text), limit)
    return text if clipped == text else clipped     # a sentence of pbp's (pbp.i18n.Msg) kept as made


def source_window(source: str, column: int | None, width: int = SOURCE_WINDOW) -> tuple[str, int | None]:
    """The part of a long command line an error reply shows, and the caret's column in it:
    ``width`` characters around ``column`` (the start when there is none), with "…" where
    the line goes on."""
    if len(source) <= width:
        return source, column
    at = (column or 1) - 1
    start = 0 if at < width // 2 else min(at - width // 3, len(source) - width)
    shown = source[start:start + width]
    prefix = "…" if start > 0 else ""
    suffix = "…" if start + width < len(source) else ""
    return prefix + shown + suffix, (None if column is None else column - start + len(prefix))
