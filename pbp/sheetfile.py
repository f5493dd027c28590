"""Character sheets as TOML files (format in docs/sheets.md): read, validate, import.

A sheet is checked whole and every problem is listed at once, so a GM fixes a file in one
go instead of one error per run. Each problem names the key, what is wrong with it and what
was expected, with a line of TOML that would do.

Nothing in a file is trusted. Types are checked before a value is used (a string where a
list goes is not sixteen one-letter aspects); every number is bounded before anything is
sized by it (a stress track of 10**9 boxes, a skill of 10**19 that the column rule would
count up to); text that ends up in replies, and the player's address that ends up in mail
headers, is checked with :mod:`pbp.textsafety`; and the file itself is bounded in size and
in key depth before :mod:`tomllib` reads it, because tomllib takes time quadratic in the
length of a dotted key (``a.a.a...``).
"""
from __future__ import annotations

import datetime as dt
import math
import re
import tomllib
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

from pbp.i18n.words import skill_in
from pbp.errors import SheetError
from pbp.rules import state as rs
from pbp.rules.ladder import parse_rating
from pbp.rules.names import suggestions
from pbp.rules.sheets import (
    STUNT_ACTIONS, aspect_problems, consequence_slots, name_problems, stress_tracks, validate_character,
)
from pbp.rules.systems import System
from pbp.textsafety import MAX_NAME, bad_char, is_addr_spec, shorten, unsafe_text

KINDS = ("pc", "npc", "minor")
ASPECT_KINDS = ("high_concept", "trouble")

#: The keys a sheet may have, at each level, for "unknown key" and "did you mean".
KEYS = ("name", "aliases", "kind", "player", "refresh", "milestone_refresh", "fate_points", "description",
        "aspects", "skills", "stunts", "stress")
#: At most this many other names a sheet may give its character.
MAX_ALIASES = 5
ASPECT_KEYS = ("high_concept", "trouble", "other", "hidden")
STUNT_KEYS = ("name", "skill", "action", "bonus", "circumstance", "description")
STRESS_KEYS = ("boxes",)

#: Bounds on every number of a sheet (inclusive). Wider than the rules need (they say what
#: a PC or a minor NPC may have); these keep monsters possible and absurdities out. A
#: stunt's bonus is counted in the system's terms, so its default and its most are the
#: system's (``System.stunt_bonus``, ``stunt_bonus_max``: Fate's +2 and 8, the d10 hack's
#: +1 hit and 2); ``STUNT_BONUS`` is Fate's range.
SKILL_RATING = (-4, 12)
STUNT_BONUS = (0, 8)
STRESS_BOXES = (0, 12)
REFRESH = (0, 12)
MILESTONE_REFRESH = (0, 12)
FATE_POINTS = (0, 99)
#: At most this many skills, stunts, and aspects in each aspect list.
MAX_SKILLS = 40
MAX_STUNTS = 20
MAX_ASPECTS = 20
#: Unknown keys named one by one in a table; more are counted.
MAX_UNKNOWN_KEYS = 10
#: Longest stunt text (circumstance, description) and character description.
MAX_STUNT_TEXT = 500
MAX_DESCRIPTION = 4000
#: The file: its size, and how many dots may join the parts of one key (``a.b.c``).
MAX_FILE_BYTES = 64 * 1024
MAX_KEY_DOTS = 8

#: Quote characters of the command language: a name holding one could not be quoted.
_QUOTES = frozenset('"“”„«»')


@dataclass
class SheetFile:
    character: rs.Character
    aspects: list[rs.Aspect] = field(default_factory=list)
    description: str = ""


# --------------------------------------------------------------------------- values


