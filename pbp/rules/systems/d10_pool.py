"""The d10 dice-pool hack (004_c619695e1641b466.txt, "Taking Action"): dice and outcome tiers.

"ADD the number for your SKILL and the number for your APPROACH to determine the size of your
DICE POOL, then roll that many TEN-SIDED DICE (d10). Each die that comes up 8 or higher counts
as a HIT. Each result of 10 counts as 2 hits; each result of 1 subtracts a hit." The result
(hits, plus stunts and invokes) meets "an active opposed roll or passive target number from
1 to 5"; "Interpreting Results": negative hits a catastrophic failure, below the opposition
a failure, equal a tie, 1-2 above a success, 3+ above success with style. An invoke is worth
+1 hit (or a reroll).

How the text is read here:

* **Catastrophic failure** is a failure whose result is below zero hits (after invokes and
  stunts, so an invoke after the dice can lift a roll out of it). The action tables play it
  as a failure; the result carries a ``catastrophic`` effect saying the GM may escalate to a
  severe cost.
* **The pool** is the rating the engine hands the dice: today the skill's rating. The
  approach the text adds needs per-system character state (issue 9, item 2), so this module
  is **not registered** yet: ``--system`` cannot name it until approaches, strain and costs
  are played (see the closing note of issue 9).
* The skill list lives in a chapter the text does not contain; until it is chosen, the
  skills are Fate Condensed's (documented, replaceable data).
"""
from __future__ import annotations

from dataclasses import replace

from pbp.rules.dice import DiceSource
from pbp.rules.results import DiceRoll, Outcome
from pbp.rules.systems.base import FateTiers
from pbp.rules.systems.fate_condensed import FATE_CONDENSED

HIT_FROM = 8          # "Each die that comes up 8 or higher counts as a HIT"
DOUBLE = 10           # "Each result of 10 counts as 2 hits"
MINUS = 1             # "each result of 1 subtracts a hit"
PASSIVE = (1, 5)      # "passive target number from 1 to 5"


def hits(face: int) -> int:
    """What one d10 counts for: 10 -> 2, 8-9 -> 1, 1 -> -1, else 0."""
    if face >= DOUBLE:
        return 2
    if face >= HIT_FROM:
        return 1
    return -1 if face == MINUS else 0


class D10Pool:
    """Roll ``rating`` d10s and count hits; the rating sizes the pool and is not added."""

    name = "d10 pool"
    adds_rating = False

    def roll(self, dice: DiceSource, rating: int) -> DiceRoll:
        faces = tuple(dice.die(10, rating)) if rating > 0 else ()
        return DiceRoll(faces, "10", value=sum(hits(f) for f in faces))


class D10Tiers(FateTiers):
    """Fate's four tiers by the margin, and a catastrophic failure below zero hits."""

    def tier_name(self, effort: int, shifts: int) -> str:
        outcome = self.tier(shifts)
        return "catastrophic" if outcome is Outcome.FAIL and effort < 0 else outcome.value

    def note(self, report, effort: int, outcome: Outcome) -> None:
        if outcome is Outcome.FAIL and effort < 0:
            report.effect("catastrophic", "Negative hits: a catastrophic failure; the GM may escalate to a severe cost",
                          hits=effort)


D10_POOL = replace(
    FATE_CONDENSED,
    name="d10-pool",
    title="the d10 dice-pool hack",
    dice=D10Pool(),
    tiers=D10Tiers(),
    invoke_bonus=1,       # "invoking = reroll or +1 hit"
)
