"""Early Fate (002_3a4e52a093e280aa.txt, "Playing the Game"): 4dF + skill, spin, Health and
Composure, consequences in order, concessions the winner may refuse.

What the text says, and where it lives:

* "he rolls 4 FATE dice (dF) ... adds them to the appropriate skill, and compares the total
  to either the difficulty set by the GM ... or ... the other character's result": Fate's
  dice and margin (``FateDice``, ``FateTiers``); the ladder runs Terrible (-2) to Legendary
  (+8) (``LADDER``), values beyond it are shown as numbers (``System.ladder``).
* "Shifts" and "Spin": "If a character gets 3 or more shifts on an action, he gets to spin
  that action ... spin can add +1 to either his own next action, or another player's, as long
  as the player can relate that action to the action that his character took to get the
  spin" (``EarlyTiers.note`` reports the spin; ``pbp.play.spin`` holds it for ``+spin #ID``).
* "Stress": "Each shift that the winner gets inflicts one box of stress ... The number of
  boxes in a character's Health stress track is 2, plus half the character's Endurance
  (rounded up). ... Composure ... 2, plus half the character's Resolve (rounded up)"
  (``stress_boxes``; one-point boxes).
* "Consequences": "Any time a character takes stress, he may opt not to check off a box and
  instead take a consequence. If the character takes a hit for which he doesn't have a box,
  he must take a consequence. ... The first consequence is a mild consequence ... The second
  ... moderate ... the third ... severe" (``consequences_in_order``; a consequence takes the
  whole hit, ``WHOLE_HIT``).
* "Taken Out": "A character who takes a consequence beyond severe is taken out ... A player
  who does not like the manner in which he's been taken out can spend all of his remaining
  fate points to demand a different outcome" (``pbp.play.concession``: ``/refuse``).
* "Conceding": "The character inflicting the stress can refuse the concession; it the GM
  rules that the terms of the concession were reasonable, the conceding character gains 1
  fate point, and the refusing character loses one fate point" (``pbp.play.concession``);
  "Instead of taking a consequence": a hit waiting for the conceder's /absorb may be answered
  by conceding (``concede_on_hit``), the hit held with the concession (void if it stands, back
  for /absorb if it is refused).
* "Spin" again: spin is style's benefit, so an overcome or a defence with style gives the
  spin instead of also a boost (``EarlyTables``).
* "Clearing Stress and Consequences": stress and mild consequences at the end of the scene
  (``scene_clears``), moderate and severe ones when the GM says (``gm_clears``:
  ``/aspect remove "NAME"``).

Choices where the text is silent (docs/early-fate.md says them to the table):

* **Skills.** The text names Athletics, Endurance and Resolve but has no list: the list is
  Spirit of the Century's, the game this text is the rules summary of (``SKILLS``). A
  campaign wanting another list registers a variant with ``dataclasses.replace``.
* **What a consequence absorbs.** Taken "instead" of checking boxes, it absorbs the whole hit.
* **A tie.** "matches or exceeds the difficulty in a simple action ... he succeeds": against
  a difficulty a tie succeeds, with 0 shifts, and the action tables read it as a success; in a
  contest a tie ("exceeds his opponent's total") is Fate Condensed's tie.
* **Who attacks and defends with what**: Fists and Weapons (close), Guns (at range) hit Health;
  Intimidation hits Composure; Athletics, Fists and Weapons defend close, Athletics shots,
  Resolve the mind.
* **Treatment**: the text has none: ``/treat`` is refused, the GM clears consequences.
"""
from __future__ import annotations

from dataclasses import replace
from math import ceil
from types import MappingProxyType

from pbp.rules.results import Outcome
from pbp.rules.system import FateTiers, StressTable, fate_attack_kinds, frozen
from pbp.rules.systems.fate_condensed import FATE_CONDENSED
from pbp.rules.explain import FateExplainer
from pbp.rules.outcome_tables import FateTables

SKILLS = (
    "Academics", "Alertness", "Art", "Athletics", "Burglary", "Contacting", "Deceit", "Drive",
    "Empathy", "Endurance", "Engineering", "Fists", "Gambling", "Guns", "Intimidation",
    "Investigation", "Leadership", "Might", "Mysteries", "Pilot", "Rapport", "Resolve",
    "Resources", "Science", "Sleight of Hand", "Stealth", "Survival", "Weapons",
)

# "+8: Legendary ... -2: Terrible": the text's ladder; beyond it, numbers.
LADDER = MappingProxyType({
    8: "Legendary", 7: "Epic", 6: "Fantastic", 5: "Superb", 4: "Great", 3: "Good", 2: "Fair",
    1: "Average", 0: "Mediocre", -1: "Poor", -2: "Terrible",
})

SPIN_SHIFTS = 3        # "3 or more shifts on an action"
SPIN_BONUS = 1         # "spin can add +1"
WHOLE_HIT = 99         # a consequence taken instead of boxes absorbs the hit (up to 99 shifts)

