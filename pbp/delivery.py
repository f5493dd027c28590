"""Delivering the outbox: replies are written in the post's own transaction, sent from here.

Two kinds of trouble are retried differently, because they mean different things:

* the **server cannot be reached** (refused, timed out, TLS or login failed): nothing is wrong
  with any reply, so no reply is charged an attempt; the whole outbox waits on the connection
  backoff (:class:`Backoff`: 0.5, 1, 2 s, then every 3 s; replies committed meanwhile do
  not cut a wait short), so delivery resumes within 5 s of the server coming back, however
  long it was away, and "working again" is logged as soon as it answers, before the backlog;
* the **server refuses one reply** (4xx): that reply backs off on its own (5 s, 15 s, 1 min,
  5 min, 15 min, then hourly) while the others go; a 5xx, or :data:`MAX_ATTEMPTS`, marks it
  failed for good (``pbp outbox --retry`` puts it back).

A reply is marked sent the instant the server accepted it (:mod:`pbp.store.sentmarks`: a
line appended to a file beside an SQLite database, then the row in its own short
transaction, outside the post lock's way; on PostgreSQL the row, in the transaction that
claimed it): a crash in between (the one duplicate window, about a millisecond) sends it
again under the same Message-ID. During a burst the sender gathers replies for
:data:`GATHER_SECONDS` and sends them over the session it keeps open.

:class:`OutboxSender` runs delivery in a thread of its own with its own event loop, so a
slow or hung SMTP server never holds up reading posts, and stopping cancels a send in flight
(the reply stays pending and goes at the next start).
"""
from __future__ import annotations

import asyncio
import logging
import threading
import time
from contextlib import nullcontext
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Callable

from pbp import faults
from pbp.config import Config
from pbp.errors import PbpError
from pbp.leases import claim
from pbp.retention import compact
from pbp.store import models as m
from pbp.store.outage import is_outage
from pbp.store.sentmarks import SentMarks
from pbp.transport.errors import SmtpRejected

log = logging.getLogger("pbp.daemon")

MAX_ATTEMPTS = 12
BACKOFF_SECONDS = (5, 15, 60, 300, 900, 3600)
#: Waits after a connection problem that may pass by itself (server down, network, timeout):
#: short and capped, so that pbp notices a server that came back within 5 s, whatever the
#: length of the outage (one try every 3 s is no storm for a server or a log).
RECONNECT_SECONDS = (0.5, 1, 2, 3)
#: Waits after a problem that needs the operator (login refused, TLS, missing folder): trying
#: every few seconds would only get the account locked.
MISCONFIGURED_SECONDS = (30, 60, 120, 300)
#: A connection problem that goes on is logged again at most this often (the rest at DEBUG).
REPEAT_LOG_SECONDS = 600
#: The sender looks at the outbox at least this often even when nobody wakes it.
MAX_WAIT_SECONDS = 60.0
BATCH = 500
#: A round that found due replies but sent none (claimed by another daemon) waits this long.
CLAIMED_ELSEWHERE_SECONDS = 1.0
#: Woken again this soon after a round that sent replies (a burst), the sender waits this long
#: for more, so they go in batches over its open session; a lone post's reply goes at once.
GATHER_SECONDS = 0.15


def describe_error(exc: BaseException) -> str:
    """One log line for a problem, with its fix-it hint."""
    if not isinstance(exc, PbpError):
        return f"unexpected {type(exc).__name__}: {exc}"
    hint = getattr(exc, "hint", "")
    return f"{exc}" + (f" (hint: {hint})" if hint else "")


