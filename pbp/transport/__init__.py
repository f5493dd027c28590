"""Mail transports: where posts come from and how replies leave.

``base`` holds the two seams the daemon uses (``Inbox``, ``Sender``) and the value types
that cross them; ``imap`` + ``smtp`` talk to a real mail account, ``maildir`` is the offline
demo. ``errors`` draws the error hierarchy; ``settings`` validates connection settings;
``secrets.resolve_secret`` reads passwords from the environment or a file.
"""
from __future__ import annotations

from .base import FetchResult, InboundMessage, Inbox, OutboundMessage, OutboxTransport, SendReceipt, Sender
from .errors import (
    AuthFailed,
    ConnectFailed,
    MailboxMissing,
    SmtpRejected,
    TlsFailed,
    TransportError,
    TransportTimeout,
)
from .secrets import resolve_secret
from .settings import ImapSettings, SmtpSettings

_LAZY = {
    "ImapInbox": ".imap",
    "SmtpSender": ".smtp",
    "MaildirInbox": ".maildir",
    "MaildirSender": ".maildir",
}

__all__ = [
    "AuthFailed", "ConnectFailed", "FetchResult", "ImapInbox", "ImapSettings", "InboundMessage",
    "Inbox", "MailboxMissing", "MaildirInbox", "MaildirSender", "OutboundMessage",
    "OutboxTransport", "SendReceipt", "Sender", "SmtpRejected", "SmtpSender", "SmtpSettings",
    "TlsFailed", "TransportError", "TransportTimeout", "resolve_secret",
]


def __getattr__(name: str):
    """Import the protocol clients only when asked for (``pbp process`` needs neither)."""
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
