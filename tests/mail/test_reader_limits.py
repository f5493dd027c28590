"""Issue 8, item 6 from the player's side: limits before work. A post over the size limit
is answered from its headers alone, its body never decoded; MIME nested beyond a sane
depth is refused with a reply, the headers kept; HTML to text stays linear."""
from __future__ import annotations

import time
from dataclasses import replace

import pytest

from pbp.config import Limits
from pbp.mail.html_text import html_to_text
from pbp.mail.reading import MAX_DEPTH, read_message
from pbp.mail.adapter import read_mail as read_within_limits
from pbp.pipeline import process_message
from pbp.store import models as m
from tests.helpers import eml, make_ctx
from tests.test_pipeline import reply_text, snapshot_db


def nested(depth: int, message_id: str) -> bytes:
    head = "".join(f'Content-Type: multipart/mixed; boundary="b{i}"\n\n--b{i}\n' for i in range(depth))
    tail = "".join(f"\n--b{i}--\n" for i in reversed(range(depth)))
    return (f"From: Ruth <ruth@pbp.localhost>\nTo: table+chicago@pbp.localhost\nSubject: Deep\n"
            f"Message-ID: <{message_id}>\nDate: Sun, 29 Nov 2026 18:00:00 +0000\nMIME-Version: 1.0\n"
            f"{head}Content-Type: text/plain\n\n/roll 4dF\n{tail}").encode()


def test_an_oversized_post_is_refused_from_its_headers(chicago, config):
    small = replace(config, limits=Limits(max_message_bytes=2_000, max_commands=20))
    raw = eml("/roll 4dF\n" + "word " * 1_000, message_id="big@pbp.test")
    before = snapshot_db()
    out = process_message(raw, make_ctx(small, "0000"))
    assert out.status == "rejected" and out.message_id == "big@pbp.test"
    assert out.replies[0]["to"] == ["ruth@pbp.localhost"]
    text = reply_text(out)
    assert f"the message is {len(raw):,} bytes; this table accepts at most 2,000" in text
    assert "example:  /overcome Athletics vs Fair" in text
    assert snapshot_db() == before


def test_the_size_is_checked_on_the_raw_bytes_before_any_decoding(config):
    small = replace(config, limits=Limits(max_message_bytes=2_000, max_commands=20))
    raw = eml("/roll 4dF\n" + "word " * 1_000)
    mail = read_within_limits(raw, small)
    assert mail.body == "" and mail.new_text == "" and mail.unread
    assert mail.from_addr == "ruth@pbp.localhost" and mail.message_id == "post-1@pbp.test"
    # a size the mailbox reported for headers fetched alone counts too
    assert read_within_limits(raw[:300], small, size=len(raw)).unread
    assert not read_within_limits(raw[:300], small).unread


@pytest.mark.parametrize("depth", [MAX_DEPTH + 5, 200, 950, 3000])
def test_mime_nested_too_deep_is_refused_with_a_reply_and_the_headers_kept(chicago, config, depth):
    raw = nested(depth, f"deep-{depth}@pbp.test")
    mail = read_message(raw)
    assert (mail.from_addr, mail.from_name, mail.subject) == ("ruth@pbp.localhost", "Ruth", "Deep")
    assert mail.message_id == f"deep-{depth}@pbp.test"
    before = snapshot_db()
    out = process_message(raw, make_ctx(config, "0000"))
    assert out.status == "rejected" and out.replies[0]["to"] == ["ruth@pbp.localhost"]
    assert f"nested more than {MAX_DEPTH} levels deep" in reply_text(out)
    assert snapshot_db() == before


def test_mime_within_the_depth_is_read(chicago, config):
    out = process_message(nested(MAX_DEPTH - 2, "fine@pbp.test"), make_ctx(config, "0000"))
    assert out.status == "applied" and len(out.results) == 1


@pytest.mark.parametrize("unit", [
    "<p>Ruth keeps to the <b>shadows</b> &amp; looks.<br>Next</p>\n",
    "<div>x ", "<blockquote>q ", "a < b ", "<!-- c ", "<a href='x", "<span class=gmail_quote>s</span>",
])
def test_html_to_text_grows_linearly(unit):
    """A generous guard, not a speed test (benchmarks/throughput.py times the 5 MB mail):
    eight times the input may take at most about twenty-four times as long (a busy machine's
    noise), where a quadratic case takes sixty-four."""
    def took(n):
        html = unit * (n // len(unit))
        start = time.process_time()
        html_to_text(html)
        return time.process_time() - start

    small = min(took(40_000) for _ in range(3))
    large = min(took(320_000) for _ in range(2))
    assert large < 24 * small + 0.1, (small, large)


def test_deep_html_quotes_keep_their_marks_bounded():
    text = html_to_text("<blockquote>" * 5_000 + "/attack Ghoul" + "</blockquote>" * 5_000 + "<p>/roll 4dF</p>")
    assert text.splitlines()[-1] == "/roll 4dF"
    assert text.startswith(">" * 20 + " /attack Ghoul")
