"""Keeping the database from growing with every reply ever sent.

Most of a campaign's growth is the raw MIME of its replies in the outbox (a plain-text
and an HTML version of each). What later work needs from a sent reply is its headers
(threading a deadline's result into the conversation, :func:`pbp.flow.deadlines.thread_of`) and
its plain text (answering a resent copy of a post with the original result); the dice
ledger lives in its own table and is never touched. So after ``[daemon]
compact_sent_after_days`` a sent reply keeps its headers and its text and loses the rest;
by default (``[daemon] compact_at_send``) the sender does so already in the write that marks
it sent (:func:`pbp.delivery.mark_sent`, with :func:`compact`), and the retention is left the
replies marked otherwise (an older pbp, a sent mark replayed after a crash).

Each reply is looked at once: the result carries a :data:`MARK` header (``X-Pbp-Compacted``
with the time), and replies that have it are not picked again. A multipart reply without a
text/plain part has nothing that could stand for it, so it is kept whole and only marked;
so is a reply already single-part whose text mentions "multipart/" (compacted by an older pbp).
Without the mark these were picked, left as they were, and picked again every hour, and
enough of them would fill every batch and stop the compaction of the others. A reply looked
at also has ``compacted`` set (schema 11): the next batch is found by that indexed column,
not by reading every reply's text.

Issue 23: compaction costs play nothing. pbp's own replies (:func:`pbp.mail.compose.mime_alternative`)
are cut with string operations (:func:`_plain_of_ours`; about a twentieth of a post's CPU),
anything else goes through the ``email`` package; the kept text stays quoted-printable
(about its own size: replies are mostly ASCII), not base64.
The daemon compacts in batches of :data:`DAEMON_BATCH`, working out each batch outside its
database lock and taking the lock only to write it (:func:`compact_sent`'s ``lock``), so a
post waits at most for one small write; on SQLite it gives the freed pages back with
``PRAGMA incremental_vacuum`` (docs/operating.md, "Retention").
"""
from __future__ import annotations

import email
import email.utils
import re
from contextlib import nullcontext
from datetime import datetime, timedelta, timezone
from email import policy
from email.message import EmailMessage

from peewee import SqliteDatabase

from pbp.store import models as m

BATCH = 500
#: The daemon's batch: what it writes under its lock at once (a post waits at most for it).
DAEMON_BATCH = 50
#: The header a reply gets when it is compacted (or looked at and kept whole); it is not looked at again.
MARK = "X-Pbp-Compacted"


def plain_only(raw: str, when: datetime | None = None) -> str:
    """The message with its headers and its text/plain body only (unchanged if it has no
    other part, or no text/plain part). ``when``: add the :data:`MARK` header with that time,
    also to a message otherwise unchanged."""
    msg = email.message_from_string(raw, policy=policy.default)
    part = msg.get_body(("plain",)) if msg.is_multipart() else None
    if part is None:
        return raw if when is None or msg[MARK] is not None else f"{MARK}: {_stamp(when)}\n{raw}"
    out = EmailMessage(policy=policy.default)
    for key, value in msg.items():
        if key.lower() not in ("content-type", "content-transfer-encoding", "mime-version"):
            out[key] = value
    if when is not None and out[MARK] is None:
        out[MARK] = _stamp(when)
    flowed = (part.get_param("format") or "").lower() == "flowed"   # pbp's replies are (pbp.render.flow)
    out.set_content(part.get_content(), params={"format": "flowed"} if flowed else None, cte="quoted-printable")
    return out.as_string()


_BOUNDARY = re.compile(r'boundary="([^"]+)"')
_DROPPED = ("content-type:", "content-transfer-encoding:", "mime-version:")


def _plain_of_ours(raw: str, when: datetime | None) -> str | None:
    """:func:`plain_only` for a reply pbp wrote (:func:`pbp.mail.compose.mime_alternative`:
    ``\n`` line ends, a quoted boundary, the text/plain part first and quoted-printable),
    by string operations: the headers, then the text part as it is; None for anything else
    (the ``email`` package's turn)."""
    head, sep, body = raw.partition("\n\n")
    if not sep or "\r" in head or f"\n{MARK}:" in f"\n{head}":
        return None
    headers: list[str] = []
    for line in head.split("\n"):
        if line[:1] in (" ", "\t") and headers:
            headers[-1] += "\n" + line
        else:
            headers.append(line)
    ctype = next((h for h in headers if h.lower().startswith("content-type:")), "")
    found = _BOUNDARY.search(ctype)
    if "multipart/alternative" not in ctype.lower() or found is None:
        return None
    delimiter = f"\n--{found.group(1)}\n"
    first = body.find(delimiter)
    if first < 0:
        return None
    start = first + len(delimiter)
    end = body.find(f"\n--{found.group(1)}", start)
    part_head, sep, encoded = body[start:end].partition("\n\n")
    lowered = part_head.lower()
    if end < 0 or not sep or not lowered.startswith("content-type: text/plain;") \
            or "content-transfer-encoding: quoted-printable" not in lowered or 'charset="utf-8"' not in lowered:
        return None
    kept = [h for h in headers if not h.lower().startswith(_DROPPED)]
    if when is not None:
        kept.append(f"{MARK}: {_stamp(when)}")
    kept += [part_head, "MIME-Version: 1.0"]     # the text part's own headers, its text as it was encoded
    return "\n".join(kept) + "\n\n" + encoded.rstrip("\n") + "\n"


def compact(raw: str, when: datetime | None = None) -> str:
    """A sent reply as retention keeps it: pbp's own by :func:`_plain_of_ours`, any other
    by :func:`plain_only`."""
    fast = _plain_of_ours(raw, when)
    return fast if fast is not None else plain_only(raw, when)


def _stamp(when: datetime) -> str:
    return email.utils.format_datetime(when if when.tzinfo else when.replace(tzinfo=timezone.utc))


def compact_sent(now: datetime, days: float, limit: int = BATCH, *, lock=None) -> int:
    """Compact up to ``limit`` replies sent more than ``days`` ago and not yet looked at;
    returns how many were looked at (each is marked, so none is taken twice). The new
    texts are made before ``lock`` (the daemon's database lock) is taken; under it only
    the batch's writes, in one transaction."""
    if days <= 0:
        return 0
    rows = list(m.OutboxMail.select(m.OutboxMail.id, m.OutboxMail.raw)
                .where((m.OutboxMail.compacted == False) & (m.OutboxMail.status == "sent")  # noqa: E712
                       & (m.OutboxMail.sent_at < now - timedelta(days=days)))
                .order_by(m.OutboxMail.id).limit(limit))
    new = [(row.id, compact(row.raw, now) if "multipart/" in row.raw else None) for row in rows]
    with lock or nullcontext(), m.db.atomic():
        for row_id, raw in new:
            query = m.OutboxMail.update(compacted=True) if raw is None else m.OutboxMail.update(raw=raw, compacted=True)
            query.where(m.OutboxMail.id == row_id).execute()
    return len(rows)


def give_back_space(lock=None, pages: int = 2000) -> None:
    """SQLite: return up to ``pages`` free pages to the file system (``PRAGMA
    incremental_vacuum``; a database made with ``auto_vacuum = INCREMENTAL``, as pbp makes
    new ones, docs/operating.md). PostgreSQL's autovacuum reuses the space by itself."""
    if isinstance(m.db.obj, SqliteDatabase):
        with lock or nullcontext():
            m.db.execute_sql(f"PRAGMA incremental_vacuum({int(pages)})").fetchall()
