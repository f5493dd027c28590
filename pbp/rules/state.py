"""The game state the rules engine works on: plain dataclasses, no storage, no mail.

The store loads these from the database for one message, the engine changes them and
reports every change, and the store writes the changed ones back.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass, field, fields

_ATOMIC = frozenset((str, int, bool, float, type(None)))


def _copied(value, memo: dict):
    """A deep copy of a field's value: plain values as they are, lists and dicts rebuilt,
    anything else through :func:`copy.deepcopy`."""
    kind = type(value)
    if kind in _ATOMIC:
        return value
    if kind is list:
        return [_copied(v, memo) for v in value]
    if kind is dict:
        return {k: _copied(v, memo) for k, v in value.items()}
    return copy.deepcopy(value, memo)


class _Copies:
    """``copy.deepcopy`` field by field (a re-run copies the whole table several times,
    issue 23: the generic reduce-and-rebuild path cost a twentieth of a post with an invoke
    after the dice). The state's fields share no list or dict with each other."""

    def __deepcopy__(self, memo: dict):
        new = object.__new__(type(self))
        new.__dict__.update({k: _copied(v, memo) for k, v in self.__dict__.items()})
        return new


@dataclass
class Stunt(_Copies):
    """A bonus stunt: ``bonus`` to ``skill`` when used for ``action``.

    With no ``circumstance`` it applies whenever skill and action match; with one, the
    player names it (``+stunt "Name"``) to say the circumstance holds.
    ``action`` is one of overcome / advantage / attack / defend, or "" for any action.
    """

    name: str
    skill: str = ""
    action: str = ""
    bonus: int = 2
    circumstance: str = ""
    description: str = ""


@dataclass
class Consequence(_Copies):
    severity: str            # "mild" | "moderate" | "severe" ("mild2": the Superb+ extra slot)
    shifts: int
    aspect: str | None = None
    track: str = ""          # "" (any), "physical" or "mental" (the extra mild slot)
    recovering: bool = False
    # appended for harm and recovery (pbp.rules.harm, pbp.rules.recovery):
    hit_track: str = ""      # the stress track of the hit that filled the slot
    recovery_scenes_left: int = 0    # scene ends until a treated mild consequence clears
    recovery_sessions_left: int = 0  # session ends until a treated moderate one clears
    # A condition's fixed name (Dresden Files Condensed, a mantle's conditions); its severity
    # is the condition's kind (fleeting, sticky, lasting). "" for a consequence slot.
    condition: str = ""


@dataclass
class Aspect(_Copies):
    """Any aspect in play. ``owner`` is the character it is on (None: the scene).

    ``free_invokes`` maps holder name -> count. A boost is an aspect of kind "boost" whose
    single free invoke disappears with it.
    """

    name: str
    kind: str = "situation"  # high_concept|trouble|character|situation|zone|consequence|boost
    owner: str | None = None
    free_invokes: dict[str, int] = field(default_factory=dict)
    hidden: bool = False
    id: int | None = None    # storage id; None for aspects created by this message
    # What the campaign's system keeps on an aspect (Dresden Files Condensed's scale on a
    # situation aspect, {"scale": "Supernatural"}): JSON-shaped, read by the system's
    # ``character_state`` (``aspect_scale``, ``aspect_view``).
    system_state: dict = field(default_factory=dict)

    def free_for(self, holder: str) -> int:
        return self.free_invokes.get(holder, 0)


@dataclass
class Character(_Copies):
    name: str
    kind: str = "pc"         # "pc" | "npc" (major) | "minor"
    player: str | None = None  # the controlling address; None for NPCs (the GM controls them)
    skills: dict[str, int] = field(default_factory=dict)
    stunts: list[Stunt] = field(default_factory=list)
    refresh: int = 3
    fate_points: int = 3
    stress: dict[str, list[bool]] = field(default_factory=dict)  # track -> boxes
    consequences: list[Consequence] = field(default_factory=list)
    taken_out: bool = False
    id: int | None = None
    carried_points: int = 0  # an NPC's points (conceded, hostile invokes) for a later scene's GM pool
    aliases: list[str] = field(default_factory=list)  # other names a player may type ("Tob")
    # What the campaign's system keeps beyond Fate Condensed's sheet (the d10 hack's
    # approaches and mech): JSON-shaped, read and checked by ``System.character_state``.
    system_state: dict = field(default_factory=dict)

    def skill(self, name: str) -> int:
        """Rating of a skill; skills not on the sheet are Mediocre (+0)."""
        return self.skills.get(name, 0)


# -- the one place a character's fields are named -------------------------------------------
#
# Every field of ``Character`` but ``id`` is stored, in a column of the same name
# (pbp/store/models.py; tests/test_migrations.py checks the two agree). The store, the
# snapshot a reply diffs against and the copy a re-run rebuilds all go through these two
# functions; a new field is one line above, a column and a migration.

_NESTED = {"stunts": Stunt, "consequences": Consequence}


def stored_fields() -> tuple[str, ...]:
    """The names of a character's stored fields (its columns)."""
    return tuple(f.name for f in fields(Character) if f.name != "id")


def character_record(ch: Character) -> dict:
    """A character as its stored, JSON-shaped fields."""
    record = {}
    for name in (f.name for f in fields(ch) if f.name != "id"):     # stored_fields(), of ch's own class
        value = getattr(ch, name)
        record[name] = [dict(vars(v)) for v in value] if name in _NESTED else value  # flat dataclasses
    return record


