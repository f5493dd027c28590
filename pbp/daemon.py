"""The daemon: wires inboxes, the pipeline and the outbox sender, and schedules them.

It owns no game logic. APScheduler 3.x runs the jobs:

* one *watch* job per mailbox: fetch what is new (``BODY.PEEK[]`` above the last UID
  handled), run each message through :func:`pbp.pipeline.process_message` (one transaction
  each: state, the message record and its replies), deliver the replies, then mark the
  messages handled; with IDLE it then waits for the server's push, else it returns and
  the interval brings it back;
* *deliver*: retries the outbox with backoff (replies that could not be sent at once);
* *tick*: applies deadlines (pending reactions and compels) with the injected clock.

Exactly once: a message is recorded by UIDVALIDITY+UID and by Message-ID in the same
transaction as its state change and its replies (a transactional outbox); a reply is
marked sent only after the SMTP server accepted it and keeps its Message-ID when it is
sent again. ``pbp.faults`` names the points where the tests kill the process.
"""
from __future__ import annotations

import asyncio
import logging
import signal
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Callable

from pbp import faults
from pbp.config import Config, MailboxBinding
from pbp.errors import PbpError
from pbp.pipeline import Context, process_message
from pbp.rules.dice import DiceSource, RandomDice
from pbp.store import models as m

log = logging.getLogger("pbp.daemon")

MAX_ATTEMPTS = 12
BACKOFF_SECONDS = (5, 15, 60, 300, 900, 3600)
RECONNECT_BACKOFF = (1, 2, 5, 10, 30, 60, 120, 300)
FETCH_BATCH = 50
IDLE_CHUNK_SECONDS = 300.0


# --------------------------------------------------------------------------- transports


def make_inbox(config: Config, binding: MailboxBinding, environ=None):
    if config.transport == "maildir":
        from pbp.transport.maildir import MaildirInbox

        return MaildirInbox(config.maildir.inbox)
    from pbp.transport.imap import ImapInbox

    return ImapInbox(config.imap_settings(binding.name, environ=environ))


def make_sender(config: Config, environ=None):
    if config.transport == "maildir":
        from pbp.transport.maildir import MaildirSender

        return MaildirSender(config.maildir.outbox)
    from pbp.transport.smtp import SmtpSender

    return SmtpSender(config.smtp_settings(environ=environ))


def describe_error(exc: BaseException) -> str:
    """One log line for a connection problem, with its fix-it hint."""
    hint = getattr(exc, "hint", "")
    return f"{exc}" + (f" (hint: {hint})" if hint else "")


# --------------------------------------------------------------------------- outbox


def deliver_outbox(config: Config, *, sender=None, clock=m.utcnow, on_sent: Callable | None = None,
                   limit: int = 500) -> int:
    """Send every due outbox mail over one connection. Each is marked sent right after the
    server accepted it; a failure is retried with backoff, a permanent one (5xx, or too many
    attempts) is marked failed. Returns how many were sent."""
    now = clock()
    due = list(m.OutboxMail.select()
               .where((m.OutboxMail.status == "pending") & (m.OutboxMail.next_attempt_at <= now))
               .order_by(m.OutboxMail.id).limit(limit))
    if not due:
        return 0
    sender = sender or make_sender(config)
    return asyncio.run(_deliver(due, sender, clock, on_sent))


async def _deliver(rows, sender, clock, on_sent) -> int:
    sent = 0
    opened = hasattr(sender, "connect")
    try:
        if opened:
            await sender.connect()
        for row in rows:
            try:
                await sender.send(row.raw.encode("utf-8"), row.sender, list(row.recipients))
            except PbpError as exc:
                _failed(row, exc, clock())
                if not getattr(exc, "recipients", None) and not getattr(exc, "permanent", False):
                    break  # the connection is the problem: the rest wait for the next round
                continue
            m.OutboxMail.update(status="sent", sent_at=clock(), attempts=row.attempts + 1).where(
                m.OutboxMail.id == row.id).execute()
            sent += 1
            if on_sent:
                on_sent(row)
    except PbpError as exc:  # could not connect at all
        log.warning("outbox: cannot reach the mail server: %s", describe_error(exc))
        for row in rows[sent:]:
            if row.status == "pending":
                _failed(row, exc, clock())
                break
    finally:
        if opened:
            try:
                await sender.close()
            except Exception:  # closing a broken connection: nothing left to do
                pass
    return sent


