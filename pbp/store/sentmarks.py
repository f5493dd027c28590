"""The sent mark that cannot wait: a reply the SMTP server accepted, noted in the same instant.

The outbox row is marked sent in the database right after the server's 250, but with SQLite
that write waits for the one writer (a post being applied holds it for its transaction),
tens of milliseconds in a burst: a kill in between sends the reply again at the next start.
So the sender first appends ``id message-id`` to a small file beside the database
(``pbp.db-sent``), one ``write`` with ``O_APPEND`` (microseconds, no lock), then marks the
row. Whatever is in the file at the next round or start is marked sent before anything is
sent (:meth:`SentMarks.replay`), and the file is emptied once the rows are marked.

A kill (even -9) keeps what was written (the kernel has it); a power cut may lose the last
lines as it may lose SQLite's last commits with ``synchronous = normal``. The window left is
from the server's 250 to the ``write``: the time to return from the SMTP library to pbp.

PostgreSQL needs none of it: the row is claimed for its send (``FOR UPDATE SKIP LOCKED``)
and marked in that transaction with no lock of pbp's in the way; its window is the commit.
"""
from __future__ import annotations

import logging
import os
from datetime import datetime
from pathlib import Path

from pbp.store import models as m

log = logging.getLogger("pbp.daemon")


class SentMarks:
    """The file of replies accepted by the server and maybe not yet marked in the database."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._fd: int | None = None

    @classmethod
    def for_database(cls) -> "SentMarks | None":
        """Beside an SQLite database file; None for PostgreSQL or an in-memory database."""
        from peewee import SqliteDatabase

        database = m.db.obj
        if not isinstance(database, SqliteDatabase) or database.database in ("", ":memory:"):
            return None
        return cls(Path(f"{database.database}-sent"))

    def accepted(self, row_id: int, message_id: str) -> None:
        """The server took this reply: note it before anything else happens."""
        if self._fd is None:
            self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        os.write(self._fd, f"{row_id} {message_id}\n".encode("utf-8", "replace"))

    def marked(self) -> None:
        """Every noted reply is marked sent in the database: empty the file."""
        if self._fd is not None:
            os.ftruncate(self._fd, 0)

    def replay(self, now: datetime) -> int:
        """Mark sent what a previous round noted and did not mark (it was killed, or the
        database was away); returns how many rows that marked."""
        try:
            if self.path.stat().st_size == 0:
                return 0
            text = self.path.read_text("utf-8", "replace")
        except FileNotFoundError:
            return 0
        noted = {}
        for line in text.splitlines():
            number, _, message_id = line.partition(" ")
            if number.isdigit() and message_id:
                noted[int(number)] = message_id
        marked = 0
        if noted:
            rows = (m.OutboxMail.select(m.OutboxMail.id, m.OutboxMail.message_id)
                    .where(m.OutboxMail.id.in_(list(noted)) & (m.OutboxMail.status == "pending")))
            same = [row.id for row in rows if noted[row.id] == row.message_id]   # not a row of another database
            if same:
                marked = (m.OutboxMail.update(status="sent", sent_at=now, attempts=m.OutboxMail.attempts + 1)
                          .where(m.OutboxMail.id.in_(same) & (m.OutboxMail.status == "pending")).execute())
        if marked:
            log.info("outbox: %d repl%s the server had accepted before pbp stopped marked sent, not sent again",
                     marked, "y" if marked == 1 else "ies")
        with open(self.path, "r+b") as handle:
            handle.truncate(0)
        return marked

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
