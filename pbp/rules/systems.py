"""Game systems as data plus small strategies.

One engine plays every Fate-family system; what differs is a ``System`` value: the skill
list, the stress table, the consequence slots, which skills attack and defend, what an
invoke is worth and, where the maths itself differs, a small function (how effort dice are
thrown, how shifts become an outcome). A new system is ``dataclasses.replace(FATE_CONDENSED,
...)`` with its differences, never a copy of the engine.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from types import MappingProxyType
from typing import Callable, Mapping

from pbp.errors import ConfigError
from pbp.rules.dice import DiceSource
from pbp.rules.ladder import LADDER
from pbp.rules.outcomes import outcome_for
from pbp.rules.results import DiceRoll, Outcome


def four_fate_dice(dice: DiceSource) -> DiceRoll:
    """Fate's effort dice: 4dF, -4..+4."""
    return DiceRoll(tuple(dice.fate(4)), "F")


@dataclass(frozen=True)
class StressTable:
    """Stress boxes by the rating of the track's skill (Physique, Will).

    ``steps`` are (lowest rating, boxes), lowest first. ``escalating`` is Fate Core's
    option where box n absorbs n shifts; Fate Condensed's boxes absorb one shift each.
    """

    steps: tuple[tuple[int, int], ...]
    extra_mild_from: int | None = None
    escalating: bool = False

    def boxes(self, rating: int) -> int:
        count = 0
        for lowest, boxes in self.steps:
            if rating >= lowest:
                count = boxes
        return count

    def box_values(self, rating: int) -> tuple[int, ...]:
        """Shifts each box absorbs: (1, 1, 1, 1) or, escalating, (1, 2, 3, 4)."""
        n = self.boxes(rating)
        return tuple(range(1, n + 1)) if self.escalating else (1,) * n

    def extra_mild(self, rating: int) -> bool:
        return self.extra_mild_from is not None and rating >= self.extra_mild_from


@dataclass(frozen=True)
class AttackKind:
    """A kind of attack: the stress track it hits and the skills that defend against it."""

    name: str
    track: str
    defences: tuple[str, ...]


def _frozen(mapping: Mapping) -> Mapping:
    return MappingProxyType(dict(mapping))


@dataclass(frozen=True, eq=False)
class System:
    """Everything the engine needs to know about one game system.

    Equality is identity: systems are registry singletons, and mapping fields are not
    hashable.
    """

    name: str
    skills: tuple[str, ...]
    stress: StressTable
    stress_skills: Mapping[str, str]                  # track -> skill that sizes it
    consequence_slots: tuple[tuple[str, int], ...]    # (severity, shifts absorbed)
    attack_kinds: Mapping[str, AttackKind]
    attack_skills: Mapping[str, str]                  # skill -> attack kind name
    opposed_by: Mapping[str, tuple[str, ...]] = field(default_factory=lambda: _frozen({}))
    default_opposition: tuple[str, ...] = ()
    skill_pyramid: Mapping[int, int] = field(default_factory=lambda: _frozen({}))
    ladder: Mapping[int, str] = field(default_factory=lambda: LADDER)
    invoke_bonus: int = 2
    # Character creation: a PC starts at ``starting_refresh`` with ``free_stunts`` stunts
    # free; each further stunt costs 1 refresh, never below ``min_refresh``.
    starting_refresh: int = 3
    free_stunts: int = 3
    min_refresh: int = 1
    minor_npc_max_boxes: int = 3
    minor_npc_max_aspects: int = 2
    effort_dice: Callable[[DiceSource], DiceRoll] = four_fate_dice
    outcome: Callable[[int], Outcome] = outcome_for
    # Harm and recovery (pbp.rules.harm, pbp.rules.recovery). "one-point-boxes" is Fate
    # Condensed (each box absorbs one shift, mark as many as you like); Fate Core's
    # "escalating" boxes (one box per hit, worth its number) is a strategy still to write.
    absorb_strategy: str = "one-point-boxes"
    treatment_skills: Mapping[str, str] = field(
        default_factory=lambda: _frozen({"physical": "Academics", "mental": "Empathy"}))

    # -- skills -------------------------------------------------------------------------
    @cached_property
    def _skill_index(self) -> dict[str, str]:
        return {s.casefold(): s for s in self.skills}

    def skill_named(self, name: str) -> str | None:
        """The system's spelling of a skill named case-insensitively, or None."""
        return self._skill_index.get(name.casefold())

    # -- stress and consequences ---------------------------------------------------------
    def stress_boxes(self, rating: int) -> int:
        return self.stress.boxes(rating)

    def extra_mild(self, rating: int) -> bool:
        return self.stress.extra_mild(rating)

    # -- attack and defence --------------------------------------------------------------
    def attack_kind(self, skill: str) -> AttackKind | None:
        """The kind of attack a skill makes, or None when it is not an attack skill."""
        kind = self.attack_skills.get(skill)
        return None if kind is None else self.attack_kinds[kind]

    def defences_against(self, kind: AttackKind | None) -> tuple[str, ...]:
        """Skills that may defend against ``kind``; all defence skills when it is unknown."""
        if kind is not None:
            return kind.defences
        seen: dict[str, None] = {}
        for k in self.attack_kinds.values():
            seen.update(dict.fromkeys(k.defences))
        return tuple(seen)

    def opposing_skills(self, skill: str) -> tuple[str, ...]:
        """Skills a character uses to oppose an overcome or advantage made with ``skill``."""
        return self.opposed_by.get(skill, self.default_opposition)