#: Spin's steps around an action (``pbp.play.spin``), run only in early Fate's campaigns: a
#: bare +spin takes the number of the actor's own, the spin an action names is used up, 3+
#: shifts hold one, a re-run gives or takes it, and held ones lapse with the scene.
SPIN_STEPS = frozen({
    "prepare_action": ("spin.own_spin",),
    "before_action": ("spin.use_spin",),
    "after_action": ("spin.hold_spin",),
    "roll_revised": ("spin.spin_follows",),
    "scene_end": ("spin.spins_lapse",),
})


def stress_boxes(rating: int) -> int:
    """2 plus half the rating, rounded up (never fewer than one box)."""
    return max(1, 2 + ceil(rating / 2))


def _steps() -> tuple[tuple[int, int], ...]:
    steps, last = [(-99, stress_boxes(-99))], stress_boxes(-99)
    for rating in range(-10, 100):
        if stress_boxes(rating) != last:
            last = stress_boxes(rating)
            steps.append((rating, last))
    return tuple(steps)


class EarlyTiers(FateTiers):
    """Fate's margin and tiers; a tie against a difficulty succeeds ("matches or exceeds the
    difficulty in a simple action ... he succeeds"), against a roll it ties ("exceeds his
    opponent's total"); 3 or more shifts also earn a spin."""

    def contest_tier(self, shifts: int, active: bool) -> Outcome:
        outcome = self.tier(shifts)
        return Outcome.SUCCESS if outcome is Outcome.TIE and not active else outcome

    def note(self, report, effort: int, outcome: Outcome) -> None:
        if outcome is Outcome.STYLE:
            report.effect("spin", f"3 or more shifts: spin, +{SPIN_BONUS} to the roller's next action or another "
                                  "player's that follows from this one", bonus=SPIN_BONUS)


class EarlyTables(FateTables):
    """Fate Condensed's outcome tables, but style's added benefit is the spin: "If a
    character gets 3 or more shifts on an action, he gets to spin that action ... As a
    default, spin can add +1" ("Spin"). The text has no boosts for style, so an overcome or
    a defence with style earns its spin (reported for every action of 3 or more shifts,
    ``EarlyTiers.note``) instead of also a boost. Where it is silent (a tie's boost, an
    advantage's free invokes, trading a stylish hit's shift for a boost) the rows are Fate
    Condensed's (docs/early-fate.md)."""

    def style_boost(self, act, holder: str, action: str, why: str) -> None:
        """No boost: the spin stands for style's benefit."""


class EarlyExplainer(FateExplainer):
    """Fate's explanation, but a conflict is named by the stress track its hits go to
    ("Each shift that the winner gets inflicts one box of stress, either health stress or
    composure stress"): "A conflict begins (health stress)", not "A health conflict"."""

    def conflict_begins(self, kind: str, tracks) -> str:
        return f"A conflict begins ({kind} stress)"

    def slot(self, shifts: int, aspect: str | None) -> str:
        """A consequence takes the whole hit ("a consequence ... absorbs the entire hit"), so
        a slot shows no number (its ``WHOLE_HIT`` is bookkeeping): "(free), takes the whole
        hit", or the aspect filling it."""
        if shifts >= WHOLE_HIT:
            return aspect or "(free), takes the whole hit"
        return super().slot(shifts, aspect)


OPPOSED_BY = frozen({
    "Stealth": ("Alertness", "Investigation"),
    "Burglary": ("Alertness",),
    "Sleight of Hand": ("Alertness",),
    "Deceit": ("Empathy",),
    "Empathy": ("Deceit",),
    "Intimidation": ("Resolve",),
    "Rapport": ("Resolve",),
    "Leadership": ("Resolve",),
    "Alertness": ("Stealth",),
    "Investigation": ("Deceit", "Stealth"),
    "Athletics": ("Athletics", "Endurance"),
    "Endurance": ("Endurance", "Athletics"),
    "Might": ("Might",),
    "Fists": ("Fists", "Athletics"),
    "Weapons": ("Weapons", "Athletics"),
    "Guns": ("Athletics",),
    "Drive": ("Drive",),
    "Pilot": ("Pilot",),
})

EARLY_FATE = replace(
    FATE_CONDENSED,
    name="early-fate",
    title="early Fate",
    skills=SKILLS,
    stress=StressTable(steps=_steps()),
    stress_skills=frozen({"health": "Endurance", "composure": "Resolve"}),
    consequence_slots=(("mild", WHOLE_HIT), ("moderate", WHOLE_HIT), ("severe", WHOLE_HIT)),
    consequences_in_order=True,
    attack_kinds=fate_attack_kinds("health", "composure", melee=("Athletics", "Fists", "Weapons"),
                                   ranged=("Athletics",), will=("Resolve",)),
    attack_skills=frozen({"Fists": "melee", "Weapons": "melee", "Guns": "ranged", "Intimidation": "mental"}),
    opposed_by=OPPOSED_BY,
    default_opposition=("Athletics", "Alertness", "Resolve"),
    ladder=LADDER,
    tiers=EarlyTiers(),
    tables=EarlyTables(),
    explain=EarlyExplainer(),
    treatment_skills=frozen({}),
    harm_nouns=frozen({"health": "Wound", "composure": "Shaken"}),
    scene_clears=("mild",),
    gm_clears=True,
    spin_bonus=SPIN_BONUS,
    steps=SPIN_STEPS,
    concession="refusable",
    concede_on_hit=True,
)
