"""Replies as mail: the hand-written MIME must read back exactly with the standard parser."""
from __future__ import annotations

import email
from email import policy

from pbp.render import mime_alternative, reply_subject


def test_mime_alternative_round_trips_non_ascii_text_and_html():
    text = "Ruth · Fantástico (+6) — “On Fire” ✓\n" + "a long line " * 20 + "\n=equals= and trailing space \n"
    html = "<p>Ruth · “On Fire” ✓</p>"
    raw = mime_alternative([("From", "t@x"), ("Subject", "s")], text, html)
    assert raw.isascii()
    msg = email.message_from_string(raw, policy=policy.default)
    assert msg.get_content_type() == "multipart/alternative"
    assert msg.get_body(("plain",)).get_content() == text
    assert msg.get_body(("html",)).get_content().rstrip("\n") == html
    assert all(len(line) <= 78 for line in raw.splitlines())


def test_reply_subject_keeps_one_re_and_one_tag():
    assert reply_subject("The warehouse", "Chicago Nights") == "Re: [Chicago Nights] The warehouse"
    assert reply_subject("Re: RE: [Chicago Nights] The warehouse", "Chicago Nights") == "Re: [Chicago Nights] The warehouse"
    assert reply_subject("AW: Sv: hello", "X") == "Re: [X] hello"
