"""Submitting replies over SMTP (aiosmtplib).

``SmtpSender`` speaks the transaction itself (MAIL, RCPT per recipient, DATA) so that the
receipt keeps the server's final code and text, and a refusal says which command and which
recipients. One connection serves a batch: ``async with SmtpSender(settings) as s`` or
``send_many``; a lone ``send`` outside a session connects, sends and quits.

Every failure leaves as a :mod:`pbp.transport.errors` error: ``SmtpRejected`` (code,
message, permanent for 5xx) when the server said no, ``AuthFailed``/``TlsFailed``/
``ConnectFailed`` when the session itself could not be set up.
"""
from __future__ import annotations

import asyncio
import logging
import re
import ssl
from collections.abc import Iterable, Sequence
from contextlib import contextmanager
from email.message import EmailMessage

import aiosmtplib

from pbp import faults

from .base import OutboundMessage, SendReceipt, message_bytes
from .errors import (
    AuthFailed,
    ConnectFailed,
    SmtpRejected,
    TlsFailed,
    TransportError,
    TransportTimeout,
    silent_server_hint,
)
from .settings import SmtpSettings

__all__ = ["SmtpSender", "SmtpSettings"]

from .oauth import OAuthError, xoauth2

log = logging.getLogger(__name__)

_LINE_ENDS = re.compile(rb"\r\n|\r|\n")
#: Errors after which this connection is of no further use (OAuthError: no access token to log in with).
_SESSION_ERRORS = (ConnectFailed, TlsFailed, AuthFailed, OAuthError)


