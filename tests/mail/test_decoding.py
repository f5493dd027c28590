"""Charset labels and format=flowed."""
from __future__ import annotations

import pytest

from pbp.mail.decoding import codec_for, decode_bytes, unflow


@pytest.mark.parametrize("label, codec", [
    ("UTF-8", "utf-8-sig"), ("utf8", "utf-8-sig"), ('"iso-8859-1"', "cp1252"), ("latin1", "cp1252"),
    ("gb2312", "gb18030"), ("ks_c_5601-1987", "cp949"), ("windows-1252", "cp1252"),
    ("us-ascii", None), ("x-unknown", None), ("x-klingon", None), ("base64", None), ("rot13", None),
    ("", None), (None, None),
])
def test_codec_for(label, codec):
    assert codec_for(label) == codec


def test_a_utf8_byte_order_mark_is_dropped():
    assert decode_bytes(b"\xef\xbb\xbf/roll 4dF", "utf-8") == "/roll 4dF"


def test_a_known_label_that_does_not_fit_keeps_its_reading():
    assert decode_bytes(b"\xa4\xa2\xff", "euc-jp") == "あ\ufffd"


def test_format_flowed_joins_soft_breaks():
    text = ("/attack Ghoul with Fight +invoke \"Deep Shadows\" \nfree\n\n"
            "> quoted and \n> flowed\n>> deeper\n From the stuffed line\n-- \nRuth\n")
    assert unflow(text) == ('/attack Ghoul with Fight +invoke "Deep Shadows" free\n\n'
                            "> quoted and flowed\n>> deeper\nFrom the stuffed line\n-- \nRuth\n")


def test_format_flowed_delsp():
    assert unflow("Hyphen-\nated and soft \nbreak", delsp=True) == "Hyphen-\nated and softbreak"
