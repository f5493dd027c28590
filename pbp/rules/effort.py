"""Efforts: dice + skill + stunts + modifiers, for the actor and for an active opposition.

An ``Effort`` keeps every throw and every term with its source, so the reply can show
"[0][+][+][+] +1 Crafts = Great (+4)" and tests can check the sum term by term.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping

from pbp.commands import StuntUse
from pbp.errors import RulesError
from pbp.i18n import Msg
from pbp.rules.dice import DiceSource
from pbp.rules.ladder import describe
from pbp.rules.names import lookup_skill, same_name
from pbp.rules.results import Effort, Modifier, OppositionResult
from pbp.rules.state import Character
from pbp.rules import stunts
from pbp.rules.system import System


def effort_modifiers(character: Character, skill: str, rating: int, action: str, *, system: System,
                     approach: Modifier | None = None, named: Iterable[StuntUse] = (), modifier: int = 0,
                     source: str = "", spin: int = 0, spin_label: str = "spin") -> list[Modifier]:
    """The terms of an effort: the skill (and the system's second pool term, an approach),
    the stunts that apply now (the system says which: a mech's join the pilot's), a +N, a
    held spin (early Fate's +1, checked and used up by pbp.play.spin before the roll)."""
    mods = [Modifier("skill", skill, rating)]
    if approach is not None:
        mods.append(approach)
    mods += stunts.stunt_modifiers(character, skill, action, named, source,
                                   system.character_state.stunts(character))
    if modifier:
        mods.append(Modifier("modifier", "modifier", modifier))
    if spin:
        mods.append(Modifier("spin", spin_label, spin))
    return mods


def roll_effort(character: Character, skill: str, modifiers: list[Modifier], dice: DiceSource,
                system: System) -> Effort:
    return Effort(roller=character.name, skill=skill, rolls=[system.roll(dice, skill_rating(modifiers))],
                  modifiers=modifiers, rating_counts=system.dice.adds_rating)


def skill_rating(modifiers: list[Modifier]) -> int:
    """The rating the dice are rolled from (a dice pool's size): the skill terms of an effort
    (the skill, and in the d10 hack the approach)."""
    return sum(m.value for m in modifiers if m.source == "skill")


NO_SKILL = Msg("(no skill)")   # said in the campaign's language where a sentence names it
"""What an NPC resists with when it has none of the skills allowed: Mediocre (+0)."""


def best_skill(character: Character, candidates: Iterable[str], skills: tuple[str, ...]) -> tuple[str, int]:
    """The highest-rated of ``candidates`` on the sheet (the first listed wins a tie); a
    character picks their best way to resist, as a player would.

    An NPC uses only skills its sheet has: the GM gives an NPC "one or two skills to
    describe what they're good at" (Fate Condensed, minor NPCs), and everything else is
    Mediocre (+0). So an NPC without any of ``candidates`` resists at Mediocre (+0) with no
    skill named, rather than with a skill it lacks (a Stealth the thug never had)."""
    candidates = list(candidates)
    if character.kind != "pc" and candidates:
        own = {k.casefold() for k in character.skills}
        candidates = [n for n in candidates if n.casefold() in own]
        if not candidates:
            return NO_SKILL, 0
    best: tuple[str, int] | None = None
    for name in candidates:
        found = lookup_skill(character, name, skills) or (name, 0)
        if best is None or found[1] > best[1]:
            best = found
    if best is None:
        raise RulesError(f"the rules name no skill {character.name} could use here",
                         expected="a skill named in the command", example="/defend Athletics")
    return best


def check_permission(character: Character, skill: str, allowed: tuple[str, ...], action: str,
                     system: System, *, source: str = "", example: str = "") -> None:
    """Only the skills the system lists may attack or defend (a stunt for that skill and
    action grants permission). A skill outside the system's list is an NPC's free-form
    skill ("Biting People"): the GM wrote it for this purpose, so it is trusted."""
    if any(same_name(skill, a) for a in allowed):
        return
    if system.skill_named(skill) is None or stunts.grants(character, skill, action,
                                                          system.character_state.stunts(character)):
        return
    raise RulesError(
        f"{skill} cannot be used to {action} here; the rules allow {', '.join(allowed)}",
        source=source, expected=f"one of {', '.join(allowed)}", example=example,
        hint="a stunt can give a skill permission; otherwise create an advantage with it first",
    )


def passive(rating: int, ladder: Mapping[int, str]) -> OppositionResult:
    """A difficulty, labelled with the system's ``ladder``: "Fair (+2)"."""
    return OppositionResult(value=rating, label=describe(rating, ladder))


@dataclass(frozen=True)
class Opponent:
    """A character who will roll against the actor, and with which skill."""

    character: Character
    skill: str
    rating: int
    action: str           # the action their own stunts must match: "defend", or "attack"

    def roll(self, dice: DiceSource, system: System) -> OppositionResult:
        approach = system.character_state.approach(self.character, None, chosen=False)
        mods = effort_modifiers(self.character, self.skill, self.rating, self.action, system=system,
                                approach=approach)
        effort = roll_effort(self.character, self.skill, mods, dice, system)
        return OppositionResult(effort.total, f"{self.character.name}: {self.skill}", effort, self.character.name)
