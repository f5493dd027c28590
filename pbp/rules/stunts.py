"""Bonus stunts: +N to a skill used for an action, sometimes only in a circumstance.

The engine cannot see circumstances ("when fighting in the dark"), so a stunt that has one
applies only when the player names it with ``+stunt "Name"``; one without applies by
itself whenever its skill and action match, because the rules say stunts are used "any
time they apply" at no cost.
"""
from __future__ import annotations

from typing import Iterable

from pbp.commands import StuntUse
from pbp.errors import RulesError
from pbp.rules.names import same_name, unknown
from pbp.rules.results import Modifier
from pbp.rules.state import Character, Stunt


def fits(stunt: Stunt, skill: str, action: str) -> bool:
    """Skill and action match; an empty field on the stunt matches anything."""
    return (not stunt.skill or same_name(stunt.skill, skill)) and (not stunt.action or same_name(stunt.action, action))


def automatic(stunt: Stunt, skill: str, action: str) -> bool:
    return stunt.bonus != 0 and not stunt.circumstance and fits(stunt, skill, action)


def grants(character: Character, skill: str, action: str, stunts: list[Stunt] | None = None) -> bool:
    """A stunt written for exactly this skill and action gives permission to use the skill
    for it (for example "Fists of Lore: use Lore to attack")."""
    return any(same_name(s.skill, skill) and same_name(s.action, action)
               for s in (character.stunts if stunts is None else stunts))


def find_stunt(character: Character, name: str, source: str = "", stunts: list[Stunt] | None = None) -> Stunt:
    stunts = character.stunts if stunts is None else stunts
    for stunt in stunts:
        if same_name(stunt.name, name):
            return stunt
    raise unknown("stunt", name, f'{character.name} has no stunt "{name}"',
                  (s.name for s in stunts), source=source,
                  expected=f"a stunt on {character.name}'s sheet")


def stunt_modifiers(character: Character, skill: str, action: str, named: Iterable[StuntUse] = (),
                    source: str = "", stunts: list[Stunt] | None = None) -> list[Modifier]:
    """Modifiers from the stunts that apply: automatic ones, then the named ones. ``stunts``:
    the ones that apply now, when the system layers more on the sheet's (a mech's)."""
    stunts = character.stunts if stunts is None else stunts
    chosen = [s for s in stunts if automatic(s, skill, action)]
    for use in named:
        stunt = find_stunt(character, use.name, source, stunts)
        if not fits(stunt, skill, action):
            raise RulesError(
                f'{stunt.name} is for {stunt.skill or "any skill"} when you '
                f'{stunt.action or "act"}, not {skill} to {action}',
                source=source, expected="a stunt whose skill and action match the roll",
            )
        if not any(c is stunt for c in chosen):
            chosen.append(stunt)
    return [Modifier("stunt", s.name, s.bonus) for s in chosen if s.bonus]
