"""Whole mails as the clients send them: decoded headers, the chosen body, and only the
new command in the new text."""
from __future__ import annotations

import email
import email.policy
import time
from datetime import datetime, timezone
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pbp.mail.reading import Mail, read_message

from .datasets import command_lines

FIXTURES = Path(__file__).resolve().parent / "fixtures"
OLD = "/attack Ghoul with Fight"


def fixture(name: str) -> bytes:
    return (FIXTURES / name).read_bytes()


# name: (from_addr, from_name, subject, in_reply_to, references, new command, old command, html)
EXPECTED = {
    "gmail.eml": ("ruth.beaumont@gmail.com", "Ruth Beaumont", "Re: The warehouse — part 2",
                  "pbp.5f1c0e2a9b3d4e6f@pbp.localhost",
                  ["pbp.2b7e151628aed2a6@pbp.localhost", "pbp.5f1c0e2a9b3d4e6f@pbp.localhost"],
                  "/overcome Athletics vs Fair", OLD, False),
    "outlook.eml": ("charles.whitmore@outlook.com", "Charles Whitmore", "RE: Charles’ turn",
                    "pbp.77aa01c2d3e4f506@pbp.localhost", ["pbp.77aa01c2d3e4f506@pbp.localhost"],
                    "/overcome Investigate vs Good", OLD, True),
    "outlook_desktop.eml": ("ethan.park@contoso.com", "Ethan Park", "RE: The warehouse",
                            "pbp.1a2b3c4d@pbp.localhost", ["pbp.1a2b3c4d@pbp.localhost"],
                            '/attack Ghoul with Fight +invoke "Loose Floorboards" free',
                            "/overcome Investigate vs Fair", False),
    "apple_mail.eml": ("ethan.park@icloud.com", "Ethan Park", "Re: The warehouse",
                       "pbp.5f1c0e2a9b3d4e6f@pbp.localhost",
                       ["pbp.2b7e151628aed2a6@pbp.localhost", "pbp.5f1c0e2a9b3d4e6f@pbp.localhost"],
                       '/advantage Notice "Loose Floorboards" vs Fair', OLD, False),
    "thunderbird.eml": ("juergen.mueller@posteo.de", "Jürgen Müller", "Re: The warehouse",
                        "pbp.5f1c0e2a9b3d4e6f@pbp.localhost", ["pbp.5f1c0e2a9b3d4e6f@pbp.localhost"],
                        '/advantage Fight "Off Balance" on Ghoul vs Fair +invoke "Deep Shadows" free', OLD, False),
    "html_only.eml": ("grace@omalley.example", "Grace O'Malley", "Re: The warehouse",
                      "pbp.99@pbp.localhost", ["pbp.99@pbp.localhost"], "/roll 4dF+2", OLD, True),
    "latin1_base64.eml": ("elodie.francois@orange.fr", "Élodie François", "Rép. : L'entrepôt",
                          "pbp.abc@pbp.localhost", ["pbp.abc@pbp.localhost"], "/overcome Stealth vs Fair", OLD, False),
    "attachment.eml": ("ruth.beaumont@gmail.com", "Ruth Beaumont", "Re: The warehouse (map attached)",
                       "pbp.map1@pbp.localhost", ["pbp.map1@pbp.localhost"], "/overcome Notice vs Good", OLD, False),
    "forwarded_rfc822.eml": ("charles@whitmore.example", "Charles Whitmore", "Fwd: The warehouse",
                             None, [], "/overcome Lore vs Great", OLD, False),
}


def test_every_fixture_has_expectations():
    assert sorted(p.name for p in FIXTURES.glob("*.eml")) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_client_mail(name):
    from_addr, from_name, subject, in_reply_to, references, new, old, html = EXPECTED[name]
    mail = read_message(fixture(name))
    assert (mail.from_addr, mail.from_name, mail.subject) == (from_addr, from_name, subject)
    assert (mail.in_reply_to, mail.references) == (in_reply_to, references)
    assert mail.to == ["table+chicago@pbp.localhost"]
    assert mail.html is html
    assert command_lines(mail.new_text) == [new]
    assert old not in mail.new_text
    assert "\r" not in mail.body


def _without_plain_text(raw: bytes) -> bytes:
    """The same mail as an HTML-only client would send it."""
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    for part in msg.walk():
        if part.get_content_type() == "multipart/alternative":
            part.set_payload([p for p in part.get_payload() if p.get_content_type() != "text/plain"])
    return msg.as_bytes()