def _show(value) -> str:
    """A value as a problem quotes it: short, and with nothing invisible or line-breaking."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        text = "".join(ch if bad_char(ch) is None else f"\\u{ord(ch):04X}" for ch in shorten(value, 60))
        return f'"{text}"'
    if isinstance(value, int):
        return shorten(str(value), 24) if value.bit_length() < 10_000 else "a number of thousands of digits"
    if isinstance(value, float):
        return repr(value)
    return _kind(value)


def _what(value) -> str:
    """``text "Fair"``, ``a whole number 7``, ``a list``: the kind of a value, and the value
    itself when it is short enough to quote."""
    if isinstance(value, bool):
        return _show(value)
    kind = _kind(value)
    return kind if isinstance(value, (list, dict, dt.date, dt.time)) else f"{kind} {_show(value)}"


def _kind(value) -> str:
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, str):
        return "text"
    if isinstance(value, int):
        return "a whole number"
    if isinstance(value, float):
        return "a decimal number"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, (dt.date, dt.time)):
        return "a date or time"
    return type(value).__name__


class _Reader:
    """Reads one sheet's values by key, collecting a problem for each bad one."""

    def __init__(self, system: System, folder: Path | None = None) -> None:
        self.problems: list[str] = []
        self.bad: set[str] = set()       # top-level keys that had a problem
        self.system = system             # the campaign's system (what a stunt is worth)
        self.folder = folder             # the sheet file's folder (a mantle file is found there)

    def file(self, key: str, value: str, example: str) -> dict | None:
        """The TOML data of a file the sheet names (a Dresden Files Condensed mantle), found
        in the sheet's folder or below it; None (and a problem) when it cannot be read."""
        if self.folder is None:
            self.problem(key, f"names the file {_show(value)}, but this sheet is not read from a file; "
                              "write the table itself instead", example)
            return None
        relative = Path(value)
        if relative.is_absolute() or ".." in relative.parts:
            self.problem(key, f"{_show(value)} is not a file in the sheet's folder or below it", example)
            return None
        try:
            return read_toml(self.folder / relative)
        except SheetError as exc:
            self.problem(key, str(exc), example)
            return None

    def problem(self, key: str, text: str, example: str = "") -> None:
        self.problems.append(f"{key}: {text}" + (f"; e.g. {example}" if example else ""))
        self.bad.add(re.split(r"[.\[]", key, maxsplit=1)[0])

    def stunts(self, raw, where: str) -> list[rs.Stunt]:
        """Stunts written under ``where`` (a system's own table of them: ``mech.stunts``)."""
        return _stunts(self, raw, where)

    def sound(self, *keys: str) -> bool:
        """True when none of these top-level keys had a problem (so the rules may read them)."""
        return self.bad.isdisjoint(keys)

    def table(self, value, key: str, known: tuple[str, ...] | None, example: str) -> dict:
        """A table, {} when absent; with ``known``, every other key in it is a problem."""
        if value is None:
            return {}
        if not isinstance(value, dict):
            self.problem(key, f"expected a table, not {_kind(value)}", example)
            return {}
        if known is None:
            return value
        unknown = [name for name in value if name not in known]
        for name in unknown[:MAX_UNKNOWN_KEYS]:
            close = suggestions(str(name), known, n=1)
            hint = f'did you mean "{close[0]}"?' if close else f"the keys here are {', '.join(known)}"
            self.problem(_key(key, name), f"unknown key; {hint}")
        if len(unknown) > MAX_UNKNOWN_KEYS:
            self.problem(key or "the sheet", f"{len(unknown) - MAX_UNKNOWN_KEYS:,} more unknown keys")
        return {k: v for k, v in value.items() if k in known}

    def text(self, value, key: str, example: str, *, limit: int = MAX_NAME, multiline: bool = False) -> str:
        """Text that replies may quote: no control, bidi or zero-width characters (line
        breaks and tabs only where ``multiline``), at most ``limit`` characters."""
        if value is None:
            return ""
        if not isinstance(value, str):
            self.problem(key, f"expected text, not {_what(value)}", example)
            return ""
        text = value.replace("\r\n", "\n") if multiline else value
        # Where line breaks and tabs are allowed they are checked as spaces: positions stay true.
        checked = text.replace("\n", " ").replace("\t", " ") if multiline else text
        reason = unsafe_text(checked, what="the text", max_length=limit)
        if reason:
            self.problem(key, reason, example)
            return ""
        return text.strip()

    def name(self, value, key: str, example: str, *, required: bool = False) -> str:
        """A name commands can reach: safe text without quote characters, in the form the
        parser gives what players type (NFC, one space between words, ' for ’)."""
        before = len(self.problems)
        text = self.text(value, key, example)
        if text and any(ch in _QUOTES for ch in text):
            self.problem(key, f"{_show(text)} holds a quote character, so no command could name it", example)
            return ""
        if required and not text and len(self.problems) == before:
            self.problem(key, "missing" if value is None else "is empty", example)
        return " ".join(unicodedata.normalize("NFC", text).replace("’", "'").split())

    def integer(self, value, key: str, bounds: tuple[int, int], example: str, *, why: str = "") -> int | None:
        """A whole number within ``bounds``; None (and a problem) for anything else. ``why``
        says what the bounds mean when a value is out of them."""
        low, high = bounds
        if isinstance(value, bool) or not isinstance(value, int):
            detail = " (without a decimal point)" if isinstance(value, float) and math.isfinite(value) else ""
            self.problem(key, f"expected a whole number from {low} to {high}{detail}, not {_what(value)}",
                         example)
            return None
        if not low <= value <= high:
            self.problem(key, f"{_show(value)} is out of range; expected {low} to {high}"
                              + (f" ({why})" if why else ""), example)
            return None
        return value

    def rating(self, value, key: str, example: str) -> int | None:
        """A skill rating: a number or a ladder word ("Fair", "Fair (+2)"), within bounds."""
        low, high = SKILL_RATING
        if isinstance(value, str):
            try:
                rating = parse_rating(value) if len(value) <= 40 else None
            except ValueError:
                rating = None
            if rating is None:
                self.problem(key, f"{_show(value)} is not a rating; expected a number from {low:+d} to {high:+d} "
                                  'or a ladder word from "Horrifying" to "Legendary"', example)
                return None
            value = rating
        return self.integer(value, key, SKILL_RATING, example)

    def name_list(self, value, key: str, example: str, *, limit: int = MAX_ASPECTS) -> list[str]:
        """A list of names (aspects). A lone string is refused, not read letter by letter."""
        if value is None:
            return []
        if not isinstance(value, list):
            self.problem(key, f"expected a list of names in [brackets], not {_what(value)}", example)
            return []
        if len(value) > limit:
            self.problem(key, f"holds {len(value):,} entries; at most {limit} are allowed", example)
            return []
        names = [self.name(item, f"{key}[{i}]", example, required=True) for i, item in enumerate(value, start=1)]
        return [n for n in names if n]


