"""Keeping the database from growing with every reply ever sent.

Most of a campaign's growth is the raw MIME of its replies in the outbox (a plain-text
and an HTML version of each). What later work needs from a sent reply is its headers
(threading a deadline's result into the conversation, :func:`pbp.pipeline._thread_of`) and
its plain text (answering a resent copy of a post with the original result); the dice
ledger lives in its own table and is never touched. So after ``[daemon]
compact_sent_after_days`` a sent reply keeps its headers and its text and loses the rest.
"""
from __future__ import annotations

import email
from datetime import datetime, timedelta
from email import policy
from email.message import EmailMessage

from pbp.store import models as m

BATCH = 500


def plain_only(raw: str) -> str:
    """The message with its headers and its text/plain body only (unchanged if it has no
    other part)."""
    msg = email.message_from_string(raw, policy=policy.default)
    if not msg.is_multipart():
        return raw
    part = msg.get_body(("plain",))
    if part is None:
        return raw
    out = EmailMessage(policy=policy.default)
    for key, value in msg.items():
        if key.lower() not in ("content-type", "content-transfer-encoding", "mime-version"):
            out[key] = value
    flowed = (part.get_param("format") or "").lower() == "flowed"   # pbp's replies are (pbp.render.flow)
    out.set_content(part.get_content(), params={"format": "flowed"} if flowed else None)
    return out.as_string()


def compact_sent(now: datetime, days: float, limit: int = BATCH) -> int:
    """Compact up to ``limit`` replies sent more than ``days`` ago; returns how many."""
    if days <= 0:
        return 0
    rows = list(m.OutboxMail.select(m.OutboxMail.id, m.OutboxMail.raw)
                .where((m.OutboxMail.status == "sent") & (m.OutboxMail.sent_at < now - timedelta(days=days))
                       & m.OutboxMail.raw.contains("multipart/")).limit(limit))
    with m.db.atomic():
        for row in rows:
            m.OutboxMail.update(raw=plain_only(row.raw)).where(m.OutboxMail.id == row.id).execute()
    return len(rows)
