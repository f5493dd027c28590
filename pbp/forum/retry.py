"""``RetryPolicy``: how long to wait before trying the forum again, and when to stop.

Bounded on every side: at most ``retries`` retries per call; a 429 is waited out for the time
the forum names (``Retry-After``, or Discourse's ``extras.wait_seconds``) unless that is longer
than ``max_wait``, when the call gives up at once with ``ForumRateLimited`` so a poll never
blocks the daemon for an hour; 5xx and network errors wait ``base * 2**attempt`` capped at
``cap``. The sleep is injected, so tests never really wait.

One request's retries, as a policy (settings, no state). Not to be confused with
:class:`pbp.delivery.Backoff`, the daemon's state of a connection that keeps failing
(how long until the next poll, which failures to log): the daemon's Discourse poll uses
that one around the client, the client this one inside each call.
"""
from __future__ import annotations

import email.utils
import math
from dataclasses import dataclass
from datetime import datetime, timezone


@dataclass(frozen=True)
class RetryPolicy:
    retries: int = 5
    base: float = 1.0
    cap: float = 60.0
    max_wait: float = 300.0

    def __post_init__(self) -> None:
        if self.retries < 0 or self.base <= 0 or self.cap <= 0 or self.max_wait <= 0:
            raise ValueError(f"a retry policy needs retries >= 0 and positive times, not {self}")

    def delay(self, attempt: int) -> float:
        """The wait before retry number ``attempt`` (0-based) after a 5xx or a network error."""
        return min(self.cap, self.base * 2 ** attempt)


def rate_limit_wait(headers, body: object, *, now: datetime | None = None) -> float | None:
    """The seconds a 429 asks us to wait: ``Retry-After`` (seconds or an HTTP date), else the
    ``extras.wait_seconds`` of Discourse's JSON error body; None when it names none."""
    value = headers.get("retry-after")
    if value:
        value = value.strip()
        try:
            seconds = float(value)
        except ValueError:
            try:
                when = email.utils.parsedate_to_datetime(value)
            except (TypeError, ValueError):
                when = None
            if when is not None:
                if when.tzinfo is None:
                    when = when.replace(tzinfo=timezone.utc)
                now = now or datetime.now(timezone.utc)
                return max(0.0, (when - now).total_seconds())
        else:
            if math.isfinite(seconds) and seconds >= 0:
                return seconds
    if isinstance(body, dict):
        extras = body.get("extras")
        if isinstance(extras, dict):
            wait = extras.get("wait_seconds")
            if isinstance(wait, (int, float)) and not isinstance(wait, bool) and math.isfinite(wait) and wait >= 0:
                return float(wait)
    return None
