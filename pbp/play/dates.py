"""How a date is written in a reply: a leaf every play module may import.

Handlers write every deadline with :func:`when`, in UTC ("Tue 1 Dec 18:00 UTC"), so the
ledger, the archive and ``--json`` keep one spelling. When a reply leaves the pipeline it is
written for its reader (:func:`for_reader`): each such date in the reader's own time zone,
with how far off it is when it is still to come ("Thu 3 Dec 22:23 WET (in 2 days)"); the
table's shared mail keeps UTC and gains the relative part. (A campaign in another language
says its dates in its own words, pbp.i18n.When, which this does not read: they stay in UTC.)
"""
from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone, tzinfo

from pbp.i18n import When

_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
#: A date as :func:`when` writes it.
WRITTEN = re.compile(r"\b(" + "|".join(_DAYS) + r") (\d{1,2}) (" + "|".join(_MONTHS) + r") (\d\d):(\d\d) UTC\b")


def when(dt: datetime) -> str:
    """A deadline as players read it: "Tue 1 Dec 18:00 UTC"; in a sentence of pbp's
    (``pbp.i18n.Msg``) it is said in the campaign's language ("ter. 1 dez. 18:00 UTC")."""
    return When(dt)


def in_zone(dt: datetime, zone: tzinfo | None) -> str:
    """``dt`` (UTC, naive or aware) as a reader in ``zone`` reads it: "Thu 3 Dec 22:23 WET"
    (the zone's own abbreviation at that moment, so a date past a change of summer time
    names the zone's other half)."""
    aware = dt if dt.tzinfo is not None else dt.replace(tzinfo=timezone.utc)
    if zone is None:
        return when(aware.astimezone(timezone.utc))
    local = aware.astimezone(zone)
    return f"{local:%a} {local.day} {local:%b %H:%M} {local.tzname()}"


def relative(dt: datetime, now: datetime) -> str | None:
    """How far off ``dt`` is from ``now`` ("in 40 minutes", "in 5 hours", "in 2 days"), or
    None once it has come."""
    delta = _utc(dt) - _utc(now)
    if delta <= timedelta(0):
        return None
    minutes = int(delta.total_seconds() // 60)
    if minutes < 60:
        return "in a minute" if minutes <= 1 else f"in {minutes} minutes"
    hours = minutes // 60
    if hours < 36:
        return "in an hour" if hours == 1 else f"in {hours} hours"
    days = round(delta / timedelta(days=1))
    return f"in {days} days"


def for_reader(text: str, now: datetime, zone: tzinfo | None = None) -> str:
    """``text`` with every date :func:`when` wrote in it read in ``zone`` (None: UTC), a date
    still to come followed by how far off it is."""
    def one(match: re.Match) -> str:
        dt = _dated(match, now)
        if dt is None:
            return match.group(0)
        soon = relative(dt, now)
        return in_zone(dt, zone) + (f" ({soon})" if soon else "")

    return WRITTEN.sub(one, text) if "UTC" in text else text


def _dated(match: re.Match, now: datetime) -> datetime | None:
    """The moment a written date means: of the years around ``now``'s, the nearest whose
    day has that weekday (a day and month fall on one weekday once in several years)."""
    day, month = int(match.group(2)), _MONTHS.index(match.group(3)) + 1
    hour, minute = int(match.group(4)), int(match.group(5))
    base = _utc(now).replace(tzinfo=None)
    found = []
    for year in range(base.year - 2, base.year + 3):
        try:
            dt = datetime(year, month, day, hour, minute)
        except ValueError:
            continue
        if _DAYS[dt.weekday()] == match.group(1):
            found.append(dt)
    return min(found, key=lambda dt: abs(dt - base)) if found else None


def _utc(dt: datetime) -> datetime:
    return dt.replace(tzinfo=timezone.utc) if dt.tzinfo is None else dt.astimezone(timezone.utc)
