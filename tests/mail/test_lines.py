"""The line classifier: one kind per line, wrapped attributions spanning several."""
from __future__ import annotations

import pytest

from pbp.mail.lines import classify, classify_line


@pytest.mark.parametrize("line, kind", [
    ("", "e"), ("   \u200b", "e"),
    ("-- ", "d"), ("________________________________", "d"), ("***", "d"), ("-----BEGIN PGP SIGNATURE-----", "d"),
    ("Sent from my iPhone", "s"), ("Envoyé depuis mon iPad", "s"), ("Get Outlook for iOS", "s"),
    ("Sent from [Mail](https://go.microsoft.com/fwlink/?LinkId=550986) for Windows", "s"),
    ("On Mon, 3 Jun 2024 at 10:00, Ruth <ruth@example.com> wrote:", "b"),
    ("> On 3 Jun 2024, at 10:00, Ruth <ruth@example.com> wrote:", "b"),
    ("On 6/3/24 10:00 AM, Chicago Nights wrote:", "b"),
    ("Am 03.06.2024 um 10:00 schrieb Ruth <ruth@example.com>:", "b"),
    ("Ruth <ruth@example.com> wrote:", "b"),
    ("-----Original Message-----", "b"), ("---------- Forwarded message ---------", "b"),
    ("From: Ruth <ruth@example.com>", "h"), ("Gesendet: Montag, 3. Juni 2024 10:00", "h"), ("*Subject:* x", "h"),
    ("> old", "q"), ("Ruth> old", "q"), ("| old", "q"),
    ("/overcome Athletics vs Fair", "t"), ("On the bridge the old man said:", "t"), ("Date: tonight", "t"),
    ("| Skill | Rating |", "t"), ("Sent by the Council to find the missing professor, Ruth arrives.", "t"),
])
def test_kinds(line, kind):
    assert classify_line(line) == kind


@pytest.mark.parametrize("lines", [
    ["On Mon, 3 Jun 2024 at 10:00, Ruth <ruth@example.com>", "wrote:"],
    ['Le 4 janv. 2016 19:03, "Neil Lalonde"', "<info@discourse.org>", "a écrit :"],
    ["On Thu, 31 Mar 2016 at 11:16 Some One", "", "<", "mailto:Some One <some.one@foo.bar>", "> wrote:"],
    ["Max Mustermann <max@example.com> schrieb am Fr., 28.", "Apr. 2017 um 11:53 Uhr:"],
    ['Am 21.04.2016 17:48 schrieb "Einz Zwei" <noreply@discourse.pseuco.com', ">:"],
    ["2016-10-24 15:36 GMT+02:00 Foo bar <", "info@foo.bar>:"],
], ids=["gmail", "french-3-lines", "blank-inside", "german-gmail", "german-bracket", "iso-date"])
def test_wrapped_attributions_span_their_lines(lines):
    kinds = classify(["Hello.", ""] + lines + ["", "> old"])
    assert kinds[:2] == "te" and kinds[-2:] == "eq"
    assert set(kinds[2:-2]) <= {"b", "e"} and kinds[2] == "b" and kinds[-3] == "b"


def test_a_wrap_does_not_swallow_the_prose_above():
    assert classify(["Thanks,", "Ruth", "", "On Mon, 3 Jun 2024 at 10:00, GM <gm@x.org>", "wrote:"]) == "ttebb"


def test_a_closed_code_fence_protects_its_lines():
    assert classify(["```", "-----", "Sent from my iPhone", "```", "--"]) == "ttttd"
    assert classify(["```", "-----"]) == "td"
