"""Fari character sheets (``.fari.json``, the Fari app's export) in and out.

Fari (farirpgs/fari-app, ``lib/domains/character/types.tsx``) has had six layouts, and files
in the wild mix them, so :func:`blocks_of` reads the shape, not the ``version`` field:

* v1/v2: flat lists ``aspects``, ``skills``, ``stunts``, ``consequences`` of ``{name,
  value}``, ``stressTracks`` (v1: lists of booleans; v2: of ``{label, checked}``),
  ``refresh``, ``fatePoints``, ``notes``;
* v3: ``pages[].sections[]`` (each with a ``position``); v4: ``pages[].sections.left/right``;
  v5 and v6: ``pages[].rows[].columns[].sections[]`` (v6 writes labels in capitals).

Every section is a label and its blocks (``Text``, ``Skill``, ``PointCounter``,
``SlotTracker``, ``Numeric``...). :func:`from_fari` maps them by the section's label
(aspects, skills, stunts, stress, consequences, fate points, refresh, notes) to a pbp
sheet (the data :func:`pbp.sheetfile.parse_sheet` reads) plus its play state (fate
points, marked stress, consequences); everything it cannot map is listed in
``FariSheet.unmapped`` (the CLI prints it), never dropped silently. :func:`to_fari` writes
the newest layout (v6). A system's own sheet keys (``character_state.keys``, as its
``sheet_data`` writes them back: Dresden Files Condensed's ``mantle``, ``mantle_stunts``,
``scale``, ``milestone_skills``; the d10 hack's ``approaches`` and ``mech``) and pbp's own keys
Fari lacks (``PBP_KEYS``: an NPC's kind, aliases, a minor NPC's boxes, refresh from
milestones), which Fari has no place for, ride in a ``PBP`` section, one
``Text`` block per key whose label is the key and whose value is the key's value as JSON;
its aspect keys (``relationship``) are blocks of the Aspects section labelled with the key
(``Relationship``). A stunt's rules (skill, action, bonus, circumstance) ride in its
block's ``helperText`` as ``pbp: Shoot | attack | +2 | when throwing a blade`` so a round
trip keeps them; a Fari stunt without it is read from its text ("+2 to Shoot when you
attack..."), and one whose skill and bonus cannot be found is kept as text (bonus 0) and
reported.
"""
from __future__ import annotations

import json
import re
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from pbp.errors import SheetError
from pbp.i18n import fold
from pbp.i18n.words import PORTUGUESE
from pbp.rules.systems import System

SEVERITIES = ("mild", "moderate", "severe")
ACTION_WORDS = (("create an advantage", "advantage"), ("create advantages", "advantage"), ("advantage", "advantage"),
                ("overcome", "overcome"), ("attack", "attack"), ("defend", "defend"))
PBP_HELPER = "pbp: "
#: The section that carries a system's own sheet keys (Fari has no place for them).
PBP_SECTION = "PBP"
#: pbp's sheet keys that Fari has no place for either, carried in the same section: an
#: NPC's kind, the aliases, a minor NPC's boxes, refresh gained at milestones.
PBP_KEYS = ("kind", "aliases", "stress", "milestone_refresh")


@dataclass
class FariSheet:
    data: dict                                    # a pbp sheet's data (parse_sheet reads it)
    stress: dict[str, list[bool]] = field(default_factory=dict)      # marked boxes by track
    consequences: list[tuple[str, str, str]] = field(default_factory=list)   # (severity, track, aspect)
    unmapped: list[str] = field(default_factory=list)
    layout: str = ""


# --------------------------------------------------------------------------- reading the layouts


