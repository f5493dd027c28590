"""Read one raw mail into a :class:`Mail`: who sent it, how it threads, and the author's
new text, the only part of a post that commands are read from.

``read_message`` never raises: garbage in gives a ``Mail`` with whatever could be read
(an empty body at worst), because one strange mail must not stop the daemon. Header values
are taken raw from the parsed message and decoded here (RFC 2047 words in any charset,
raw UTF-8), which is faster and more forgiving than the header objects of
``email.policy.default``.
"""
from __future__ import annotations

import binascii
import email
import email.policy
import email.utils
import hashlib
import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from email.message import Message

from pbp.mail.decoding import decode_bytes, unflow
from pbp.mail.html_text import html_to_text
from pbp.mail.trim import trim_reply

#: the headers later stages check (loops, bounces, routing, spoofing); see :attr:`Mail.headers`
KEY_HEADERS = ("Auto-Submitted", "Precedence", "X-Autoreply", "X-Auto-Response-Suppress",
               "Return-Path", "List-Id", "Delivered-To", "Authentication-Results")
SYNTHETIC_ID_DOMAIN = "pbp.invalid"


@dataclass(frozen=True)
class Mail:
    """One received mail, decoded. Addresses are lower-cased; message ids carry no angle
    brackets. ``body`` is the whole text (HTML converted, quoted parts marked ``>``);
    ``new_text`` is what the author wrote in this mail, quotes and signature cut."""

    message_id: str
    from_addr: str
    from_name: str
    to: list[str]
    cc: list[str]
    subject: str
    date: datetime | None
    in_reply_to: str | None
    references: list[str]
    body: str
    new_text: str
    html: bool
    raw_headers: tuple[tuple[str, str], ...] = field(default=(), repr=False)

    def header(self, name: str) -> str | None:
        """The first ``name`` header, unfolded and decoded, or ``None`` when absent."""
        wanted = name.lower()
        for key, value in self.raw_headers:
            if key.lower() == wanted:
                return decode_header_value(value)
        return None

    def header_all(self, name: str) -> list[str]:
        """Every ``name`` header in order (``Received``, ``Authentication-Results``...)."""
        wanted = name.lower()
        return [decode_header_value(value) for key, value in self.raw_headers if key.lower() == wanted]

    @property
    def headers(self) -> dict[str, str]:
        """The :data:`KEY_HEADERS` that the mail has, by their usual spelling."""
        found = {}
        for name in KEY_HEADERS:
            value = self.header(name)
            if value is not None:
                found[name] = value
        return found


def read_message(raw: bytes) -> Mail:
    """Decode a raw RFC 5322 message. Never raises."""
    raw = bytes(raw)
    try:
        msg = email.message_from_bytes(raw, policy=email.policy.default)
        raw_headers = tuple((str(name), _as_text(value)) for name, value in msg.raw_items())
    except Exception:
        msg, raw_headers = None, ()
    heads = _Headers(raw_headers)
    from_addr, from_name = _first_address(heads.all("From"))
    body, html = _body(msg) if msg is not None else ("", False)
    return Mail(
        message_id=_first_id(heads.first("Message-ID")) or _synthetic_id(raw),
        from_addr=from_addr,
        from_name=from_name,
        to=_addresses(heads.all("To")),
        cc=_addresses(heads.all("Cc")),
        subject=decode_header_value(heads.first("Subject") or ""),
        date=_date(heads.first("Date")),
        in_reply_to=_first_id(heads.first("In-Reply-To")),
        references=_ids(heads.first("References")),
        body=body,
        new_text=trim_reply(body),
        html=html,
        raw_headers=raw_headers,
    )


# --------------------------------------------------------------------------- headers


class _Headers:
    def __init__(self, items: tuple[tuple[str, str], ...]) -> None:
        self._items = items

    def all(self, name: str) -> list[str]:
        wanted = name.lower()
        return [value for key, value in self._items if key.lower() == wanted]

    def first(self, name: str) -> str | None:
        found = self.all(name)
        return found[0] if found else None


_FOLD = re.compile(r"\r?\n(?=[ \t])")
_LINE_BREAKS = re.compile(r"[\r\n\x00]")
_ENCODED_WORD = re.compile(r"=\?([^?\s]+)\?([bBqQ])\?([^?\s]*)\?=")
_BETWEEN_WORDS = re.compile(r"(?<=\?=)\s+(?==\?[^?\s]+\?[bBqQ]\?)")
_QP_HEX = re.compile(rb"=([0-9A-Fa-f]{2})")
_MSG_ID = re.compile(r"<\s*([^<>\s]+)\s*>")
_ADDRESS = re.compile(r"[\w.+\-=/!#$%&'*^`{|}~]+@[\w\-]+(?:\.[\w\-]+)*")


def _as_text(value: object) -> str:
    """A raw header value as text: the parser keeps 8-bit bytes as surrogates; RFC 6532
    allows UTF-8 there, and older clients write their local charset."""
    text = str(value)
    if any("\udc80" <= ch <= "\udcff" for ch in text):
        return decode_bytes(text.encode("utf-8", "surrogateescape"), None)
    return text


def decode_header_value(value: str) -> str:
    """Unfold a header and decode its RFC 2047 encoded words, whatever their charset."""
    text = _LINE_BREAKS.sub("", _FOLD.sub("", value)).strip()
    if "=?" not in text:
        return text
    text = _BETWEEN_WORDS.sub("", text)  # white space between two encoded words is not text
    return _ENCODED_WORD.sub(_decode_word, text)


