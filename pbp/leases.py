"""Several daemons on one PostgreSQL database: who watches which mailbox, who sends which reply.

* **A mailbox is watched by one daemon at a time**: its watcher holds a session-level
  advisory lock named after the mailbox (:meth:`Leases.hold`) on its own connection. When
  the holder dies (even by kill -9) PostgreSQL ends its session and drops the lock, and a
  watcher of another daemon that was standing by takes the mailbox over within
  :data:`STANDBY_SECONDS`.
* **An outbox reply is claimed once**: the sender locks the row it is about to send with
  ``FOR UPDATE SKIP LOCKED`` in a transaction that spans the send and the "sent" mark
  (:func:`claim`); other daemons skip it, and if the sender dies the transaction and
  the lock go with it.
* **Deadlines are applied by one daemon at a time**: the tick runs under a
  transaction-level advisory lock (:func:`exclusively`); a second daemon skips that round.
* **A campaign's changes are applied one at a time**: its posts come through one mailbox,
  so through one watcher, one after another; each post's transaction holds a shared lock
  and the deadline tick the exclusive one (:func:`campaign_writes`), so a deadline never
  interleaves with a post applied by another daemon.

With SQLite (one daemon) every lease is granted at once and nothing is locked here: the
daemon's own one-writer lock already orders everything.
"""
from __future__ import annotations

import hashlib
from contextlib import contextmanager

from pbp.store import models as m

#: How often a daemon that does not hold a mailbox tries to take it over.
STANDBY_SECONDS = 2.0


def shared() -> bool:
    """True when the database can be shared by several daemons (PostgreSQL)."""
    from peewee import PostgresqlDatabase

    return isinstance(m.db.obj, PostgresqlDatabase)


def lock_key(name: str) -> int:
    """A stable signed 64-bit key for ``pg_advisory_lock`` from a name."""
    return int.from_bytes(hashlib.blake2b(f"pbp:{name}".encode(), digest_size=8).digest(), "big", signed=True)


class Leases:
    """The session-level leases one thread holds (a watcher's mailbox)."""

    def __init__(self) -> None:
        self.enabled = shared()
        self.held: set[str] = set()

    def hold(self, name: str) -> bool:
        """Take or keep the lease ``name``; False while another daemon holds it."""
        if not self.enabled:
            return True
        if name in self.held:
            return True
        got = m.db.execute_sql("SELECT pg_try_advisory_lock(%s)", (lock_key(name),)).fetchone()[0]
        if got:
            self.held.add(name)
        return bool(got)

    def forget(self) -> None:
        """After a database error the session may be gone, and its leases with it: ask again."""
        self.held.clear()


@contextmanager
def exclusively(name: str):
    """A transaction in which only this daemon does ``name``; yields False if another does."""
    if not shared():
        yield True
        return
    with m.db.atomic():
        yield bool(m.db.execute_sql("SELECT pg_try_advisory_xact_lock(%s)", (lock_key(name),)).fetchone()[0])


@contextmanager
def claim(row: m.OutboxMail):
    """Claim one due outbox reply for the time of its send: yields the row, locked, or None
    when another daemon holds it or has sent it meanwhile.

    The claim's transaction ends with the reply's sent mark, and its commit is the window in
    which a kill sends the reply again: it commits without waiting for the WAL's flush
    (``synchronous_commit off``, this transaction only). A kill of pbp loses nothing the
    server has taken; only a crash of PostgreSQL itself in the next fraction of a second
    could lose the mark (the reply is then sent again once, as after a power cut on SQLite)."""
    if not shared():
        yield row
        return
    with m.db.atomic():
        m.db.execute_sql("SET LOCAL synchronous_commit TO OFF")
        yield (m.OutboxMail.select()
               .where((m.OutboxMail.id == row.id) & (m.OutboxMail.status == "pending"))
               .for_update("FOR UPDATE SKIP LOCKED").first())


@contextmanager
def campaign_writes(*, exclusive: bool = False):
    """A transaction in which campaign state may change: posts share it (they do not wait
    for each other), the deadline tick takes it alone for the few milliseconds it needs."""
    if not shared():
        yield
        return
    function = "pg_advisory_xact_lock" if exclusive else "pg_advisory_xact_lock_shared"
    with m.db.atomic():
        m.db.execute_sql(f"SELECT {function}(%s)", (lock_key("campaign-writes"),))
        yield