@dataclass
class Backoff:
    """When to try a connection again, and which failures deserve a log line.

    The first failure, a different failure and the same failure every
    :data:`REPEAT_LOG_SECONDS` are logged at WARNING with their hint; the retries in
    between at DEBUG; the recovery once at INFO. A day-long outage is a handful of lines.

    State across rounds (the mailboxes', the outbox's, the Discourse poll's); one forum
    request's own retries are :class:`pbp.forum.retry.RetryPolicy`.
    """

    what: str
    failures: int = 0
    down_since: float | None = None
    _last_text: str = ""
    _last_logged: float = field(default=-1e9)

    def failed(self, exc: BaseException) -> float:
        steps = RECONNECT_SECONDS if getattr(exc, "temporary", False) else MISCONFIGURED_SECONDS
        delay = steps[min(self.failures, len(steps) - 1)]
        now = time.monotonic()
        if self.down_since is None:
            self.down_since = now
        self.failures += 1
        text = describe_error(exc)
        loud = text != self._last_text or now - self._last_logged >= REPEAT_LOG_SECONDS
        log.log(logging.WARNING if loud else logging.DEBUG, "%s: %s; retrying in %ss", self.what, text, delay)
        log.debug("%s: failure %d", self.what, self.failures, exc_info=not isinstance(exc, PbpError))
        if loud:
            self._last_text, self._last_logged = text, now
        return delay

    def succeeded(self) -> None:
        if self.down_since is not None:
            log.info("%s: working again after %.0f s (%d failed attempts)", self.what,
                     time.monotonic() - self.down_since, self.failures)
        self.failures, self.down_since, self._last_text = 0, None, ""


# --------------------------------------------------------------------------- one round


def due_rows(now: datetime, limit: int = BATCH) -> list[m.OutboxMail]:
    return list(m.OutboxMail.select()
                .where((m.OutboxMail.status == "pending") & (m.OutboxMail.next_attempt_at <= now))
                .order_by(m.OutboxMail.id).limit(limit))


def seconds_to_next(now: datetime) -> float:
    """Seconds until the next pending reply is due (:data:`MAX_WAIT_SECONDS` at most)."""
    row = (m.OutboxMail.select(m.OutboxMail.next_attempt_at).where(m.OutboxMail.status == "pending")
           .order_by(m.OutboxMail.next_attempt_at).first())
    if row is None:
        return MAX_WAIT_SECONDS
    return min(MAX_WAIT_SECONDS, max(0.0, (row.next_attempt_at - now).total_seconds()))


def compacted_for_send(row, when: datetime, compact_sent: bool) -> str | None:
    """The text a reply keeps once sent (``compact_at_send``: headers and text only,
    :func:`pbp.retention.compact`), or None to keep it whole. Worked out before the send,
    so that nothing but the mark's write stands between the server's 250 and the mark."""
    return compact(row.raw, when) if compact_sent and "multipart/" in row.raw else None


def mark_sent(row, when: datetime, *, compact_sent: bool = False, compacted: str | None = None,
              lock=None) -> None:
    """Mark ``row`` sent at ``when``. A reply of several parts keeps only its headers and
    text from now on when ``compacted`` is given (:func:`compacted_for_send`) or
    ``compact_sent`` asks for it, in the same write as its mark, so it is never sent again
    and never looked at by the retention (issue 23: the outbox holds sent replies compactly)."""
    fields = {"status": "sent", "sent_at": when, "attempts": row.attempts + 1}
    if compacted is None:
        compacted = compacted_for_send(row, when, compact_sent)
    if compacted is not None:
        fields.update(raw=compacted, compacted=True)
    with lock or nullcontext():
        m.OutboxMail.update(**fields).where(m.OutboxMail.id == row.id).execute()


