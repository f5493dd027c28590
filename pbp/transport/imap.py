"""Reading the table's mailbox over IMAP (imapclient), as a thin facade.

The daemon stores ``(uidvalidity, last_uid)`` per mailbox and asks for what came after:
``UID SEARCH UID last+1:*`` then ``BODY.PEEK[]`` in batches (one round trip per batch, and
PEEK so that reading never marks a post read). A new UIDVALIDITY means the mailbox was
recreated and old UIDs mean nothing: the fetch starts again from UID 1 and says so.

Every failure leaves as a :mod:`pbp.transport.errors` error with host, port and a hint.
One ``ImapInbox`` is one connection; use it from one thread.
"""
from __future__ import annotations

import imaplib
import logging
import socket
import ssl
import time
from collections import Counter
from collections.abc import Callable, Iterable
from contextlib import contextmanager
from typing import TypeVar

from imapclient import IMAPClient
from imapclient import exceptions as imap_errors

from .base import FetchResult, InboundMessage, parse_action
from .errors import (
    AuthFailed,
    ConnectFailed,
    MailboxMissing,
    TlsFailed,
    TransportError,
    TransportTimeout,
    silent_server_hint,
)
from .settings import ImapSettings

__all__ = ["ImapInbox", "ImapSettings"]

log = logging.getLogger(__name__)

T = TypeVar("T")

SEEN = b"\\Seen"
DELETED = b"\\Deleted"
#: RFC 2177: clients should re-issue IDLE at least every 29 minutes.
IDLE_RENEW_SECONDS = 25 * 60


