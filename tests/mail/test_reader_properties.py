"""Issue 8, item 5's property: over random mails and random attribution lines, a command in
the author's new text is found exactly once and a command in the quoted older mail never
is. The mails go through the whole reader (MIME, HTML where chosen, trimming) and the
command finder the pipeline uses."""
from __future__ import annotations

import pytest

import html

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pbp.mail.reading import read_message
from pbp.parser import find_commands
from tests.mail.test_reader_posts import ATTRIBUTIONS, PROSE

NEW = "/overcome Athletics vs Fair"
OLD = "/attack Ghoul with Fight"

# no "wrote": a line "at 2024 wrote" is an attribution by design, whoever typed it
_WORDS = st.sampled_from("Ruth Charles ghoul dock 12 2024 at on On the @ruth x@y.org 10:00 Am Le Den , . ! said".split())
# a line of punctuation alone ("--", ",") is a signature delimiter, not prose
_PROSE_LINE = st.one_of(st.sampled_from(PROSE), st.just(""),
                        st.lists(_WORDS, min_size=1, max_size=8).map(" ".join).filter(lambda s: any(map(str.isalnum, s))))
_QUOTED = st.sampled_from(["> {}", ">{}", "> > {}", "\t{}"])
_FOOTER = st.sampled_from(["", "\nSent from my iPhone\n", "\n-- \nRuth\n", "\nGet Outlook for iOS\n"])


@st.composite
def mails(draw):
    above = draw(st.lists(_PROSE_LINE, max_size=4))
    below = draw(st.lists(_PROSE_LINE, max_size=3))
    new_text = [*above, NEW, *below]
    attribution = draw(st.sampled_from(sorted(ATTRIBUTIONS.values())))
    gap = draw(st.sampled_from(["", "\n"]))
    quoted = draw(_QUOTED)
    old = [draw(st.sampled_from(PROSE)) or "The ghoul lunges.", OLD, "The end."]
    old_lines = [quoted.format(line) for line in old]
    footer = draw(_FOOTER)
    body = "\n".join(new_text) + "\n" + footer + gap + attribution + "\n" + "\n".join(old_lines) + "\n"
    as_html = draw(st.booleans()) and not quoted.startswith("\t")
    return body, as_html, attribution, old


def _raw(body: str, as_html: bool, attribution: str, old: list[str]) -> bytes:
    head = ("From: ruth@pbp.localhost\nTo: table+chicago@pbp.localhost\nSubject: Re: The dock\n"
            "Message-ID: <prop@pbp.test>\nDate: Sun, 29 Nov 2026 18:00:00 +0000\nMIME-Version: 1.0\n")
    if not as_html:
        return (head + "Content-Type: text/plain; charset=utf-8\n\n" + body).encode()
    new = body.split(attribution, 1)[0]
    doc = ("<html><body>" + "".join(f"<div>{html.escape(line) or '<br>'}</div>" for line in new.split("\n"))
           + f'<div class="gmail_quote"><div>{html.escape(attribution)}</div><blockquote class="gmail_quote">'
           + "".join(f"<div>{html.escape(line)}</div>" for line in old) + "</blockquote></div></body></html>")
    return (head + "Content-Type: text/html; charset=utf-8\n\n" + doc).encode()


@pytest.mark.slow
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mails())
def test_the_new_command_is_found_once_and_the_quoted_one_never(mail):
    body, as_html, attribution, old = mail
    found = [line for _, line in find_commands(read_message(_raw(body, as_html, attribution, old)).new_text)]
    assert found == [NEW], body
