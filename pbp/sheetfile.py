"""Character sheets as TOML files (format in docs/sheets.md): read, validate, import.

A sheet is checked whole and every problem is listed at once, so a GM fixes a file in one
go instead of one error per run.
"""
from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from pbp.errors import SheetError
from pbp.rules import state as rs
from pbp.rules.ladder import parse_rating
from pbp.rules.sheets import consequence_slots, stress_tracks, validate_character
from pbp.rules.systems import System

ASPECT_KINDS = ("high_concept", "trouble")
KINDS = ("pc", "npc", "minor")
STUNT_ACTIONS = ("", "overcome", "advantage", "attack", "defend")


@dataclass
class SheetFile:
    character: rs.Character
    aspects: list[rs.Aspect] = field(default_factory=list)
    description: str = ""


def _rating(value, where: str, problems: list[str]) -> int:
    if isinstance(value, bool):
        problems.append(f"{where}: {value!r} is not a rating")
        return 0
    if isinstance(value, int):
        return value
    try:
        return parse_rating(str(value))
    except ValueError:
        problems.append(f'{where}: "{value}" is not a rating (use a number like 2 or a ladder word like "Fair")')
        return 0


def parse_sheet(data: dict, system: System, *, source: str = "sheet") -> SheetFile:
    """Build and validate a character from a sheet's TOML data; raise SheetError listing
    every problem."""
    problems: list[str] = []
    name = str(data.get("name", "")).strip()
    if not name:
        problems.append("name is missing")
    kind = data.get("kind", "pc")
    if kind not in KINDS:
        problems.append(f'kind = "{kind}" is not one of pc, npc, minor')
        kind = "pc"
    skills = {str(k): _rating(v, f"skills.{k}", problems) for k, v in dict(data.get("skills", {})).items()}
    refresh = data.get("refresh", 3 if kind == "pc" else 0)
    stunts = []
    for i, s in enumerate(data.get("stunts", []), start=1):
        if not isinstance(s, dict) or not s.get("name"):
            problems.append(f"stunts[{i}] needs at least a name")
            continue
        action = str(s.get("action", "")).lower()
        if action not in STUNT_ACTIONS:
            problems.append(f'stunts[{i}] ({s["name"]}): action "{action}" is not one of overcome, advantage, attack, defend')
        stunts.append(rs.Stunt(name=s["name"], skill=s.get("skill", ""), action=action, bonus=int(s.get("bonus", 2)),
                               circumstance=s.get("circumstance", ""), description=s.get("description", "")))

    ch = rs.Character(
        name=name, kind=kind, player=(data.get("player") or None) and str(data["player"]).lower(),
        skills=skills, stunts=stunts, refresh=int(refresh),
        fate_points=int(data.get("fate_points", refresh)),
    )
    if kind == "pc" and not ch.player:
        problems.append('a PC needs player = "their@address"')

    if kind == "minor":
        boxes = int(data.get("stress", {}).get("boxes", 0)) if isinstance(data.get("stress"), dict) else int(data.get("stress", 0))
        ch.stress = {"physical": [False] * boxes}
        ch.consequences = []
    else:
        ch.stress = {track: [False] * n for track, n in stress_tracks(ch, system).items()}
        ch.consequences = consequence_slots(ch, system)
    problems.extend(validate_character(ch, system))

    aspects: list[rs.Aspect] = []
    raw_aspects = data.get("aspects", {})
    if isinstance(raw_aspects, list):
        raw_aspects = {"other": raw_aspects}
    for key in ASPECT_KINDS:
        if raw_aspects.get(key):
            aspects.append(rs.Aspect(name=str(raw_aspects[key]), kind=key, owner=name))
        elif kind == "pc":
            problems.append(f"aspects.{key} is missing")
    for other in raw_aspects.get("other", []):
        aspects.append(rs.Aspect(name=str(other), kind="character", owner=name))
    for hidden in raw_aspects.get("hidden", []):
        aspects.append(rs.Aspect(name=str(hidden), kind="character", owner=name, hidden=True))
    if kind == "minor" and not aspects:
        problems.append("a minor NPC needs one or two aspects (aspects.other)")

    if problems:
        raise SheetError(f"{source}: {len(problems)} problem{'s' if len(problems) != 1 else ''}", problems)
    return SheetFile(character=ch, aspects=aspects, description=str(data.get("description", "")))


def load_sheet(path: str | Path, system: System) -> SheetFile:
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise SheetError(f"no sheet file at {path}") from None
    except tomllib.TOMLDecodeError as exc:
        raise SheetError(f"{path} is not valid TOML", [str(exc)]) from None
    return parse_sheet(data, system, source=str(path))
