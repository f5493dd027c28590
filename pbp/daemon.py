"""The daemon: wires inboxes, the pipeline and the outbox sender, and runs them.

It owns no game logic. Three kinds of worker, each in its own thread so that none waits
for another:

* one *watcher* per mailbox (:meth:`Daemon.watch` in a loop): fetch what is new
  (``BODY.PEEK[]`` above the last UID handled), run each message through
  :func:`pbp.pipeline.process_message` (one transaction each: state, the message record and
  its replies), mark the messages handled, wake the sender; then, with IDLE, wait for the
  server's push, else sleep ``poll_seconds``. A connection problem is logged with its hint
  and retried on the :class:`~pbp.delivery.Backoff` it logs (0.5, 1, 2, then every 3 s); a
  lost database is reopened and logged once for all threads (:mod:`pbp.store.outage`);
* the *sender* (:class:`pbp.delivery.OutboxSender`): delivers the outbox at start, when
  woken, and on its backoff; a hung SMTP server holds up nothing but itself;
* *tick* (APScheduler, every minute): applies deadlines (pending reactions and compels);
* *archive* (APScheduler, every ``[archive] every_minutes``, when ``[archive] dir`` is set):
  rewrites the static site of each campaign with new posts (:mod:`pbp.archive.publish`),
  reading without the database lock, so posts do not wait for it.

Watchers and the sender are long-running loops, not scheduled jobs: they own their waits
and retries, and as daemon threads they cannot keep a stopping process alive. SIGTERM stops
all of them within :data:`STOP_SECONDS` whatever a server does; what was not sent stays in
the outbox.

Exactly once: a message is recorded by UIDVALIDITY+UID and by its post key (campaign,
author, Message-ID: :func:`pbp.store.models.post_key`) in the same
transaction as its state change and its replies (a transactional outbox); a reply is
marked sent only after the SMTP server accepted it and keeps its Message-ID when it is
sent again. ``pbp.faults`` names the points where the tests kill the process.
"""
from __future__ import annotations

import logging
import signal
import threading
import time
from contextlib import nullcontext
from dataclasses import dataclass, field
from datetime import datetime
from typing import Callable

from pbp import adapters, faults, inbound
from pbp.archive.publish import Publisher
from pbp.config import Config, MailboxBinding
from pbp.delivery import Backoff, OutboxSender, deliver_outbox, make_forum, make_sender
from pbp.leases import STANDBY_SECONDS, Leases, campaign_writes, exclusively, shared
from pbp.logs import quiet_libraries
from pbp.flow.context import Context
from pbp.pipeline import process_message
from pbp.rules.dice import DiceSource, RandomDice
from pbp.store import models as m
from pbp.store.outage import EXIT_DATABASE_DOWN, DatabaseOutage, is_outage

log = logging.getLogger("pbp.daemon")

FETCH_BATCH = 50
#: An apply worker with nothing to take looks again this often (other daemons' readers store mail too).
APPLY_POLL_SECONDS = 0.5
IDLE_CHUNK_SECONDS = 300.0
#: SIGTERM to exit, at most (systemd's TimeoutStopSec is 60 s).
STOP_SECONDS = 5.0
COMPACT_EVERY_SECONDS = 3600.0


# --------------------------------------------------------------------------- logs


def configure_logging(level: str) -> None:
    """Apply ``[daemon] log_level`` (DEBUG, INFO, WARNING, ERROR) to pbp's own loggers;
    libraries speak only about problems unless the level is DEBUG (:mod:`pbp.logs`)."""
    logging.getLogger().setLevel(level)
    quiet_libraries(level)


# --------------------------------------------------------------------------- transports


def make_inbox(config: Config, binding: MailboxBinding, environ=None):
    if config.transport == "maildir":
        from pbp.transport.maildir import MaildirInbox

        return MaildirInbox(config.maildir.inbox)
    from pbp.transport.imap import ImapInbox

    return ImapInbox(config.imap_settings(binding.name, environ=environ))


# --------------------------------------------------------------------------- watching a mailbox


@dataclass
class Watcher:
    """One mailbox: its inbox connection, the campaign it is bound to, its backoff."""

    binding: MailboxBinding
    inbox: object
    backoff: Backoff = None
    leases: Leases = field(default_factory=Leases)
    announced: bool = False
    standing_by: bool = False
    thread: threading.Thread | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if self.backoff is None:
            self.backoff = Backoff(self.label)

    @property
    def label(self) -> str:
        return getattr(self.inbox, "label", self.inbox.mailbox)

    @property
    def failures(self) -> int:
        return self.backoff.failures