async def deliver_rows(rows, sender, *, clock=m.utcnow, on_sent: Callable | None = None,
                       lock=None, keep_open: bool = False,
                       on_connected: Callable | None = None,
                       marks: SentMarks | None = None, compact_sent: bool = False) -> tuple[int, PbpError | None]:
    """Send ``rows`` over one connection, marking each sent as soon as the server took it.

    Returns how many were sent and, when the server could not be reached or the session
    broke, that error (the rest wait for the connection backoff). ``lock`` guards the
    database writes (the daemon's one-writer lock). ``keep_open`` leaves a working session
    open for the next call (the sender thread, during a burst); ``on_connected`` is called
    once the server answered (the sender logs its recovery then, not after the backlog);
    ``marks`` notes each accepted reply before its row is marked (SQLite); ``compact_sent``
    (``[daemon] compact_at_send``): a sent reply keeps its headers and text only, written
    with its mark (:func:`mark_sent`)."""
    lock = lock or nullcontext()
    sent = 0
    opened = hasattr(sender, "connect") and not getattr(sender, "connected", False)
    try:
        if opened:
            try:
                await sender.connect()
            except PbpError as exc:
                with lock:
                    _note(rows, exc)
                return 0, exc
            if on_connected is not None:
                on_connected()
        for index, row in enumerate(rows):
            with claim(row) as row:   # PostgreSQL: locked until marked, so no other daemon sends it
                if row is None:
                    continue
                began = time.monotonic()
                compacted = compacted_for_send(row, clock(), compact_sent)   # before the send, not in the window
                try:
                    by = sender.for_channel(row.channel) if hasattr(sender, "for_channel") else sender
                    receipt = await by.send(row.raw.encode("utf-8"), row.sender, list(row.recipients))
                except SmtpRejected as exc:
                    if exc.stage == "CONNECT":
                        with lock:
                            _note(rows[index:], exc)
                        return sent, exc
                    with lock:
                        _refused(row, exc, clock())
                    continue
                except PbpError as exc:  # the session broke on this reply: it is charged one attempt
                    with lock:
                        _charge(row, exc, clock())
                    return sent, exc
                accepted = time.perf_counter()
                if marks is not None:   # at once, no lock: the kill window is this call's return
                    marks.accepted(row.id, row.message_id)
                noted = time.perf_counter()
                faults.reached("before_mark")
                mark_sent(row, clock(), compacted=compacted, lock=lock)
                if marks is not None:
                    marks.marked()
            log.debug("reply %s: noted %.3f ms and marked sent %.1f ms after the server accepted it", row.message_id,
                      (noted - accepted) * 1000 if marks is not None else 0.0, (time.perf_counter() - accepted) * 1000)
            faults.reached("after_send")
            sent += 1
            refused = f", refused by {', '.join(receipt.refused)}" if getattr(receipt, "refused", None) else ""
            log.info("reply %s sent campaign=%s to=%d%s %.1f ms", row.message_id,
                     row.campaign.slug if row.campaign_id else "-", len(row.recipients), refused,
                     (time.monotonic() - began) * 1000)
            if on_sent:
                on_sent(row)
    finally:
        if hasattr(sender, "connect") and not keep_open:
            await close_quietly(sender)
    return sent, None


async def close_quietly(sender) -> None:
    try:
        await sender.close()
    except Exception:  # closing a broken connection: nothing left to do
        pass


def _note(rows, exc: BaseException) -> None:
    """Keep the reason on the waiting rows (``pbp outbox`` shows it), without charging them."""
    ids = [row.id for row in rows]
    if ids:
        m.OutboxMail.update(last_error=str(exc)[:2000]).where(m.OutboxMail.id.in_(ids)).execute()


def _charge(row: m.OutboxMail, exc: BaseException, now: datetime) -> None:
    """The connection broke while this reply was going out: one attempt, retried with the
    connection (a reply that breaks every session fails for good after MAX_ATTEMPTS)."""
    row.attempts += 1
    row.status = "failed" if row.attempts >= MAX_ATTEMPTS else "pending"
    row.next_attempt_at = now
    row.last_error = str(exc)[:2000]
    row.save()