# How a character shows on a sheet (``pbp sheet --json``, /sheet; pbp.sheets_view): every
# stored field as its record holds it, but for the rules below. A new field shows on the
# sheet with no change anywhere else (after the layout's last entry) unless named here.
#
# SHEET_LAYOUT: the order of the sheet's entries; a name that is not a field (aspects,
# conditions, free_invokes_held) is filled by the view from the table or the system.
SHEET_LAYOUT = ("name", "kind", "player", "fate_points", "refresh", "skills", "aspects", "stunts", "stress",
                "consequences", "conditions", "taken_out", "carried_points", "free_invokes_held")
# Stored fields the sheet leaves out: the names a player may type (the parser's), and the
# system's own state, which the system shows (``System.character_state.view``).
SHEET_HIDDEN = ("aliases", "system_state")
# Entries every sheet has, which the system's view fills where it has them (Dresden Files
# Condensed's conditions).
SHEET_DEFAULTS = {"conditions": list}
# Within a stunt or a consequence: keys left out (a stunt's description is the sheet file's
# prose; a slot's hit track and recovery clocks are the engine's bookkeeping), keys shown
# only when set, and the keys shown first.
_ITEM_VIEW = {
    "stunts": {"hidden": ("description",), "when_set": (), "first": ()},
    "consequences": {"hidden": ("hit_track", "recovery_scenes_left", "recovery_sessions_left"),
                     "when_set": ("track", "condition"), "first": ("severity", "aspect", "shifts", "recovering")},
}


def _item_view(item: dict, rules: dict) -> dict:
    keys = [*rules["first"], *(k for k in item if k not in rules["first"])]
    return {k: item[k] for k in keys if k not in rules["hidden"] and (k not in rules["when_set"] or item[k])}


def character_view(ch: Character) -> dict:
    """A character's own fields as its sheet shows them (``SHEET_LAYOUT``), built from
    :func:`character_record`: skills best first, stunts and consequences by ``_ITEM_VIEW``,
    ``SHEET_HIDDEN`` left out. The entries that are not fields are the view's to fill."""
    record = character_record(ch)
    for name, rules in _ITEM_VIEW.items():
        record[name] = [_item_view(item, rules) for item in record[name]]
    record["skills"] = dict(sorted(record["skills"].items(), key=lambda kv: (-kv[1], kv[0])))
    record["stress"] = {k: list(v) for k, v in record["stress"].items()}
    shown = [k for k in record if k not in SHEET_HIDDEN]
    order = [k for k in SHEET_LAYOUT if k in record] + [k for k in shown if k not in SHEET_LAYOUT]
    return {k: record[k] for k in order}


def character_from_record(row: dict) -> Character:
    """A character from its stored fields (a row read with ``.dicts()``, or a record); a
    field missing from the row takes its default."""
    values = {}
    for f in fields(Character):
        if f.name not in row or row[f.name] is None:
            continue
        value = row[f.name]
        if f.name in _NESTED:
            value = [_NESTED[f.name](**v) for v in value]
        elif f.name == "stress":
            value = {k: list(v) for k, v in value.items()}
        elif isinstance(value, (dict, list)):
            value = type(value)(value)
        elif f.name == "taken_out":
            value = bool(value)
        values[f.name] = value
    return Character(**values)


MIN_SHORT = 2
"""A short name has at least this many letters ("Ru" finds Ruth, "R" finds nothing)."""


def short_matches(typed: str, items: list, names) -> list:
    """The items ``typed`` is a short name of: the start of one of its ``names(item)``, or
    of a word in one ("Mira", "Mi" and "Quell" for "Mira Quell", "Dock" for "Dock Bravo").
    Whole words win over starts of words. Case and surrounding spaces do not count. Several
    results mean the short name is ambiguous."""
    key = " ".join(typed.casefold().split())
    if len(key) < MIN_SHORT:
        return []
    words, starts = [], []       # whole words first: "Mira" is Mira Quell, not also Mirabel
    for item in items:
        tails = [" ".join(w[i:]) for full in names(item) for w in [full.casefold().split()] for i in range(len(w))]
        if any(t == key or t.startswith(key + " ") for t in tails):
            words.append(item)
        elif any(t.startswith(key) for t in tails):
            starts.append(item)
    return words or starts


@dataclass
class Table(_Copies):
    """Everything one message may touch: the characters and the aspects in play, under the
    campaign's game system (its registered name: no table is of a system by default)."""

    system: str
    characters: dict[str, Character] = field(default_factory=dict)
    aspects: list[Aspect] = field(default_factory=list)
    skill_list: tuple[str, ...] = ()

    def character(self, name: str) -> Character | None:
        """The character a typed name means: its full name, an alias, or a short name that
        fits only one (see :func:`short_matches`); None when none or several fit."""
        found = self.characters_named(name)
        return found[0] if len(found) == 1 else None

    def exact_character(self, name: str) -> Character | None:
        """The character of exactly this name (case aside): is a new name taken?"""
        key = name.casefold()
        return next((c for c in self.characters.values() if c.name.casefold() == key), None)

    def characters_named(self, name: str) -> list[Character]:
        """Every character a typed name could mean: the one of that full name, else those
        with it as an alias, else those it is a short name of. More than one: ambiguous."""
        exact = self.exact_character(name)
        if exact is not None:
            return [exact]
        key = name.strip().casefold()
        aliased = [c for c in self.characters.values() if key in (a.casefold() for a in c.aliases)]
        if aliased:
            return aliased
        return short_matches(name, list(self.characters.values()), lambda c: [c.name, *c.aliases])

    def find_aspect(self, name: str) -> Aspect | None:
        key = name.casefold()
        for a in self.aspects:
            if a.name.casefold() == key:
                return a
        return None
