"""A reply written for its reader and sent again (the answer to a resent post repeats the
stored reply) is dated again from its UTC, not given a second relative part: "Thu 3 Dec 21:23
UTC (in 23 hours) (in 2 days)" was what a duplicate's answer read (seen in the Portuguese
campaign's golden, "(em 23 horas) (em 24 horas)"; English had it too)."""
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from pbp.i18n import language
from pbp.play.dates import for_reader, in_zone

DEADLINE = datetime(2026, 12, 3, 21, 23)
WRITTEN_AT = datetime(2026, 12, 1, 12, 0)


@pytest.mark.parametrize("code", ["en", "pt-BR"])
@pytest.mark.parametrize("later", [timedelta(0), timedelta(hours=1), timedelta(hours=40), timedelta(days=3)])
def test_a_dated_reply_dated_again_reads_as_dated_once(code, later):
    lang = language(code)
    text = f"— {lang.when(DEADLINE)}; {lang.when(DEADLINE + timedelta(minutes=30))}."
    once = for_reader(text, WRITTEN_AT, None, lang)
    assert "(" in once                              # the first reading gave it a relative part
    again = for_reader(once, WRITTEN_AT + later, None, lang)
    assert again == for_reader(text, WRITTEN_AT + later, None, lang)
    assert again.count("(") == (0 if WRITTEN_AT + later >= DEADLINE + timedelta(minutes=30) else 2)


def test_a_reader_in_a_zone_keeps_the_zone_and_one_relative_part():
    lang = language("en")
    zone = ZoneInfo("Europe/Lisbon")
    once = for_reader(f"by {lang.when(DEADLINE)}", WRITTEN_AT, zone, lang)
    assert once == f"by {in_zone(DEADLINE, zone, lang)} (in 2 days)"
    # a copy for this reader was written from the UTC text, so a table copy read again stays one
    table = for_reader(f"by {lang.when(DEADLINE)}", WRITTEN_AT, None, lang)
    assert for_reader(table, WRITTEN_AT, zone, lang) == once