@pytest.mark.parametrize("name", ["gmail.eml", "apple_mail.eml", "thunderbird.eml", "outlook_desktop.eml",
                                  "attachment.eml"])
def test_the_html_alternative_alone_gives_the_same_commands(name):
    """Gmail's gmail_quote, Apple's and Thunderbird's blockquote type=cite with
    moz-cite-prefix, Outlook's border-top header block: all quoted."""
    new, old = EXPECTED[name][5], EXPECTED[name][6]
    mail = read_message(_without_plain_text(fixture(name)))
    assert mail.html
    assert command_lines(mail.new_text) == [new]
    assert old not in mail.new_text


def test_details_of_the_fixtures():
    gmail = read_message(fixture("gmail.eml"))
    assert gmail.message_id == "CAF7qb+XwZ1dNqT3v8kEw0Lr2gS5yZ8mQp-Lk9Jd3H=4sUa@mail.gmail.com"
    assert gmail.date == datetime(2024, 6, 3, 8, 42, 17, tzinfo=timezone.utc)
    assert gmail.new_text.startswith("Ruth vaults the railing and lands behind the crates — quietly")
    outlook = read_message(fixture("outlook.eml"))
    assert "Charles doesn’t like the look of that door." in outlook.new_text  # windows-1252 ’
    assert "Chicago Nights" not in outlook.new_text  # Outlook's From:/Sent: block is quoted
    thunderbird = read_message(fixture("thunderbird.eml"))
    assert "nearest ghoul, hoping" in thunderbird.new_text  # format=flowed joined
    attachment = read_message(fixture("attachment.eml"))
    assert "/concede" not in attachment.body  # notes.txt is an attachment
    forwarded = read_message(fixture("forwarded_rfc822.eml"))
    assert OLD not in forwarded.body and "It is Charles' turn" not in forwarded.body
    latin1 = read_message(fixture("latin1_base64.eml"))
    assert latin1.new_text.startswith("Élodie se glisse derrière les caisses")
    assert latin1.header("Return-Path") == "<elodie.francois@orange.fr>"


# --------------------------------------------------------------------------- headers


def mail_with(headers: str, body: str = "Hello.\n", content_type: str = "text/plain; charset=utf-8") -> bytes:
    return (headers.strip("\n") + f"\nMIME-Version: 1.0\nContent-Type: {content_type}\n\n" + body).encode("utf-8")


def test_headers_for_the_later_stages():
    mail = read_message(mail_with("""
From: Ruth <ruth@example.com>
To: a@example.com, "Doe, John" <J.Doe@Example.com>
Cc: =?utf-8?q?J=C3=BCrgen?= <juergen@example.com>
Auto-Submitted: auto-replied
Precedence: bulk
X-Autoreply: yes
X-Auto-Response-Suppress: All
Return-Path: <>
List-Id: Chicago Nights <chicago.pbp.localhost>
Delivered-To: table+chicago@pbp.localhost
Authentication-Results: mx.example.com; dkim=pass header.d=example.com
Authentication-Results: mx.example.com; spf=pass
X-PBP-Campaign: chicago
"""))
    assert mail.to == ["a@example.com", "j.doe@example.com"] and mail.cc == ["juergen@example.com"]
    assert mail.headers == {
        "Auto-Submitted": "auto-replied", "Precedence": "bulk", "X-Autoreply": "yes",
        "X-Auto-Response-Suppress": "All", "Return-Path": "<>",
        "List-Id": "Chicago Nights <chicago.pbp.localhost>", "Delivered-To": "table+chicago@pbp.localhost",
        "Authentication-Results": "mx.example.com; dkim=pass header.d=example.com",
    }
    assert mail.header("x-pbp-campaign") == "chicago" and mail.header("X-Missing") is None
    assert mail.header_all("Authentication-Results")[1] == "mx.example.com; spf=pass"


def test_a_mail_without_message_id_gets_a_stable_one():
    raw = mail_with("From: ruth@example.com")
    first, again = read_message(raw), read_message(raw)
    assert first.message_id == again.message_id
    assert first.message_id.endswith("@pbp.invalid") and "<" not in first.message_id
    assert read_message(raw + b"!").message_id != first.message_id


@pytest.mark.parametrize("value, expected", [
    ("<abc@example.com>", "abc@example.com"),
    ("  < abc@example.com >  ", "abc@example.com"),
    ("abc@example.com", "abc@example.com"),
    ("<abc@example.com> (added by postmaster)", "abc@example.com"),
])
def test_message_ids_lose_their_brackets(value, expected):
    mail = read_message(mail_with(f"From: r@x.org\nMessage-ID: {value}\nIn-Reply-To: {value}"))
    assert mail.message_id == expected and mail.in_reply_to == expected


