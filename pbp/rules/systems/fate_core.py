"""Fate Core: Fate Condensed with Fate Core's escalating stress boxes and skill list.

The stress rule is the one 000_7ba3f797fc1d45d3.txt quotes from Fate Core ("Escalating
Stress Boxes"): "By default, all characters get a 1-point and a 2-point box. You may get
additional, higher-value stress boxes depending on some of your skills (usually Physique
and Will)." Fate Core's table for them: Average or Fair adds a 3-point box, Good or Great a
3- and a 4-point box, Superb and above also an extra mild consequence slot (for that
track). One box per hit, worth its number (``EscalatingBoxes``).

Fate Core has no Academics: Lore covers learning, and so treats physical consequences
(first aid and medicine are knowledge); Empathy treats mental ones. All else, including
the consequence slots, the ladder, the outcomes and what an invoke is worth, is Fate
Condensed's.
"""
from __future__ import annotations

from dataclasses import replace

from pbp.rules.advancement import MINOR, Allowance
from pbp.rules.system import StressTable, frozen
from pbp.rules.systems.fate_condensed import FATE_CONDENSED

SKILLS = tuple(s for s in FATE_CONDENSED.skills if s != "Academics")

FATE_CORE = replace(
    FATE_CONDENSED,
    name="fate-core",
    title="Fate Core",
    skills=SKILLS,
    # Mediocre -> boxes 1 and 2; Average/Fair -> 1-3; Good/Great -> 1-4; Superb+ -> 1-4 + a mild slot.
    stress=StressTable(steps=((-99, 2), (1, 3), (3, 4)), extra_mild_from=5, escalating=True),
    treatment_skills=frozen({"physical": "Lore", "mental": "Empathy"}),
    # Fate Core's three milestones (no rules text here: docs/systems.md gives pbp's reading):
    # significant = a minor change and a skill point; major = that, a new high concept and a
    # point of refresh.
    milestones=frozen({"minor": MINOR, "significant": Allowance(lateral=1, skill_points=1),
                       "major": Allowance(lateral=1, high_concept=True, skill_points=1, refresh=1)}),
)
