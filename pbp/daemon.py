"""The daemon: wires an inbox, the pipeline and an outbox sender, and schedules them.

It owns no game logic. Two jobs run under APScheduler: *poll* reads new mail and runs each
message through :func:`pbp.pipeline.process_message` (one transaction each), *deliver*
sends the outbox with retries and backoff. SIGTERM stops it after the message in hand.
"""
from __future__ import annotations

import asyncio
import logging
import signal
import threading
from datetime import datetime, timedelta
from typing import Callable

from pbp.config import Config
from pbp.errors import PbpError
from pbp.pipeline import Context, process_message
from pbp.rules.dice import DiceSource, RandomDice
from pbp.store import models as m

log = logging.getLogger("pbp.daemon")

MAX_ATTEMPTS = 12
BACKOFF_SECONDS = (5, 15, 60, 300, 900, 3600)


def make_inbox(config: Config):
    if config.transport == "maildir":
        from pbp.transport.maildir import MaildirInbox

        return MaildirInbox(config.maildir.inbox)
    raise PbpError(f"transport {config.transport!r} is not wired yet")


def make_sender(config: Config):
    if config.transport == "maildir":
        from pbp.transport.maildir import MaildirSender

        return MaildirSender(config.maildir.outbox)
    raise PbpError(f"transport {config.transport!r} is not wired yet")


class Daemon:
    def __init__(self, config: Config, *, dice: DiceSource | None = None, inbox=None, sender=None,
                 clock=m.utcnow, on_sent: Callable | None = None) -> None:
        self.config = config
        self.ctx = Context(config=config, dice=dice or RandomDice(), clock=clock)
        self.inbox = inbox or make_inbox(config)
        self.sender = sender or make_sender(config)
        self.on_sent = on_sent
        self.stopping = threading.Event()
        self._lock = threading.Lock()

    # -- inbound
    def poll(self) -> int:
        """Handle every waiting message; returns how many were handled."""
        with self._lock:
            handled = 0
            for item in self.inbox.fetch_new():
                if self.stopping.is_set():
                    break
                outcome = process_message(item.raw, self.ctx, mailbox=item.mailbox,
                                          uidvalidity=item.uidvalidity, uid=item.uid)
                log.info("message %s campaign=%s author=%s status=%s%s %.1f ms", outcome.message_id,
                         outcome.campaign or "-", outcome.author or "-", outcome.status,
                         f" ({outcome.reason})" if outcome.reason else "", outcome.elapsed_ms)
                self.inbox.mark_handled([item.uid], self.config.handled)
                handled += 1
            return handled

    # -- outbound
    def deliver(self) -> int:
        with self._lock:
            return deliver_outbox(self.config, sender=self.sender, clock=self.ctx.clock, on_sent=self.on_sent)

    def tick(self) -> None:
        self.poll()
        self.deliver()

    def run_forever(self) -> int:
        from apscheduler.schedulers.blocking import BlockingScheduler

        scheduler = BlockingScheduler()
        scheduler.add_job(self.tick, "interval", seconds=self.config.poll_seconds, max_instances=1,
                          coalesce=True, id="poll", next_run_time=datetime.now())

        def stop(signum, frame):
            log.info("signal %s: stopping after the message in hand", signum)
            self.stopping.set()
            scheduler.shutdown(wait=False)

        signal.signal(signal.SIGTERM, stop)
        signal.signal(signal.SIGINT, stop)
        log.info("pbp running: %s transport, polling every %ss", self.config.transport, self.config.poll_seconds)
        scheduler.start()
        with self._lock:  # wait for the job in hand
            pass
        log.info("pbp stopped")
        return 0


def deliver_outbox(config: Config, *, sender=None, clock=m.utcnow, on_sent: Callable | None = None) -> int:
    """Send every due outbox mail; each is marked sent only after the server accepted it,
    so a crash re-sends at most the unacknowledged one, with the same Message-ID."""
    sender = sender or make_sender(config)
    now = clock()
    due = list(m.OutboxMail.select().where((m.OutboxMail.status == "pending") & (m.OutboxMail.next_attempt_at <= now))
               .order_by(m.OutboxMail.id))
    sent = 0
    for mail in due:
        try:
            asyncio.run(sender.send(mail.raw.encode("utf-8"), mail.sender, list(mail.recipients)))
        except PbpError as exc:
            mail.attempts += 1
            permanent = getattr(exc, "permanent", False) or mail.attempts >= MAX_ATTEMPTS
            mail.status = "failed" if permanent else "pending"
            delay = BACKOFF_SECONDS[min(mail.attempts - 1, len(BACKOFF_SECONDS) - 1)]
            mail.next_attempt_at = now + timedelta(seconds=delay)
            mail.last_error = str(exc)
            mail.save()
            log.warning("reply %s not sent (attempt %d): %s%s", mail.message_id, mail.attempts, exc,
                        f" - {exc.hint}" if getattr(exc, "hint", "") else "")
            continue
        mail.status, mail.sent_at, mail.attempts = "sent", clock(), mail.attempts + 1
        mail.save()
        sent += 1
        if on_sent:
            on_sent(mail)
    return sent


def run(config: Config, *, dice: DiceSource | None = None, once: bool = False, on_sent=None) -> int:
    daemon = Daemon(config, dice=dice, on_sent=on_sent)
    if once:
        daemon.tick()
        return 0
    return daemon.run_forever()
