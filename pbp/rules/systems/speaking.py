"""A system in a campaign's language: its skills named in that language and its ladder in
that language's words, agreeing with the skill they rate (Portuguese "Luta Ótima",
"Ofício Regular"; ``pbp.i18n.words``).

The rules read skill names from the system (which skills attack, which defend, which size
the stress tracks, which oppose which), so a Portuguese campaign's system names them in
Portuguese and the characters' sheets keep Portuguese skill names (docs/sheets.md): the rules
need no translation, and every reply that names a skill names it as the sheet does.
"""
from __future__ import annotations

import copy
import dataclasses
from types import MappingProxyType

from pbp.i18n.words import GAME_WORDS, GameWords
from pbp.rules.ladder import signed

_SPOKEN: dict[tuple[int, str], object] = {}


def _agreeing(words: GameWords):
    """The explainer's ``agree``: a skill's rating in words agreeing with the skill."""
    def agree(skill: str, value: int) -> str:
        gender, plural = words.gender(skill)
        word = words.rating(value, gender, plural)
        return f"{word} ({signed(value)})" if word else signed(value)
    return agree


def speaking(system, code: str):
    """``system`` in language ``code`` (itself in English, or when the language names none of
    its skills); made once per system and language (systems compare by identity)."""
    words = GAME_WORDS.get(code)
    if words is None or not words.skills:
        return system
    key = (id(system), code)
    if key not in _SPOKEN:
        _SPOKEN[key] = _translated(system, words, code)
    return _SPOKEN[key]


def _translated(system, words: GameWords, code: str):
    name = words.skill

    def names(items):
        return tuple(name(s) for s in items)

    def keyed(mapping, values=False):
        return MappingProxyType({name(k): (names(v) if isinstance(v, tuple) else name(v) if values else v)
                                 for k, v in mapping.items()})

    kinds = MappingProxyType({k: dataclasses.replace(kind, defences=names(kind.defences))
                              for k, kind in system.attack_kinds.items()})
    changes = dict(
        skills=names(system.skills),
        stress_skills=MappingProxyType({track: name(s) for track, s in system.stress_skills.items()}),
        attack_kinds=kinds,
        attack_skills=keyed(system.attack_skills),
        opposed_by=keyed(system.opposed_by, values=True),
        default_opposition=names(system.default_opposition),
        treatment_skills=MappingProxyType({track: name(s) for track, s in system.treatment_skills.items()}),
        language=code,
    )
    if system.dice.name == "4dF":      # the ladder is Fate's: its words in the language
        changes["ladder"] = MappingProxyType({v: words.rating(v) for v in system.ladder if words.rating(v)})
        explainer = copy.copy(system.explain)
        explainer.agree = _agreeing(words)
        changes["explain"] = explainer
    return dataclasses.replace(system, **changes)
