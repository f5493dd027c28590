"""The database went away: detect it, reopen the connection, say so once, come back in seconds.

Every worker of the daemon (the mailbox watchers, the sender, the forum poll, the scheduled
jobs) catches what a round raised and asks :func:`is_outage`. For a lost database it calls
:meth:`DatabaseOutage.lost`, which throws the thread's connection away (peewee keeps
reporting a psycopg2 handle closed by a PostgreSQL restart as open, so it would never
reconnect by itself: every query would say ``connection already closed`` for ever) and
returns the short wait before the next try; the next query opens a fresh connection.

The log says it once per outage, whatever the number of threads: a WARNING when the database
is first unreachable, one ERROR when that has lasted :data:`LONG_SECONDS`, an INFO when it
works again. Tracebacks are for bugs, not for a known outage.

``[daemon] database_down_exit_seconds`` (0, the default: never) makes the daemon exit with
:data:`EXIT_DATABASE_DOWN` after that long without its database, for a supervisor that
restarts it (docs/operating.md says when that helps).
"""
from __future__ import annotations

import logging
import threading
import time
from typing import Callable

from peewee import InterfaceError, OperationalError

from pbp.store import models as m

log = logging.getLogger("pbp.daemon")

#: Waits between tries while the database is away: short, so pbp is back within seconds.
RETRY_SECONDS = (0.5, 1.0, 2.0, 3.0)
#: An outage this long gets its one ERROR line.
LONG_SECONDS = 60.0
#: The exit status when ``database_down_exit_seconds`` ran out (EX_TEMPFAIL of sysexits.h).
EXIT_DATABASE_DOWN = 75


def is_outage(exc: BaseException) -> bool:
    """True for a lost or unreachable database (PostgreSQL restarted, a backend terminated,
    the network cut, SQLite busy past its timeout), however the error was wrapped."""
    seen = 0
    while exc is not None and seen < 8:
        if isinstance(exc, (InterfaceError, OperationalError)):
            return True
        exc, seen = exc.__cause__ or exc.__context__, seen + 1
    return False


def reopen() -> None:
    """Throw away this thread's connection; the next query opens a new one."""
    database = m.db.obj
    if database is None:
        return
    try:
        database.close()
    except Exception:  # broken, or inside a transaction that died with it: forget it
        database.dispose()


def answers() -> bool:
    """Whether a fresh connection of this thread gets an answer from the database."""
    try:
        m.db.execute_sql("SELECT 1").fetchone()
        return True
    except Exception:  # still away
        reopen()
        return False


def first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}".rstrip(": ")


class DatabaseOutage:
    """One per daemon, shared by its threads: the state of the database connection."""

    def __init__(self, exit_after: float = 0.0, on_give_up: Callable[[], None] | None = None) -> None:
        self.exit_after = exit_after
        self.on_give_up = on_give_up
        self.down_since: float | None = None
        self.failures = 0
        self.gave_up = False
        self._said_long = False
        self._stale: set[int] = set()   # threads retrying at once after reopening a stale connection
        self._lock = threading.Lock()

    @property
    def down(self) -> bool:
        return self.down_since is not None

    def lost(self, exc: BaseException, who: str = "") -> float:
        """A round failed because of the database: reopen, log once, return the wait.

        A thread whose connection died in an outage it slept through (or in a terminated
        backend) finds a fresh connection working at once: that is no outage, and the
        round is tried again at once, once (until the thread's next success: a database
        that answers but keeps failing the round, SQLite locked by another program say,
        is an outage)."""
        reopen()
        now = time.monotonic()
        thread = threading.get_ident()
        if thread not in self._stale and answers():
            self._stale.add(thread)
            log.debug("database: reopened the connection of %s (%s)", who or "-", first_line(exc))
            return 0.05
        with self._lock:
            if self.down_since is None:
                self.down_since, self.failures, self._said_long = now, 0, False
                log.warning("database: unreachable (%s)%s; pbp tries again every few seconds and says "
                            "when it is back", first_line(exc), f" in {who}" if who else "")
            self.failures += 1
            away = now - self.down_since
            if away >= LONG_SECONDS and not self._said_long:
                self._said_long = True
                log.error("database: still unreachable after %.0f s (%s); posts wait in the mailbox, "
                          "replies in the outbox", away, first_line(exc))
            log.debug("database: failure %d in %s: %s", self.failures, who or "-", exc)
            if self.exit_after and away >= self.exit_after and not self.gave_up:
                self.gave_up = True
                log.error("database: unreachable for %.0f s ([daemon] database_down_exit_seconds = %g); "
                          "exiting with status %d for the supervisor to restart pbp",
                          away, self.exit_after, EXIT_DATABASE_DOWN)
                if self.on_give_up is not None:
                    self.on_give_up()
            return RETRY_SECONDS[min(self.failures - 1, len(RETRY_SECONDS) - 1)]

    def working(self) -> None:
        """A round used the database and succeeded: log the recovery once."""
        self._stale.discard(threading.get_ident())
        if self.down_since is None:
            return
        with self._lock:
            if self.down_since is None:
                return
            log.info("database: working again after %.1f s (%d failed attempts)",
                     time.monotonic() - self.down_since, self.failures)
            self.down_since, self.failures = None, 0

    def guard(self, job: Callable[[], object], who: str) -> Callable[[], object]:
        """A scheduled job that logs a known outage here instead of a traceback."""
        def guarded():
            try:
                result = job()
            except Exception as exc:
                if not is_outage(exc):
                    raise
                self.lost(exc, who)
                return None
            self.working()
            return result

        guarded.__name__ = getattr(job, "__name__", who)
        return guarded
