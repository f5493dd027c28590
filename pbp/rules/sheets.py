"""Character sheets checked against the campaign's system, and what a sheet implies:
stress tracks and consequence slots.

Player characters follow the creation and advancement rules (skill list, the column rule,
refresh and stunts); NPCs are the GM's business and may carry free-form skills ("Biting
People"); minor NPCs have one or two aspects, 0-3 stress boxes written on the sheet and no
consequences. Every character's name must be one the commands can reach (not a reserved
word), and no two of its aspects, skills or stunts may differ only in case.
"""
from __future__ import annotations

from collections import Counter
from types import MappingProxyType
from typing import Iterable

from pbp.rules.advancement import column_problems
from pbp.rules.ladder import LADDER, describe
from pbp.rules.names import suggestions
from pbp.rules.state import Aspect, Character, Consequence
from pbp.rules.system import System

STUNT_ACTIONS = ("", "overcome", "advantage", "attack", "defend")

#: Words a character may not be called (compared case-insensitively), each with why: the
#: command language reads the bare word as something else in a place where a character's
#: name goes, so a character of that name could only ever be reached in quotes, and "GM"
#: and "me" would be taken for the GM and for the author. tests/test_sheet_import.py
#: derives the list from the grammar, so a new keyword that collides shows up there.
RESERVED_NAMES = MappingProxyType({
    "gm": 'stands for the GM in commands (/give "Boost" GM)',
    "me": "stands for the author's own character (/compel me ...)",
    **{word.casefold(): f'is a difficulty after "vs" (/overcome Athletics vs {word})' for word in LADDER.values()},
    **{word: f"is a part of the /fp command (/fp {word} ...)" for word in ("show", "spend", "give", "take")},
    **{word: f'is an outcome after "on" (/advantage Notice "Open Window" on {word} boost)'
       for word in ("tie", "fail", "failure", "style")},
    **{word: f'is read as a keyword after /give ASPECT (/give "Boost" {word} ...)'
       for word in ("to", "with", "event", "decision")},
    "set": "is a part of the /sheet command (/sheet set NAME KEY=VALUE, the GM's fixes)",
})


def name_problems(name: str) -> list[str]:
    """Why a character cannot be called ``name`` (a reserved word), or nothing."""
    why = RESERVED_NAMES.get(name.strip().casefold())
    return [f'"{name}" cannot be a character\'s name: it {why}'] if why else []


def validate_character(ch: Character, system: System, *, milestone_refresh: int = 0) -> list[str]:
    """Every problem with the sheet, in words a GM can act on; an empty list means valid.

    ``milestone_refresh`` is refresh a PC gained at major milestones since creation; it
    raises the refresh the stunt rule expects."""
    problems = _at("name", name_problems(ch.name))
    if ch.fate_points < 0:
        problems.append(f"fate_points: {ch.name} has {ch.fate_points} fate points; fate points cannot be negative")
    problems += _at("skills", _duplicate_skills(ch))
    problems += _at("stunts", _twins("stunt", (stunt.name for stunt in ch.stunts), ch.name))
    if ch.kind == "pc":
        problems += _at("skills", _pc_skills(ch, system) + column_problems(ch.skills, system.ladder))
        problems += _at("refresh", refresh_problems(ch, system, milestone_refresh))
        problems += _at("stunts", _pc_stunts(ch, system))
    elif ch.kind == "minor":
        problems += _at("stress", _minor_stress(ch, system))
    elif ch.kind != "npc":
        problems.append(f'kind: {ch.name} is of kind "{ch.kind}"; expected pc, npc or minor')
    return problems


def _at(part: str, problems: list[str]) -> list[str]:
    """Problems prefixed with the part of the sheet they are about (``refresh: ...``)."""
    return [f"{part}: {p}" for p in problems]


