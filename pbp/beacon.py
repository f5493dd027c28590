"""Public randomness beacons mixed into committed dice seeds (docs/verify.md, "A beacon").

A scene's commitment names a beacon round still in the future (:meth:`Drand.round_after`);
once that round is public its randomness is mixed into the scene's seed
(:func:`pbp.verify_dice.mix_beacon`), so neither pbp nor the beacon alone chose the dice.
:class:`Drand` reads drand's HTTP API (the League of Entropy's default chain: a round every
30 seconds since 2020-07-22 15:17:30 UTC); :class:`Recorded` gives rounds recorded earlier
(tests, and machines without internet). Both are :class:`pbp.store.seeds.Beacon`.
"""
from __future__ import annotations

import json
import logging
import urllib.request
from datetime import datetime, timezone

log = logging.getLogger("pbp.beacon")

DRAND_URL = "https://api.drand.sh"
DRAND_GENESIS = 1595431050      # the default chain's genesis time (Unix seconds)
DRAND_PERIOD = 30               # seconds between rounds


class Drand:
    """drand's default chain over HTTPS (``GET URL/public/ROUND``, field ``randomness``)."""

    name = "drand"

    def __init__(self, url: str = DRAND_URL, *, genesis: int = DRAND_GENESIS, period: int = DRAND_PERIOD,
                 timeout: float = 5.0) -> None:
        self.url, self.genesis, self.period, self.timeout = url.rstrip("/"), genesis, period, timeout

    def round_after(self, when: datetime) -> int:
        """The first round whose value nobody can know at ``when`` (naive times are UTC):
        the one after the round being published then."""
        at = when if when.tzinfo is not None else when.replace(tzinfo=timezone.utc)
        current = int((at.timestamp() - self.genesis) // self.period) + 1
        return current + 1

    def randomness(self, round_: int) -> bytes | None:
        """The round's randomness, or None while it is not public (or drand cannot be read)."""
        try:
            with urllib.request.urlopen(f"{self.url}/public/{round_}", timeout=self.timeout) as answer:
                return bytes.fromhex(json.loads(answer.read())["randomness"])
        except (OSError, ValueError, KeyError, TypeError) as exc:
            log.warning("drand round %s could not be read: %s", round_, exc)
            return None


class Recorded(Drand):
    """Rounds recorded earlier: ``{round: randomness bytes}``; any other round is not public."""

    def __init__(self, values: dict[int, bytes], **timing) -> None:
        super().__init__(**timing)
        self.values = dict(values)

    def randomness(self, round_: int) -> bytes | None:
        return self.values.get(round_)


def from_config(config) -> Drand | None:
    """The beacon ``[dice] beacon`` names (``"drand"``), or None (``"none"``, the default)."""
    if getattr(config, "beacon", "none") == "drand":
        return Drand(getattr(config, "beacon_url", "") or DRAND_URL)
    return None