_BARE_KEY = re.compile(r"[A-Za-z0-9_-]{1,60}")


def _key(parent: str, child) -> str:
    """A key as a problem names it: bare where TOML allows (skills.Notice), quoted
    otherwise (skills."Biting People"), never an unsafe or long key raw."""
    child = str(child)
    part = child if _BARE_KEY.fullmatch(child) else _show(child)
    return f"{parent}.{part}" if parent else part


# --------------------------------------------------------------------------- the sheet


def parse_sheet(data: dict, system: System, *, source: str = "sheet", folder: Path | None = None) -> SheetFile:
    """Build and validate a character from a sheet's TOML data; raise SheetError listing
    every problem. The form of each value is checked first; the rules (creation, the
    column, refresh against stunts) then read only the parts whose form was right, so a
    problem is not repeated in other words."""
    r = _Reader(system, folder)
    state = system.character_state
    data = r.table(data, "", KEYS + state.keys, 'name = "Ruth"')
    name = r.name(data.get("name"), "name", 'name = "Ruth"', required=True)
    kind = data.get("kind", "pc")
    if kind not in KINDS:
        r.problem("kind", f"{_show(kind)} is not one of pc, npc, minor", 'kind = "npc"')
        kind = ""               # unknown: no check that depends on the kind
    player = _player(r, data, kind)
    refresh = r.integer(data.get("refresh", system.starting_refresh if kind == "pc" else 0), "refresh", REFRESH,
                        "refresh = 3")
    gained = r.integer(data.get("milestone_refresh", 0), "milestone_refresh", MILESTONE_REFRESH,
                       "milestone_refresh = 1")
    if "milestone_refresh" in data and kind in ("npc", "minor"):
        r.problem("milestone_refresh", "is for player characters only (leave it out)")
    fate_points = r.integer(data.get("fate_points", refresh or 0), "fate_points", FATE_POINTS, "fate_points = 3")
    description = r.text(data.get("description"), "description", 'description = "A scholar who reads too much."',
                         limit=MAX_DESCRIPTION, multiline=True)

    aliases = r.name_list(data.get("aliases"), "aliases", 'aliases = ["Tob"]', limit=MAX_ALIASES)
    for i, alias in enumerate(aliases, start=1):
        for why in name_problems(alias):
            r.problem(f"aliases[{i}]", why, 'aliases = ["Tob"]')
        if alias.casefold() == (name or "").casefold():
            r.problem(f"aliases[{i}]", f'"{alias}" is the name itself', 'aliases = ["Tob"]')
    ch = rs.Character(name=name, kind=kind, player=player, skills=_skills(r, data.get("skills")),
                      stunts=_stunts(r, data.get("stunts")), refresh=refresh or 0, fate_points=fate_points or 0,
                      aliases=aliases)
    ch.stress = _stress(r, data.get("stress"), ch, system)
    ch.consequences = consequence_slots(ch, system)
    aspects = _aspects(r, data.get("aspects"), name, kind, state.aspect_keys)
    ch.system_state = state.read(r, data, ch)

    if name and r.sound("kind", "skills", "stunts", "refresh", "milestone_refresh", "fate_points", "stress"):
        r.problems += validate_character(ch, system, milestone_refresh=gained or 0)
    if name and r.sound("kind", *state.keys):
        r.problems += state.problems(ch, system)
    if name and r.sound("kind", "aspects"):
        r.problems += aspect_problems(ch, aspects, system)
    if r.problems:
        n = len(r.problems)
        raise SheetError(f"{source}: {n} problem{'s' if n != 1 else ''}", r.problems)
    return SheetFile(character=ch, aspects=aspects, description=description)