class SmtpSender:
    """Sends prepared messages through one SMTP submission server."""

    def __init__(self, settings: SmtpSettings) -> None:
        self.settings = settings
        self._smtp: aiosmtplib.SMTP | None = None
        self._session = False
        self._lock = asyncio.Lock()

    # ---- session -------------------------------------------------------------------------

    async def connect(self) -> None:
        """Open a session (TLS, STARTTLS and AUTH as configured) kept for the following sends."""
        await self._open()
        self._session = True

    async def close(self) -> None:
        """QUIT politely, or drop the connection if the server is already gone."""
        smtp, self._smtp = self._smtp, None
        self._session = False
        if smtp is None:
            return
        try:
            if smtp.is_connected:
                await smtp.quit()
        except (aiosmtplib.SMTPException, OSError):
            smtp.close()

    async def __aenter__(self) -> "SmtpSender":
        await self.connect()
        return self

    async def __aexit__(self, *exc) -> None:
        await self.close()

    @property
    def connected(self) -> bool:
        return self._smtp is not None and self._smtp.is_connected

    async def _open(self) -> aiosmtplib.SMTP:
        if self.connected:
            return self._smtp
        s = self.settings
        context = s.ssl_context() if s.security != "plain" else None
        smtp = aiosmtplib.SMTP(
            hostname=s.host,
            port=s.port,
            use_tls=s.security == "tls",
            start_tls=False,
            tls_context=context,
            timeout=s.timeout,
            local_hostname=s.local_hostname,
        )
        try:
            with self._errors("connect"):
                await smtp.connect()
            if s.security == "starttls":
                with self._errors("STARTTLS"):
                    await smtp.starttls()
            with self._errors("EHLO"):  # now, so that MAIL's options can use the extensions
                await self._hello(smtp)
            if s.auth == "oauth2":
                await self._xoauth2(smtp)
            elif s.username:
                with self._errors("AUTH"):
                    await smtp.login(s.username, s.password or "")
        except BaseException:
            smtp.close()
            raise
        self._smtp = smtp
        return smtp

    async def _xoauth2(self, smtp: aiosmtplib.SMTP) -> None:
        """AUTH XOAUTH2 (the SASL mechanism Microsoft's and Google's servers take) with an
        access token from the token source, refreshed there when it is old; a refusal is
        the server's JSON challenge, answered with an empty line (as the mechanism asks)."""
        user, tokens = self.settings.username, self.settings.tokens
        token = await asyncio.to_thread(tokens.access_token)
        with self._errors("AUTH"):
            response = await smtp.execute_command(b"AUTH", b"XOAUTH2", xoauth2(user, token).encode("ascii"))
            if response.code == 334:   # the error challenge: end the exchange to get the final reply
                response = await smtp.execute_command(b"")
            if response.code != 235:
                tokens.forget()        # the next try asks the provider for a new access token
                raise aiosmtplib.SMTPAuthenticationError(response.code, response.message)

    async def _hello(self, smtp: aiosmtplib.SMTP) -> None:
        if not smtp.is_ehlo_or_helo_needed:
            return
        try:
            await smtp.ehlo()
        except aiosmtplib.SMTPHeloError:
            await smtp.helo()  # a very old server: no extensions

    # ---- sending -------------------------------------------------------------------------

    async def send(
        self, raw: bytes | EmailMessage, sender: str, recipients: Sequence[str]
    ) -> SendReceipt:
        """Send one message to ``recipients`` with envelope sender ``sender``.

        Returns the receipt (DATA's code and text, recipients refused while others were
        accepted). Raises ``SmtpRejected`` when the server refuses the message (every
        recipient, the sender or the data), or AuthFailed/TlsFailed/ConnectFailed.
        """
        async with self._lock:
            if self._session:
                return await self._send_one(message_bytes(raw), sender, list(recipients))
            try:
                return await self._send_one(message_bytes(raw), sender, list(recipients))
            finally:
                await self.close()

    async def send_many(self, messages: Iterable[OutboundMessage]) -> list[SendReceipt | TransportError]:
        """Send each message over one connection; return a receipt or the error for each, in order.

        Never raises a ``TransportError``: a refused message does not stop the batch, and if
        the session cannot be set up (server gone, login refused) every message not yet sent
        gets that error (after one reconnection attempt when it broke mid-batch).
        """
        messages = list(messages)
        results: list[SendReceipt | TransportError] = []
        async with self._lock:
            opened_here = not self._session
            try:
                try:
                    await self._open()
                except _SESSION_ERRORS as exc:
                    return [exc] * len(messages)
                for index, item in enumerate(messages):
                    try:
                        results.append(
                            await self._send_one(message_bytes(item.raw), item.sender, list(item.recipients))
                        )
                    except _SESSION_ERRORS as exc:
                        results.append(exc)
                        if not self.connected and not await self._reconnects():
                            results.extend([exc] * (len(messages) - index - 1))
                            break
                    except TransportError as exc:
                        results.append(exc)
            finally:
                if opened_here:
                    await self.close()
        return results

    async def _reconnects(self) -> bool:
        try:
            await self._open()
            return True
        except (TransportError, OAuthError) as exc:
            log.warning("smtp: cannot reconnect to %s: %s", self.settings.address, exc)
            return False

    async def _send_one(self, data: bytes, sender: str, recipients: list[str]) -> SendReceipt:
        if not recipients:
            raise ValueError("a message needs at least one recipient")
        reused = self.connected
        smtp = await self._open()
        try:
            return await self._transaction(smtp, data, sender, recipients)
        except ConnectFailed as exc:
            if not (reused and getattr(exc, "stage", "") == "MAIL"):
                raise
            # The server closed an idle session before we wrote anything: safe to redo.
            log.info("smtp: session to %s was closed; reconnecting", self.settings.address)
            self._drop()
            smtp = await self._open()
            return await self._transaction(smtp, data, sender, recipients)

    def _drop(self) -> None:
        """Drop the connection but stay in the session (the next send reconnects)."""
        if self._smtp is not None:
            self._smtp.close()
            self._smtp = None

    async def _transaction(
        self, smtp: aiosmtplib.SMTP, data: bytes, sender: str, recipients: list[str]
    ) -> SendReceipt:
        options, encoding = self._mail_options(smtp, data, sender, recipients)
        refused: dict[str, tuple[int, str]] = {}
        try:
            with self._errors("MAIL"):
                await smtp.mail(sender, options=options, encoding=encoding)
            for recipient in recipients:
                try:
                    with self._errors("RCPT"):
                        await smtp.rcpt(recipient, encoding=encoding)
                except SmtpRejected as exc:
                    refused[recipient] = (exc.code, exc.message)
            if len(refused) == len(recipients):
                raise self._all_refused(refused)
            faults.reached("mid_send")
            with self._errors("DATA"):
                response = await smtp.data(data)
        except SmtpRejected:
            await self._reset(smtp)
            raise
        if refused:
            log.warning("smtp: %s refused %s", self.settings.address, refused)
        return SendReceipt(response.code, response.message, sender, tuple(recipients), refused)

    def _mail_options(
        self, smtp: aiosmtplib.SMTP, data: bytes, sender: str, recipients: list[str]
    ) -> tuple[list[str], str]:
        options: list[str] = []
        if smtp.supports_extension("size"):
            size = len(_LINE_ENDS.sub(b"\r\n", data))
            options.append(f"SIZE={size}")
        if not data.isascii() and smtp.supports_extension("8bitmime"):
            options.append("BODY=8BITMIME")
        if all(address.isascii() for address in [sender, *recipients]):
            return options, "ascii"
        if not smtp.supports_extension("smtputf8"):
            raise self._error(
                SmtpRejected, 555, "the server does not accept non-ASCII addresses (no SMTPUTF8)",
                stage="MAIL",
            )
        return [*options, "SMTPUTF8"], "utf-8"

    def _all_refused(self, refused: dict[str, tuple[int, str]]) -> SmtpRejected:
        codes = [code for code, _ in refused.values()]
        code, message = next(
            (item for item in refused.values() if item[0] < 500), next(iter(refused.values()))
        )
        return self._error(
            SmtpRejected, code, message, permanent=min(codes) >= 500, stage="RCPT", recipients=refused
        )

    async def _reset(self, smtp: aiosmtplib.SMTP) -> None:
        """RSET after a refusal so the session can carry the next message."""
        try:
            await smtp.rset()
        except (aiosmtplib.SMTPException, OSError):
            smtp.close()

    # ---- errors --------------------------------------------------------------------------

    def _error(self, cls: type[TransportError], *args, **kwargs) -> TransportError:
        return cls(*args, host=self.settings.host, port=self.settings.port, **kwargs)

    @contextmanager
    def _errors(self, stage: str):
        """Translate aiosmtplib, ssl and socket errors into transport errors."""
        try:
            yield
        except TransportError:
            raise
        except aiosmtplib.SMTPAuthenticationError as exc:
            if self.settings.auth == "oauth2":
                raise self._error(
                    AuthFailed, f"smtp login by OAuth 2.0 (XOAUTH2) refused for {self.settings.username}: "
                    f"{exc.code} {exc.message}",
                    hint="pbp asks for a new access token at the next try; if it is refused again, check that "
                    "the app registration grants SMTP (SMTP.Send for Microsoft; docs/oauth.md) and that "
                    "authenticated SMTP is on for the mailbox",
                ) from exc
            raise self._error(
                AuthFailed, f"smtp login failed for {self.settings.username}: {exc.code} {exc.message}",
                hint=f"check the username ({self.settings.username}) and the app password in "
                f"{SmtpSettings.PASSWORD_ENV} (or the password file); providers with 2-step "
                "verification need an app password",
            ) from exc
        except aiosmtplib.SMTPTimeoutError as exc:
            hint = TransportTimeout.hint
            if stage == "connect":
                hint = silent_server_hint("SMTP", self.settings.host, self.settings.port, self.settings.security, 465)
            raise self._error(TransportTimeout, f"smtp {stage}: {exc}", hint=hint) from exc
        except aiosmtplib.SMTPConnectResponseError as exc:
            raise self._error(SmtpRejected, exc.code, exc.message, stage="CONNECT") from exc
        except aiosmtplib.SMTPResponseException as exc:  # sender, recipient or data refused
            raise self._error(SmtpRejected, exc.code, exc.message, stage=stage) from exc
        except (aiosmtplib.SMTPServerDisconnected, aiosmtplib.SMTPConnectError) as exc:
            tls = _ssl_cause(exc)
            if tls is not None and not _lost_after_handshake(stage, tls):
                raise self._tls_error(stage, tls) from exc
            error = self._error(ConnectFailed, f"smtp {stage}: {exc}")
            error.stage = stage
            raise error from exc
        except ssl.SSLError as exc:
            if _lost_after_handshake(stage, exc):
                error = self._error(ConnectFailed, f"smtp {stage}: connection lost ({exc.reason or exc})")
                error.stage = stage
                raise error from exc
            raise self._tls_error(stage, exc) from exc
        except aiosmtplib.SMTPNotSupported as exc:
            raise self._error(TransportError, f"smtp {stage}: {exc}") from exc
        except aiosmtplib.SMTPException as exc:
            text = str(exc)
            if "STARTTLS" in text:
                raise self._error(
                    TlsFailed, f"smtp: {text}",
                    hint='use security = "tls" (usually port 465), or check this is the submission port',
                ) from exc
            if "AUTH" in text:
                raise self._error(
                    AuthFailed, f"smtp: {text}",
                    hint='the server offers no AUTH on this connection: use security = "starttls" '
                    'or "tls", or leave username out if it needs no login',
                ) from exc
            raise self._error(TransportError, f"smtp {stage}: {text}") from exc
        except OSError as exc:
            error = self._error(ConnectFailed, f"smtp {stage}: {exc.strerror or exc}")
            error.stage = stage
            raise error from exc

    def _tls_error(self, stage: str, exc: ssl.SSLError) -> TlsFailed:
        if isinstance(exc, ssl.SSLCertVerificationError):
            text = f"the server's certificate was not accepted: {exc.verify_message}"
        else:
            text = f"TLS failed: {exc.reason or exc}"
        return self._error(TlsFailed, f"smtp {stage}: {text}")


def _lost_after_handshake(stage: str, exc: ssl.SSLError) -> bool:
    """TLS ending abruptly once the session runs is the server going away (a lost
    connection, tried again soon), not a TLS misconfiguration."""
    return isinstance(exc, (ssl.SSLEOFError, ssl.SSLZeroReturnError)) and stage.lower() not in ("connect", "starttls")


def _ssl_cause(exc: BaseException) -> ssl.SSLError | None:
    seen = 0
    while exc is not None and seen < 10:
        if isinstance(exc, ssl.SSLError):
            return exc
        exc = exc.__cause__ or exc.__context__
        seen += 1
    return None
