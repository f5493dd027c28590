"""The one definition of text a user may type into a name, aspect, subject or address."""
import pytest

from pbp.textsafety import is_addr_spec, shorten, strip_invisible, unsafe_text


@pytest.mark.parametrize("text", ["a\r\nReply-To: x@y", "a\nb", "nul\0", "bell\x07", "tab\there",
                                  "rtl\u202eevil", "iso\u2066x", "zw\u200bsp", "bom\ufeff", "ls\u2028x"])
def test_refuses_control_bidi_and_zero_width(text):
    reason = unsafe_text(text, what="name")
    assert reason.startswith("name holds U+")
    assert "\n" not in reason and "\r" not in reason


@pytest.mark.parametrize("text", ["Afraid of Fire", "Café Über", "Ruth's \"Hair-Trigger\" Temper", "北京", "O'Malley"])
def test_keeps_ordinary_text(text):
    assert unsafe_text(text) == ""


def test_long_text_is_refused_without_echo():
    reason = unsafe_text("x" * 10_000)
    assert "10,000 characters" in reason and "xxxxxxxxxx" not in reason


@pytest.mark.parametrize("addr,ok", [
    ("ruth@example.org", True), ("r.u-t+h@mail.example.co.uk", True),
    ("mallory@x\r\nReply-To: evil@x", False), ("Ruth <ruth@example.org>", False), ("a b@x.org", False),
    ("ruth@", False), ("@x.org", False), ("ruth@-x.org", False), ("a@" + "x" * 300 + ".org", False), ("", False),
])
def test_addr_spec(addr, ok):
    assert is_addr_spec(addr) is ok


def test_strip_invisible_and_shorten():
    assert strip_invisible("\ufeff/ro\u200bll\u2060 Fi\u00adght\u200e") == "/roll Fight"
    assert shorten("abc", 5) == "abc" and len(shorten("x" * 100, 10)) == 10


def test_header_text_cleans_and_shortens():
    from pbp.textsafety import header_text

    assert header_text("The warehouse") == "The warehouse"
    assert header_text("a\r\nReply-To: x@y\u202e\0b  c") == "a Reply-To: x@y b c"
    assert len(header_text("x" * 5000, 200)) == 200


def test_is_msg_id_and_visible():
    from pbp.textsafety import is_msg_id, visible

    assert is_msg_id("abc.123@mail.example.org") and not is_msg_id("caf\u00e9@x")
    assert not is_msg_id("a b@x") and not is_msg_id("a>b@x") and not is_msg_id("x" * 251) and not is_msg_id("")
    assert visible("a\r\nb\u202e") == "a\\u000d\\u000ab\\u202e" and visible("Café") == "Café"