def _v2_sections(doc: dict) -> list[tuple[str, list[dict]]]:
    def text(items):
        return [{"type": "Text", "label": i.get("name"), "value": i.get("value"), "meta": {}} for i in items or []]

    stress = []
    for track in doc.get("stressTracks") or []:
        boxes = [b if isinstance(b, dict) else {"label": str(n + 1), "checked": bool(b)}
                 for n, b in enumerate(track.get("value") or [])]
        stress.append({"type": "SlotTracker", "label": track.get("name"), "value": boxes, "meta": {}})
    sections = [
        (doc.get("aspectsLabel") or "Aspects", text(doc.get("aspects"))),
        (doc.get("stuntsLabel") or "Stunts & Extras", text(doc.get("stunts"))),
        (doc.get("skillsLabel") or "Skills", [{"type": "Skill", "label": i.get("name"), "value": i.get("value"),
                                               "meta": {}} for i in doc.get("skills") or []]),
        (doc.get("stressTracksLabel") or "Stress", stress),
        (doc.get("consequencesLabel") or "Consequences", text(doc.get("consequences"))),
    ]
    counters = []
    if doc.get("fatePoints") is not None:
        counters.append({"type": "PointCounter", "label": "Fate Points", "value": str(doc["fatePoints"]),
                         "meta": {"isMainPointCounter": True, "max": str(doc.get("refresh", ""))}})
    if doc.get("refresh") is not None:
        counters.append({"type": "Numeric", "label": "Refresh", "value": str(doc["refresh"]), "meta": {}})
    sections.append(("Fate Points", counters))
    if doc.get("notes"):
        sections.append((doc.get("notesLabel") or "Notes", [{"type": "Text", "label": "Notes", "value": doc["notes"],
                                                             "meta": {}}]))
    return sections


def blocks_of(doc: dict) -> tuple[str, list[tuple[str, list[dict]]]]:
    """The layout's name and its sections as (label, blocks), in the order of the sheet."""
    if not isinstance(doc, dict):
        raise SheetError("not a Fari character: expected a JSON object")
    kind = doc.get("fariType")      # Fari's own exports say what they hold
    if kind is not None and kind != "character":
        raise SheetError(f'this Fari file holds a {kind!r}, not a character: export the character from Fari\'s '
                         '"Characters" page (a .fari.json file whose "fariType" is "character")')
    pages = doc.get("pages")
    if isinstance(pages, list):
        out: list[tuple[str, list[dict]]] = []
        layout = ""
        for page in pages:
            if not isinstance(page, dict):
                continue
            if isinstance(page.get("rows"), list):
                layout = "v5/v6 (rows and columns)"
                for row in page["rows"]:
                    for col in (row or {}).get("columns") or []:
                        out += [(s.get("label") or "", s.get("blocks") or []) for s in (col or {}).get("sections") or []]
            elif isinstance(page.get("sections"), dict):
                layout = "v4 (left and right sections)"
                for side in ("left", "right"):
                    out += [(s.get("label") or "", s.get("blocks") or []) for s in page["sections"].get(side) or []]
            elif isinstance(page.get("sections"), list):
                layout = "v3 (sections with a position)"
                out += [(s.get("label") or "", s.get("blocks") or []) for s in page["sections"]]
        return layout or "pages", out
    if any(k in doc for k in ("aspects", "skills", "stunts", "stressTracks")):
        v1 = any(not isinstance(b, dict) for t in doc.get("stressTracks") or [] for b in t.get("value") or [])
        return ("v1 (flat lists, stress as booleans)" if v1 else "v2 (flat lists)"), _v2_sections(doc)
    raise SheetError("not a Fari character: no pages, and no aspects, skills or stunts")


# --------------------------------------------------------------------------- Fari -> pbp


#: a section's label -> what it holds; Fari's English templates' words and its Portuguese
#: ones (a Fate Condensado sheet: "Habilidades", "Façanhas", "Estresse"...), compared
#: without case or accents
_SECTION_WORDS = (("aspect", "aspects"), ("skill", "skills"), ("approach", "skills"), ("stunt", "stunts"),
                  ("stress", "stress"), ("consequence", "consequences"), ("fate point", "fate"),
                  ("refresh", "fate"), ("note", "notes"), ("description", "notes"),
                  ("habilidade", "skills"), ("pericia", "skills"), ("abordage", "skills"), ("facanha", "stunts"),
                  ("estresse", "stress"), ("consequencia", "consequences"), ("ponto de destino", "fate"),
                  ("pontos de destino", "fate"), ("recarga", "fate"), ("nota", "notes"), ("descricao", "notes"))
#: the Portuguese words of a sheet's labels -> pbp's
_REFRESH = ("refresh", "recarga")
_HIGH_CONCEPT = ("high concept", "conceito", "conceito principal")
_TROUBLE = ("trouble", "dificuldade", "problema")
_PT_SEVERITIES = {"suave": "mild", "moderada": "moderate", "severa": "severe"}


