"""Dresden Files Condensed (000_7ba3f797fc1d45d3.txt): Fate Condensed's skills, stress and
actions, with mantles, conditions and scale on the character.

What the text adds to Fate Condensed, and how it is read here (docs/dresden-files-condensed.md):

* **Character creation** ("Summary of Character Creation"): a mantle; a high concept, a
  trouble, a relationship aspect and one or two free aspects ("To begin, you'll give your
  character five aspects"); the pyramid (one Great, two Good, three Fair, four Average) on
  Fate Condensed's skill list; refresh 3; the mantle's core stunts, then free stunts, each
  further stunt 1 refresh, never below 1. The text says "choose one stunt for free from the
  Additional Stunts section" (step 6) and "Your character begins with three free stunt
  slots" ("Stunts"): the campaign setting ``free_stunts`` chooses, ``one`` (the default, the
  creation steps: one of the mantle's additional stunts is free) or ``three`` (any three).
* **Stress** ("Stress and Consequences"): Fate Condensed's table, by Physique and Will,
  with the Superb extra mild slot. "Options Related to Stress": the campaign setting
  ``escalating_stress = yes`` replaces the one-point boxes with Fate Core's escalating ones
  and keeps the conditions' values as DFA gives them; with one-point boxes "cut its stress
  value in half" (rounded up: a 1 stays 1).
* **Mantles** are data: the text converts Dresden Files Accelerated's mantles without
  reproducing them, so a GM writes a mantle file (``Mantle``) and a sheet names it.
* **Conditions** ("Conditions"): fleeting (one box), sticky (cleared by a named event) and
  lasting (two boxes, both checked when taken) come with the mantle; a condition may replace
  one of the consequence slots (``replaces``).
* **Scale** ("Scale"): a character's level, Mundane to Godlike (``SCALE``); the campaign
  setting ``scale_levels`` renames or reorders the levels (issue 10), carrying those in play
  over (``_carry_scale``).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace

from pbp.rules.character_state import CharacterState
from pbp.rules.system import Recovery, StressTable, SystemOption, frozen
from pbp.rules.systems.fate_condensed import FATE_CONDENSED

#: "five potential levels of scale: Mundane, Supernatural, Otherworldly, Legendary, and Godlike".
SCALE = ("Mundane", "Supernatural", "Otherworldly", "Legendary", "Godlike")

#: The kinds of condition and the boxes each has ("Conditions"): a fleeting one the table
#: shows with one box, a lasting one with two ("Lasting conditions have two check boxes");
#: a sticky one with one unless the mantle says more.
CONDITION_KINDS = ("fleeting", "sticky", "lasting")
#: The aspects that may carry scale ("Aspects and Scale": "Active situation aspects"): the
#: scene's and a zone's, and a situation aspect put on a character.
SCALED_KINDS = ("situation", "zone")
FIXED_BOXES = {"fleeting": 1, "lasting": 2}

MANTLE_KEYS = ("name", "description", "core_stunts", "additional_stunts", "conditions")
CONDITION_KEYS = ("name", "kind", "shifts", "boxes", "track", "clears", "replaces")
CONDITION_SHIFTS = (1, 12)
CONDITION_BOXES = (1, 4)
#: The pyramid at creation ("Skills": one Great, two Good, three Fair, four Average).
PYRAMID = {4: 1, 3: 2, 2: 3, 1: 4}
#: The pyramid's ratings, highest first (4, 3, 3, 2, 2, 2, 1, 1, 1, 1), and their sum.
PYRAMID_STEPS = tuple(r for r, n in sorted(PYRAMID.items(), reverse=True) for _ in range(n))
PYRAMID_SUM = sum(PYRAMID_STEPS)
#: Skill points a sheet may say milestones gave it (``milestone_skills``).
MILESTONE_SKILLS = (0, 60)
#: Aspects beyond high concept, trouble and relationship: "two free aspects", at least one
#: at creation (steps 2 and 9: "any remaining Free Aspects if you wish").
FREE_ASPECTS = (1, 2)

_MANTLE_EXAMPLE = 'mantle = "mantles/threshold-warden.toml"'


def absorbed(written: int, escalating: bool) -> int:
    """The shifts a condition absorbs: DFA's value under escalating stress; half of it,
    rounded up, under one-point boxes ("cut its stress value in half. Example, for the
    Monster Hunter's Wounded condition, it would only be able to absorb two shifts")."""
    return written if escalating else (written + 1) // 2


@dataclass(frozen=True)
class DresdenState(CharacterState):
    """A character's mantle, conditions, relationship and scale (``Character.system_state``)::

        {"mantle": {"name": ..., "core_stunts": [...], "additional_stunts": [...]},
         "mantle_stunts": ["Salt Line"], "relationship": "...", "scale": "Supernatural",
         "conditions": [{"name": "Winded", "kind": "fleeting", "shifts": 1, "written": 1,
                         "boxes": [false], "track": "", "clears": "", "replaces": ""}]}

    ``escalating``, ``free_from_mantle`` and ``scale`` come from the campaign options (``OPTIONS``)."""

    escalating: bool = False
    free_from_mantle: bool = True     # free stunts come from the mantle's additional stunts
    scale: tuple[str, ...] = SCALE
    keys: tuple[str, ...] = ("mantle", "mantle_stunts", "scale", "milestone_skills")
    aspect_keys: tuple[str, ...] = ("relationship",)

    # -- import ------------------------------------------------------------------------
    def read(self, sheet, data: dict, ch) -> dict:
        state: dict = {}
        raw = data.get("mantle")
        where = "mantle"
        if isinstance(raw, str):
            where = f"mantle ({raw})"
            raw = sheet.file("mantle", raw, _MANTLE_EXAMPLE) if raw.strip() else None
            if raw is None and data.get("mantle", "").strip() == "":
                sheet.problem("mantle", "is empty", _MANTLE_EXAMPLE)
        if raw is not None:
            mantle = self._mantle(sheet, raw, where)
            if mantle is not None:
                state["mantle"] = mantle
        picked = sheet.name_list(data.get("mantle_stunts"), "mantle_stunts", 'mantle_stunts = ["Salt Line"]')
        mantle = state.get("mantle")
        if mantle is not None:
            offered = {s["name"].casefold(): s for s in mantle["additional_stunts"]}
            for i, name in enumerate(picked, start=1):
                if name.casefold() not in offered:
                    names = ", ".join(s["name"] for s in mantle["additional_stunts"]) or "none"
                    sheet.problem(f"mantle_stunts[{i}]", f'"{name}" is not one of the additional stunts of '
                                  f'{mantle["name"]} ({names})', 'mantle_stunts = ["Salt Line"]')
            chosen = [offered[n.casefold()] for n in picked if n.casefold() in offered]
            state["mantle_stunts"] = [s["name"] for s in chosen]
            # The mantle's stunts play as the character's: core stunts first, then those chosen.
            from pbp.rules.state import Consequence, Stunt
            ch.stunts = [*(Stunt(**s) for s in mantle["core_stunts"]), *(Stunt(**s) for s in chosen), *ch.stunts]
            # Its conditions are slots beside the consequences (or instead of one, ``replaces``),
            # absorbing and filled like them; the slot's severity is the condition's kind.
            for c in mantle["conditions"]:
                if c["replaces"]:
                    slot = next((q for q in ch.consequences if q.severity == c["replaces"] and not q.condition), None)
                    if slot is not None:
                        ch.consequences.remove(slot)
            ch.consequences += [Consequence(c["kind"], c["shifts"], track=c["track"], condition=c["name"])
                                for c in mantle["conditions"]]
        elif picked:
            sheet.problem("mantle_stunts", "names a mantle's stunts, but the sheet has no mantle", _MANTLE_EXAMPLE)
        relationship = (data.get("aspects") or {}).get("relationship") if isinstance(data.get("aspects"), dict) else None
        if isinstance(relationship, str) and relationship.strip():
            state["relationship"] = " ".join(relationship.split())
        aspects = data.get("aspects") if isinstance(data.get("aspects"), dict) else {}
        free = sum(len(aspects.get(k)) for k in ("other", "hidden") if isinstance(aspects.get(k), list))
        low, high = FREE_ASPECTS
        if ch.kind == "pc" and not low <= free <= high:
            sheet.problem("aspects.other", f"{ch.name} has {free} free aspects; a player character has {low} or "
                                           f"{high} beside the high concept, trouble and relationship (five in all)",
                          'aspects.other = ["Reads Every Footnote"]')
        if "scale" in data:
            level = data["scale"]
            known = {s.casefold(): s for s in self.scale}
            if not isinstance(level, str) or level.strip().casefold() not in known:
                sheet.problem("scale", f"{level!r} is not a level of scale ({', '.join(self.scale)})",
                              f'scale = "{self.scale[1]}"')
            else:
                state["scale"] = known[level.strip().casefold()]
        if "milestone_skills" in data:
            grown = sheet.integer(data["milestone_skills"], "milestone_skills", MILESTONE_SKILLS,
                                  "milestone_skills = 1")
            if grown and ch.kind != "pc":
                sheet.problem("milestone_skills", "is for player characters only (leave it out)")
            elif grown:
                state["milestone_skills"] = grown
        return state

    def _mantle(self, sheet, raw, where: str) -> dict | None:
        before = len(sheet.problems)
        table = sheet.table(raw, where, MANTLE_KEYS, 'name = "Threshold Warden"')
        name = sheet.name(table.get("name"), f"{where}.name", 'name = "Threshold Warden"', required=True)
        description = sheet.text(table.get("description"), f"{where}.description",
                                 'description = "Keeper of a door between worlds."', limit=400)
        core = sheet.stunts(table.get("core_stunts"), f"{where}.core_stunts")
        extra = sheet.stunts(table.get("additional_stunts"), f"{where}.additional_stunts")
        conditions = []
        raw_conditions = table.get("conditions", [])
        if not isinstance(raw_conditions, list):
            sheet.problem(f"{where}.conditions", "expected one [[conditions]] table per condition",
                          '[[conditions]] name = "Winded" kind = "fleeting" shifts = 1')
            raw_conditions = []
        for i, c in enumerate(raw_conditions[:12], start=1):
            condition = self._condition(sheet, c, f"{where}.conditions[{i}]")
            if condition is not None:
                conditions.append(condition)
        if len(sheet.problems) > before or not name:
            return None
        return {"name": name, "description": description,
                "core_stunts": [dict(vars(s)) for s in core], "additional_stunts": [dict(vars(s)) for s in extra],
                "conditions": conditions}

    def _condition(self, sheet, raw, key: str) -> dict | None:
        example = 'name = "Winded", kind = "fleeting", shifts = 1'
        if not isinstance(raw, dict):
            sheet.problem(key, "expected a [[conditions]] table", example)
            return None
        c = sheet.table(raw, key, CONDITION_KEYS, example)
        name = sheet.name(c.get("name"), f"{key}.name", 'name = "Winded"', required=True)
        kind = c.get("kind")
        if kind not in CONDITION_KINDS:
            sheet.problem(f"{key}.kind", f"{kind!r} is not one of {', '.join(CONDITION_KINDS)}", 'kind = "sticky"')
            return None
        written = sheet.integer(c.get("shifts"), f"{key}.shifts", CONDITION_SHIFTS, "shifts = 2")
        boxes = FIXED_BOXES.get(kind)
        if "boxes" in c:
            count = sheet.integer(c["boxes"], f"{key}.boxes", CONDITION_BOXES, "boxes = 1")
            if boxes is not None and count is not None and count != boxes:
                sheet.problem(f"{key}.boxes", f"a {kind} condition has {boxes} box{'es' if boxes > 1 else ''}, "
                                              f"not {count} (leave boxes out)", f"boxes = {boxes}")
            boxes = boxes or count
        clears = sheet.text(c.get("clears"), f"{key}.clears", 'clears = "a night\'s sleep"', limit=80)
        if kind == "sticky" and not clears:
            sheet.problem(f"{key}.clears", "missing: a sticky condition clears on a named event", 'clears = "sleep"')
        track = c.get("track", "")
        if track not in ("", *FATE_CONDENSED.tracks):
            sheet.problem(f"{key}.track", f"{track!r} is not physical or mental (or leave it out: any hit)",
                          'track = "physical"')
        replaces = c.get("replaces", "")
        if replaces not in ("", *FATE_CONDENSED.severities):
            sheet.problem(f"{key}.replaces", f"{replaces!r} is not a consequence slot "
                                             f"({', '.join(FATE_CONDENSED.severities)})", 'replaces = "mild"')
        if not name or written is None:
            return None
        return {"name": name, "kind": kind, "written": written, "shifts": absorbed(written, self.escalating),
                "boxes": boxes or 1, "track": track if isinstance(track, str) else "",
                "clears": clears, "replaces": replaces if isinstance(replaces, str) else ""}

    def problems(self, ch, system) -> list[str]:
        if ch.kind != "pc":
            return []
        state = ch.system_state
        problems = []
        if "mantle" not in state:
            problems.append(f"mantle: {ch.name} has no mantle; a player character chooses one first "
                            f"(Summary of Character Creation, step 1); e.g. {_MANTLE_EXAMPLE}")
        if "relationship" not in state:
            problems.append(f"aspects.relationship: missing: {ch.name} needs a relationship aspect, a "
                            'connection with another PC; e.g. aspects.relationship = "Owes Ruth a Life"')
        problems += self._skill_problems(ch)
        return problems

    def _skill_problems(self, ch) -> list[str]:
        """The pyramid, exactly, at creation; a sheet grown by milestones (``milestone_skills =
        N``: skill points spent since) is the pyramid raised by N steps, highest first never
        below the pyramid's ratings ("Improving Skill Ratings"; the column rule itself is the
        import's check for every system, ``pbp.rules.sheets.column_problems``)."""
        ratings = sorted((v for v in ch.skills.values() if v > 0), reverse=True)
        counts = {r: ratings.count(r) for r in range(1, 13)}
        have = ", ".join(f"{n} at {r:+d}" for r, n in sorted(counts.items(), reverse=True) if n) or "none above +0"
        grown = ch.system_state.get("milestone_skills", 0)
        above = sum(ratings) - PYRAMID_SUM
        if not grown:
            if counts == {r: PYRAMID.get(r, 0) for r in range(1, 13)}:
                return []
            more = (f"; or count the skill points milestones gave with milestone_skills, e.g. milestone_skills = "
                    f"{above}" if above > 0 else "")
            return [f"skills: {ch.name}'s skills start as a pyramid: one Great (+4), two Good (+3), "
                    f"three Fair (+2), four Average (+1), all others Mediocre (+0); the sheet has {have}{more}"]
        padded = ratings + [0] * max(0, len(PYRAMID_STEPS) - len(ratings))
        if any(v < p for v, p in zip(padded, PYRAMID_STEPS)):
            return [f"skills: {ch.name}'s skills ({have}) are not the pyramid grown by one-step raises: highest "
                    f"first, they are at least the pyramid's {', '.join(f'{p:+d}' for p in PYRAMID_STEPS)}"]
        if above != grown:
            return [f"skills: milestone_skills = {grown}, but the skills are {above} step{'s' if above != 1 else ''} "
                    f"above the pyramid ({have}); e.g. milestone_skills = {max(above, 1)}"]
        return []

    def record_raises(self, data: dict, points: int) -> None:
        """A sheet changed at a milestone by ``points`` raises: the sheet counts them, so its
        check is the grown pyramid's, not creation's."""
        total = int(data.get("milestone_skills", 0) or 0) + points
        if total > 0:
            data["milestone_skills"] = total

    def sheet_data(self, ch, data: dict) -> dict:
        """The mantle written inline (a ``[mantle]`` table: the file it came from is not kept),
        the chosen stunts by name (the mantle's own leave ``stunts``), the scale and the
        relationship aspect under their keys."""
        state = ch.system_state
        mantle = state.get("mantle")
        if mantle:
            conditions = [{k: v for k, v in {"name": c["name"], "kind": c["kind"], "shifts": c["written"],
                                             "boxes": c["boxes"], "track": c["track"], "clears": c["clears"],
                                             "replaces": c["replaces"]}.items() if v not in ("", None)}
                          for c in mantle["conditions"]]
            data["mantle"] = {"name": mantle["name"], **({"description": mantle["description"]}
                                                          if mantle["description"] else {}),
                              "core_stunts": [_stunt_data(x) for x in mantle["core_stunts"]],
                              "additional_stunts": [_stunt_data(x) for x in mantle["additional_stunts"]],
                              "conditions": conditions}
            own = [s for s in data.get("stunts", [])]
            for name in [x["name"] for x in mantle["core_stunts"]] + list(state.get("mantle_stunts", [])):
                at = next((i for i, x in enumerate(own) if x["name"] == name), None)
                if at is not None:
                    own.pop(at)
            if own:
                data["stunts"] = own
            else:
                data.pop("stunts", None)
            if state.get("mantle_stunts"):
                data["mantle_stunts"] = list(state["mantle_stunts"])
        if state.get("scale"):
            data["scale"] = state["scale"]
        # the skill points milestones gave, from the sheet as it is (the play changes it)
        above = sum(v for v in ch.skills.values() if v > 0) - PYRAMID_SUM
        if ch.kind == "pc" and above > 0:
            data["milestone_skills"] = above
        relationship = state.get("relationship")
        aspects = data.get("aspects", {})
        if relationship and relationship in aspects.get("other", []):
            aspects["other"] = [a for a in aspects["other"] if a != relationship]
            if not aspects["other"]:
                del aspects["other"]
            aspects["relationship"] = relationship
        return data

    def scale_of(self, ch) -> tuple[int, str]:
        """The character's level (its index in ``scale``) and name; Mundane when the sheet
        names none."""
        level = ch.system_state.get("scale") or self.scale[0]
        return (self.scale.index(level) if level in self.scale else 0), level

    # -- scale on aspects ("Aspects and Scale") ------------------------------------------
    aspect_settings: tuple[str, ...] = ("scale",)

    def scale_named(self, value: str, *, source: str = "", example: str = "") -> str:
        """The level of scale ``value`` names (any case), or a RulesError listing them."""
        from pbp.errors import RulesError
        known = {s.casefold(): s for s in self.scale}
        level = known.get(" ".join(str(value).split()).casefold())
        if level is None:
            raise RulesError(f'"{value}" is not a level of scale ({", ".join(self.scale)})', source=source,
                             expected="a level of scale", example=example or f"scale {self.scale[1]}")
        return level

    def set_aspect(self, aspect, key: str, value: str, *, source: str = "", example: str = "") -> tuple[object, object]:
        """``scale``: the level a situation or zone aspect carries ("Active situation aspects
        sometimes represent a supernatural effect"); an empty value takes it away. ``example``:
        the command that would work with a known level (by default ``/aspect set``)."""
        from pbp.errors import RulesError
        example = example or f'/aspect set "{aspect.name}" scale={self.scale[1]}'
        if key != "scale":
            raise RulesError(f'"{key}" is not a setting of an aspect (settings: scale)', source=source,
                             expected="scale=LEVEL", example=example)
        if aspect.kind not in SCALED_KINDS:
            raise RulesError(f"{aspect.name} is a {aspect.kind.replace('_', ' ')} aspect; scale is for situation "
                             "aspects (on the scene, a zone or a character), and a character's own scale is on "
                             "its sheet", source=source, expected="a situation aspect",
                             example=f'/aspect add "Veiled" scale {self.scale[1]}')
        before = aspect.system_state.get("scale")
        after = self.scale_named(value, source=source, example=example) if str(value).strip() else None
        state = {k: v for k, v in aspect.system_state.items() if k != "scale"}
        aspect.system_state = {**state, "scale": after} if after else state
        return before, after

    def setting_example(self, key: str) -> str:
        """A value of ``key`` that works in this campaign: its second level of scale."""
        return self.scale[1] if key == "scale" else ""

    def aspect_scale(self, aspect) -> tuple[int, str] | None:
        level = aspect.system_state.get("scale")
        return (self.scale.index(level), level) if level in self.scale else None

    def aspect_view(self, aspect) -> dict:
        level = aspect.system_state.get("scale")
        return {"scale": level} if level else {}

    def granted_stunts(self, ch) -> int:
        """The mantle's core stunts are free ("Mark down your mantle's Core Stunts")."""
        mantle = ch.system_state.get("mantle")
        return len(mantle["core_stunts"]) if mantle else 0

    def free_stunts(self, ch, system) -> int:
        """With ``free_stunts = one`` the free stunt is "one stunt for free from the Additional
        Stunts section": it is free only when one of the mantle's was chosen."""
        if self.free_from_mantle:
            return min(system.free_stunts, len(ch.system_state.get("mantle_stunts", [])))
        return system.free_stunts

    # -- sheets ------------------------------------------------------------------------
    def view(self, ch, *, secret: bool = False) -> tuple[dict, list[tuple[str, str]]]:
        state = ch.system_state
        entries: dict = {}
        lines: list[tuple[str, str]] = []
        mantle = state.get("mantle")
        if mantle:
            entries["mantle"] = mantle["name"]
            lines.append(("mantle", mantle["name"]))
        if state.get("scale"):
            entries["scale"] = state["scale"]
            lines.append(("scale", state["scale"]))
        if state.get("relationship"):
            entries["relationship"] = state["relationship"]
        conditions = conditions_of(ch)
        if conditions:
            entries["conditions"] = conditions
            for c in conditions:
                lines.append(("condition", condition_text(c)))
        return entries, lines


def conditions_of(ch) -> list[dict]:
    """The character's conditions as the sheet shows them: the mantle's definition and the
    slot's state. A taken condition has every box checked; a lasting one in recovery has one
    erased ("When recovery begins, erase one check box")."""
    mantle = ch.system_state.get("mantle") or {}
    defs = {c["name"]: c for c in mantle.get("conditions", [])}
    out = []
    for q in ch.consequences:
        if not q.condition:
            continue
        d = defs.get(q.condition, {})
        n = d.get("boxes", 2 if q.severity == "lasting" else 1)
        checked = 0 if q.aspect is None else (n - 1 if q.recovering else n)
        out.append({"name": q.condition, "kind": q.severity, "shifts": q.shifts, "written": d.get("written", q.shifts),
                    "boxes": [True] * checked + [False] * (n - checked), "track": q.track,
                    "clears": d.get("clears", ""), "replaces": d.get("replaces", ""),
                    "recovering": q.recovering})
    return out


def _stunt_data(stunt: dict) -> dict:
    return {k: v for k, v in stunt.items() if v not in ("", None)}


def condition_text(c: dict) -> str:
    """``Wounded (lasting, absorbs 2) [ ][ ]``; a sticky one says what clears it."""
    boxes = "".join("[x]" if b else "[ ]" for b in c["boxes"])
    until = f", until {c['clears']}" if c["kind"] == "sticky" and c["clears"] else ""
    track = f", {c['track']}" if c["track"] else ""
    instead = f", instead of the {c['replaces']} consequence" if c["replaces"] else ""
    return f"{c['name']} ({c['kind']}, absorbs {c['shifts']}{track}{until}{instead}) {boxes}"


def _escalating(system, value: str):
    state = replace(system.character_state, escalating=True)
    # "replace the one-point stress boxes with escalating stress": Fate Core's boxes, 1 and 2,
    # a 3 at Average or Fair, a 4 at Good or Great, the extra mild slot at Superb.
    return replace(system, stress=StressTable(steps=((-99, 2), (1, 3), (3, 4)), extra_mild_from=5, escalating=True),
                   character_state=state, title=f"{system.title} (escalating stress)")


def _three_free(system, value: str):
    return replace(system, free_stunts=3, character_state=replace(system.character_state, free_from_mantle=False))


#: A level's name: one word (letters, then letters, digits, - or '), written bare in commands
#: (``scale Touched``, ``scale=Touched``).
LEVEL_NAME = re.compile(r"[^\W\d_][\w'-]{0,23}")
SCALE_EXAMPLE = "Mortal, Touched, Fae, Legendary, Godlike"


def scale_levels(value: str) -> str:
    """``scale_levels``: the campaign's levels of scale, lowest first, comma-separated ("a
    campaign may rename or reorder them", issue 10); at least two, each one word, no name
    twice (case aside). Kept as written, ``", "``-joined."""
    names = [" ".join(n.split()) for n in str(value).split(",")]
    if not any(names) or names == [""]:
        raise ValueError("is empty: name the levels, lowest first, separated by commas")
    for i, name in enumerate(names, start=1):
        if not name:
            raise ValueError(f"level {i} is empty (two commas, or one at an end)")
        if not LEVEL_NAME.fullmatch(name):
            raise ValueError(f'"{name}" (level {i}) is not one word of letters (a level is written bare in '
                             "commands, scale LEVEL), up to 24 characters")
    seen: dict[str, int] = {}
    for i, name in enumerate(names, start=1):
        if name.casefold() in seen:
            raise ValueError(f'"{name}" is named twice (levels {seen[name.casefold()]} and {i}): each level is '
                             "a different step")
        seen[name.casefold()] = i
    if len(names) < 2:
        raise ValueError(f"names one level ({names[0]}): scale compares two levels at least")
    return ", ".join(names)


def _scale_levels(system, value: str):
    levels = tuple(n.strip() for n in value.split(","))
    return replace(system, character_state=replace(system.character_state, scale=levels))


def _carry_scale(before, after, table) -> list[str]:
    """The levels the characters and aspects in play carry, under the new list: a level still
    in it keeps its name (reordered, it moves with it); one no longer in it takes the name
    at its old position (renamed). A level whose position the new list does not reach is
    refused, and nothing changes."""
    old, new = before.character_state.scale, after.character_state.scale
    known = {s.casefold(): s for s in new}
    lines: list[str] = []
    problems: list[str] = []

    def moved(level: str, who: str) -> str:
        if level.casefold() in known:
            return known[level.casefold()]
        at = old.index(level) if level in old else None
        if at is None or at >= len(new):
            where = f", level {at + 1}" if at is not None else ""
            problems.append(f"{who} carries {level} scale{where}, which the new list ({', '.join(new)}) has no "
                            f"place for: keep {level} in it" + (f", or give it {at + 1} levels" if at else ""))
            return level
        lines.append(f"{who}: {level} scale is now {new[at]} (level {at + 1})")
        return new[at]

    for ch in table.characters.values():
        level = ch.system_state.get("scale")
        if level:
            ch.system_state = {**ch.system_state, "scale": moved(level, ch.name)}
    for aspect in table.aspects:
        level = aspect.system_state.get("scale")
        if level:
            aspect.system_state = {**aspect.system_state, "scale": moved(level, f"the aspect {aspect.name}")}
    if problems:
        raise ValueError("; ".join(problems))
    return lines


OPTIONS = frozen({
    "free_stunts": SystemOption(
        "Dresden Files Condensed: one (default: one of the mantle's additional stunts is free, the creation "
        "steps) or three (three free stunt slots, the Stunts section)", ("one", "three"), _three_free),
    "escalating_stress": SystemOption(
        "Dresden Files Condensed: no (default: one-point boxes, conditions absorb half their DFA value) or "
        "yes (Fate Core's escalating boxes, conditions as DFA gives them)", ("no", "yes"), _escalating),
    "scale_levels": SystemOption(
        "Dresden Files Condensed: the levels of scale, lowest first, comma-separated (default: "
        f"{', '.join(SCALE)}); a level in play keeps its name, or takes the one at its place",
        (", ".join(SCALE),), _scale_levels, check=scale_levels, example=f'"{SCALE_EXAMPLE}"', carry=_carry_scale),
})

DRESDEN_FILES_CONDENSED = replace(
    FATE_CONDENSED,
    name="dresden-files-condensed",
    title="Dresden Files Condensed",
    free_stunts=1,
    character_state=DresdenState(),
    condition_kinds=CONDITION_KINDS,
    # "A fleeting condition goes away when you get a chance to catch your breath": at the
    # end of the scene. "A sticky condition stays checked off until a specific event
    # happens": the GM says so (/aspect remove). A lasting one recovers after an overcome
    # against "a passive opposition of at least Great (+4)" (/treat), then a full session.
    scene_clears=("fleeting",),
    gm_clears_kinds=("sticky",),
    recovery=frozen({**FATE_CONDENSED.recovery, "lasting": Recovery("session", difficulty=4)}),
    options=OPTIONS,
)
