"""Each member's own settings (time zone, quiet hours, which mail they get) and absences, as
the play state keeps them, with the checks that a typed value goes through: a leaf under the
play modules.

A member's time zone decides how the deadlines in a mail to them read
(:func:`pbp.play.dates.for_reader`); their quiet hours, when pbp holds back a reminder or a
nudge to them (:func:`quiet_until`). Both are set with ``/settings tz=Europe/Lisbon
quiet=23-08`` or ``pbp campaign member-set``; the CLI and the command share these checks.
Their delivery mode (``mail=every|mine|digest``, ``digest_at=HH``) and muted scenes decide
which of the table's mails reach them (:mod:`pbp.play.mailing`, :mod:`pbp.digest`).
"""
from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta, timezone
from functools import lru_cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from pbp.settingvalues import did_you_mean

#: What ``/settings`` and ``pbp campaign member-set`` know, and what each holds.
MEMBER_SETTINGS = {
    "tz": "your time zone, as the zone database names it: Europe/Lisbon, America/New_York, UTC",
    "quiet": "hours when pbp sends you no reminder, in your time zone: 23-08 (or 22:30-07:00; off: none)",
    "mail": "which of the table's mails you get: every (the default), mine (only what concerns you) "
            "or digest (one mail a day)",
    "digest_at": "the hour of your daily digest, in your time zone: 0 to 23 (18 unless you say)",
}

#: The delivery modes ``mail=`` takes (:mod:`pbp.play.mailing` says what each lets through).
MAIL_MODES = ("every", "mine", "digest")
DIGEST_HOUR = 18            # the digest's hour, local, when the member names none
MOST_MUTED = 20             # muted scenes kept per member (the oldest goes first)


@dataclass
class MemberSettings:
    """One member's settings; ``quiet`` is (start, end) in minutes after midnight, local."""

    tz: str | None = None
    quiet: tuple[int, int] | None = None
    away_days: dict[str, int] = field(default_factory=dict)   # calendar year -> days away taken (pbp.play.away)
    mail: str = "every"             # every | mine | digest (pbp.play.mailing)
    digest_at: int | None = None    # the digest's hour, local (None: DIGEST_HOUR)
    digest_due: datetime | None = None   # when the next digest is due (UTC), with mail=digest
    muted: list[str] = field(default_factory=list)   # scenes whose mail reaches them only when it concerns them

    def zone(self) -> ZoneInfo | None:
        return zone(self.tz) if self.tz else None

    def shown(self) -> str:
        quiet = f"{_hhmm(self.quiet[0])}-{_hhmm(self.quiet[1])}" if self.quiet else "off"
        text = f"tz={self.tz or 'UTC'} quiet={quiet}"
        if self.mail != "every":
            text += f" mail={self.mail}"
        if self.mail == "digest":
            text += f" digest_at={self.digest_at if self.digest_at is not None else DIGEST_HOUR:02d}"
        if self.muted:
            text += " muted: " + ", ".join(f'"{name}"' for name in self.muted)
        return text

    def mutes(self, scene: str | None) -> bool:
        """Whether the member muted the scene named ``scene``."""
        return scene is not None and scene.casefold() in {s.casefold() for s in self.muted}


@dataclass
class Away:
    """A member away (``/away until DATE``): from ``since`` until ``until`` (UTC); ``ally`` is
    the character's player who may answer for theirs meanwhile (None: the GM)."""

    member: str                     # their address, lower case
    since: datetime
    until: datetime
    note: str = ""
    ally: str | None = None         # a character name
    told_back: bool = False


class SettingError(ValueError):
    """A setting's value that cannot be taken: what was expected and a value that works."""

    def __init__(self, message: str, expected: str, example: str) -> None:
        super().__init__(message)
        self.expected, self.example = expected, example


@lru_cache(maxsize=1)
def _zones() -> dict[str, str]:
    return {name.casefold(): name for name in available_timezones()}


@lru_cache(maxsize=64)
def zone(name: str) -> ZoneInfo | None:
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return None


def zone_name(value: str) -> str:
    """A time zone typed by a member, in the zone database's spelling; a near miss says what
    it could be."""
    typed = value.strip()
    if typed.casefold() in ("utc", "gmt", "z"):
        return "UTC"
    found = _zones().get(typed.casefold())
    if found is not None:
        return found
    close = difflib.get_close_matches(typed.casefold(), list(_zones()), n=1, cutoff=0.6)
    guess = _zones()[close[0]] if close else "Europe/Lisbon"
    hint = f"did you mean {guess}? " if close else ""
    raise SettingError(f'"{typed}" is not a time zone pbp knows; {hint}'.rstrip("; ").rstrip(),
                       "a zone of the time zone database, Area/City", f"/settings tz={guess}")


_QUIET = re.compile(r"^(\d{1,2})(?::(\d\d))?-(\d{1,2})(?::(\d\d))?$")


