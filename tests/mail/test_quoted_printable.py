"""pbp's quoted-printable writer (issue 23) against the standard library's, character for character."""
from __future__ import annotations

from email.quoprimime import body_encode

from hypothesis import given, settings
from hypothesis import strategies as st

from pbp.mail.compose import quoted_printable

# what a reply's parts are made of: lines near the 76-character limit, whitespace at line
# ends, "=" next to a break, UTF-8 bytes (as latin-1), control characters and every line end
PIECES = st.sampled_from(["a", " ", "\t", "=", "\n", "\r\n", "\r", "\u00c3\u00a9", "\x00", "\x0b", "\x85", "~",
                          "x" * 73, "y" * 74, "z" * 75, "w" * 76, "<p style=\"a\">"])


@settings(max_examples=2000)
@given(st.lists(PIECES, max_size=14).map("".join))
def test_the_same_as_the_standard_library(body):
    assert quoted_printable(body) == body_encode(body, eol="\n")


def test_a_reply_line_with_a_space_at_the_limit():
    """The case a plain b2a_qp gets wrong (a 78-character line): a space in column 76."""
    line = "x" * 75 + " \n"
    assert quoted_printable(line) == body_encode(line, eol="\n") == "x" * 75 + "=\n=20\n"
