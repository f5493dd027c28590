"""Bytes to text for mail: charsets as labelled, mislabelled or unknown, and the
``format=flowed`` soft line breaks of RFC 3676.

Nothing here raises on bad input: a mail that lies about its charset still becomes text,
with U+FFFD where a byte could not be read.
"""
from __future__ import annotations

import codecs

# labels that mail clients use for a superset (as browsers read them, WHATWG Encoding)
_SUPERSETS = {
    "iso-8859-1": "cp1252", "iso8859-1": "cp1252", "latin1": "cp1252", "latin-1": "cp1252",
    "l1": "cp1252", "iso_8859-1": "cp1252", "x-cp1252": "cp1252",
    "gb2312": "gb18030", "gbk": "gb18030", "x-gbk": "gb18030", "euc-cn": "gb18030",
    "big5": "big5hkscs", "shift_jis": "cp932", "shift-jis": "cp932", "sjis": "cp932",
    "x-sjis": "cp932", "euc-kr": "cp949", "ks_c_5601-1987": "cp949", "iso-8859-8-i": "iso8859-8",
    "tis-620": "cp874", "iso-8859-11": "cp874", "windows-874": "cp874",
    "x-mac-roman": "mac-roman", "macintosh": "mac-roman",
    "utf8": "utf-8", "utf-8": "utf-8", "unicode-1-1-utf-8": "utf-8",
}
# labels that say nothing about 8-bit bytes: text carrying such bytes is mislabelled
_NO_LABEL = {"", "us-ascii", "ascii", "ansi_x3.4-1968", "us", "iso646-us", "x-unknown",
             "unknown", "unknown-8bit", "x-user-defined", "default", "charset", "none"}
#: below this share of unreadable non-ASCII bytes, an unlabelled text is UTF-8 with typos
UTF8_BAD_SHARE = 0.25


def codec_for(charset: str | None) -> str | None:
    """The Python codec for a MIME charset label, or ``None`` when it names none we know."""
    label = (charset or "").strip().strip("\"'").lower()
    if label in _NO_LABEL:
        return None
    label = _SUPERSETS.get(label, label)
    try:
        name = codecs.lookup(label).name
    except (LookupError, ValueError):
        return None
    if name in ("utf-8", "utf_8"):
        return "utf-8-sig"
    try:
        "".encode(name)  # rejects the bytes-to-bytes codecs: base64, zlib, rot13...
    except LookupError:
        return None
    return name


def decode_bytes(data: bytes, charset: str | None) -> str:
    """Text from ``data``: the label if the bytes fit it, else UTF-8, else a best reading.

    A known label (other than UTF-8) whose bytes do not fit keeps its reading with U+FFFD
    for the bad bytes. Otherwise (no label, ``us-ascii``, an unknown one, or UTF-8 that is
    not) the text is UTF-8 with replacement when most of its 8-bit bytes read as UTF-8,
    else windows-1252, and latin-1 (which never fails) for windows-1252's five holes.
    """
    codec = codec_for(charset)
    for name in (codec, "utf-8-sig"):
        if name:
            try:
                return data.decode(name)
            except (UnicodeError, LookupError, ValueError, TypeError):
                pass
    if codec and codec != "utf-8-sig":
        try:
            return data.decode(codec, "replace")
        except (UnicodeError, LookupError, ValueError, TypeError):
            pass
    as_utf8 = data.decode("utf-8", "replace")
    high = sum(1 for byte in data if byte >= 0x80)
    if as_utf8.count("\ufffd") <= UTF8_BAD_SHARE * high:
        return as_utf8
    try:
        return data.decode("cp1252")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def unflow(text: str, *, delsp: bool = False) -> str:
    """Join the soft line breaks of a ``format=flowed`` body (RFC 3676).

    A line ending in a space continues on the next line of the same quote depth; a leading
    space (space-stuffing) is dropped; ``-- `` stays the signature separator. This puts a
    long command that the sender's client wrapped back on one line.
    """
    out: list[str] = []
    pending: list[str] | None = None
    pending_depth = 0
    for raw in text.split("\n"):
        depth = len(raw) - len(raw.lstrip(">"))
        line = raw[depth:]
        if line.startswith(" "):
            line = line[1:]
        flowed = line.endswith(" ") and line != "-- "
        if pending is not None and depth == pending_depth:
            pending.append(line)
        else:
            if pending is not None:
                out.append(_quoted("".join(pending), pending_depth))
            pending, pending_depth = [line], depth
        if flowed:
            if delsp:
                pending[-1] = pending[-1][:-1]
            continue
        out.append(_quoted("".join(pending), pending_depth))
        pending = None
    if pending is not None:
        out.append(_quoted("".join(pending), pending_depth))
    return "\n".join(out)


def _quoted(line: str, depth: int) -> str:
    if not depth:
        return line
    return ">" * depth + (" " + line if line else "")
