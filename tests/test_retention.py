"""Sent replies compacted after the retention keep what later work needs: their headers
(a deadline's result threads under them) and their text (a resent post is answered with
it); the HTML half goes, and the dice ledger is untouched."""
from __future__ import annotations

import email
from datetime import timedelta
from email import policy

from pbp.flow.deadlines import apply_deadlines
from pbp.pipeline import process_message
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


HTML_ONLY = """From: Chicago Nights <table+chicago@pbp.localhost>
To: ruth@pbp.localhost
Subject: Re: [Chicago Nights] The warehouse
Message-ID: <html-only@pbp.localhost>
MIME-Version: 1.0
Content-Type: multipart/mixed; boundary="b1"

--b1
Content-Type: text/html; charset="utf-8"

<p>Ruth rolls Investigate.</p>
--b1--
"""

MENTIONS_MULTIPART = """From: Chicago Nights <table+chicago@pbp.localhost>
To: ruth@pbp.localhost
Subject: Re: [Chicago Nights] The warehouse
Message-ID: <single@pbp.localhost>
Content-Type: text/plain; charset="utf-8"

line 3, "Content-Type: multipart/mixed", was not read as a command
"""


def _outbox(raw: str, message_id: str) -> m.OutboxMail:
    return m.OutboxMail.create(message_id=message_id, sender="table+chicago@pbp.localhost",
                               recipients=["ruth@pbp.localhost"], subject="Re: [Chicago Nights] The warehouse",
                               raw=raw, status="sent", sent_at=FIXED_NOW - timedelta(days=40))


def test_a_reply_with_nothing_to_compact_is_looked_at_once(chicago):
    """A multipart reply without a text/plain part is kept whole, marked, and not picked
    again (it used to be picked every hour, unchanged); so is a single-part reply whose text
    mentions "multipart/"."""
    html_only = _outbox(HTML_ONLY, "html-only@pbp.localhost")
    single = _outbox(MENTIONS_MULTIPART, "single@pbp.localhost")
    assert compact_sent(FIXED_NOW, days=30) == 2
    assert compact_sent(FIXED_NOW, days=30) == 0
    assert compact_sent(FIXED_NOW + timedelta(hours=1), days=30) == 0     # the next hour too
    kept = parsed(m.OutboxMail.get_by_id(html_only.id))
    assert kept["X-Pbp-Compacted"] and kept["Message-ID"] == "<html-only@pbp.localhost>"
    assert "Ruth rolls Investigate." in kept.get_body(("html",)).get_content()      # kept whole
    text = parsed(m.OutboxMail.get_by_id(single.id))
    assert text.get_content() == parsed(single).get_content() and text["X-Pbp-Compacted"]


def test_replies_that_cannot_be_compacted_do_not_fill_the_batch(chicago, config):
    out = process_message(eml("/overcome Investigate vs Fair\n"), make_ctx(config, "00++"))
    for n in range(3):
        _outbox(HTML_ONLY.replace("html-only@", f"html-only-{n}@"), f"html-only-{n}@pbp.localhost")
    sent_long_ago()
    rounds = [compact_sent(FIXED_NOW, days=30, limit=2) for _ in range(3)]
    assert rounds == [2, 2, 0]
    row = m.OutboxMail.get(m.OutboxMail.message_id == out.replies[0]["message_id"])
    assert parsed(row).get_body(("html",)) is None                   # the real reply was compacted


def test_a_batch_is_worked_out_before_the_lock_and_only_written_under_it(chicago, config, monkeypatch):
    """Issue 23: posts wait for the retention at most for one batch's writes: every reply
    of the batch is compacted before the daemon's lock is taken."""
    from pbp import retention

    for n in range(3):
        process_message(eml("/overcome Investigate vs Fair\n", message_id=f"lock-{n}@t"), make_ctx(config, "00++"))
    sent_long_ago()
    made = []
    compact = retention.compact
    monkeypatch.setattr(retention, "compact", lambda raw, when=None: made.append(1) or compact(raw, when))

    class Lock:
        held_after = None

        def __enter__(self):
            Lock.held_after = len(made)

        def __exit__(self, *exc):
            return False

    total = m.OutboxMail.select().count()
    assert compact_sent(FIXED_NOW, days=30, limit=2, lock=Lock()) == 2
    assert Lock.held_after == 2
    assert compact_sent(FIXED_NOW, days=30, limit=100, lock=Lock()) == total - 2
    assert compact_sent(FIXED_NOW, days=30, lock=Lock()) == 0


