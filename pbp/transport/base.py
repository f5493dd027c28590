"""The seams between the daemon and a mail transport.

The daemon talks to an :class:`Inbox` (where posts arrive) and a :class:`Sender` (how
replies leave). IMAP + SMTP (``imap.py``, ``smtp.py``) and the offline Maildir demo
(``maildir.py``) implement the same two protocols, so the daemon never asks which it has.
Tests swap the clock and the dice, never these: the transports are tested against real
servers.
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from email.message import EmailMessage
from email.policy import SMTP as SMTP_POLICY
from typing import Protocol, runtime_checkable

from pbp.errors import ConfigError

from .errors import TransportError


@dataclass(frozen=True)
class InboundMessage:
    """One message as fetched: where it is (``mailbox``, ``uidvalidity``, ``uid``) and its bytes.

    ``(mailbox, uidvalidity, uid)`` identifies the message for good: the daemon records it
    before anything else so that a message is never processed twice. ``size`` is set when
    the message was over ``fetch_new``'s ``max_bytes``: ``raw`` then holds only its header
    block (enough to route it and answer its author) and ``size`` the whole message's bytes.
    """

    mailbox: str
    uidvalidity: int
    uid: int
    raw: bytes = field(repr=False)
    size: int | None = None

    @property
    def key(self) -> tuple[str, int, int]:
        return (self.mailbox, self.uidvalidity, self.uid)


@dataclass(frozen=True)
class FetchResult:
    """What ``fetch_new`` found.

    ``messages`` are in UID order. ``uidvalidity`` is the mailbox's current one: store it
    with ``last_uid``. ``uidvalidity_changed`` is true when the caller's stored UIDVALIDITY
    no longer matches (the mailbox was recreated; UIDs restarted), in which case the fetch
    started again from UID 1 and ``previous_uidvalidity`` is the stale value. ``more`` is
    true when a ``limit`` left messages for the next call.
    """

    uidvalidity: int
    messages: list[InboundMessage]
    uidvalidity_changed: bool = False
    previous_uidvalidity: int | None = None
    more: bool = False

    @property
    def last_uid(self) -> int | None:
        """Highest UID fetched, or None when nothing was."""
        return self.messages[-1].uid if self.messages else None

    def __iter__(self) -> Iterator[InboundMessage]:
        return iter(self.messages)

    def __len__(self) -> int:
        return len(self.messages)


@dataclass(frozen=True)
class OutboundMessage:
    """One prepared message and its envelope (who the server should say it is from / deliver to)."""

    raw: bytes | EmailMessage = field(repr=False)
    sender: str
    recipients: Sequence[str]


@dataclass(frozen=True)
class SendReceipt:
    """The server's answer to a sent message.

    ``code``/``message`` are the final reply to DATA (e.g. ``250``, ``"2.0.0 Ok: queued as
    4F2..."``). ``refused`` maps recipients the server refused while accepting the others
    to their (code, message): the message went out, but not to them.
    """

    code: int
    message: str
    sender: str
    recipients: tuple[str, ...]
    refused: dict[str, tuple[int, str]] = field(default_factory=dict)

    @property
    def accepted(self) -> tuple[str, ...]:
        return tuple(r for r in self.recipients if r not in self.refused)


@runtime_checkable
class Inbox(Protocol):
    """Where posts arrive. ``mailbox`` names it in the form stored with each message."""

    mailbox: str

    @property
    def label(self) -> str:
        """The mailbox as log lines name it, e.g. "INBOX of table@example.org on imap.example.org:993"."""

    @property
    def supports_idle(self) -> bool:
        """True when ``idle_wait`` is pushed by the server; False when it polls."""

    def fetch_new(
        self, last_uid: int = 0, uidvalidity: int | None = None, *, limit: int | None = None,
        max_bytes: int | None = None,
    ) -> FetchResult:
        """Messages with a UID above ``last_uid``, read without marking them seen; one over
        ``max_bytes`` comes as its headers only (see :class:`InboundMessage`)."""

    def mark_handled(self, uids: Iterable[int], action: str = "seen") -> None:
        """Mark processed messages: ``"seen"``, ``"move:Folder"`` or ``"none"``."""

    def idle_wait(self, timeout: float) -> bool:
        """Block up to ``timeout`` seconds; True as soon as new mail is signalled."""

    def close(self) -> None:
        """Release the connection; safe to call twice."""


@runtime_checkable
class Sender(Protocol):
    """How replies leave: one prepared message and its envelope at a time, or a batch."""

    async def send(
        self, raw: bytes | EmailMessage, sender: str, recipients: Sequence[str]
    ) -> SendReceipt:
        """Send one message; raise a ``TransportError`` if the server does not take it."""

    async def send_many(
        self, messages: Iterable[OutboundMessage]
    ) -> list[SendReceipt | TransportError]:
        """Send each message over one connection; each fails alone (its error in its place)."""

    async def close(self) -> None:
        """Release the connection, if one is open."""


#: Alias for readers who think of it as the outbox's transport.
OutboxTransport = Sender


def parse_action(action: str) -> tuple[str, str | None]:
    """Split a handled-action setting into (kind, folder): ("seen", None), ("move", "Done")..."""
    text = (action or "").strip()
    if text in ("seen", "none"):
        return text, None
    if text.startswith("move:") and text[5:].strip():
        return "move", text[5:].strip()
    raise ConfigError(
        f"unknown action for handled mail: {action!r}",
        hint='use "seen", "none" or "move:FOLDER" (e.g. "move:pbp-done")',
    )


def message_bytes(raw: bytes | EmailMessage) -> bytes:
    """The wire form of a message: bytes as given, an EmailMessage with CRLF line ends."""
    if isinstance(raw, (bytes, bytearray, memoryview)):
        return bytes(raw)
    if isinstance(raw, EmailMessage):
        return raw.as_bytes(policy=SMTP_POLICY)
    raise TypeError(f"a message must be bytes or an EmailMessage, not {type(raw).__name__}")