def _refused(row: m.OutboxMail, exc: BaseException, now: datetime) -> None:
    row.attempts += 1
    permanent = getattr(exc, "permanent", False) or row.attempts >= MAX_ATTEMPTS
    row.status = "failed" if permanent else "pending"
    row.next_attempt_at = now + timedelta(seconds=BACKOFF_SECONDS[min(row.attempts - 1, len(BACKOFF_SECONDS) - 1)])
    row.last_error = str(exc)[:2000]
    row.save()
    log.warning("reply %s %s (attempt %d): %s", row.message_id, "failed for good" if permanent else "not sent yet",
                row.attempts, describe_error(exc)
                + ("; fix the address, then `pbp outbox --retry`" if permanent else ""))


def make_sender(config: Config, environ=None, forum=None):
    """The outbox's sender: SMTP or the Maildir; with a forum API client (``forum``), a
    :class:`ChannelSender` that maps each row's channel to its sender (the rows the API
    adapter wrote, channel ``discourse``, to :class:`pbp.forum.byapi.ForumPoster`)."""
    if config.transport == "maildir":
        from pbp.transport.maildir import MaildirSender

        mail = MaildirSender(config.maildir.outbox)
    else:
        from pbp.transport.smtp import SmtpSender

        mail = SmtpSender(config.smtp_settings(environ=environ))
    if forum is None:
        return mail
    from pbp.forum.byapi import CHANNEL, ForumPoster

    return ChannelSender(mail, {CHANNEL: ForumPoster(forum)})


class ChannelSender:
    """Delivery's map of channels to senders: a row goes to the sender of its channel
    (``OutboxMail.channel``, written by the adapter that wrote the row), mail (SMTP or the
    Maildir) for every channel not mapped. It has the connection shape of the mail sender."""

    def __init__(self, mail, senders: dict) -> None:
        self.mail = mail
        self.senders = dict(senders)
        self.settings = getattr(mail, "settings", None)

    def for_channel(self, channel: str):
        return self.senders.get(channel, self.mail)

    @property
    def connected(self) -> bool:
        return getattr(self.mail, "connected", True)

    async def connect(self) -> None:
        if hasattr(self.mail, "connect"):
            await self.mail.connect()

    async def send(self, raw, sender: str, recipients):
        return await self.mail.send(raw, sender, recipients)

    async def send_many(self, messages):
        return await self.mail.send_many(messages)

    async def close(self) -> None:
        if hasattr(self.mail, "close"):
            await self.mail.close()


def make_forum(config: Config, environ=None):
    """The Discourse API client of the ``[discourse]`` section, or None."""
    if not config.discourse:
        return None
    from pbp.forum.discourse import DiscourseClient

    return DiscourseClient(config.discourse_settings(environ=environ))


def deliver_outbox(config, *, sender=None, clock=m.utcnow, on_sent: Callable | None = None,
                   limit: int = BATCH) -> int:
    """Send every due reply now, over one connection (``pbp process``, ``pbp tick``,
    ``pbp run --once``). Returns how many were sent."""
    marks = SentMarks.for_database()
    if marks is not None:
        marks.replay(clock())
    rows = due_rows(clock(), limit)
    if not rows:
        return 0
    if sender is None:
        sender = make_sender(config, forum=make_forum(config))
    try:
        sent, problem = asyncio.run(deliver_rows(rows, sender, clock=clock, on_sent=on_sent, marks=marks,
                                                 compact_sent=config.compact_at_send))
    finally:
        if marks is not None:
            marks.close()
    if problem is not None:
        log.warning("outbox: %s; %d repl%s wait for the next run", describe_error(problem),
                    len(rows) - sent, "y" if len(rows) - sent == 1 else "ies")
    return sent


# --------------------------------------------------------------------------- the sender thread