def _kind(label: str) -> str:
    key = fold(label)
    for word, kind in _SECTION_WORDS:
        if word in key:
            return kind
    return ""


def _track(system: System, label: str) -> str | None:
    """The system's track a stress block names, in English or Portuguese ("Físico")."""
    key = fold(label)
    found = system.track_named(label) or next((t for t in system.tracks if t.casefold() in key), None)
    if found is None:
        found = next((t for t, pt in PORTUGUESE.tracks.items() if t in system.tracks and fold(pt) in key), None)
    return found


def _int(value) -> int | None:
    try:
        return int(str(value).strip().lstrip("+"))
    except (TypeError, ValueError):
        return None


def _short(v) -> str:
    text = v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)
    return text if len(text) <= 60 else text[:57] + "..."


def _stunt(name: str, text: str, helper: str, system: System) -> tuple[dict, bool]:
    """A pbp stunt from a Fari block; False when its rules could not be read from it."""
    if helper.startswith(PBP_HELPER):
        parts = [p.strip() for p in helper[len(PBP_HELPER):].split("|")]
        parts += [""] * (4 - len(parts))
        stunt = {"name": name, "skill": parts[0], "action": parts[1], "bonus": _int(parts[2]) or 0}
        if parts[3]:
            stunt["circumstance"] = parts[3]
        if text:
            stunt["description"] = text
        return stunt, True
    found = None
    for skill in system.skills:
        m = re.search(rf"\b{re.escape(skill)}\b", text, flags=re.I)
        if m and (found is None or m.start() < found[1]):
            found = (skill, m.start())
    bonus = re.search(r"\+(\d)\b", text)
    stunt = {"name": name, "description": text} if text else {"name": name}
    if found is None or bonus is None:
        stunt["bonus"] = 0
        return stunt, False
    stunt["skill"], stunt["bonus"] = found[0], int(bonus.group(1))
    low = text.casefold()
    action = next((a for w, a in ACTION_WORDS if w in low), "")
    if action:
        stunt["action"] = action
    when = re.search(r"\b(when|while|if)\b[^.]*", text, flags=re.I)
    if when:
        stunt["circumstance"] = when.group(0).strip()
    return stunt, True