def _player(r: _Reader, data: dict, kind: str) -> str | None:
    """The player's address, which goes into To and Cc of every table reply: a bare
    local@domain and nothing else."""
    example = 'player = "ruth@example.org"'
    if "player" not in data:
        if kind == "pc":
            r.problem("player", "missing: a PC needs their player's mail address", example)
        return None
    raw = data["player"]
    if isinstance(raw, str) and is_addr_spec(raw.strip(" ")):
        return raw.strip(" ").lower()
    r.problem("player", f"{_show(raw)} is not a mail address (local@domain only: no name, spaces or line breaks)",
              example)
    return None


def _skill_of(r: _Reader, raw, key: str) -> str | None:
    """A stunt's skill, named in the campaign's language as its sheet's skills are."""
    name = r.name(raw, key, 'skill = "Shoot"')
    return skill_in(name, r.system.language) if name else name


def _skills(r: _Reader, raw) -> dict[str, int]:
    """The sheet's skills, each named in the campaign's language: an English sheet read for a
    Portuguese table has "Luta" where it wrote "Fight" (``pbp.i18n.words.skill_in``)."""
    example = "skills.Fight = 4"
    table = r.table(raw, "skills", None, example)
    if len(table) > MAX_SKILLS:
        r.problem("skills", f"lists {len(table):,} skills; at most {MAX_SKILLS} are allowed", example)
        return {}
    skills: dict[str, int] = {}
    for skill, value in table.items():
        key = _key("skills", skill)
        spelled = r.name(skill, key, example, required=True)
        rating = r.rating(value, key, f"{key} = 2" if _BARE_KEY.fullmatch(skill) else example)
        if spelled and rating is not None:
            skills[skill_in(spelled, r.system.language)] = rating
    return skills


