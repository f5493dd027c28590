"""What a timing or yes/no setting may hold, for ``pbp campaign set`` and pbp.toml alike.

A deadline of ``nan``, ``inf`` or ``1e400`` hours cannot be added to a date (Python raises
deep inside the deadline job, for every later post of the table), and a negative one is
past before it is set; so every such value is refused where it is typed, with the key, what
is expected and an example that works.
"""
from __future__ import annotations

import difflib
import math

from pbp.errors import ConfigError

#: The longest deadline or window a table may set: a year.
MAX_HOURS = 24 * 365

#: Settings that may be 0 (and what 0 means).
ZERO_MEANS = {"invoke_window_hours": "no time limit: only the next action or /done closes a roll",
              "stall_hours": "no nudge when a scene stalls"}

_YES = ("yes", "true", "on", "1")
_NO = ("no", "false", "off", "0")


def hours_value(key: str, value: object) -> float:
    """``value`` as a number of hours for ``key``, or a :class:`ConfigError` that says why not."""
    zero = key in ZERO_MEANS
    low = "0 or more" if zero else "more than 0"
    expected = f"a number of hours, {low} and at most {MAX_HOURS}" + (f" (0: {ZERO_MEANS[key]})" if zero else "")
    hint = f"expected {expected}, e.g. pbp campaign set {key}=24 (or {key} = 24 under [play] in pbp.toml)"
    if isinstance(value, bool):
        raise ConfigError(f"{key} = {value!r} is not a number of hours", hint=hint)
    try:
        hours = float(value)
    except (TypeError, ValueError, OverflowError):
        raise ConfigError(f"{key} = {_shown(value)} is not a number of hours", hint=hint) from None
    if not math.isfinite(hours):
        raise ConfigError(f"{key} = {_shown(value)} is not a finite number of hours", hint=hint)
    if hours < 0 or (hours == 0 and not zero) or hours > MAX_HOURS:
        raise ConfigError(f"{key} = {_shown(value)} is out of range", hint=hint)
    return hours


def flag_value(key: str, value: object) -> bool:
    """``value`` as yes or no for ``key`` (yes/no, true/false, on/off, 1/0)."""
    if isinstance(value, bool):
        return value
    word = str(value).strip().lower()
    if word in _YES:
        return True
    if word in _NO:
        return False
    raise ConfigError(f"{key} = {_shown(value)} is not yes or no",
                      hint=f"expected yes or no (true/false, on/off), e.g. pbp campaign set {key}=yes "
                           f"(or {key} = true under [play] in pbp.toml)")


def written(value: object) -> str:
    """A setting's value as ``pbp campaign set`` takes it: yes/no, 24 (not True, 24.0)."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _shown(value: object) -> str:
    text = str(value)
    return repr(text if len(text) <= 40 else text[:39] + "…")


def did_you_mean(word: str, choices) -> str:
    """ "did you mean poll_seconds?" for a near miss, else the list of what there is."""
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    if close:
        return f"did you mean {close[0]}?"
    return "known: " + ", ".join(sorted(choices))