def test_references_keep_their_order_once_each():
    mail = read_message(mail_with("From: r@x.org\nReferences: <a@x>\n <b@x>\t<a@x> <c@x>"))
    assert mail.references == ["a@x", "b@x", "c@x"]


@pytest.mark.parametrize("value, expected", [
    ("Mon, 3 Jun 2024 10:00:00 +0200", datetime(2024, 6, 3, 8, 0, tzinfo=timezone.utc)),
    ("Mon, 3 Jun 2024 10:00:00 -0000", datetime(2024, 6, 3, 10, 0, tzinfo=timezone.utc)),
    ("3 Jun 2024 10:00 GMT", datetime(2024, 6, 3, 10, 0, tzinfo=timezone.utc)),
    ("yesterday at tea time", None),
    ("Mon, 32 Jun 2024 10:00:00 +0200", None),
])
def test_dates(value, expected):
    assert read_message(mail_with(f"From: r@x.org\nDate: {value}")).date == expected


@pytest.mark.parametrize("header, subject", [
    ("=?UTF-8?B?VGhlIHdhcmVob3VzZSDigJQgcGFydCAy?=", "The warehouse — part 2"),
    ("=?utf-8?q?The_warehouse?= =?utf-8?q?_=E2=80=94_part_2?=", "The warehouse — part 2"),
    ("=?x-unknown?q?caf=E9?=", "café"),
    ("=?utf-8?b?not base64 at all?=", "=?utf-8?b?not base64 at all?="),
    ("The\n warehouse", "The warehouse"),
])
def test_subjects_are_decoded(header, subject):
    assert read_message(mail_with(f"From: r@x.org\nSubject: {header}")).subject == subject


def test_raw_utf8_and_latin1_headers():
    utf8 = read_message("From: Rüth <ruth@x.org>\nSubject: Café\n\nHi\n".encode("utf-8"))
    latin1 = read_message("From: Rüth <ruth@x.org>\nSubject: Café\n\nHi\n".encode("latin-1"))
    assert (utf8.from_name, utf8.subject) == (latin1.from_name, latin1.subject) == ("Rüth", "Café")


# --------------------------------------------------------------------------- bodies


@pytest.mark.parametrize("charset, data, text", [
    ("utf-8", "Élodie".encode(), "Élodie"),
    ("x-klingon", "Élodie".encode(), "Élodie"),
    ("x-klingon", "Élodie".encode("latin-1"), "Élodie"),
    ("us-ascii", "Élodie".encode("cp1252"), "Élodie"),
    ("utf-8", "Élodie".encode("latin-1") + b" ok", "Élodie ok"),
    ("utf-8", "Élodie et le café".encode() + b"\xff", "Élodie et le café\ufffd"),
    ("base64", b"plain", "plain"),
    ("iso-8859-1", "don\u2019t".encode("cp1252"), "don\u2019t"),
    ("gb2312", "骰子".encode("gb18030"), "骰子"),
])
def test_charsets_as_labelled_mislabelled_or_unknown(charset, data, text):
    raw = b"From: r@x.org\nContent-Type: text/plain; charset=" + charset.encode() + b"\n\n" + data + b"\n/roll 4dF\n"
    mail = read_message(raw)
    assert mail.body == text + "\n/roll 4dF\n"


def test_quoted_printable_soft_breaks_and_crlf():
    raw = (b"From: r@x.org\r\nContent-Type: text/plain; charset=utf-8\r\n"
           b"Content-Transfer-Encoding: quoted-printable\r\n\r\n"
           b"/advantage Crafts \"On Fire\" on Shoggoth =\r\nvs Good\r\ncaf=C3=A9\r\n")
    assert read_message(raw).body == '/advantage Crafts "On Fire" on Shoggoth vs Good\ncafé\n'


def test_broken_base64_still_gives_what_can_be_read():
    raw = b"From: r@x.org\nContent-Type: text/plain\nContent-Transfer-Encoding: base64\n\nL3JvbGwgNGRG!!!\n"
    assert read_message(raw).body.startswith("/roll 4dF")


def test_a_multipart_without_its_boundary_is_read_as_text():
    raw = b"From: r@x.org\nContent-Type: multipart/mixed; boundary=nowhere\n\n/roll 4dF\n"
    assert command_lines(read_message(raw).new_text) == ["/roll 4dF"]


