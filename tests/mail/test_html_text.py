"""HTML bodies to text: layout kept as lines, every client's quoted part marked ``>``."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pbp.mail.html_text import html_to_text


def test_blocks_breaks_lists_and_entities():
    html = ("<html><head><title>Re: x</title><style>p {color: red}</style></head><body>"
            "<div>Ruth&nbsp;goes &amp; looks.</div><div><br></div><p>She   finds:</p>"
            "<ul><li>a crowbar</li><li>the caf&eacute;&#8217;s key</li></ul>"
            "<script>var x = '/attack Ghoul with Fight';</script>line<br>break</body></html>")
    assert html_to_text(html) == ("Ruth goes & looks.\n\nShe finds:\na crowbar\nthe café’s key\n"
                                  "line\nbreak")


def test_a_command_after_invisible_characters_is_still_a_command_line():
    assert html_to_text("<div>&nbsp;\u200b/roll 4dF</div><div>&#8203;/fp</div>") == "/roll 4dF\n/fp"


def test_outlook_empty_paragraphs_are_blank_lines():
    html = '<p class="MsoNormal">One<o:p></o:p></p><p class="MsoNormal"><o:p>&nbsp;</o:p></p><p>Two</p>'
    assert html_to_text(html) == "One\n\nTwo"


def test_pre_keeps_its_spaces():
    assert html_to_text("<pre>Fight  +2\n  Notice +1</pre>") == "Fight  +2\n  Notice +1"


def test_a_head_left_open_does_not_swallow_the_body():
    assert html_to_text("<html><head><meta charset=utf-8><div>/roll 4dF</div>") == "/roll 4dF"


@pytest.mark.parametrize("quote", [
    '<blockquote type="cite">{}</blockquote>',
    '<blockquote class="gmail_quote" style="margin:0 0 0 .8ex">{}</blockquote>',
    "<blockquote>{}</blockquote>",
    '<div class="gmail_quote"><div class="gmail_attr">On Mon, 3 Jun 2024 at 10:00, GM wrote:</div>{}</div>',
    '<div class="moz-cite-prefix">On 6/3/24 10:00 AM, GM wrote:<br></div><blockquote type="cite">{}</blockquote>',
    '<div class="ydp3f1a2b9cyahoo_quoted">{}</div>',
    '<div class="protonmail_quote">{}</div>',
], ids=["apple", "gmail-blockquote", "bare-blockquote", "gmail-div", "thunderbird", "yahoo", "proton"])
def test_quoted_parts_are_marked(quote):
    text = html_to_text("<div>/defend Athletics</div>" + quote.format("<div>/attack Ghoul with Fight</div>"))
    lines = text.split("\n")
    assert lines[0] == "/defend Athletics"
    assert all(line.startswith(">") for line in lines[1:]) and "> /attack Ghoul with Fight" in "\n".join(lines)


@pytest.mark.parametrize("header", [
    '<div id="appendonsend"></div><hr><div id="divRplyFwdMsg"><b>From:</b> GM<br><b>Sent:</b> Monday</div>',
    '<div id="x_divRplyFwdMsg"><b>From:</b> GM</div>',
    '<div style="border:none;border-top:solid #E1E1E1 1.0pt;padding:3.0pt 0cm 0cm 0cm">'
    '<p class="MsoNormal"><b>From:</b> GM</p></div>',
    '<div style="border:none; border-top:solid #B5C4DF 1.0pt">From: GM</div>',
], ids=["outlook-web", "outlook-web-nested", "outlook-desktop", "outlook-2010"])
def test_outlook_quotes_everything_after_its_reply_header(header):
    html = f"<div>/defend Athletics</div>{header}<div>Old body</div><p>/attack Ghoul with Fight</p>"
    lines = html_to_text(html).split("\n")
    assert lines[0] == "/defend Athletics" and all(line.startswith(">") for line in lines[1:])


def test_gmail_indent_is_not_a_quote():
    html = '<blockquote style="margin:0 0 0 40px;border:none;padding:0px"><div>/roll 4dF</div></blockquote>'
    assert html_to_text(html) == "/roll 4dF"


def test_nested_quotes_deepen():
    assert html_to_text("<blockquote>a<blockquote>b</blockquote>c</blockquote>") == "> a\n>> b\n> c"


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(
    st.sampled_from(["<div>", "</div>", "<p>", "<br>", "<blockquote>", "</blockquote>", "<pre>", "</pre>",
                     "<head>", "<style>", "</style>", "<![if !x]>", "<!--", "-->", "<!DOCTYPE", "&nbsp;", "&#",
                     "<div id=divRplyFwdMsg>", "</", "<", ">", "<li>", "</body>", "<![CDATA["]),
    st.text(max_size=20)), max_size=40))
def test_any_tag_soup_gives_text(pieces):
    assert isinstance(html_to_text("".join(pieces)), str)
