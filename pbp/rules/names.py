"""Finding characters, skills, aspects and stunts by the names players type.

Names match case-insensitively. A name that matches nothing raises ``UnknownNameError``
with close matches (difflib) and, where the command line is known, that same line with the
best match in place of the typo, so the reply can show a command that works.
"""
from __future__ import annotations

import difflib
import re
from typing import Iterable

from pbp.errors import UnknownNameError
from pbp.i18n import Joined, Msg, fold
from pbp.i18n.words import GAME_WORDS, skill_in
from pbp.rules.naming import GM, and_names, quote
from pbp.rules.state import Aspect, Character, Table, short_matches
from pbp.rules.system import System


def suggestions(name: str, candidates: Iterable[str], n: int = 3) -> list[str]:
    """Close matches for ``name`` among ``candidates``, best first, in their own spelling."""
    by_key: dict[str, str] = {}
    for candidate in candidates:
        by_key.setdefault(candidate.casefold(), candidate)
    keys = difflib.get_close_matches(name.casefold(), list(by_key), n=n, cutoff=0.6)
    return [by_key[k] for k in keys]


_QUOTES = "\"'“”„«»‘’"
_BARE = re.compile(r"[A-Za-z][A-Za-z0-9'’-]*\Z")


def example_with(source: str, wrong: str, right: list[str], fallback: str = "") -> str:
    """The command line as written with the first suggestion in place of the wrong name
    (quoted when the name needs quotes and the wrong one had none)."""
    if source and right and wrong:
        found = re.search(re.escape(wrong), source, flags=re.IGNORECASE)
        if found:
            name = right[0]
            quoted = found.start() > 0 and source[found.start() - 1] in _QUOTES
            if not quoted and not _BARE.match(name):
                name = f'"{name}"'
            return source[:found.start()] + name + source[found.end():]
    return fallback


def unknown(kind: str, name: str, message: str, candidates: Iterable[str], *, source: str = "",
            fallback_example: str = "", expected: str = "") -> UnknownNameError:
    candidates = list(candidates)
    close = suggestions(name, candidates)
    if close:
        message = Joined([message, Msg(' (did you mean "{name}"?)', name=close[0])])
    # With no close match the example still names something that exists (the first in
    # order: the candidates are only what the viewer may know), so it is a working line.
    stand_in = close or sorted(set(candidates), key=str.casefold)[:1]
    return UnknownNameError(
        message, kind=kind, name=name, suggestions=close, source=source, expected=expected,
        example=example_with(source, name, stand_in, fallback_example),
    )


def one_of(names: list[str]) -> str:
    quoted = [f'"{n}"' for n in names]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " or " + quoted[-1]


def ambiguous(kind: str, name: str, candidates: list[str], *, source: str = "",
              fallback_example: str = "") -> UnknownNameError:
    """A short name that fits several: the reply names them, and the example is the
    command as written with the first of them."""
    return UnknownNameError(
        f'"{name}" could be {one_of(candidates)}: write more of the name', kind=kind, name=name,
        suggestions=list(candidates), source=source, expected=f"one of {one_of(candidates)}",
        example=example_with(source, name, list(candidates), fallback_example))


def find_character(table: Table, name: str, *, source: str = "") -> Character:
    character = table.character(name)
    if character is None:
        several = table.characters_named(name)
        if len(several) > 1:
            raise ambiguous("character", name, [c.name for c in several], source=source)
        raise unknown(
            "character", name, f'no character called "{name}" in this campaign',
            (c.name for c in table.characters.values()), source=source,
            expected="the name of a character in this campaign",
        )
    return character


def skill_list(table: Table, system: System) -> tuple[str, ...]:
    """The campaign's own skill list when it has one, else the system's."""
    return table.skill_list or system.skills


def lookup_skill(character: Character, name: str, skills: tuple[str, ...], *,
                 own_short: bool = True) -> tuple[str, int] | None:
    """(spelling, rating) of a skill: the sheet first, then the skill list at Mediocre (+0),
    then a short name of one of those ("Ath"). ``own_short=False``: a short name may not
    mean a skill of the sheet's own (an NPC's skills a player does not know)."""
    key = name.casefold()        # as typed, the ordinary case
    for sheet_name, rating in character.skills.items():
        if sheet_name.casefold() == key:
            return sheet_name, rating
    for listed in skills:
        if listed.casefold() == key:
            return listed, 0
    # case and accents as typed do not matter ("investigacao": Investigação), and a skill may
    # be named in any language pbp speaks ("Investigate" in a Portuguese campaign)
    keys = {fold(name)} | {fold(skill_in(name, code)) for code in GAME_WORDS}
    for sheet_name, rating in character.skills.items():
        if fold(sheet_name) in keys:
            return sheet_name, rating
    for listed in skills:
        if fold(listed) in keys:
            return listed, 0
    short = skills_named(character, name, skills, own=own_short)
    if len(short) == 1:
        return short[0], character.skills.get(short[0], 0)
    return None