def quiet_hours(value: str) -> tuple[int, int] | None:
    """``23-08`` or ``22:30-07:00`` as minutes after midnight (start, end); ``off``: none."""
    typed = value.strip().lower()
    if typed in ("off", "none", "no", ""):
        return None
    match = _QUIET.match(typed)
    if match:
        h1, m1, h2, m2 = (int(x or 0) for x in match.groups())
        if h1 < 24 and h2 < 24 and m1 < 60 and m2 < 60 and (h1, m1) != (h2, m2):
            return h1 * 60 + m1, h2 * 60 + m2
    raise SettingError(f'quiet "{value.strip()}" is not a span of hours',
                       "FROM-TO in 24-hour time, your own zone's (off: none)", "/settings quiet=23-08")


def quiet_until(settings: MemberSettings | None, at: datetime) -> datetime | None:
    """When the quiet hours ``at`` falls in end (naive UTC), or None when it is not in them."""
    if settings is None or settings.quiet is None:
        return None
    zone = settings.zone() or timezone.utc
    local = (at.replace(tzinfo=timezone.utc) if at.tzinfo is None else at).astimezone(zone)
    minute = local.hour * 60 + local.minute
    start, end = settings.quiet
    inside = start <= minute < end if start < end else (minute >= start or minute < end)
    if not inside:
        return None
    wait = (end - minute) % (24 * 60)
    back = (local + timedelta(minutes=wait)).replace(second=0, microsecond=0)
    return back.astimezone(timezone.utc).replace(tzinfo=None)


def quiet_end(settings, at: datetime) -> datetime | None:
    """When every one of ``settings`` (members' settings, None for one with none) who is in
    their quiet hours at ``at`` is out of them (naive UTC), or None when none is in them."""
    ends = [t for t in (quiet_until(s, at) for s in settings) if t is not None]
    return max(ends) if ends else None


def next_digest(settings: MemberSettings, after: datetime) -> datetime:
    """When a member's next digest is due after ``after`` (naive UTC): their digest hour in
    their zone, the next time it comes, moved past their quiet hours when it falls in them."""
    zone = settings.zone() or timezone.utc
    local = after.replace(tzinfo=timezone.utc).astimezone(zone)
    hour = settings.digest_at if settings.digest_at is not None else DIGEST_HOUR
    at = local.replace(hour=hour, minute=0, second=0, microsecond=0)
    if at <= local:
        at = (local + timedelta(days=1)).replace(hour=hour, minute=0, second=0, microsecond=0)
    due = at.astimezone(timezone.utc).replace(tzinfo=None)
    return quiet_until(settings, due) or due


def member_settings(current: MemberSettings | None, values, now: datetime | None = None) -> MemberSettings:
    """``current`` with each ``key=value`` applied, all checked before any is taken; a
    :class:`SettingError` names the first that cannot be. A member who chooses the digest
    (or moves its hour) has their next one scheduled from ``now``."""
    new = replace(current) if current is not None else MemberSettings()
    for item in values:
        key, _, value = item.partition("=")
        key = key.strip().lower()
        if key not in MEMBER_SETTINGS:
            raise SettingError(f'no setting "{key}": {did_you_mean(key, MEMBER_SETTINGS)}',
                               "one of " + "; ".join(f"{k}: {v}" for k, v in MEMBER_SETTINGS.items()),
                               "/settings tz=Europe/Lisbon quiet=23-08")
        if key == "tz":
            new.tz = None if zone_name(value) == "UTC" else zone_name(value)
        elif key == "quiet":
            new.quiet = quiet_hours(value)
        elif key == "mail":
            new.mail = mail_mode(value)
        else:
            new.digest_at = digest_hour(value)
    if new.mail != "digest":    # leaving the digest: what it holds goes in a last one, at once
        new.digest_due = now if current is not None and current.mail == "digest" else None
    elif now is not None and (current is None or current.mail != "digest" or new.digest_at != current.digest_at
                              or new.tz != current.tz or new.quiet != current.quiet or new.digest_due is None):
        new.digest_due = next_digest(new, now)
    return new


def mail_mode(value: str) -> str:
    """A delivery mode as typed (``mail=mine``); a near miss says what it could be."""
    typed = value.strip().lower()
    if typed in MAIL_MODES:
        return typed
    raise SettingError(f'mail "{value.strip()}" is not a delivery mode: {did_you_mean(typed, MAIL_MODES)}',
                       "every, mine or digest", "/settings mail=digest")


def digest_hour(value: str) -> int:
    """The digest's hour as typed (``digest_at=7``, ``07``, ``07:00``)."""
    typed = value.strip().lower().removesuffix(":00").removesuffix("h")
    if typed.isdigit() and int(typed) < 24:
        return int(typed)
    raise SettingError(f'digest_at "{value.strip()}" is not an hour of the day',
                       "a whole hour from 0 to 23, in your time zone", "/settings mail=digest digest_at=18")


def mute_scene(settings: MemberSettings, scene: str, on: bool) -> MemberSettings:
    """``settings`` with the scene ``scene`` muted (``on``) or not; at most
    :data:`MOST_MUTED` are kept, the oldest dropped first."""
    kept = [s for s in settings.muted if s.casefold() != scene.casefold()]
    return replace(settings, muted=([*kept, scene] if on else kept)[-MOST_MUTED:])


def _hhmm(minutes: int) -> str:
    h, m = divmod(minutes, 60)
    return f"{h:02d}" if m == 0 else f"{h:02d}:{m:02d}"