def from_fari(doc: dict, system: System) -> FariSheet:
    layout, sections = blocks_of(doc)
    name = str(doc.get("name") or "").strip()
    data: dict = {"name": name, "kind": "pc"}
    aspects: dict = {}
    skills: dict[str, int] = {}
    stunts: list[dict] = []
    sheet = FariSheet(data, layout=layout)
    notes: list[str] = []
    refresh = fate = None
    counter_max = None
    for label, blocks in sections:
        kind = _kind(label)
        for block in blocks if isinstance(blocks, list) else []:
            if not isinstance(block, dict):
                continue
            btype, blabel = block.get("type", ""), str(block.get("label") or "").strip()
            value, meta = block.get("value"), block.get("meta") or {}
            where = f'"{label}" / "{blabel}"' if blabel else f'"{label}"'
            if btype == "Text" and blabel.casefold() == "player" and str(value or "").strip():
                data["player"] = str(value).strip()      # pbp's own block (to_fari writes it)
                continue
            if btype in ("Separator", "InfoText") or (btype == "Text" and not str(value or "").strip()
                                                       and kind in ("aspects", "stunts", "consequences", "notes")):
                continue            # layout, or an empty slot: nothing to carry
            if label.casefold() == PBP_SECTION.casefold() and btype == "Text":
                _system_key(sheet, system, blabel, value, where)     # pbp's own section (to_fari writes it)
                continue
            if btype == "PointCounter" and (meta.get("isMainPointCounter") or _kind(blabel) == "fate"
                                            or kind == "fate") and not any(w in blabel.casefold() for w in _REFRESH):
                fate, counter_max = _int(value), _int(meta.get("max"))
                continue
            if any(w in blabel.casefold() for w in _REFRESH) and _int(value) is not None:
                refresh = _int(value)
                continue
            if kind == "aspects" and btype == "Text":
                key = blabel.casefold()
                if fold(key) in _HIGH_CONCEPT and "high_concept" not in aspects:
                    aspects["high_concept"] = str(value).strip()
                elif fold(key) in _TROUBLE and "trouble" not in aspects:
                    aspects["trouble"] = str(value).strip()
                elif key.replace(" ", "_") in system.character_state.aspect_keys and key.replace(" ", "_") not in aspects:
                    aspects[key.replace(" ", "_")] = str(value).strip()      # the system's (DFC's relationship)
                elif "hidden" in label.casefold():
                    aspects.setdefault("hidden", []).append(str(value).strip())
                else:
                    aspects.setdefault("other", []).append(str(value).strip())
                continue
            if kind == "skills" and btype in ("Skill", "Numeric", "DicePool"):
                written = str(value or "").strip()      # an empty block is a skill not taken
                rating = _int(value) if written else 0
                if rating is None or not blabel:
                    sheet.unmapped.append(f"{where}: {_short(value)} is not a skill rating")
                elif written:
                    skills[system.skill_named(blabel) or blabel] = rating
                continue
            if kind == "stunts" and btype == "Text":
                stunt, read = _stunt(blabel or f"Stunt {len(stunts) + 1}", str(value or "").strip(),
                                     str(meta.get("helperText") or ""), system)
                stunts.append(stunt)
                if not read:
                    sheet.unmapped.append(f'{where}: no skill and bonus found in its text; imported as a stunt of '
                                          f'text only (bonus 0): set its rules with pbp character edit {name}')
                continue
            if kind == "stress" and btype == "SlotTracker":
                track = _track(system, blabel)
                if track is None:
                    sheet.unmapped.append(f"{where}: a track {system.title or system.name} does not have "
                                          f"(tracks: {', '.join(system.tracks)})")
                else:
                    sheet.stress[track] = [bool((b or {}).get("checked")) for b in value or []]
                continue
            if kind == "consequences" and btype == "Text":
                key = blabel.casefold()
                # a severity, or a kind of condition the system has (DFC's "2 lasting"); Portuguese "2 Suave"
                severity = next((s for s in SEVERITIES + tuple(system.condition_kinds) if s in key), None) or \
                    next((s for pt, s in _PT_SEVERITIES.items() if pt in fold(key)), None)
                track = next((t for t in system.tracks if t.casefold() in key), "") or (_track(system, blabel) or "")
                if severity is None:
                    sheet.unmapped.append(f"{where}: {_short(value)} (no severity in the label: mild, moderate, severe)")
                else:
                    sheet.consequences.append((severity, track, str(value).strip()))
                continue
            if kind == "notes" and btype == "Text":
                notes.append(str(value).strip())
                continue
            if value in (None, "", []):
                continue
            sheet.unmapped.append(f"{where}: {btype} {_short(value)}")
    if aspects:
        data["aspects"] = aspects
    data["skills"] = skills
    if stunts:
        data["stunts"] = stunts
    if refresh is None:
        refresh = counter_max
    base = system.starting_refresh - max(0, len(stunts) - system.free_stunts)
    if refresh is not None:
        data["refresh"] = refresh
        if refresh > base and "milestone_refresh" not in data:
            data["milestone_refresh"] = refresh - base
    if fate is not None:
        data["fate_points"] = fate
    if notes:
        data["description"] = "\n\n".join(notes)
    return sheet


def _system_key(sheet: FariSheet, system: System, key: str, value, where: str) -> None:
    """A block of the ``PBP`` section: one of the system's sheet keys, its value JSON."""
    if key not in PBP_KEYS + tuple(system.character_state.keys):
        keys = ", ".join(PBP_KEYS + tuple(system.character_state.keys))
        sheet.unmapped.append(f"{where}: not a sheet key of {system.title or system.name} (its keys: {keys})")
        return
    try:
        sheet.data[key] = json.loads(str(value))
    except json.JSONDecodeError:
        sheet.unmapped.append(f"{where}: {_short(value)} is not a JSON value (pbp writes one, e.g. 3 or \"Mundane\")")


def read_fari(path: str | Path, system: System) -> FariSheet:
    path = Path(path)
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise SheetError(f"{path}: no such file") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise SheetError(f"{path}: not a Fari character file (JSON): {exc}") from None
    try:
        return from_fari(doc, system)
    except SheetError as exc:
        raise SheetError(f"{path}: {exc}") from None


