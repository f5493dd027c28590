"""Character sheets checked against the campaign's system, and what a sheet implies:
stress tracks and consequence slots.

Player characters follow the creation and advancement rules (skill list, the column rule,
refresh); NPCs are the GM's business and may carry free-form skills ("Biting People");
minor NPCs have 0-3 stress boxes written on the sheet and no consequences.
"""
from __future__ import annotations

from collections import Counter

from pbp.rules.ladder import describe
from pbp.rules.state import Character, Consequence
from pbp.rules.systems import System

STUNT_ACTIONS = ("", "overcome", "advantage", "attack", "defend")


def validate_character(ch: Character, system: System) -> list[str]:
    """Every problem with the sheet, in words a GM can act on; an empty list means valid."""
    problems: list[str] = []
    if ch.fate_points < 0:
        problems.append(f"{ch.name} has {ch.fate_points} fate points; fate points cannot be negative")
    problems += _duplicate_skills(ch)
    if ch.kind == "pc":
        problems += _pc_skills(ch, system)
        problems += column_problems(ch.skills)
        if ch.refresh < system.min_refresh:
            problems.append(f"{ch.name} has refresh {ch.refresh}; a player character keeps at least "
                            f"{system.min_refresh} (buy fewer stunts)")
        problems += _pc_stunts(ch, system)
    elif ch.kind == "minor":
        problems += _minor_stress(ch, system)
    elif ch.kind != "npc":
        problems.append(f'{ch.name} is of kind "{ch.kind}"; expected pc, npc or minor')
    return problems


def _duplicate_skills(ch: Character) -> list[str]:
    first: dict[str, str] = {}
    repeated: list[str] = []
    for name in ch.skills:
        key = name.casefold()
        if key in first and first[key] not in repeated:
            repeated.append(first[key])
        first.setdefault(key, name)
    return [f'{ch.name} lists the skill "{name}" more than once' for name in repeated]


def _pc_skills(ch: Character, system: System) -> list[str]:
    problems = []
    for name, rating in ch.skills.items():
        if system.skill_named(name) is None:
            problems.append(f'{ch.name} has "{name}", which is not a {system.name} skill '
                            f"(skills: {', '.join(system.skills)})")
        if rating < 0:
            problems.append(f"{ch.name}'s {name} is {describe(rating)}; a player character's skills "
                            "start at Mediocre (+0)")
    return problems


def column_problems(skills: dict[str, int]) -> list[str]:
    """The column rule: each step may not have more skills than the step below it.

    The starting pyramid (one Great, two Good, three Fair, four Average) obeys it, and so
    does every sheet grown by milestones; Mediocre is "all other skills", so Average is
    never limited by the step below.
    """
    counts = Counter(r for r in skills.values() if r > 0)
    if not counts:
        return []
    problems = []
    for rating in range(2, max(counts) + 1):
        if counts[rating] > counts[rating - 1]:
            problems.append(
                f"{counts[rating]} skill{'s' if counts[rating] > 1 else ''} at {describe(rating)} but only "
                f"{counts[rating - 1]} at {describe(rating - 1)}: each step may not have more skills "
                "than the step below it"
            )
    return problems


def matches_pyramid(skills: dict[str, int], system: System) -> bool:
    """True when the sheet is exactly the system's starting pyramid."""
    counts = Counter(r for r in skills.values() if r > 0)
    return dict(counts) == dict(system.skill_pyramid)


def _pc_stunts(ch: Character, system: System) -> list[str]:
    problems = []
    for stunt in ch.stunts:
        if stunt.skill and system.skill_named(stunt.skill) is None:
            problems.append(f'stunt "{stunt.name}" names "{stunt.skill}", which is not a {system.name} skill')
        if stunt.action.casefold() not in STUNT_ACTIONS:
            problems.append(f'stunt "{stunt.name}" is for "{stunt.action}"; actions are overcome, advantage, '
                            "attack, defend (or leave it empty for any)")
    return problems


def _minor_stress(ch: Character, system: System) -> list[str]:
    limit = system.minor_npc_max_boxes
    return [
        f"minor NPC {ch.name} has {len(boxes)} {track} stress boxes; minor NPCs have 0 to {limit}"
        for track, boxes in ch.stress.items() if len(boxes) > limit
    ]


def stress_tracks(ch: Character, system: System) -> dict[str, int]:
    """Boxes per track: from Physique and Will for PCs and major NPCs; as written for
    minor NPCs."""
    if ch.kind == "minor":
        return {track: len(ch.stress.get(track, [])) for track in system.stress_skills}
    return {track: system.stress_boxes(_rating(ch, skill)) for track, skill in system.stress_skills.items()}


def consequence_slots(ch: Character, system: System) -> list[Consequence]:
    """Empty consequence slots: mild, moderate, severe, and a second mild slot for physical
    (Physique) or mental (Will) hits at Superb (+5) and above. Minor NPCs have none."""
    if ch.kind == "minor":
        return []
    slots = [Consequence(severity, shifts) for severity, shifts in system.consequence_slots]
    mild = dict(system.consequence_slots).get("mild", 2)
    for track, skill in system.stress_skills.items():
        if system.extra_mild(_rating(ch, skill)):
            slots.append(Consequence("mild2", mild, track=track))
    return slots


def _rating(ch: Character, skill: str) -> int:
    key = skill.casefold()
    return next((r for name, r in ch.skills.items() if name.casefold() == key), 0)
