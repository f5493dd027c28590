"""Keeping the database from growing with every reply ever sent.

Most of a campaign's growth is the raw MIME of its replies in the outbox (a plain-text
and an HTML version of each). What later work needs from a sent reply is its headers
(threading a deadline's result into the conversation, :func:`pbp.pipeline._thread_of`) and
its plain text (answering a resent copy of a post with the original result); the dice
ledger lives in its own table and is never touched. So after ``[daemon]
compact_sent_after_days`` a sent reply keeps its headers and its text and loses the rest.

Each reply is looked at once: the result carries a :data:`MARK` header (``X-Pbp-Compacted``
with the time), and replies that have it are not picked again. A multipart reply without a
text/plain part has nothing that could stand for it, so it is kept whole and only marked;
so is a reply already single-part whose text mentions "multipart/" (compacted by an older pbp).
Without the mark these were picked, left as they were, and picked again every hour, and
enough of them would fill every batch and stop the compaction of the others.
"""
from __future__ import annotations

import email
import email.utils
from datetime import datetime, timedelta, timezone
from email import policy
from email.message import EmailMessage

from pbp.store import models as m

BATCH = 500
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
    out.set_content(part.get_content(), params={"format": "flowed"} if flowed else None)
    return out.as_string()


def _stamp(when: datetime) -> str:
    return email.utils.format_datetime(when if when.tzinfo else when.replace(tzinfo=timezone.utc))


def compact_sent(now: datetime, days: float, limit: int = BATCH) -> int:
    """Compact up to ``limit`` replies sent more than ``days`` ago and not yet looked at;
    returns how many were looked at (each is marked, so none is taken twice)."""
    if days <= 0:
        return 0
    rows = list(m.OutboxMail.select(m.OutboxMail.id, m.OutboxMail.raw)
                .where((m.OutboxMail.status == "sent") & (m.OutboxMail.sent_at < now - timedelta(days=days))
                       & m.OutboxMail.raw.contains("multipart/") & ~m.OutboxMail.raw.contains(f"{MARK}:"))
                .order_by(m.OutboxMail.id).limit(limit))
    with m.db.atomic():
        for row in rows:
            m.OutboxMail.update(raw=plain_only(row.raw, now)).where(m.OutboxMail.id == row.id).execute()
    return len(rows)