def skills_named(character: Character, name: str, skills: tuple[str, ...], *, own: bool = True) -> list[str]:
    """The skills a short name could mean ("Ath": Athletics), on the sheet or the list."""
    own = list(character.skills) if own else []
    listed = [s for s in skills if s.casefold() not in {o.casefold() for o in own}]
    return short_matches(name, own + listed, lambda s: [s])


def find_skill(character: Character, name: str, skills: tuple[str, ...], *, source: str = "",
               fallback_example: str = "", opponent: bool = False) -> tuple[str, int]:
    """A skill of ``character``. ``opponent``: someone else names it (``vs Ghoul using
    Stealth``); then an NPC's own skills are not suggested, since the players may not know
    them (a PC's sheet is the table's to see)."""
    secret = opponent and not character.player
    found = lookup_skill(character, name, skills, own_short=not secret)
    if found is None:
        own = [] if secret else list(character.skills)
        several = skills_named(character, name, skills, own=not secret)
        if len(several) > 1:
            raise ambiguous("skill", name, several, source=source, fallback_example=fallback_example)
        raise unknown(
            "skill", name, Msg('{who} has no skill "{name}"', who=character.name, name=name),
            [*own, *skills], source=source, fallback_example=fallback_example,
            expected=Msg("a skill on {who}'s sheet or in the skill list", who=character.name),
        )
    return found


def visible_to(aspect: Aspect, viewer: str, table: Table | None = None) -> bool:
    """Whether ``viewer`` (a character's name, or ``GM``) knows of ``aspect``.

    Hidden aspects are unknown to the players until someone discovers them (docs/sheets.md),
    so only the GM knows them, and an NPC its own (the GM plays it: ``/as Ghoul invoke
    "Afraid of Fire"`` works, and reveals it). A player's character never sees a hidden
    aspect, not even one on its own sheet. Without ``table`` every owner counts as the GM's.
    """
    if not aspect.hidden or viewer == GM:
        return True
    if aspect.owner is None or aspect.owner.casefold() != viewer.casefold():
        return False
    owner = table.character(aspect.owner) if table is not None else None
    return owner is None or not owner.player


def aspects_in_play(table: Table, *, system: System | None = None) -> list[Aspect]:
    """Every aspect in play: ``table.aspects`` plus consequences written on sheets that the
    store did not also list as aspects (those carry no free invokes, so a stand-in will do),
    and the aspects ``system`` layers on a character now (a mech's while piloting). The
    system is passed (every caller in pbp passes the table's, ``tests/test_static.py``);
    None is a system that layers none."""
    listed = {(a.name.casefold(), (a.owner or "").casefold()) for a in table.aspects}
    extra = [
        Aspect(c.aspect, kind="consequence", owner=ch.name)
        for ch in table.characters.values()
        for c in ch.consequences
        if c.aspect and (c.aspect.casefold(), ch.name.casefold()) not in listed
    ]
    extra += _layered(table, listed, system)
    return [*table.aspects, *extra] if extra else table.aspects


def _layered(table: Table, listed: set, system: System | None) -> list[Aspect]:
    """Aspects the system layers on a character now (a mech's on its pilot, while piloting)."""
    if system is None or not any(ch.system_state for ch in table.characters.values()):
        return []
    state = system.character_state
    return [Aspect(name, kind="mech", owner=ch.name) for ch in table.characters.values()
            for name in state.aspects(ch) if (name.casefold(), ch.name.casefold()) not in listed]


def find_aspect(table: Table, name: str, viewer: str, *, source: str = "", system: System | None = None) -> Aspect:
    """An aspect in play that ``viewer`` may know about; suggestions never leak hidden ones.
    ``system``: the table's, whose layered aspects are in play too (:func:`aspects_in_play`)."""
    key = name.casefold()
    in_play = aspects_in_play(table, system=system)
    for aspect in in_play:
        if aspect.name.casefold() == key and visible_to(aspect, viewer, table):
            return aspect
    # a short name ("Deep" for "Deep Shadows"), among the aspects this viewer may know only
    known = [a for a in in_play if visible_to(a, viewer, table)]
    short = short_matches(name, known, lambda a: [a.name])
    if len({(a.name.casefold(), a.owner) for a in short}) == 1:
        return short[0]
    if short:
        raise ambiguous("aspect", name, sorted({a.name for a in short}), source=source)
    raise unknown(
        "aspect", name, f'no aspect "{name}" is in play',
        (a.name for a in in_play if visible_to(a, viewer, table)), source=source,
        expected="an aspect on a character, the scene or a boost",
    )


def same_name(a: str | None, b: str | None) -> bool:
    if a is None or b is None:
        return a is b
    return a.casefold() == b.casefold()