def test_deeply_nested_multiparts_do_not_recurse_forever():
    depth = 200
    head = "".join(f"Content-Type: multipart/mixed; boundary=b{i}\n\n--b{i}\n" for i in range(depth))
    tail = "".join(f"\n--b{i}--\n" for i in reversed(range(depth)))
    raw = f"From: r@x.org\n{head}Content-Type: text/plain\n\n/roll 4dF\n{tail}".encode()
    assert isinstance(read_message(raw), Mail)


def test_a_bounce_reads_only_its_human_part():
    raw = b"""From: MAILER-DAEMON@mx.example.com
Content-Type: multipart/report; report-type=delivery-status; boundary=r

--r
Content-Type: text/plain

Delivery failed.
--r
Content-Type: message/delivery-status

Status: 5.1.1
--r
Content-Type: message/rfc822

From: ruth@x.org
Subject: old

/attack Ghoul with Fight
--r--
"""
    mail = read_message(raw)
    assert mail.body == "Delivery failed." and mail.from_addr == "mailer-daemon@mx.example.com"


def test_nul_bytes_never_reach_the_text():
    assert "\x00" not in read_message(b"From: r@x.org\n\n/roll\x00 4dF\n").body


# --------------------------------------------------------------------------- never raises


@settings(max_examples=400, deadline=None)
@given(st.binary(max_size=3000))
def test_any_bytes_give_a_mail(raw):
    mail = read_message(raw)
    assert isinstance(mail.body, str) and isinstance(mail.new_text, str) and mail.message_id


_HEADER_LINE = st.sampled_from([
    "From: {t}", "To: {t}", "Cc: {t}", "Subject: {t}", "Date: {t}", "Message-ID: {t}", "In-Reply-To: {t}",
    "References: {t}", "Content-Type: {t}", "Content-Transfer-Encoding: {t}", "Content-Disposition: {t}",
    "Content-Type: text/plain; charset={t}", "Content-Type: multipart/mixed; boundary={t}",
])


@settings(max_examples=400, deadline=None)
@given(text=st.text(max_size=2000), header_text=st.text(max_size=200),
       headers=st.lists(_HEADER_LINE, max_size=6))
def test_any_text_in_minimal_headers_gives_a_mail(text, header_text, headers):
    head = "\n".join(h.format(t=header_text) for h in headers)
    raw = (f"From: ruth@example.com\nSubject: x\n{head}\n\n{text}").encode("utf-8", "surrogatepass")
    assert isinstance(read_message(raw), Mail)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\r\x00"), max_size=500))
def test_a_utf8_body_reads_back_as_sent(text):
    raw = b"From: r@x.org\nContent-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: 8bit\n\n"
    assert read_message(raw + text.encode("utf-8")).body == (text if text.strip() else "")


_MIME = st.fixed_dictionaries({
    "ctype": st.sampled_from(["text/plain", "text/html", "multipart/alternative", "multipart/mixed",
                              "message/rfc822", "application/octet-stream", "text/plain; format=flowed; delsp=yes"]),
    "charset": st.sampled_from(["utf-8", "iso-8859-1", "windows-1252", "x-unknown", "utf-16", "iso-2022-jp", ""]),
    "cte": st.sampled_from(["7bit", "8bit", "quoted-printable", "base64", "x-uuencode", "binary"]),
    "payload": st.binary(max_size=400),
})


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(st.lists(_MIME, min_size=1, max_size=4))
def test_any_mime_structure_gives_a_mail(parts):
    body = b"".join(
        b"--sep\nContent-Type: " + p["ctype"].encode() + b"; charset=" + p["charset"].encode()
        + b"\nContent-Transfer-Encoding: " + p["cte"].encode() + b"\n\n" + p["payload"] + b"\n"
        for p in parts
    )
    raw = b"From: r@x.org\nContent-Type: multipart/mixed; boundary=sep\n\n" + body + b"--sep--\n"
    assert isinstance(read_message(raw), Mail)


# --------------------------------------------------------------------------- speed

def test_a_huge_mail_is_read_in_linear_time():
    prose = "Ruth walks on. /roll 4dF\n" * 20_000 + "\nOn Mon, 3 Jun 2024 at 10:00, GM <gm@x.org> wrote:\n"
    raw = b"From: r@x.org\nContent-Type: text/plain\n\n" + (prose + "> old\n" * 20_000).encode()
    start = time.process_time()
    read_message(raw)
    assert time.process_time() - start < 5
