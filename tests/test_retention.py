"""Sent replies compacted after the retention keep what later work needs: their headers
(a deadline's result threads under them) and their text (a resent post is answered with
it); the HTML half goes, and the dice ledger is untouched."""
from __future__ import annotations

import email
from datetime import timedelta
from email import policy

from pbp.pipeline import apply_deadlines, process_message
from pbp.retention import compact_sent
from pbp.store import models as m
from tests.helpers import FIXED_NOW, eml, make_ctx, plain_text


def sent_long_ago(days: float = 40) -> None:
    m.OutboxMail.update(status="sent", sent_at=FIXED_NOW - timedelta(days=days)).execute()


def parsed(row):
    return email.message_from_string(row.raw, policy=policy.default)


def test_compacted_reply_keeps_headers_and_text_and_drops_html(chicago, config):
    out = process_message(eml("/overcome Investigate vs Fair\n"), make_ctx(config, "00++"))
    row = m.OutboxMail.get(m.OutboxMail.message_id == out.replies[0]["message_id"])
    before = parsed(row)
    assert before.get_body(("html",)) is not None
    sent_long_ago(days=10)
    assert compact_sent(FIXED_NOW, days=30) == 0         # not old enough yet
    sent_long_ago(days=40)
    assert compact_sent(FIXED_NOW, days=30) == 1
    assert compact_sent(FIXED_NOW, days=30) == 0         # once
    after = parsed(m.OutboxMail.get_by_id(row.id))
    assert len(m.OutboxMail.get_by_id(row.id).raw) < len(row.raw) * 0.7
    assert after.get_body(("html",)) is None
    assert plain_text(after) == plain_text(before)              # still format=flowed, still within 78
    for header in ("Message-ID", "In-Reply-To", "References", "Subject", "From", "To", "Auto-Submitted"):
        assert after[header] == before[header], header
    assert m.RollRecord.select().count() == 1
    assert compact_sent(FIXED_NOW, days=0) == 0          # 0 means never


def test_a_resent_post_is_still_answered_with_the_original_result_after_compaction(chicago, config):
    post = eml("/overcome Investigate vs Fair\n")
    process_message(post, make_ctx(config, "00++"))
    sent_long_ago()
    assert compact_sent(FIXED_NOW, days=30) == 1
    again = process_message(post, make_ctx(config, "----"))
    assert again.status == "duplicate" and m.RollRecord.select().count() == 1
    row = m.OutboxMail.get(m.OutboxMail.message_id == again.replies[0]["message_id"])
    text = plain_text(parsed(row))
    assert "already handled" in text and "[0] [0] [+] [+]" in text


def test_a_deadline_still_threads_under_a_compacted_mail(chicago, config):
    out = process_message(eml("/as Ghoul attack Ruth with Fight\n", sender="gm@pbp.localhost"), make_ctx(config, "00++"))
    asked = out.replies[0]["message_id"]
    sent_long_ago()
    assert compact_sent(FIXED_NOW, days=30) >= 1
    later = make_ctx(config, "0000")
    later.clock = lambda: FIXED_NOW + timedelta(hours=config.reaction_deadline_hours, minutes=1)
    assert apply_deadlines(later) == 1
    row = m.OutboxMail.select().order_by(m.OutboxMail.id.desc()).first()
    assert parsed(row)["In-Reply-To"] == f"<{asked}>"
