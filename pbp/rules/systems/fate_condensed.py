"""Fate Condensed (000_7ba3f797fc1d45d3.txt): the ordinary case every hook defaults to."""
from __future__ import annotations

from pbp.rules.system import StressTable, System, fate_attack_kinds, frozen

SKILLS = (
    "Academics", "Athletics", "Burglary", "Contacts", "Crafts", "Deceive", "Drive",
    "Empathy", "Fight", "Investigate", "Lore", "Notice", "Physique", "Provoke", "Rapport",
    "Resources", "Shoot", "Stealth", "Will",
)

# Who resists what, from the skill descriptions: Notice spots Stealth and Burglary, Empathy
# sees through Deceive, Will holds against Provoke and Rapport; physical contests meet like
# with like. Anything else: the best of Athletics, Notice, Will (dodging it, seeing it
# coming, or refusing it).
OPPOSED_BY = frozen({
    "Stealth": ("Notice",),
    "Burglary": ("Notice",),
    "Deceive": ("Empathy",),
    "Empathy": ("Deceive",),
    "Provoke": ("Will",),
    "Rapport": ("Will",),
    "Notice": ("Stealth",),
    "Investigate": ("Deceive", "Stealth"),
    "Athletics": ("Athletics", "Physique"),
    "Physique": ("Physique", "Athletics"),
    "Fight": ("Fight", "Athletics"),
    "Shoot": ("Athletics",),
    "Drive": ("Drive",),
})

ATTACK_KINDS = fate_attack_kinds("physical", "mental", melee=("Athletics", "Fight"), ranged=("Athletics",),
                                 will=("Will",))

FATE_CONDENSED = System(
    name="fate-condensed",
    title="Fate Condensed",
    skills=SKILLS,
    # Mediocre -> 3 boxes, Average/Fair -> 4, Good/Great -> 6, Superb+ -> 6 + a mild slot.
    stress=StressTable(steps=((-99, 3), (1, 4), (3, 6)), extra_mild_from=5),
    stress_skills=frozen({"physical": "Physique", "mental": "Will"}),
    consequence_slots=(("mild", 2), ("moderate", 4), ("severe", 6)),
    attack_kinds=ATTACK_KINDS,
    attack_skills=frozen({"Fight": "melee", "Shoot": "ranged", "Provoke": "mental"}),
    opposed_by=OPPOSED_BY,
    default_opposition=("Athletics", "Notice", "Will"),
    skill_pyramid=frozen({4: 1, 3: 2, 2: 3, 1: 4}),
)
