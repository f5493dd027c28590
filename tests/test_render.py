"""Replies as mail: the hand-written MIME must read back exactly with the standard parser."""
from __future__ import annotations

import email
from email import policy

from hypothesis import given
from hypothesis import strategies as st

from pbp.mail.decoding import unflow
from pbp.render import flow, mime_alternative, reply_subject
from tests.helpers import plain_text


def test_mime_alternative_round_trips_non_ascii_text_and_html():
    text = "Ruth · Fantástico (+6) — “On Fire” ✓\n" + ("a long line " * 20).rstrip() + "\n=equals= and  two spaces\n"
    html = "<p>Ruth · “On Fire” ✓</p>"
    raw = mime_alternative([("From", "t@x"), ("Subject", "s")], text, html)
    assert raw.isascii()
    msg = email.message_from_string(raw, policy=policy.default)
    assert msg.get_content_type() == "multipart/alternative"
    assert plain_text(msg) == text
    assert msg.get_body(("html",)).get_content().rstrip("\n") == html
    assert all(len(line) <= 78 for line in raw.splitlines())


def test_reply_subject_keeps_one_re_and_one_tag():
    assert reply_subject("The warehouse", "Chicago Nights") == "Re: [Chicago Nights] The warehouse"
    assert reply_subject("Re: RE: [Chicago Nights] The warehouse", "Chicago Nights") == "Re: [Chicago Nights] The warehouse"
    assert reply_subject("AW: Sv: hello", "X") == "Re: [X] hello"


@given(st.lists(st.text(st.sampled_from(" ab>F-·"), max_size=200).map(str.rstrip), max_size=6))
def test_flowed_text_gives_back_its_lines_and_keeps_within_78(lines):
    """Any tidy text (no line ends in a space) sent format=flowed reads back exactly, and
    only a word longer than a line may make a line longer than 78 characters."""
    text = "\n".join(lines)
    wire = flow(text)
    assert unflow(wire) == text
    assert all(len(line) <= 78 or " " not in line[1:-1] for line in wire.split("\n"))


def test_a_notes_nested_lines_keep_their_nesting_in_html():
    """/table's note nests a scene's zones and the list of aspects under their titles by
    leading spaces; the HTML keeps that as indentation (white-space: pre-line dropped it)."""
    from pbp.render import indented
    note = ('Scene 1: "Cellar".\n    Zones: Stairs · Vault.\n  Aspects in play:\n    "Deep Shadows" on the scene'
            '\n\n  No conflict is going on.')
    assert indented(note) == [(0.0, 'Scene 1: "Cellar".'), (1.2, "Zones: Stairs · Vault."), (0.0, "Aspects in play:"),
                              (1.2, '"Deep Shadows" on the scene'), (-1.0, ""), (0.0, "No conflict is going on.")]
    assert indented("one line") == [(0.0, "one line")]


def test_text_templates_do_not_break_lines_mid_sentence():
    """issue 27: "the table's mail of this / post left out": a line break written in a text
    template is a hard break in the mail (format=flowed wraps long lines softly, on the
    reader's screen), so a sentence is one line of the template."""
    import re as _re
    from pathlib import Path as _Path

    broken = []
    for path in sorted((_Path(__file__).parent.parent / "templates").glob("*.txt.j2")):
        lines = path.read_text(encoding="utf-8").split("\n")
        for n, (line, after) in enumerate(zip(lines, lines[1:]), start=1):
            prose = [x for x in (line, after) if x and not x.startswith(("{%", "{#", " "))]
            if len(prose) == 2 and not _re.search(r"[.:!?]$|}}$|%}$", line):
                broken.append(f"{path.name}:{n}: {line} / {after}")
    assert not broken, broken