def test_pbp_s_own_replies_are_cut_without_the_email_package_and_read_the_same(chicago, config):
    from pbp.retention import _plain_of_ours, plain_only

    out = process_message(eml("/overcome Investigate vs Fair\n"), make_ctx(config, "00++"))
    raw = m.OutboxMail.get(m.OutboxMail.message_id == out.replies[0]["message_id"]).raw
    fast, slow = _plain_of_ours(raw, FIXED_NOW), plain_only(raw, FIXED_NOW)
    assert fast is not None and len(fast) < len(raw) * 0.6
    a, b = (email.message_from_string(x, policy=policy.default) for x in (fast, slow))
    assert plain_text(a) == plain_text(b)
    assert [(k, str(v)) for k, v in a.items() if k.lower() not in ("content-type", "content-transfer-encoding",
                                                                     "mime-version")] == \
        [(k, str(v)) for k, v in b.items() if k.lower() not in ("content-type", "content-transfer-encoding",
                                                                "mime-version")]
    assert _plain_of_ours(HTML_ONLY, FIXED_NOW) is None     # not pbp's shape: the email package's turn


def test_a_reply_is_compacted_as_it_is_sent(chicago, config, tmp_path):
    """``[daemon] compact_at_send`` (the default, issue 23): the outbox keeps a sent reply's
    headers and text from the write that marks it sent; the mail that went out had both parts."""
    from pbp.delivery import deliver_outbox

    out = process_message(eml("/overcome Investigate vs Fair\n"), make_ctx(config, "00++"))
    row = m.OutboxMail.get(m.OutboxMail.message_id == out.replies[0]["message_id"])
    before = parsed(row)
    assert config.compact_at_send and before.get_body(("html",)) is not None
    assert deliver_outbox(config) == 1
    sent = m.OutboxMail.get_by_id(row.id)
    assert sent.status == "sent" and sent.compacted
    after = parsed(sent)
    assert after.get_body(("html",)) is None and plain_text(after) == plain_text(before)
    for header in ("Message-ID", "In-Reply-To", "References", "Subject", "From", "To"):
        assert after[header] == before[header], header
    delivered = [p for p in (tmp_path / "out").rglob("*") if p.is_file()]
    assert len(delivered) == 1
    mail = email.message_from_bytes(delivered[0].read_bytes(), policy=policy.default)
    assert mail.get_body(("html",)) is not None           # the member got the whole reply
    assert compact_sent(m.utcnow() + timedelta(days=60), days=30) == 0   # nothing left for the retention


def test_compact_at_send_false_keeps_the_whole_reply_until_the_retention(chicago, tmp_path):
    from pbp.config import config_from_dict
    from pbp.delivery import deliver_outbox

    config = config_from_dict({"database": {"url": f"sqlite:///{tmp_path / 'pbp.db'}"},
                               "mail": {"domain": "pbp.test", "from_address": "table@pbp.test"},
                               "maildir": {"inbox": str(tmp_path / "in"), "outbox": str(tmp_path / "out")},
                               "daemon": {"compact_at_send": False}}, base=tmp_path)
    out = process_message(eml("/overcome Investigate vs Fair\n"), make_ctx(config, "00++"))
    assert deliver_outbox(config) == 1
    row = m.OutboxMail.get(m.OutboxMail.message_id == out.replies[0]["message_id"])
    assert row.status == "sent" and not row.compacted and parsed(row).get_body(("html",)) is not None