def is_fari(path: str | Path) -> bool:
    return str(path).casefold().endswith(".json")


# --------------------------------------------------------------------------- pbp -> Fari (v6)


def _id() -> str:
    return str(uuid.uuid4())


def _block(btype: str, label: str, value, **meta) -> dict:
    # v6 writes labels in capitals; a block's label is kept as it is (a stunt's or a
    # skill's name), which Fari shows all the same
    return {"id": _id(), "label": label, "type": btype, "value": value, "meta": meta}


def _section(label: str, blocks: list[dict], **more) -> dict:
    return {"id": _id(), "label": label.upper(), "blocks": blocks, **more}


def to_fari(data: dict, stress: dict[str, list[bool]], consequences, system: System) -> dict:
    """A pbp character (its sheet data, marked stress, consequence slots) as Fari's newest layout."""
    aspects = data.get("aspects", {})
    aspect_blocks = []
    if "high_concept" in aspects:
        aspect_blocks.append(_block("Text", "High Concept", aspects["high_concept"]))
    if "trouble" in aspects:
        aspect_blocks.append(_block("Text", "Trouble", aspects["trouble"]))
    aspect_blocks += [_block("Text", key.replace("_", " ").title(), aspects[key])
                      for key in system.character_state.aspect_keys if aspects.get(key)]
    aspect_blocks += [_block("Text", "Aspect", a) for a in aspects.get("other", [])]
    left = [_section("Aspects", aspect_blocks, visibleOnCard=True)]
    if aspects.get("hidden"):
        left.append(_section("Hidden Aspects", [_block("Text", "Aspect", a) for a in aspects["hidden"]]))
    stunt_blocks = []
    for s in data.get("stunts", []):
        helper = PBP_HELPER + " | ".join([s.get("skill", ""), s.get("action", ""), f"+{s.get('bonus', 2)}",
                                           s.get("circumstance", "")])
        stunt_blocks.append(_block("Text", s["name"], s.get("description", ""), helperText=helper))
    left.append(_section("Stunts & Extras", stunt_blocks))
    left.append(_section("Fate Points", [
        _block("PointCounter", "Fate Points", str(data.get("fate_points", data.get("refresh", 3))),
               isMainPointCounter=True, max=str(data.get("refresh", 3))),
        _block("Numeric", "Refresh", str(data.get("refresh", 3))),
    ]))
    notes = [_block("Text", "Notes", data["description"])] if data.get("description") else []
    if data.get("player"):
        notes.append(_block("Text", "Player", data["player"], helperText="the player's address in pbp"))
    if notes:
        left.append(_section("Notes", notes))
    own = [_block("Text", key, json.dumps(data[key], ensure_ascii=False), helperText="a pbp sheet key, as JSON")
           for key in PBP_KEYS + tuple(system.character_state.keys)
           if key in data and (key != "kind" or data[key] != "pc")]
    if own:
        left.append(_section(PBP_SECTION, own))
    skills = sorted(data.get("skills", {}).items(), key=lambda kv: (-kv[1], kv[0]))
    right = [_section("Skills", [_block("Skill", k, str(v), commands=["4dF"]) for k, v in skills], visibleOnCard=True)]
    right.append(_section("Stress", [
        _block("SlotTracker", track, [{"label": str(n + 1), "checked": bool(b)} for n, b in enumerate(boxes)])
        for track, boxes in stress.items()]))
    cons = []
    for q in consequences:
        label = f"{q.shifts} {q.severity.rstrip('2')}" + (f" {q.track}" if q.track else "")
        cons.append(_block("Text", label, q.aspect or ""))
    right.append(_section("Consequences", cons))
    return {"id": _id(), "name": data["name"], "group": None, "wide": False,
            "pages": [{"id": _id(), "label": "CHARACTER", "rows": [{"columns": [{"sections": left},
                                                                               {"sections": right}]}]}],
            "version": 6, "lastUpdated": int(time.time()), "playedDuringTurn": False,
            "fariType": "character"}   # Fari's import takes a file only when it says so (FariEntity.import)