class OutboxSender:
    """Delivers the outbox from its own thread and event loop until stopped.

    It sends at start (replies left by the last run), whenever :meth:`wake` says new replies
    were committed, when the next refused reply is due, and after a connection problem on
    the :class:`Backoff`. :meth:`stop` cancels a send in flight at once: whatever was not
    sent stays pending.
    """

    def __init__(self, sender, *, clock=m.utcnow, lock=None, on_sent: Callable | None = None,
                 what: str = "smtp", outage=None, compact_sent: bool = False) -> None:
        self.sender = sender
        self.compact_sent = compact_sent     # [daemon] compact_at_send
        self.outage = outage    # the daemon's pbp.store.outage.DatabaseOutage, if any
        self.clock = clock
        self.lock = lock or threading.Lock()
        self.on_sent = on_sent
        self.backoff = Backoff(what)
        self.marks: SentMarks | None = None   # opened in the thread, on the database it uses
        self._last_sent = -1e9
        self._loop: asyncio.AbstractEventLoop | None = None
        self._event: asyncio.Event | None = None
        self._task: asyncio.Task | None = None
        self._stopped = False
        self.thread = threading.Thread(target=self._run, name="pbp-outbox", daemon=True)

    def start(self) -> "OutboxSender":
        self.thread.start()
        return self

    def wake(self) -> None:
        """Thread-safe: replies were committed, send them now."""
        loop, event = self._loop, self._event
        if loop is not None and event is not None:
            try:
                loop.call_soon_threadsafe(event.set)
            except RuntimeError:  # the loop has closed: the daemon is stopping
                pass

    def stop(self, timeout: float = 3.0) -> None:
        self._stopped = True
        loop, task = self._loop, self._task
        if loop is not None and task is not None:
            try:
                loop.call_soon_threadsafe(task.cancel)
            except RuntimeError:
                pass
        if self.thread.is_alive():
            self.thread.join(timeout)

    def _run(self) -> None:
        try:
            asyncio.run(self._main())
        except asyncio.CancelledError:
            pass

    async def _main(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._event = asyncio.Event()
        self._task = asyncio.current_task()
        while not self._stopped:
            self._event.clear()
            backing_off = False
            try:
                delay = await self._round()
                backing_off = self.backoff.failures > 0
                if self.outage is not None:
                    self.outage.working()
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # the database, most likely: keep the thread alive
                backing_off = True
                if self.outage is not None and is_outage(exc):
                    delay = self.outage.lost(exc, "the sender")
                else:
                    delay = self.backoff.failed(exc)
            await self._wait(delay, backing_off)
            if not backing_off and time.monotonic() - self._last_sent < GATHER_SECONDS * 2:
                await asyncio.sleep(GATHER_SECONDS)   # a burst: let more replies commit, send them together

    async def _wait(self, delay: float, backing_off: bool) -> None:
        """Wait ``delay`` seconds or until woken. During a backoff a wake does not cut the
        wait short: posts committed while the server is away must not turn into a storm of
        attempts; the next try sends them all."""
        until = time.monotonic() + delay
        while not self._stopped:
            remaining = until - time.monotonic()
            if remaining <= 0:
                return
            try:
                await asyncio.wait_for(self._event.wait(), remaining)
            except TimeoutError:
                return
            if not backing_off:
                return
            self._event.clear()

    async def _round(self) -> float:
        if self.marks is None:
            self.marks = SentMarks.for_database()
        with self.lock:
            if self.marks is not None:
                self.marks.replay(self.clock())
            rows = due_rows(self.clock())
        sent = 0
        if not rows:
            await close_quietly(self.sender)   # idle: no session left open on the server
        else:
            sent, problem = await deliver_rows(rows, self.sender, clock=self.clock, on_sent=self.on_sent,
                                               lock=self.lock, keep_open=True, on_connected=self.backoff.succeeded,
                                               marks=self.marks, compact_sent=self.compact_sent)
            if sent:
                self._last_sent = time.monotonic()
            if problem is not None:
                await close_quietly(self.sender)
                return self.backoff.failed(problem)
            self.backoff.succeeded()
        with self.lock:
            delay = seconds_to_next(self.clock())
        # due replies that another daemon is sending right now: look again shortly, not at once
        return max(delay, CLAIMED_ELSEWHERE_SECONDS) if rows and not sent else delay