def _failed(row: m.OutboxMail, exc: BaseException, now: datetime) -> None:
    row.attempts += 1
    permanent = getattr(exc, "permanent", False) or row.attempts >= MAX_ATTEMPTS
    row.status = "failed" if permanent else "pending"
    row.next_attempt_at = now + timedelta(seconds=BACKOFF_SECONDS[min(row.attempts - 1, len(BACKOFF_SECONDS) - 1)])
    row.last_error = str(exc)[:2000]
    row.save()
    log.warning("reply %s %s (attempt %d): %s", row.message_id, "failed for good" if permanent else "not sent yet",
                row.attempts, describe_error(exc))


# --------------------------------------------------------------------------- watching a mailbox


@dataclass
class Watcher:
    """One mailbox: its inbox connection, the campaign it is bound to, its backoff."""

    binding: MailboxBinding
    inbox: object
    failures: int = 0
    retry_at: float = 0.0
    lock: threading.Lock = field(default_factory=threading.Lock)


class Daemon:
    def __init__(self, config: Config, *, dice: DiceSource | None = None, clock=m.utcnow,
                 on_sent: Callable | None = None, environ=None) -> None:
        self.config = config
        self.ctx = Context(config=config, dice=dice or RandomDice(), clock=clock)
        self.environ = environ
        self.on_sent = on_sent
        self.stopping = threading.Event()
        self.db_lock = threading.Lock()   # one writer at a time (SQLite); cheap for PostgreSQL
        bindings = config.mailboxes if config.transport == "imap" else (MailboxBinding(),)
        self.watchers = [Watcher(b, make_inbox(config, b, environ)) for b in bindings]
        self.sender = make_sender(config, environ)

    # -- one round on one mailbox
    def poll(self, watcher: Watcher) -> int:
        """Handle everything waiting in one mailbox; returns how many messages."""
        inbox = watcher.inbox
        state, _ = m.MailboxState.get_or_create(mailbox=inbox.mailbox)
        handled = 0
        while not self.stopping.is_set():
            batch = inbox.fetch_new(state.last_uid, state.uidvalidity, limit=FETCH_BATCH,
                                    max_bytes=self.config.limits.max_message_bytes)
            if batch.uidvalidity_changed:
                log.warning("%s: UIDVALIDITY changed from %s to %s; reading the mailbox again "
                            "(Message-IDs keep posts from being applied twice)",
                            inbox.mailbox, batch.previous_uidvalidity, batch.uidvalidity)
            if state.uidvalidity != batch.uidvalidity:
                state.uidvalidity = batch.uidvalidity
                if batch.uidvalidity_changed:
                    state.last_uid = 0
                state.save()
            messages = list(batch)
            if not messages:
                return handled
            faults.reached("after_fetch")
            with self.db_lock:
                for item in messages:
                    outcome = process_message(item.raw, self.ctx, mailbox=item.mailbox, uidvalidity=item.uidvalidity,
                                              uid=item.uid, campaign_slug=watcher.binding.campaign or None,
                                              size=item.size)
                    faults.reached("after_commit")
                    log.info("message %s campaign=%s author=%s status=%s%s %.1f ms", outcome.message_id,
                             outcome.campaign or "-", outcome.author or "-", outcome.status,
                             f" ({outcome.reason})" if outcome.reason else "", outcome.elapsed_ms)
                    handled += 1
                self.deliver()
            faults.reached("after_send")
            inbox.mark_handled([item.uid for item in messages], self.config.handled)
            # only now: a crash before this line refetches the batch, and the UID record
            # in the database makes each message a silent duplicate that is then marked
            state.last_uid = messages[-1].uid
            state.save()
            if not batch.more:
                return handled
        return handled

    def watch(self, watcher: Watcher) -> None:
        """The scheduled job of one mailbox: poll, then (with IDLE) wait for pushes until
        stopped; connection problems are logged with a hint and retried with backoff."""
        if not watcher.lock.acquire(blocking=False):
            return
        try:
            if time.monotonic() < watcher.retry_at:
                return
            while not self.stopping.is_set():
                self.poll(watcher)
                watcher.failures = 0
                if self.stopping.is_set() or not getattr(watcher.inbox, "supports_idle", False):
                    return
                watcher.inbox.idle_wait(min(IDLE_CHUNK_SECONDS, self.config.poll_seconds * 10))
        except Exception as exc:  # a connection, the database: log it, back off, try again
            if self.stopping.is_set():
                return
            delay = RECONNECT_BACKOFF[min(watcher.failures, len(RECONNECT_BACKOFF) - 1)]
            watcher.failures += 1
            watcher.retry_at = time.monotonic() + delay
            if isinstance(exc, PbpError):
                log.error("%s: %s; retrying in %ss", watcher.inbox.mailbox, describe_error(exc), delay)
            else:
                log.exception("%s: %s; retrying in %ss", watcher.inbox.mailbox, exc, delay)
            _close_quietly(watcher.inbox)
        finally:
            watcher.lock.release()

    # -- the outbox and the clock
    def deliver(self) -> int:
        return deliver_outbox(self.config, sender=self.sender, clock=self.ctx.clock, on_sent=self.on_sent)

    def deliver_job(self) -> None:
        with self.db_lock:
            self.deliver()

    def tick(self) -> None:
        """Deadlines and reminders (pending reactions, compels) at the injected clock."""
        from pbp.pipeline import apply_deadlines

        with self.db_lock:
            apply_deadlines(self.ctx)
            self.deliver()

    def run_once(self) -> int:
        """Handle what is waiting in every mailbox, apply deadlines, deliver, and return."""
        handled = sum(self.poll(w) for w in self.watchers)
        self.tick()
        return handled

    # -- running
    def run_forever(self) -> int:
        from apscheduler.executors.pool import ThreadPoolExecutor
        from apscheduler.schedulers.background import BackgroundScheduler

        scheduler = BackgroundScheduler(executors={"default": ThreadPoolExecutor(len(self.watchers) + 3)},
                                        job_defaults={"coalesce": True, "max_instances": 1})
        now = datetime.now()
        for i, watcher in enumerate(self.watchers):
            scheduler.add_job(self.watch, "interval", args=[watcher], seconds=self.config.poll_seconds,
                              id=f"watch-{i}", next_run_time=now)
        scheduler.add_job(self.deliver_job, "interval", seconds=max(30.0, self.config.poll_seconds), id="deliver")
        scheduler.add_job(self.tick, "interval", seconds=60, id="tick", next_run_time=now)

        done = threading.Event()

        def stop(signum, frame):
            log.info("signal %s: stopping after the message in hand", signal.Signals(signum).name)
            self.stopping.set()
            for w in self.watchers:
                interrupt = getattr(w.inbox, "interrupt", None)
                if interrupt:
                    interrupt()
            done.set()

        signal.signal(signal.SIGTERM, stop)
        signal.signal(signal.SIGINT, stop)
        scheduler.start()
        names = ", ".join(w.inbox.mailbox for w in self.watchers)
        log.info("pbp running: %s; polling every %ss", names, self.config.poll_seconds)
        done.wait()
        scheduler.shutdown(wait=True)  # waits for the message in hand
        for w in self.watchers:
            _close_quietly(w.inbox)
        log.info("pbp stopped")
        return 0


def _close_quietly(inbox) -> None:
    try:
        inbox.close()
    except Exception:  # the connection is already broken; reconnecting comes later
        pass


def run(config: Config, *, dice: DiceSource | None = None, once: bool = False, on_sent=None) -> int:
    daemon = Daemon(config, dice=dice, on_sent=on_sent)
    if once:
        daemon.run_once()
        return 0
    return daemon.run_forever()
