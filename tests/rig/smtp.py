"""A real SMTP server on loopback (aiosmtpd) that records what it receives.

Optional STARTTLS (with the rig's certificate) and AUTH (one user/password; required when
configured), refusal rules per recipient pattern to provoke 4xx/5xx answers, and an optional
hand-off to Dovecot over LMTP so that "send -> lands in the IMAP inbox" runs for real.
"""
from __future__ import annotations

import asyncio
import fnmatch
import logging
import smtplib
import ssl
import threading
from dataclasses import dataclass, field

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword

from .net import LOOPBACK, free_ports
from .tls import TlsFiles


class _QuietLoginData(logging.Filter):
    """aiosmtpd 1.4 sets its own deprecated ``Session.login_data`` on every AUTH and warns."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "login_data is deprecated" not in record.getMessage()


logging.getLogger("mail.log").addFilter(_QuietLoginData())


@dataclass(frozen=True)
class Received:
    """One message as the server got it: the envelope, the bytes and how the session was."""

    mail_from: str
    rcpt_tos: tuple[str, ...]
    raw: bytes = field(repr=False)
    mail_options: tuple[str, ...] = ()
    tls: bool = False
    login: str | None = None
    peer: tuple | None = None  # the client's (host, port): same port, same connection


class RecordingHandler:
    """aiosmtpd handler: refuses recipients matching a rule, keeps everything else."""

    def __init__(self, lmtp: tuple[str, int] | None = None) -> None:
        self.received: list[Received] = []
        self.refusals: dict[str, str] = {}
        self.lmtp = lmtp
        self._lock = threading.Lock()
        self._count = 0

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        for pattern, reply in self.refusals.items():
            if fnmatch.fnmatch(address.lower(), pattern.lower()):
                return reply
        envelope.rcpt_tos.append(address)
        return "250 2.1.5 OK"

    async def handle_DATA(self, server, session, envelope):
        if self.lmtp is not None:
            try:
                await asyncio.to_thread(self._deliver, envelope.mail_from, list(envelope.rcpt_tos), envelope.content)
            except (OSError, smtplib.SMTPException) as exc:
                return f"451 4.3.0 local delivery failed: {exc}"
        login = session.auth_data.login.decode() if isinstance(session.auth_data, LoginPassword) else None
        with self._lock:
            self._count += 1
            self.received.append(
                Received(
                    mail_from=envelope.mail_from,
                    rcpt_tos=tuple(envelope.rcpt_tos),
                    raw=envelope.original_content or envelope.content,
                    mail_options=tuple(envelope.mail_options),
                    tls=server.transport.get_extra_info("ssl_object") is not None,
                    login=login,
                    peer=tuple(session.peer) if session.peer else None,
                )
            )
            return f"250 2.0.0 Ok: queued as RIG{self._count}"

    def _deliver(self, sender: str, recipients: list[str], raw: bytes) -> None:
        with smtplib.LMTP(*self.lmtp) as lmtp:
            lmtp.sendmail(sender, recipients, raw)


class SmtpServer:
    """aiosmtpd ``Controller`` on 127.0.0.1 and a free port.

    ``tls``: offer STARTTLS with this certificate (``require_tls`` to insist on it), or
    with ``implicit_tls`` speak TLS from the first byte (as on port 465).
    ``auth``: (user, password) that AUTH accepts; AUTH is then required before MAIL.
    ``lmtp``: (host, port) of an LMTP server to pass accepted mail on to.
    """

    def __init__(
        self,
        *,
        tls: TlsFiles | None = None,
        require_tls: bool = False,
        implicit_tls: bool = False,
        auth: tuple[str, str] | None = None,
        lmtp: tuple[str, int] | None = None,
    ) -> None:
        self.host = LOOPBACK
        self.port = free_ports(1)[0]
        self.tls = tls
        self.auth = auth
        self.handler = RecordingHandler(lmtp)
        kwargs: dict = {}
        if tls is not None:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(str(tls.cert), str(tls.key))
            if implicit_tls:
                kwargs.update(ssl_context=context)
            else:
                kwargs.update(tls_context=context, require_starttls=require_tls)
        if auth is not None:
            kwargs.update(
                authenticator=self._authenticate,
                auth_required=True,
                auth_require_tls=tls is not None,
            )
        self.controller = Controller(
            self.handler, hostname=self.host, port=self.port, server_hostname="localhost", **kwargs
        )

    def _authenticate(self, server, session, envelope, mechanism, auth_data) -> AuthResult:
        ok = (
            isinstance(auth_data, LoginPassword)
            and (auth_data.login.decode(), auth_data.password.decode()) == self.auth
        )
        return AuthResult(success=ok, handled=False, auth_data=auth_data if ok else None)

    # ---- lifecycle -----------------------------------------------------------------------

    def start(self) -> "SmtpServer":
        self.controller.start()
        return self

    def stop(self) -> None:
        self.controller.stop()

    def __enter__(self) -> "SmtpServer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    # ---- what arrived, and how to answer -------------------------------------------------

    @property
    def received(self) -> list[Received]:
        return list(self.handler.received)

    def refuse(self, pattern: str, reply: str = "550 5.1.1 No such user here") -> None:
        """Answer RCPT TO addresses matching the glob ``pattern`` with ``reply``."""
        self.handler.refusals[pattern] = reply

    def clear(self) -> None:
        """Forget received mail and refusal rules (between tests)."""
        self.handler.received.clear()
        self.handler.refusals.clear()