def _decode_word(found: re.Match[str]) -> str:
    charset, encoding, payload = found.groups()
    charset = charset.split("*", 1)[0]  # RFC 2231 language suffix
    try:
        if encoding in "bB":
            data = binascii.a2b_base64((payload + "===")[: len(payload) + (-len(payload) % 4)])
        else:
            data = _QP_HEX.sub(lambda m: bytes([int(m.group(1), 16)]), payload.replace("_", " ").encode("ascii", "replace"))
    except (binascii.Error, ValueError):
        return found.group(0)
    return _LINE_BREAKS.sub("", decode_bytes(data, charset))


def _address_pairs(values: list[str]) -> list[tuple[str, str]]:
    unfolded = [_LINE_BREAKS.sub("", _FOLD.sub("", v)) for v in values]
    try:
        pairs = email.utils.getaddresses(unfolded)
    except Exception:
        pairs = []
    found = [(name, addr.strip().strip("<>").lower()) for name, addr in pairs if "@" in addr]
    if not found:  # a header too broken for the parser: take whatever looks like an address
        found = [("", m.group(0).lower()) for v in unfolded for m in _ADDRESS.finditer(v)]
    return found


def _addresses(values: list[str]) -> list[str]:
    return [addr for _, addr in _address_pairs(values)]


def _first_address(values: list[str]) -> tuple[str, str]:
    pairs = _address_pairs(values)
    if not pairs:
        return "", ""
    name, addr = pairs[0]
    return addr, decode_header_value(name).strip().strip('"').strip()


def _first_id(value: str | None) -> str | None:
    ids = _ids(value)
    return ids[0] if ids else None


def _ids(value: str | None) -> list[str]:
    """Message ids without brackets, in order, each once. Ids without brackets are taken
    word by word (some clients write them so)."""
    if not value:
        return []
    text = decode_header_value(value)
    found = _MSG_ID.findall(text) or [word.strip("<>,;") for word in text.split()]
    return list(dict.fromkeys(i for i in found if i))


def _synthetic_id(raw: bytes) -> str:
    """A stable id for a mail that has none, so the same bytes are recognised again."""
    return f"{hashlib.sha256(raw).hexdigest()}@{SYNTHETIC_ID_DOMAIN}"


def _date(value: str | None) -> datetime | None:
    """The Date header as an aware datetime (UTC when the zone is unknown), or ``None``."""
    if not value:
        return None
    try:
        when = email.utils.parsedate_to_datetime(decode_header_value(value))
    except Exception:
        return None
    if when is None:
        return None
    return when if when.tzinfo else when.replace(tzinfo=timezone.utc)


# --------------------------------------------------------------------------- body


def _body(msg: Message) -> tuple[str, bool]:
    """The text of the mail and whether any of it came from HTML. Attachments, forwarded
    ``message/rfc822`` parts and files are not the author's text."""
    try:
        pieces = _texts(msg, depth=0)
    except Exception:
        pieces = []
    text = "\n".join(piece for piece, _ in pieces if piece.strip())
    return text.replace("\x00", ""), any(is_html for piece, is_html in pieces if piece.strip())


MAX_DEPTH = 20  # nesting of multiparts that a real client never reaches


def _texts(part: Message, depth: int) -> list[tuple[str, bool]]:
    ctype = _content_type(part)
    maintype = ctype.split("/", 1)[0]
    if maintype == "message" or depth > MAX_DEPTH:
        return []
    if part.is_multipart():
        children = [c for c in part.get_payload() if isinstance(c, Message)]
        if ctype == "multipart/alternative":
            return _best_alternative([_texts(c, depth + 1) for c in children])
        return [piece for child in children for piece in _texts(child, depth + 1)]
    if _is_attachment(part):
        return []
    if ctype == "text/html":
        return [(html_to_text(_decoded(part)), True)]
    if ctype == "text/plain" or maintype == "multipart":  # a multipart whose boundary is missing
        text = _decoded(part)
        if _param(part, "format").lower() == "flowed":
            text = unflow(text, delsp=_param(part, "delsp").lower() == "yes")
        return [(text, False)]
    return []


def _best_alternative(choices: list[list[tuple[str, bool]]]) -> list[tuple[str, bool]]:
    """Plain text when an alternative has some, else the first with any text (HTML)."""
    with_text = [c for c in choices if any(piece.strip() for piece, _ in c)]
    for choice in with_text:
        if not any(is_html for _, is_html in choice):
            return choice
    return with_text[0] if with_text else []


def _decoded(part: Message) -> str:
    try:
        data = part.get_payload(decode=True)
    except Exception:
        data = None
    if not isinstance(data, bytes):
        payload = part.get_payload()
        data = payload.encode("utf-8", "surrogateescape") if isinstance(payload, str) else b""
    try:
        charset = part.get_content_charset()
    except Exception:
        charset = None
    text = decode_bytes(data, charset)
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _content_type(part: Message) -> str:
    try:
        return part.get_content_type()
    except Exception:
        return "text/plain"


def _is_attachment(part: Message) -> bool:
    try:
        if part.get_content_disposition() == "attachment":
            return True
        return bool(part.get_filename())
    except Exception:
        return False


def _param(part: Message, name: str) -> str:
    try:
        value = part.get_param(name)
    except Exception:
        return ""
    if isinstance(value, tuple):  # RFC 2231 (charset, language, value)
        value = value[2]
    return str(value or "")