class Daemon:
    def __init__(self, config: Config, *, dice: DiceSource | None = None, clock=m.utcnow,
                 on_sent: Callable | None = None, environ=None) -> None:
        self.config = config
        self.ctx = Context(config=config, dice=dice or RandomDice(), clock=clock)
        self.environ = environ
        self.on_sent = on_sent
        self.stopping = threading.Event()
        self.done = threading.Event()       # run_forever returns when set (a signal, or the database gone too long)
        self.exit_status = 0
        # the database's state, shared by every thread: lost connections reopened, logged once
        self.outage = DatabaseOutage(config.database_down_exit_seconds, on_give_up=self._give_up)
        self.db_lock = threading.Lock()   # one writer at a time (SQLite); cheap for PostgreSQL
        bindings = config.mailboxes if config.transport == "imap" else (MailboxBinding(),)
        self.watchers = [Watcher(b, make_inbox(config, b, environ)) for b in bindings]
        self.forum = make_forum(config, environ)
        self.forum_backoff = Backoff("discourse")
        self.forum_thread: threading.Thread | None = None
        self.webhook = None   # the forum's webhook server, once started
        self.sender = make_sender(config, environ, self.forum)
        self.outbox: OutboxSender | None = None   # the sender thread, once started
        self._compact_at = 0.0
        self.publisher = Publisher(config.archive) if config.archive is not None else None
        # PostgreSQL: readers store, apply workers apply (pbp.inbound); SQLite: the reader applies
        self.apply_workers = config.apply_workers if shared() else 0
        self.stored = threading.Event()     # a reader stored mail: wake the apply workers
        self.appliers: list[threading.Thread] = []

    # -- one round on one mailbox
    def poll(self, watcher: Watcher) -> int:
        """Handle everything waiting in one mailbox; returns how many messages. Stops between
        two messages when the daemon is stopping (the rest are read at the next start)."""
        inbox = watcher.inbox
        with self.db_lock:
            state, _ = m.MailboxState.get_or_create(mailbox=inbox.mailbox)
        handled = 0
        while not self.stopping.is_set():
            batch = inbox.fetch_new(state.last_uid, state.uidvalidity, limit=FETCH_BATCH,
                                    max_bytes=self.config.limits.max_message_bytes)
            if batch.uidvalidity_changed:
                log.warning("%s: UIDVALIDITY changed from %s to %s; reading the mailbox again "
                            "(Message-IDs keep posts from being applied twice)",
                            watcher.label, batch.previous_uidvalidity, batch.uidvalidity)
            if state.uidvalidity != batch.uidvalidity:
                state.uidvalidity = batch.uidvalidity
                if batch.uidvalidity_changed:
                    state.last_uid = 0
                with self.db_lock:
                    state.save()
            messages = list(batch)
            if not messages:
                return handled
            faults.reached("after_fetch")
            if self.apply_workers:   # the reader's role only: store durably, the workers apply
                inbound.store(messages, self.ctx, watcher.binding.campaign or None)
                done = [item.uid for item in messages]
                self.stored.set()
            else:
                done = self._apply_all(watcher, messages)
            handled += len(done)
            if not done:
                return handled
            inbox.mark_handled(done, self.config.handled)
            # only now: a crash before this line refetches the batch, and the UID record
            # in the database makes each message a silent duplicate that is then marked
            state.last_uid = done[-1]
            with self.db_lock:
                state.save()
            if not batch.more or len(done) < len(messages):
                return handled
        return handled

    def _apply_all(self, watcher: Watcher, messages) -> list[int]:
        """Apply fetched messages one by one in this thread; returns the UIDs done."""
        done = []
        for item in messages:
                if self.stopping.is_set():
                    break
                with self.db_lock, campaign_writes():   # per message: the sender marks replies sent in between
                    outcome = process_message(item.raw, self.ctx, mailbox=item.mailbox, uidvalidity=item.uidvalidity,
                                              uid=item.uid, campaign_slug=watcher.binding.campaign or None,
                                              size=item.size)
                faults.reached("after_commit")
                self._log_outcome(outcome)
                done.append(item.uid)
                if self.outbox is not None and outcome.replies:
                    self.outbox.wake()
        return done

    def apply_forever(self) -> None:
        """An apply worker's thread (PostgreSQL, ``apply_workers``): take the next stored
        mail of any campaign and apply it, until stopped (:mod:`pbp.inbound`)."""
        backoff = Backoff("apply worker")
        while not self.stopping.is_set():
            try:
                outcome = inbound.apply_next(self.ctx)
                self.outage.working()
                backoff.succeeded()
            except Exception as exc:  # the database: logged once; else logged with its hint
                delay = self.outage.lost(exc, "an apply worker") if is_outage(exc) else backoff.failed(exc)
                self.stopping.wait(delay)
                continue
            if outcome is None:
                self.stored.wait(APPLY_POLL_SECONDS)
                self.stored.clear()
                continue
            self._log_outcome(outcome)
            if self.outbox is not None and outcome.replies:
                self.outbox.wake()

    @staticmethod
    def _log_outcome(outcome) -> None:
        log.info("message %s campaign=%s author=%s status=%s%s commands=%d %.1f ms", outcome.message_id,
                 outcome.campaign or "-", outcome.author or "-", outcome.status,
                 f" ({outcome.reason})" if outcome.reason else "", len(outcome.results), outcome.elapsed_ms)

    def watch(self, watcher: Watcher) -> float:
        """One round on one mailbox: handle what waits, then (with IDLE) wait for the
        server's push. Returns the seconds to wait before the next round: none after IDLE,
        ``poll_seconds`` without it, the backoff after a problem (logged with its hint)."""
        try:
            if not self.holds(watcher):
                return STANDBY_SECONDS
            idle = bool(getattr(watcher.inbox, "supports_idle", False))   # connects: the truth, not the config
            watcher.backoff.succeeded()   # the server answers: "working again" now, before the backlog
            if not watcher.announced:
                watcher.announced = True
                log.info("%s: watching (%s)", watcher.label, "IDLE: the server wakes pbp when mail arrives" if idle
                         else f"no IDLE: checking every {self.config.poll_seconds:g} s")
            self.poll(watcher)
            watcher.backoff.succeeded()
            self.outage.working()
            if self.stopping.is_set():
                return 0.0
            if not idle:
                return self.config.poll_seconds
            watcher.inbox.idle_wait(min(IDLE_CHUNK_SECONDS, self.config.poll_seconds * 10))
            return 0.0
        except Exception as exc:  # a connection, the database: log it, back off, try again
            _close_quietly(watcher.inbox)
            watcher.leases.forget()
            if self.stopping.is_set():
                return 0.0
            if is_outage(exc):   # the database's, logged once for every thread
                return self.outage.lost(exc, watcher.label)
            return watcher.backoff.failed(exc)

    def holds(self, watcher: Watcher) -> bool:
        """Whether this daemon watches the mailbox now (always, unless several daemons share
        a PostgreSQL database and another one has it: :mod:`pbp.leases`)."""
        held = watcher.leases.hold(watcher.inbox.mailbox)
        if held and watcher.standing_by:
            log.info("%s: taking over from the daemon that watched it", watcher.label)
        elif not held and not watcher.standing_by:
            log.info("%s: another daemon watches it; standing by", watcher.label)
            _close_quietly(watcher.inbox)
        watcher.standing_by = not held
        return held

    def watch_forever(self, watcher: Watcher) -> None:
        """A watcher's thread: rounds of :meth:`watch` and the waits they ask for, until stopped."""
        while not self.stopping.is_set():
            delay = self.watch(watcher)
            if delay:
                self.stopping.wait(delay)

    # -- the forum's API
    def poll_forum(self) -> int:
        """Read the forum's new posts (``GET /posts.json`` from the cursor kept in
        ``MailboxState`` as ``discourse:SITE``) and run each through the pipeline; returns
        how many. The first poll only sets the cursor: old posts are never rolled."""
        if self.forum is None:
            return 0
        name = f"discourse:{self.forum.settings.site}"
        with self.db_lock:
            state, _ = m.MailboxState.get_or_create(mailbox=name)
        poll = self.forum.poll(state.last_uid or None)
        for inbound in poll.posts:
            if self.stopping.is_set():
                break
            with self.db_lock:
                self.forum_post(inbound, wake=False)
                m.MailboxState.update(last_uid=inbound.post_id).where(m.MailboxState.mailbox == name).execute()
        else:
            with self.db_lock:
                m.MailboxState.update(last_uid=poll.cursor or 0).where(m.MailboxState.mailbox == name).execute()
        if poll.posts and self.outbox is not None:
            self.outbox.wake()
        return len(poll.posts)

    def forum_post(self, inbound, *, wake: bool = True):
        """One forum post (polled, or brought by the webhook) through the pipeline."""
        from pbp.pipeline import process_post

        with self.db_lock if wake else nullcontext():
            cursor = None
            if wake:   # the webhook's: how far the poll has read (an old post's edit is not rolled)
                state = m.MailboxState.get_or_none(m.MailboxState.mailbox == f"discourse:{self.forum.settings.site}")
                cursor = state.last_uid if state is not None else 0
            arrival = adapters.ApiArrival(inbound, bot=self.forum.settings.username, cursor=cursor)
            outcome = process_post(adapters.read(arrival, self.config, self.ctx.adapters), self.ctx)
        log.info("forum post %s campaign=%s author=%s status=%s", outcome.message_id, outcome.campaign,
                 outcome.author, outcome.status)
        if wake and self.outbox is not None:
            self.outbox.wake()
        return outcome

    def start_webhook(self):
        """Serve the forum's webhook (``[discourse] webhook_port``), when it is set."""
        from pbp.forum.webhook_server import WebhookServer

        if self.forum is not None and self.forum.settings.webhook_port is not None:
            self.webhook = WebhookServer(self.forum.settings, self.forum_post).start()
        return self.webhook

    def poll_forum_forever(self) -> None:
        while not self.stopping.is_set():
            try:
                self.poll_forum()
                self.forum_backoff.succeeded()
                self.outage.working()
                delay = self.forum.settings.poll_interval
            except Exception as exc:  # the forum or the database: logged with its hint, retried
                delay = (self.outage.lost(exc, "the forum poll") if is_outage(exc)
                         else self.forum_backoff.failed(exc))
            self.stopping.wait(delay)

    # -- the outbox and the clock
    def deliver(self) -> int:
        """Send what is due now, in this thread (``run --once``)."""
        return deliver_outbox(self.config, sender=self.sender, clock=self.ctx.clock, on_sent=self.on_sent)

    def tick(self) -> None:
        """Deadlines and reminders (pending reactions, compels) at the injected clock; once
        an hour, old sent replies are compacted (:mod:`pbp.retention`), in small batches
        that take the database lock only to write, so posts do not wait for them."""
        from pbp.flow.deadlines import apply_deadlines

        if time.monotonic() >= self._compact_at:
            from pbp.retention import DAEMON_BATCH, compact_sent, give_back_space

            self._compact_at = time.monotonic() + COMPACT_EVERY_SECONDS
            compacted = 0       # small batches, each worked out outside the lock and written under it
            while not self.stopping.is_set():
                n = compact_sent(self.ctx.clock(), self.config.compact_sent_after_days, DAEMON_BATCH, lock=self.db_lock)
                compacted += n
                if n < DAEMON_BATCH:
                    break
            if compacted:
                give_back_space(self.db_lock)
                log.debug("compacted %d sent replies", compacted)

        with self.db_lock, exclusively("deadlines") as ours:   # one daemon at a time applies them
            due = 0
            if ours:
                with campaign_writes(exclusive=True):
                    due = apply_deadlines(self.ctx)
        if due and self.outbox is not None:
            self.outbox.wake()

    def publish_archive(self) -> int:
        """Rewrite the archive of each campaign with new posts (``[archive]``); returns how
        many sites were written. Reads only, so it takes no lock: a post applied meanwhile is
        in this site or the next one."""
        if self.publisher is None:
            return 0
        return self.publisher.run(self.stopping)

    def run_once(self) -> int:
        """Handle what is waiting in every mailbox, apply deadlines, deliver, rewrite the
        archives that are behind, and return."""
        handled = sum(self.poll(w) for w in self.watchers if self.holds(w))
        while self.apply_workers and not self.stopping.is_set():   # what this run (or another) stored
            outcome = inbound.apply_next(self.ctx)
            if outcome is None:
                break
            self._log_outcome(outcome)
        handled += self.poll_forum()
        self.tick()
        self.deliver()
        self.publish_archive()
        return handled

    # -- running
    def start_sender(self) -> OutboxSender:
        """Start the outbox sender's thread (it sends what is pending at once)."""
        label = "outbox" if self.config.transport == "maildir" else f"smtp {self.sender.settings.address}"
        # PostgreSQL: a claimed reply's transaction spans its send, so it must not hold the
        # watchers' lock; the database orders the writes itself
        lock = nullcontext() if shared() else self.db_lock
        self.outbox = OutboxSender(self.sender, clock=self.ctx.clock, lock=lock,
                                   on_sent=self.on_sent, what=label, outage=self.outage,
                                   compact_sent=self.config.compact_at_send).start()
        return self.outbox

    def start(self) -> None:
        """Start the sender and one watcher thread per mailbox (they run until :meth:`stop`)."""
        self.start_sender()
        for i in range(self.apply_workers):
            thread = threading.Thread(target=self.apply_forever, name=f"pbp-apply-{i}", daemon=True)
            thread.start()
            self.appliers.append(thread)
        for i, watcher in enumerate(self.watchers):
            watcher.thread = threading.Thread(target=self.watch_forever, args=(watcher,),
                                              name=f"pbp-watch-{i}", daemon=True)
            watcher.thread.start()
        if self.forum is not None:
            self.forum_thread = threading.Thread(target=self.poll_forum_forever, name="pbp-forum", daemon=True)
            self.forum_thread.start()
            self.start_webhook()

    def stop(self, timeout: float = STOP_SECONDS) -> None:
        """Stop every thread: IDLE is interrupted, a send in flight cancelled. Returns within
        about ``timeout`` seconds even if a server hangs (its thread is abandoned)."""
        self.stopping.set()
        deadline = time.monotonic() + timeout
        if self.webhook is not None:
            self.webhook.stop()
        for w in self.watchers:
            interrupt = getattr(w.inbox, "interrupt", None)
            if interrupt:
                interrupt()
        if self.outbox is not None:
            self.outbox.stop(timeout=max(0.1, deadline - time.monotonic()))
        self.stored.set()
        for thread in [*(w.thread for w in self.watchers), *self.appliers]:
            if thread is not None:
                thread.join(max(0.1, deadline - time.monotonic()))
        for w in self.watchers:
            if w.thread is None or not w.thread.is_alive():
                _close_quietly(w.inbox)

    def run_forever(self) -> int:
        from apscheduler.schedulers.background import BackgroundScheduler

        done = self.done

        def on_signal(signum, frame):
            log.info("signal %s: stopping after the message in hand", signal.Signals(signum).name)
            done.set()

        signal.signal(signal.SIGTERM, on_signal)
        signal.signal(signal.SIGINT, on_signal)
        scheduler = BackgroundScheduler(job_defaults={"coalesce": True, "max_instances": 1})
        # a known outage is logged once by self.outage, not as a job's traceback every minute
        scheduler.add_job(self.outage.guard(self.tick, "the deadline tick"), "interval", seconds=60, id="tick",
                          next_run_time=datetime.now())
        if self.publisher is not None:
            scheduler.add_job(self.outage.guard(self.publish_archive, "the archive"), "interval", seconds=self.config.archive.every_minutes * 60,
                              id="archive", next_run_time=datetime.now())
            log.info("archive: each campaign's site kept in %s%s, every %g minutes", self.config.archive.dir,
                     f" (the GM's in {self.config.archive.gm_dir})" if self.config.archive.gm_dir else "",
                     self.config.archive.every_minutes)
        mode = "IMAP" if self.config.transport == "imap" else "Maildir"
        log.info("pbp running: %d %s mailbox%s (%s), log level %s", len(self.watchers), mode,
                 "es" if len(self.watchers) != 1 else "", ", ".join(w.label for w in self.watchers),
                 self.config.log_level)
        if self.apply_workers:
            log.info("%d apply worker%s: the mailbox readers store mail, the workers of every daemon on this "
                     "database apply it", self.apply_workers, "s" if self.apply_workers != 1 else "")
        elif self.config.apply_workers:
            log.warning("[daemon] apply_workers is for PostgreSQL; with SQLite the reader applies what it reads")
        self.start()
        scheduler.start()
        done.wait()
        scheduler.shutdown(wait=False)
        self.stop()
        log.info("pbp stopped")
        return self.exit_status

    def _give_up(self) -> None:
        """``[daemon] database_down_exit_seconds`` ran out: stop, exit non-zero."""
        self.exit_status = EXIT_DATABASE_DOWN
        self.done.set()


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