def _stunts(r: _Reader, raw, where: str = "stunts") -> list[rs.Stunt]:
    example = f'{where} = [{{name = "Knife Thrower", skill = "Shoot", action = "attack"}}]'
    if raw is None:
        return []
    if not isinstance(raw, list):
        r.problem(where, f"expected one [[{where}]] table per stunt, not {_kind(raw)}", example)
        return []
    if len(raw) > MAX_STUNTS:
        r.problem(where, f"lists {len(raw):,} stunts; at most {MAX_STUNTS} are allowed", example)
        return []
    stunts = []
    for i, s in enumerate(raw, start=1):
        key = f"{where}[{i}]"
        if not isinstance(s, dict):
            r.problem(key, f"expected a [[{where}]] table, not {_kind(s)}", example)
            continue
        s = r.table(s, key, STUNT_KEYS, example)
        action = s.get("action", "")
        if not isinstance(action, str) or action.casefold() not in STUNT_ACTIONS:
            r.problem(f"{key}.action", f"{_show(action)} is not one of overcome, advantage, attack, defend "
                                       '(or "" for any action)', 'action = "attack"')
            action = ""
        stunts.append(rs.Stunt(
            name=r.name(s.get("name"), f"{key}.name", 'name = "Knife Thrower"', required=True),
            skill=_skill_of(r, s.get("skill"), f"{key}.skill"),
            action=action.casefold(),
            bonus=_stunt_bonus(r, s.get("bonus", r.system.stunt_bonus), f"{key}.bonus"),
            circumstance=r.text(s.get("circumstance"), f"{key}.circumstance",
                                'circumstance = "when throwing a blade"', limit=MAX_STUNT_TEXT),
            description=r.text(s.get("description"), f"{key}.description",
                               'description = "+2 to attack with Shoot when throwing a blade."', limit=MAX_STUNT_TEXT),
        ))
    return stunts


def _stunt_bonus(r: _Reader, value, key: str) -> int:
    """A stunt's bonus in the system's count: the system's worth when the sheet gives none,
    at most the system's most ("+1 hit" in the d10 hack, whose text does not say what a
    stunt adds; docs/systems.md)."""
    system = r.system
    explain = system.explain
    why = (f"a stunt of {system.title or system.name} adds at most {explain.worth(system.stunt_bonus_max)}; "
           f"without a bonus it adds {explain.worth(system.stunt_bonus)}")
    return r.integer(value, key, (STUNT_BONUS[0], system.stunt_bonus_max), f"bonus = {system.stunt_bonus}",
                     why=why) or 0


def _stress(r: _Reader, raw, ch: rs.Character, system: System) -> dict[str, list[bool]]:
    """A minor NPC's boxes as written (``[stress] boxes = 2``, or ``stress = 2``); everyone
    else's come from Physique and Will, so [stress] on them is a mistake."""
    if ch.kind != "minor":
        if raw is not None and ch.kind:
            r.problem("stress", f"is for minor NPCs only; a {ch.kind}'s stress boxes come from {' and '.join(system.stress_skills.values())} "
                                "(leave [stress] out)")
        return {track: [False] * n for track, n in stress_tracks(ch, system).items()}
    if isinstance(raw, dict):
        boxes, key = r.table(raw, "stress", STRESS_KEYS, "stress.boxes = 2").get("boxes", 0), "stress.boxes"
    else:
        boxes, key = (0 if raw is None else raw), "stress"
    count = r.integer(boxes, key, STRESS_BOXES, "stress.boxes = 2")
    return {system.tracks[0]: [False] * (count or 0)}   # a minor NPC's boxes serve any hit


