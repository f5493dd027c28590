"""How a date is written in a reply: a leaf every play module may import.

Handlers write every deadline with :func:`when`, in UTC ("Tue 1 Dec 18:00 UTC"), so the
ledger, the archive and ``--json`` keep one spelling. When a reply leaves the pipeline it is
written for its reader (:func:`for_reader`): each such date in the reader's own time zone,
with how far off it is when it is still to come ("Thu 3 Dec 22:23 WET (in 2 days)"); the
table's shared mail keeps UTC and gains the relative part. A campaign in another language
says its dates in its own words (pbp.i18n.When, "ter. 1 dez. 18:00 UTC"): they are read the
same way, in that language's words ("qui. 3 dez. 19:23 BRT (em 2 dias)").
"""
from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone, tzinfo
from functools import lru_cache

from babel.dates import format_datetime, get_day_names, get_month_names

from pbp.i18n import ENGLISH, Language, When

_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
#: A date as :func:`when` writes it.
WRITTEN = re.compile(r"\b(" + "|".join(_DAYS) + r") (\d{1,2}) (" + "|".join(_MONTHS) + r") (\d\d):(\d\d) UTC\b")


def when(dt: datetime) -> str:
    """A deadline as players read it: "Tue 1 Dec 18:00 UTC"; in a sentence of pbp's
    (``pbp.i18n.Msg``) it is said in the campaign's language ("ter. 1 dez. 18:00 UTC")."""
    return When(dt)


@lru_cache(maxsize=None)
def _written(code: str) -> tuple[re.Pattern, tuple[str, ...], tuple[str, ...]]:
    """How :func:`when` writes a date in language ``code``: the pattern, its day names
    (Monday first) and month names (January first)."""
    if code == ENGLISH.code:
        return WRITTEN, _DAYS, _MONTHS
    locale = code.replace("-", "_")
    days = tuple(get_day_names("abbreviated", locale=locale)[i] for i in range(7))
    months = tuple(get_month_names("abbreviated", locale=locale)[i] for i in range(1, 13))
    pattern = re.compile(r"(?<!\w)(" + "|".join(map(re.escape, days)) + r") (\d{1,2}) ("
                         + "|".join(map(re.escape, months)) + r") (\d\d):(\d\d) UTC\b")
    return pattern, days, months


def in_zone(dt: datetime, zone: tzinfo | None, language: Language = ENGLISH) -> str:
    """``dt`` (UTC, naive or aware) as a reader in ``zone`` reads it: "Thu 3 Dec 22:23 WET"
    (the zone's own abbreviation at that moment, so a date past a change of summer time
    names the zone's other half)."""
    aware = dt if dt.tzinfo is not None else dt.replace(tzinfo=timezone.utc)
    if zone is None:
        return language.when(aware.astimezone(timezone.utc).replace(tzinfo=None)) if not language.english \
            else when(aware.astimezone(timezone.utc))
    local = aware.astimezone(zone)
    if not language.english:
        return format_datetime(local, "EEE d MMM HH:mm", locale=language.locale) + f" {local.tzname()}"
    return f"{local:%a} {local.day} {local:%b %H:%M} {local.tzname()}"


def relative(dt: datetime, now: datetime, language: Language = ENGLISH) -> str | None:
    """How far off ``dt`` is from ``now`` ("in 40 minutes", "in 5 hours", "in 2 days"; in
    ``language``'s words, "em 2 dias"), or None once it has come."""
    delta = _utc(dt) - _utc(now)
    if delta <= timedelta(0):
        return None
    minutes = int(delta.total_seconds() // 60)
    if minutes < 60:
        if minutes <= 1:
            return language.gettext("in a minute")
        return language.ngettext("in {n} minute", "in {n} minutes", minutes)
    hours = minutes // 60
    if hours < 36:
        if hours == 1:
            return language.gettext("in an hour")
        return language.ngettext("in {n} hour", "in {n} hours", hours)
    days = round(delta / timedelta(days=1))
    return language.ngettext("in {n} day", "in {n} days", days)


def for_reader(text: str, now: datetime, zone: tzinfo | None = None, language: Language = ENGLISH) -> str:
    """``text`` with every date :func:`when` wrote in it (in ``language``'s words) read in
    ``zone`` (None: UTC), a date still to come followed by how far off it is."""
    if "UTC" not in text:
        return text
    _, days, months = _written(language.code)
    pattern = _reading(language)

    def one(match: re.Match) -> str:
        dt = _dated(match, now, days, months)
        if dt is None:
            return match.group(0)
        soon = relative(dt, now, language)
        return in_zone(dt, zone, language) + (f" ({soon})" if soon else "")

    return pattern.sub(one, text)


_READING: dict[str, re.Pattern] = {}
_ANY = 987654


def _reading(language: Language) -> re.Pattern:
    """A written date with the relative part a reader's copy gave it, if any ("... UTC (in 2
    days)"): a reply written for its reader once and sent again (a resent post's answer
    repeats the stored reply) is dated again from its UTC, not given a second "(in ...)"."""
    found = _READING.get(language.code)
    if found is None:
        forms = {language.gettext("in a minute"), language.gettext("in an hour")}
        for one, many in (("in {n} minute", "in {n} minutes"), ("in {n} hour", "in {n} hours"),
                          ("in {n} day", "in {n} days")):
            forms |= {language.ngettext(one, many, n) for n in (1, 2, _ANY)}
        tail = "|".join(sorted((re.escape(f).replace(str(_ANY), r"\d+") for f in forms), key=len, reverse=True))
        found = _READING[language.code] = re.compile(_written(language.code)[0].pattern + r"(?: \((?:" + tail + r")\))?")
    return found


def _dated(match: re.Match, now: datetime, days: tuple[str, ...] = _DAYS,
           months: tuple[str, ...] = _MONTHS) -> datetime | None:
    """The moment a written date means: of the years around ``now``'s, the nearest whose
    day has that weekday (a day and month fall on one weekday once in several years)."""
    day, month = int(match.group(2)), months.index(match.group(3)) + 1
    hour, minute = int(match.group(4)), int(match.group(5))
    base = _utc(now).replace(tzinfo=None)
    found = []
    for year in range(base.year - 2, base.year + 3):
        try:
            dt = datetime(year, month, day, hour, minute)
        except ValueError:
            continue
        if days[dt.weekday()] == match.group(1):
            found.append(dt)
    return min(found, key=lambda dt: abs(dt - base)) if found else None


def _utc(dt: datetime) -> datetime:
    return dt.replace(tzinfo=timezone.utc) if dt.tzinfo is None else dt.astimezone(timezone.utc)
