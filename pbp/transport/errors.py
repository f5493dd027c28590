"""Errors of the mail transports (IMAP, SMTP, Maildir).

Each error names the server (``host``, ``port``) and carries a ``hint`` that tells the
operator what to fix; ``temporary`` says whether trying again later may help (the daemon
retries those and alerts on the rest). Like aiosmtplib's errors, each one also subclasses
the stdlib type it resembles, so generic handlers (``except ConnectionError``) still work::

    PbpError
    └── TransportError                       host, port, hint, temporary
        ├── ConnectFailed  (ConnectionError) cannot reach the server, or the connection dropped
        │   └── TransportTimeout (TimeoutError)  the server did not answer in time
        ├── TlsFailed      (ConnectionError) certificate not trusted, wrong name, no STARTTLS
        ├── AuthFailed     (PermissionError) the server refused the username / password
        ├── MailboxMissing (LookupError)     the IMAP folder does not exist
        └── SmtpRejected                     the SMTP server answered 4xx/5xx: code, message,
                                             permanent (5xx), stage, recipients
"""
from __future__ import annotations

import socket
import ssl

from pbp.errors import PbpError

#: How long :func:`silent_server_hint` waits for a TLS handshake on a silent port.
TLS_PROBE_SECONDS = 1.0


class TransportError(PbpError):
    """A mail server (or the Maildir folder) could not do what the daemon asked."""

    temporary: bool = False

    def __init__(
        self,
        message: str,
        *,
        host: str | None = None,
        port: int | None = None,
        hint: str = "",
        temporary: bool | None = None,
    ) -> None:
        super().__init__(message, hint=hint)
        self.host = host
        self.port = port
        if temporary is not None:
            self.temporary = temporary

    @property
    def server(self) -> str:
        """``host:port`` for log lines, or "" when unknown."""
        if self.host is None:
            return ""
        return f"{self.host}:{self.port}" if self.port is not None else self.host

    def __str__(self) -> str:
        return f"{self.message} ({self.server})" if self.server else self.message


class ConnectFailed(TransportError, ConnectionError):
    """The server could not be reached, or the connection broke during a command."""

    temporary = True
    hint = "check the host name and port, and that the server is up and reachable from here"


class TransportTimeout(ConnectFailed, TimeoutError):
    """The server did not answer within the configured timeout."""

    hint = "the server is slow or unreachable; check the host and port, or raise the timeout"


class TlsFailed(TransportError, ConnectionError):
    """The TLS handshake failed: untrusted certificate, wrong host name, or no STARTTLS."""

    hint = (
        "check that security matches the port (tls: 993/465, starttls: 143/587), that the host "
        "name is the one on the server's certificate, and set ca_file to the CA that signed it "
        "when the certificate is self-signed or from a private CA"
    )


class AuthFailed(TransportError, PermissionError):
    """The server refused the login."""

    hint = (
        "check the username and the app password in PBP_IMAP_PASSWORD (or the password file); "
        "providers with 2-step verification (Gmail, Outlook, iCloud, Fastmail) need an app "
        "password, not the account password"
    )


class MailboxMissing(TransportError, LookupError):
    """The configured IMAP folder does not exist. ``mailbox`` names it, ``existing`` lists others."""

    def __init__(self, message: str, *, mailbox: str, existing: list[str] | None = None, **kwargs) -> None:
        kwargs.setdefault(
            "hint",
            f"create the folder {mailbox!r} in your mail client or set mailbox to one of: "
            + ", ".join(existing or ["INBOX"]),
        )
        super().__init__(message, **kwargs)
        self.mailbox = mailbox
        self.existing = list(existing or [])


class SmtpRejected(TransportError):
    """The SMTP server answered with an error code.

    ``code`` and ``message`` are the server's (as in aiosmtplib's ``SMTPResponseException``);
    ``permanent`` is true for 5xx (do not retry; tell the GM) and false for 4xx (retry later);
    ``stage`` is the command refused ("MAIL", "RCPT", "DATA"); ``recipients`` maps each
    refused recipient to its (code, message).
    """

    def __init__(
        self,
        code: int,
        message: str,
        *,
        permanent: bool | None = None,
        stage: str = "",
        recipients: dict[str, tuple[int, str]] | None = None,
        **kwargs,
    ) -> None:
        permanent = code >= 500 if permanent is None else permanent
        kwargs.setdefault(
            "hint",
            "the server refused this message for good; check the recipients and that the "
            "account may send as this sender"
            if permanent
            else "the server asked to try again later",
        )
        super().__init__(message, temporary=not permanent, **kwargs)
        self.code = code
        self.permanent = permanent
        self.stage = stage
        self.recipients = dict(recipients or {})

    def __str__(self) -> str:
        stage = f"{self.stage} " if self.stage else ""
        where = f" ({self.server})" if self.server else ""
        return f"SMTP {stage}refused: {self.code} {self.message}{where}"


def speaks_tls(host: str, port: int, timeout: float = TLS_PROBE_SECONDS) -> bool:
    """Whether the server on ``host:port`` answers a TLS handshake (a port that expects TLS
    from the first byte, e.g. 465 or 993); False for a server that says nothing at all."""
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    try:
        with socket.create_connection((host, port), timeout=timeout) as raw:
            with context.wrap_socket(raw, server_hostname=host):
                return True
    except ssl.SSLError as exc:  # a TLS alert is TLS too; plain text in answer is not
        return getattr(exc, "reason", "") not in ("WRONG_VERSION_NUMBER", "UNKNOWN_PROTOCOL", "RECORD_LAYER_FAILURE")
    except (OSError, ValueError):   # timed out, refused, reset: not a TLS port
        return False


def silent_server_hint(protocol: str, host: str, port: int, security: str, tls_port: int) -> str:
    """The hint for a server that sent no greeting within the timeout: the TLS one only
    when the port answers a TLS handshake; else the server is hung or overloaded."""
    if security != "tls" and speaks_tls(host, port):
        return (f'this port expects TLS from the first byte (usually {tls_port}): use security = "tls"')
    return (f"the {protocol} server accepted the connection but sent no greeting: it is hung or "
            "overloaded; check it (pbp keeps trying)")