def _aspects(r: _Reader, raw, owner: str, kind: str, extra: tuple[str, ...] = ()) -> list[rs.Aspect]:
    """The [aspects] table; ``extra`` are the system's own keys (a relationship), each one
    more character aspect (the system's ``read`` says which one it is)."""
    examples = {"high_concept": 'aspects.high_concept = "Ex-Cop Turned Occult Investigator"',
                "trouble": 'aspects.trouble = "Hair-Trigger Temper"'}
    table = r.table(raw, "aspects", ASPECT_KEYS + extra, examples["high_concept"])
    aspects: list[rs.Aspect] = []
    for key in ASPECT_KINDS:
        if key in table:
            text = r.name(table[key], f"aspects.{key}", examples[key], required=True)
            if text:
                aspects.append(rs.Aspect(name=text, kind=key, owner=owner))
        elif kind == "pc":
            r.problem(f"aspects.{key}", "missing: a PC has a high concept and a trouble", examples[key])
    for key in extra:
        if key in table:
            text = r.name(table[key], f"aspects.{key}", f'aspects.{key} = "Owes Ruth a Life"', required=True)
            if text:
                aspects.append(rs.Aspect(name=text, kind="character", owner=owner))
    for name in r.name_list(table.get("other"), "aspects.other", 'aspects.other = ["Knife Up My Sleeve"]'):
        aspects.append(rs.Aspect(name=name, kind="character", owner=owner))
    for name in r.name_list(table.get("hidden"), "aspects.hidden", 'aspects.hidden = ["Afraid of Fire"]'):
        aspects.append(rs.Aspect(name=name, kind="character", owner=owner, hidden=True))
    return aspects


# --------------------------------------------------------------------------- the file


def read_toml(path: str | Path) -> dict:
    """A sheet file's TOML data; every way a file can be unreadable is one SheetError
    (missing, too big, not UTF-8, keys nested too deep, not TOML)."""
    path = Path(path)
    try:
        with path.open("rb") as f:
            raw = f.read(MAX_FILE_BYTES + 1)
    except FileNotFoundError:
        raise SheetError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise SheetError(f"{path}: is a directory, not a sheet file") from None
    except OSError as exc:
        raise SheetError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    if len(raw) > MAX_FILE_BYTES:
        raise SheetError(f"{path}: is over {MAX_FILE_BYTES // 1024} KiB; a character sheet is a few lines of TOML")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SheetError(f"{path}: is not UTF-8 text (byte 0x{raw[exc.start]:02x} at offset {exc.start}); "
                         "save it as UTF-8") from None
    deep = _deep_key_line(text)
    if deep:
        raise SheetError(f"{path}: line {deep}: a key of more than {MAX_KEY_DOTS} dotted parts; "
                         "a sheet nests at most two (stunts, aspects.other)")
    try:
        return tomllib.loads(text.removeprefix("\ufeff"))
    except tomllib.TOMLDecodeError as exc:
        raise SheetError(f"{path}: is not valid TOML ({exc})") from None
    except (RecursionError, ValueError) as exc:   # nesting beyond Python's stack; 4,300+ digit numbers
        reason = "values nested too deep" if isinstance(exc, RecursionError) else shorten(str(exc), 80)
        raise SheetError(f"{path}: is not a usable TOML sheet ({reason})") from None


# Strings and comments, which may hold any number of dots; everything else is where keys are.
_NOT_KEYS = re.compile(r'"""(?:\\.|[^\\])*?"""|\'\'\'.*?\'\'\'|"(?:\\.|[^"\\\n])*"|\'[^\'\n]*\'|#[^\n]*', re.S)


def _deep_key_line(text: str) -> int:
    """The first line whose TOML outside strings and comments holds more than
    MAX_KEY_DOTS dots (0 when none does): a cheap, conservative bound on key depth."""
    for number, line in enumerate(_NOT_KEYS.sub(lambda m: "\n" * m.group().count("\n"), text).split("\n"), start=1):
        if line.count(".") > MAX_KEY_DOTS:
            return number
    return 0


def load_sheet(path: str | Path, system: System) -> SheetFile:
    return parse_sheet(read_toml(path), system, source=str(path), folder=Path(path).parent)