class ImapInbox:
    """The table's IMAP mailbox. Connects lazily; ``close()`` logs out.

    >>> inbox = ImapInbox(settings)
    >>> result = inbox.fetch_new(last_uid=stored_uid, uidvalidity=stored_validity)
    >>> inbox.mark_handled([m.uid for m in result], "seen")
    >>> inbox.idle_wait(600)   # True when the server signals new mail
    """

    def __init__(self, settings: ImapSettings) -> None:
        self.settings = settings
        self._client: IMAPClient | None = None
        self._capabilities: frozenset[str] = frozenset()
        self._selected = False
        self._folders: set[str] = set()
        self._known_uid: int | None = None
        self._interrupted = False   # set by interrupt(): no reconnecting while the daemon stops
        self.connected_in: float | None = None
        #: IMAP commands issued, by name ("fetch", "search"...): lets tests pin round trips.
        self.commands: Counter[str] = Counter()

    # ---- identity and capabilities --------------------------------------------------------

    @property
    def mailbox(self) -> str:
        """Stable name stored with each message (no port: a port change is the same mailbox)."""
        s = self.settings
        return f"imap://{s.username}@{s.host}/{s.mailbox}"

    @property
    def label(self) -> str:
        """How log lines name the mailbox (``mailbox`` is a stored key, not for reading)."""
        s = self.settings
        return f"{s.mailbox} of {s.username} on {s.address}"

    @property
    def capabilities(self) -> frozenset[str]:
        """The server's post-login capabilities (connects if needed)."""
        self._ensure_connected()
        return self._capabilities

    @property
    def supports_idle(self) -> bool:
        return "IDLE" in self.capabilities

    @property
    def supports_move(self) -> bool:
        return "MOVE" in self.capabilities

    # ---- connection ----------------------------------------------------------------------

    def connect(self) -> None:
        """Open, secure and log in. Idempotent. Raises ConnectFailed/TlsFailed/AuthFailed."""
        if self._client is not None:
            return
        if self._interrupted:
            raise self._error(ConnectFailed, "not connecting: the daemon is stopping")
        s = self.settings
        began = time.monotonic()
        context = s.ssl_context() if s.security != "plain" else None
        with self._errors("connect"):
            client = IMAPClient(
                s.host, s.port, use_uid=True, ssl=s.security == "tls", ssl_context=context, timeout=s.timeout
            )
        try:
            if s.security == "starttls":
                self._starttls(client, context)
            if s.auth == "oauth2":
                token = s.tokens.access_token()   # refreshed first when it is about to expire
                with self._errors("login"):
                    client.oauth2_login(s.username, token)
            else:
                with self._errors("login"):
                    client.login(s.username, s.password)
            with self._errors("capability"):
                self._capabilities = frozenset(c.decode().upper() for c in client.capabilities())
        except BaseException:
            _shutdown(client)
            raise
        self._client = client
        self._selected = False
        self._folders = set()
        self.connected_in = time.monotonic() - began
        log.debug("imap: logged in to %s as %s in %.3fs", s.address, s.username, self.connected_in)

    def _starttls(self, client: IMAPClient, context: ssl.SSLContext) -> None:
        with self._errors("starttls"):
            offered = client.has_capability("STARTTLS")
        if not offered:
            raise self._error(
                TlsFailed,
                "the server does not offer STARTTLS",
                hint='use security = "tls" (usually port 993), or check that this is the IMAP port',
            )
        with self._errors("starttls"):
            client.starttls(context)

    def close(self) -> None:
        """Log out and drop the connection; safe to call at any time, twice."""
        client, self._client = self._client, None
        self._selected = False
        if client is None:
            return
        try:
            client.logout()
        except Exception:  # the connection may already be gone; nothing to tell anyone
            _shutdown(client)

    def interrupt(self) -> None:
        """Wake a blocked ``idle_wait`` from another thread (the daemon's SIGTERM handler):
        the socket is shut down, so the wait returns and the next call reconnects."""
        self._interrupted = True
        client = self._client
        if client is not None:
            try:
                client.socket().shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def __enter__(self) -> "ImapInbox":
        self.connect()
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _ensure_connected(self) -> IMAPClient:
        if self._client is None:
            self.connect()
        return self._client

    # ---- reading -------------------------------------------------------------------------

    def fetch_new(
        self, last_uid: int = 0, uidvalidity: int | None = None, *, limit: int | None = None,
        max_bytes: int | None = None,
    ) -> FetchResult:
        """Messages with a UID above ``last_uid``, in UID order, fetched with BODY.PEEK[].

        Pass the ``uidvalidity`` stored with ``last_uid``: if the mailbox's differs, its UIDs
        were reset, so everything is fetched again from UID 1 and the result says
        ``uidvalidity_changed``. ``limit`` caps how many messages come back (``more`` is then
        true). With ``max_bytes``, RFC822.SIZE is read first (one round trip for all) and a
        message over it is fetched as BODY.PEEK[HEADER] only, never loaded whole; its
        ``InboundMessage.size`` says how big it is. Nothing is marked: call ``mark_handled``
        once the messages are recorded.
        """
        return self._with_reconnect(lambda: self._fetch_new(last_uid, uidvalidity, limit, max_bytes))

    def _fetch_new(self, last_uid: int, uidvalidity: int | None, limit: int | None,
                   max_bytes: int | None = None) -> FetchResult:
        client = self._ensure_connected()
        current = self._select(client)[b"UIDVALIDITY"]
        changed = uidvalidity is not None and uidvalidity != current
        if changed:
            log.warning(
                "imap: UIDVALIDITY of %s changed from %s to %s; fetching it again from the start",
                self.mailbox, uidvalidity, current,
            )
        since = 0 if changed else max(0, int(last_uid or 0))
        with self._errors("search"):
            # "UID n:*" always matches the highest UID, even below n: filter it out.
            uids = sorted(uid for uid in client.search(["UID", f"{since + 1}:*"]) if uid > since)
        more = limit is not None and len(uids) > limit
        if more:
            uids = uids[:limit]
        oversized = self._oversized(client, uids, max_bytes) if max_bytes is not None else {}
        messages: list[InboundMessage] = []
        batch = self.settings.fetch_batch
        for start in range(0, len(uids), batch):
            chunk = uids[start:start + batch]
            whole = [uid for uid in chunk if uid not in oversized]
            heads = [uid for uid in chunk if uid in oversized]
            found: dict = {}
            if whole:
                with self._errors("fetch"):
                    found.update(client.fetch(whole, ["BODY.PEEK[]"]))
            if heads:
                with self._errors("fetch"):
                    found.update(client.fetch(heads, ["BODY.PEEK[HEADER]"]))
            for uid in chunk:
                if uid not in found:  # expunged in between: gone, nothing to do
                    continue
                if uid in oversized:
                    messages.append(InboundMessage(self.mailbox, current, uid, found[uid].get(b"BODY[HEADER]", b""),
                                                   size=oversized[uid]))
                else:
                    messages.append(InboundMessage(self.mailbox, current, uid, found[uid][b"BODY[]"]))
        self._known_uid = messages[-1].uid if messages else since
        return FetchResult(
            uidvalidity=current,
            messages=messages,
            uidvalidity_changed=changed,
            previous_uidvalidity=uidvalidity if changed else None,
            more=more,
        )

    def recent_headers(self, count: int = 20) -> list[bytes]:
        """The header blocks (``BODY.PEEK[HEADER]``) of the mailbox's newest ``count``
        messages, seen or not; nothing is marked: what ``pbp check-config`` reads."""
        return self._with_reconnect(lambda: self._recent_headers(count))

    def _recent_headers(self, count: int) -> list[bytes]:
        client = self._ensure_connected()
        self._select(client)
        with self._errors("search"):
            uids = sorted(client.search(["ALL"]))[-count:] if count > 0 else []
        if not uids:
            return []
        with self._errors("fetch"):
            found = client.fetch(uids, ["BODY.PEEK[HEADER]"])
        return [found[uid].get(b"BODY[HEADER]", b"") for uid in uids if uid in found]

    def _oversized(self, client: IMAPClient, uids: list[int], max_bytes: int) -> dict[int, int]:
        """``{uid: size}`` of the messages over ``max_bytes``, from one FETCH of RFC822.SIZE."""
        if not uids:
            return {}
        with self._errors("fetch-size"):
            sizes = client.fetch(uids, ["RFC822.SIZE"])
        return {uid: int(data[b"RFC822.SIZE"]) for uid, data in sizes.items()
                if int(data.get(b"RFC822.SIZE", 0)) > max_bytes}

    def _select(self, client: IMAPClient) -> dict:
        """SELECT the mailbox (every fetch, so a recreated mailbox shows its new UIDVALIDITY)."""
        name = self.settings.mailbox
        try:
            with self._errors("select"):
                info = client.select_folder(name)
        except TransportError as exc:
            if isinstance(exc, ConnectFailed):
                raise
            with self._errors("list"):
                exists = client.folder_exists(name)
                existing = [] if exists else sorted(f[2] for f in client.list_folders())
            if exists:
                raise
            raise self._error(
                MailboxMissing, f"the IMAP folder {name!r} does not exist", mailbox=name, existing=existing
            ) from exc
        self._selected = True
        if self._known_uid is None:
            self._known_uid = info.get(b"UIDNEXT", 1) - 1
        return info

    # ---- marking -------------------------------------------------------------------------

    def mark_handled(self, uids: Iterable[int], action: str = "seen") -> None:
        """Mark processed messages so a mail client shows them as done.

        ``"seen"`` adds \\Seen; ``"move:Folder"`` moves them (MOVE when the server has it,
        else COPY + \\Deleted + UID EXPUNGE; the folder is created if missing); ``"none"``
        leaves them alone. The daemon's own record, not the flags, prevents reprocessing.
        """
        kind, folder = parse_action(action)
        uids = sorted({int(uid) for uid in uids})
        if kind == "none" or not uids:
            return
        self._with_reconnect(lambda: self._mark(uids, kind, folder))

    def _mark(self, uids: list[int], kind: str, folder: str | None) -> None:
        client = self._ensure_connected()
        if not self._selected:
            self._select(client)
        if kind == "seen":
            with self._errors("store"):
                client.add_flags(uids, [SEEN], silent=True)
            return
        self._ensure_folder(client, folder)
        with self._errors("move"):
            if "MOVE" in self._capabilities:
                client.move(uids, folder)
            else:
                client.copy(uids, folder)
                client.add_flags(uids, [DELETED], silent=True)
                if "UIDPLUS" in self._capabilities:
                    client.uid_expunge(uids)
                else:
                    client.expunge()  # also removes messages others flagged \Deleted

    def _ensure_folder(self, client: IMAPClient, folder: str) -> None:
        if folder in self._folders:
            return
        with self._errors("create"):
            if not client.folder_exists(folder):
                log.info("imap: creating folder %r for handled mail", folder)
                client.create_folder(folder)
        self._folders.add(folder)

    # ---- waiting -------------------------------------------------------------------------

    def idle_wait(self, timeout: float, last_uid: int | None = None) -> bool:
        """Wait up to ``timeout`` seconds for new mail; True as soon as there is some.

        Mail newer than ``last_uid`` (default: the last UID ``fetch_new`` returned) that is
        already there counts at once. With IDLE the server pushes (Dovecot signals ~0.5 s
        after delivery); without it the mailbox is searched every ``poll_interval``.
        """
        deadline = time.monotonic() + max(0.0, timeout)
        return self._with_reconnect(lambda: self._idle_wait(deadline, last_uid))

    def _idle_wait(self, deadline: float, last_uid: int | None) -> bool:
        client = self._ensure_connected()
        if not self._selected:
            self._select(client)
        known = self._known_uid if last_uid is None else last_uid
        if self._has_newer(client, known):
            return True
        if "IDLE" not in self._capabilities:
            return self._poll(client, deadline, known)
        while (remaining := deadline - time.monotonic()) > 0:
            if self._idle_round(client, min(remaining, IDLE_RENEW_SECONDS)):
                return True
        return False

    def _has_newer(self, client: IMAPClient, known: int) -> bool:
        # SEARCH runs on the session's view of the mailbox, which Dovecot brings up to date
        # only *after* a command: NOOP first, so mail delivered since the last command counts.
        with self._errors("noop"):
            client.noop()
        with self._errors("search"):
            return any(uid > known for uid in client.search(["UID", f"{known + 1}:*"]))

    def _poll(self, client: IMAPClient, deadline: float, known: int) -> bool:
        while (remaining := deadline - time.monotonic()) > 0:
            time.sleep(min(remaining, self.settings.poll_interval))
            if self._has_newer(client, known):
                return True
        return False

    def _idle_round(self, client: IMAPClient, seconds: float) -> bool:
        """One IDLE command of at most ``seconds``; True if the server announced new mail."""
        end = time.monotonic() + seconds
        with self._errors("idle"):
            client.idle()
            try:
                while (remaining := end - time.monotonic()) > 0 and not self._interrupted:
                    # wake at least once a second: interrupt() may have come before the socket existed
                    chunk, asked = min(remaining, 1.0), time.monotonic()
                    responses = client.idle_check(timeout=chunk)
                    if _announces_mail(responses):
                        return True
                    if _says_bye(responses):
                        raise imaplib.IMAP4.abort(f"server said BYE during IDLE: {responses}")
                    if not responses and time.monotonic() - asked < chunk - 0.05:
                        # Woken early with nothing to read: the socket hit EOF (imapclient
                        # swallows it). Ending IDLE below raises if the connection is gone.
                        break
            finally:
                _text, responses = client.idle_done()
            return _announces_mail(responses)

    # ---- errors --------------------------------------------------------------------------

    def _with_reconnect(self, operation: Callable[[], T]) -> T:
        """Run ``operation``; if an old connection turns out dead, reconnect once and rerun."""
        reused = self._client is not None
        try:
            return operation()
        except ConnectFailed as exc:
            if not reused or isinstance(exc, TransportTimeout) or self._interrupted:
                raise
            log.info("imap: connection to %s lost (%s); reconnecting", self.settings.address, exc)
            self.close()
            return operation()

    def _error(self, cls: type[TransportError], message: str, **kwargs) -> TransportError:
        return cls(message, host=self.settings.host, port=self.settings.port, **kwargs)

    @contextmanager
    def _errors(self, operation: str):
        """Count the command; translate what imapclient, ssl and sockets raise into transport errors."""
        self.commands[operation] += 1
        try:
            yield
        except TransportError:
            raise
        except imap_errors.LoginError as exc:
            raise self._login_error(exc) from exc
        except imap_errors.CapabilityError as exc:
            raise self._error(TransportError, f"imap {operation}: {exc}") from exc
        except (imaplib.IMAP4.abort, EOFError) as exc:
            self._drop()
            raise self._error(ConnectFailed, f"imap {operation}: connection lost: {exc}") from exc
        except imaplib.IMAP4.error as exc:  # a NO or BAD answer; the connection is fine
            raise self._error(
                TransportError, f"imap {operation} failed: {exc}", hint="see the server's answer above"
            ) from exc
        except ssl.SSLCertVerificationError as exc:
            self._drop()
            raise self._error(
                TlsFailed, f"imap {operation}: the server's certificate was not accepted: {exc.verify_message}"
            ) from exc
        except (ssl.SSLEOFError, ssl.SSLZeroReturnError) as exc:
            self._drop()
            if operation in ("connect", "starttls"):   # the handshake itself: a TLS problem
                raise self._error(TlsFailed, f"imap {operation}: TLS failed: {exc.reason or exc}") from exc
            # After the handshake, TLS ending abruptly is the server (or the network) going away:
            # a lost connection, tried again soon, not a misconfiguration waited out for 30 s.
            raise self._error(ConnectFailed, f"imap {operation}: connection lost ({exc.reason or exc})") from exc
        except ssl.SSLError as exc:
            self._drop()
            raise self._error(TlsFailed, f"imap {operation}: TLS failed: {exc.reason or exc}") from exc
        except (socket.timeout, TimeoutError) as exc:
            self._drop()
            hint = TransportTimeout.hint
            if operation == "connect":
                hint = silent_server_hint("IMAP", self.settings.host, self.settings.port, self.settings.security, 993)
            raise self._error(
                TransportTimeout, f"imap {operation}: no answer within {self.settings.timeout}s", hint=hint
            ) from exc
        except OSError as exc:
            self._drop()
            raise self._error(ConnectFailed, f"imap {operation}: {exc.strerror or exc}") from exc

    def _login_error(self, exc: Exception) -> TransportError:
        text = str(exc)
        user = self.settings.username
        if self.settings.auth == "oauth2":
            self.settings.tokens.forget()   # the next try asks the provider for a new access token
            return self._error(
                AuthFailed, f"imap login by OAuth 2.0 (XOAUTH2) refused for {user}: {text}",
                hint="pbp asks for a new access token at the next try; if it is refused again, check that the "
                "app registration grants IMAP (docs/oauth.md) and that IMAP is on for the mailbox",
            )
        if "PRIVACYREQUIRED" in text or "plaintext" in text.lower():
            return self._error(
                AuthFailed, f"imap login refused without TLS for {user}: {text}",
                hint='the server only takes passwords over TLS: use security = "starttls" or "tls"',
            )
        if "UNAVAILABLE" in text:
            return self._error(
                TransportError, f"imap login for {user} could not be checked: {text}",
                hint="the server could not check the password right now; it will be retried",
                temporary=True,
            )
        return self._error(
            AuthFailed, f"imap login failed for {user}: {text}",
            hint=f"check the username ({user}) and the app password in {ImapSettings.PASSWORD_ENV} "
            "(or the password file); providers with 2-step verification need an app password",
        )

    def _drop(self) -> None:
        """Forget a connection that broke: the next call opens a fresh one."""
        client, self._client = self._client, None
        self._selected = False
        if client is not None:
            _shutdown(client)


def _announces_mail(responses: list) -> bool:
    """True for an untagged ``n EXISTS`` (new mail); raise-worthy BYE is checked by the caller."""
    return any(
        isinstance(r, tuple) and len(r) >= 2 and isinstance(r[0], int) and r[1] == b"EXISTS"
        for r in responses
    )


def _says_bye(responses: list) -> bool:
    return any(isinstance(r, tuple) and r and r[0] == b"BYE" for r in responses)


def _shutdown(client: IMAPClient) -> None:
    try:
        client.shutdown()
    except Exception:
        pass