def refresh_problems(ch: Character, system: System, milestone_refresh: int = 0) -> list[str]:
    """Refresh against stunts (Fate Condensed, "Stunts"): a PC begins with refresh 3 and
    three free stunt slots, and may buy more stunts "by spending 1 refresh each, to a
    minimum of 1 refresh". So refresh is 3, plus what major milestones gave, minus one for
    each stunt beyond the third, and never below 1."""
    granted = system.character_state.granted_stunts(ch)
    free = system.character_state.free_stunts(ch, system)
    extra = max(0, len(ch.stunts) - granted - free)
    expected = system.starting_refresh + milestone_refresh - extra
    stunts = f"{len(ch.stunts)} stunt{'s' if len(ch.stunts) != 1 else ''}"
    free_part = (f"the first {free} stunts are free " if not granted else
                 f"the mantle's {granted} core stunt{'s' if granted != 1 else ''} and {free} other "
                 f"stunt{'s' if free != 1 else ''} are free ")
    rule = (free_part + f"and each further one costs 1 refresh, starting from refresh {system.starting_refresh}"
            + (f" plus {milestone_refresh} from milestones" if milestone_refresh else ""))
    if expected < system.min_refresh:
        return [f"{ch.name} has {stunts}, which would leave refresh {expected}; {rule}, and a player "
                f"character keeps at least {system.min_refresh}: drop {system.min_refresh - expected} "
                f"stunt{'s' if system.min_refresh - expected != 1 else ''}"]
    if ch.refresh < system.min_refresh:
        return [f"{ch.name} has refresh {ch.refresh}; a player character keeps at least "
                f"{system.min_refresh}, and with {stunts} it is {expected}; e.g. refresh = {expected}"]
    if ch.refresh != expected:
        more = ", or count refresh gained at major milestones with milestone_refresh" if ch.refresh > expected else ""
        return [f"{ch.name} has refresh {ch.refresh} with {stunts}; {rule}, so refresh is {expected}{more}; "
                f"e.g. refresh = {expected}"]
    return []


def aspect_problems(ch: Character, aspects: Iterable[Aspect], system: System) -> list[str]:
    """A character's own aspects: none twice (in any case), and a minor NPC has one or two
    ("Most minor NPCs will have a single aspect ... If necessary, give them another")."""
    names = [a.name for a in aspects]
    problems = _twins("aspect", names, ch.name)
    limit = system.minor_npc_max_aspects
    if ch.kind == "minor" and not 1 <= len(names) <= limit:
        problems.append(f"minor NPC {ch.name} has {len(names)} aspects; a minor NPC has 1 to {limit}; "
                        'e.g. aspects.other = ["Acolyte in a Golden Mask"]')
    return _at("aspects", problems)


def _twins(what: str, names: Iterable[str], owner: str) -> list[str]:
    """Names that appear twice, ignoring case (commands match names case-insensitively)."""
    first: dict[str, str] = {}
    reported: set[str] = set()
    problems = []
    for name in names:
        key = name.casefold()
        if key not in first:
            first[key] = name
        elif key not in reported:
            reported.add(key)
            seen = first[key]
            same = "more than once" if seen == name else \
                f'as "{seen}" and as "{name}" (names are matched case-insensitively)'
            problems.append(f'{owner} has the {what} "{seen}" {same}')
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
            close = suggestions(name, system.skills, n=1)
            problems.append(f'{ch.name} has "{name}", which is not {system.a_skill()}'
                            + (f' (did you mean "{close[0]}"?)' if close else f" (skills: {', '.join(system.skills)})"))
        if rating < 0:
            problems.append(f"{ch.name}'s {name} is {describe(rating, system.ladder)}; a player character's skills "
                            "start at Mediocre (+0)")
    return problems


def matches_pyramid(skills: dict[str, int], system: System) -> bool:
    """True when the sheet is exactly the system's starting pyramid."""
    counts = Counter(r for r in skills.values() if r > 0)
    return dict(counts) == dict(system.skill_pyramid)


def _pc_stunts(ch: Character, system: System) -> list[str]:
    problems = []
    for stunt in ch.stunts:
        if stunt.skill and system.skill_named(stunt.skill) is None:
            problems.append(f'stunt "{stunt.name}" names "{stunt.skill}", which is not {system.a_skill()}')
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