FATE_CONDENSED_SKILLS = (
    "Academics", "Athletics", "Burglary", "Contacts", "Crafts", "Deceive", "Drive",
    "Empathy", "Fight", "Investigate", "Lore", "Notice", "Physique", "Provoke", "Rapport",
    "Resources", "Shoot", "Stealth", "Will",
)

FATE_CONDENSED = System(
    name="fate-condensed",
    skills=FATE_CONDENSED_SKILLS,
    # Mediocre -> 3 boxes, Average/Fair -> 4, Good/Great -> 6, Superb+ -> 6 + a mild slot.
    stress=StressTable(steps=((-99, 3), (1, 4), (3, 6)), extra_mild_from=5),
    stress_skills=_frozen({"physical": "Physique", "mental": "Will"}),
    consequence_slots=(("mild", 2), ("moderate", 4), ("severe", 6)),
    attack_kinds=_frozen({
        "melee": AttackKind("melee", "physical", ("Athletics", "Fight")),
        "ranged": AttackKind("ranged", "physical", ("Athletics",)),
        "mental": AttackKind("mental", "mental", ("Will",)),
    }),
    attack_skills=_frozen({"Fight": "melee", "Shoot": "ranged", "Provoke": "mental"}),
    # Who resists what, from the skill descriptions: Notice spots Stealth and Burglary,
    # Empathy sees through Deceive, Will holds against Provoke and Rapport; physical
    # contests meet like with like. Anything else: the best of Athletics, Notice, Will
    # (dodging it, seeing it coming, or refusing it).
    opposed_by=_frozen({
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
    }),
    default_opposition=("Athletics", "Notice", "Will"),
    skill_pyramid=_frozen({4: 1, 3: 2, 2: 3, 1: 4}),
)

SYSTEMS: Mapping[str, System] = _frozen({FATE_CONDENSED.name: FATE_CONDENSED})


class UnknownSystem(ConfigError, KeyError):
    """A campaign names a game system pbp does not know (also a ``KeyError``)."""


def get_system(name: str) -> System:
    """The system a campaign names (case-insensitively)."""
    try:
        return SYSTEMS[name.casefold()]
    except KeyError:
        known = ", ".join(sorted(SYSTEMS))
        raise UnknownSystem(f"unknown game system {name!r}", hint=f"known systems: {known}") from None
