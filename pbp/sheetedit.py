"""Changing a character sheet safely, and the history of every sheet change.

``pbp character import FILE --replace`` builds a new character: fate points back to
refresh, stress and consequences empty, free invokes on the old aspects lost. Here a sheet
is changed in place instead:

* :func:`export_sheet` writes the character as the sheet file the importer reads (with its
  fate points), so ``pbp character export`` and ``pbp character edit`` hand the GM the
  same TOML an import takes.
* :func:`apply_sheet` validates a changed sheet with the system's creation rules (as an
  import does) and applies only the differences. Play state stays unless the sheet changes
  it: fate points (the exported value is today's; write another to change it), marked
  stress boxes (kept, the track resized when Physique or Will changed), consequences (kept
  in slots that still exist), carried points, taken out, and free invokes (an aspect kept,
  or renamed, keeps them; a removed aspect's are reported). The
  name cannot change here (posts and the play state refer to it).
* :func:`set_values` is ``pbp character set NAME key=value...``: the exported sheet with the
  keys changed, applied the same way.
* The play state is corrected with keys of its own (``stress.physical=x__``,
  ``stress.physical.2=true``, ``consequences.mild="Bruised Ribs"``, ``free_invokes."Deep
  Shadows"=1``, ``taken_out=no``, ``carried_points=2``; ``fate_points`` is a sheet key), the
  ``[play]`` table of ``pbp character edit``'s TOML (:func:`play_data`, :func:`apply_play`),
  and the same keys in ``/sheet set`` by mail.
* Every change by play (a post, see :func:`record_play`) or by hand is a :class:`SheetChange`
  row: who, when, which message, the sheet before and after: the character's row, its own
  aspects and the free invokes it holds (:func:`state_of`, :func:`sheet_aspects`); a change
  by play keeps only the entries it changed, before and after (issue 23: a post's history
  row is a few hundred bytes, not two whole sheets), which is all :func:`undo` and
  :func:`describe_diff` read.
  :func:`undo` takes back the last change not yet undone, field by field (only what that
  change changed, so later changes to other fields stay), the aspects one by one
  (:func:`_restore_aspects`, :func:`_restore_holds`), and is itself recorded.
"""
from __future__ import annotations

import copy
import json
from datetime import datetime

from pbp.errors import ConfigError, SheetError
from pbp.members import add_member
from pbp.rules import state as rs
from pbp.rules.ladder import parse_rating
from pbp.rules.sheets import stress_tracks
from pbp.rules.systems import campaign_system
from pbp.sheetfile import parse_sheet
from pbp.store import models as m
from pbp.store import repo
from pbp.store.prepared import Insert

_INSERT_CHANGE = Insert(m.SheetChange, ("campaign", "character", "at", "who", "how", "message_id", "before", "after",
                                        "undone"))

OWN_KINDS = ("high_concept", "trouble", "character")
INT_KEYS = ("refresh", "milestone_refresh", "milestone_skills", "fate_points")
TEXT_KEYS = ("player", "kind", "description")
PLAY_FIELDS = ("fate_points", "stress", "consequences", "taken_out", "carried_points")


# --------------------------------------------------------------------------- reading a character


def _find(campaign: m.Campaign, name: str) -> tuple[rs.Table, rs.Character]:
    table = repo.load_table(campaign)
    ch = table.character(name)
    if ch is None:
        names = ", ".join(sorted(table.characters)) or "none"
        raise ConfigError(f'no character "{name}" in {campaign.slug} (characters: {names})',
                          hint="pbp character list")
    return table, ch


def _own(table: rs.Table, name: str) -> list[rs.Aspect]:
    return [a for a in table.aspects if a.owner == name and a.kind in OWN_KINDS]


def _description(campaign: m.Campaign, name: str) -> str:
    row = m.Character.get_or_none((m.Character.campaign == campaign) & (m.Character.name == name))
    return row.description if row is not None else ""


def _by_id(item: tuple[int | None, dict]) -> float:
    return item[0] if item[0] is not None else float("inf")


def sheet_aspects(items: list[tuple[int | None, dict]], name: str) -> tuple[list, dict]:
    """``name``'s own aspects and the free invokes it holds on the others, as the history
    keeps them: ``aspects``, every aspect on the character (high concept, trouble, the
    others, a consequence's, a situation aspect put on it), ``[name, kind, hidden, free
    invokes, system state]`` (the system state: Dresden Files Condensed's scale on it; rows
    written before it was kept have four items) in the order they came into play; ``holds``, aspect name -> free invokes
    held on an aspect not its own (a boost, the scene's). ``items``: (storage id, the
    aspect's stored fields), as :func:`pbp.store.repo.save_table` compares them."""
    own, holds = [], {}
    for _, f in sorted(items, key=_by_id):
        if f["owner"] == name:
            own.append([f["name"], f["kind"], bool(f["hidden"]), dict(f["free_invokes"]),
                        dict(f.get("system_state") or {})])
        elif f["free_invokes"].get(name):
            holds[f["name"]] = holds.get(f["name"], 0) + f["free_invokes"][name]
    return own, holds


def _items(table: rs.Table) -> list[tuple[int | None, dict]]:
    return [(a.id, repo._aspect_fields(a)) for a in table.aspects]


def state_of(campaign: m.Campaign, table: rs.Table, ch: rs.Character) -> dict:
    """Everything a sheet change may touch, as plain data (what the history keeps): the
    character's row, its aspects and what it holds (:func:`sheet_aspects`), its description."""
    fields = json.loads(repo._dump(repo._character_fields(ch)))
    fields["aspects"], fields["holds"] = sheet_aspects(_items(table), ch.name)
    fields["description"] = _description(campaign, ch.name)
    return fields


def sheet_data(campaign: m.Campaign, table: rs.Table, ch: rs.Character) -> dict:
    """The character as the data of a sheet file (:mod:`pbp.sheetfile` reads it back)."""
    return sheet_of(campaign_system(campaign), table, ch, _description(campaign, ch.name))


def sheet_of(system, table: rs.Table, ch: rs.Character, description: str = "") -> dict:
    """:func:`sheet_data` of a character in ``table`` under ``system``, its description given:
    what an export writes and an import reads back, the same character (tests/test_round_trips.py)."""
    data: dict = {"name": ch.name}
    if ch.aliases:
        data["aliases"] = list(ch.aliases)
    data["kind"] = ch.kind
    if ch.player:
        data["player"] = ch.player
    data["refresh"] = ch.refresh
    if ch.kind == "pc":
        granted = system.character_state.granted_stunts(ch)
        base = system.starting_refresh - max(0, len(ch.stunts) - granted
                                             - system.character_state.free_stunts(ch, system))
        if ch.refresh > base:
            data["milestone_refresh"] = ch.refresh - base
    data["fate_points"] = ch.fate_points
    if description:
        data["description"] = description
    aspects: dict = {}
    own = _own(table, ch.name)
    for kind in ("high_concept", "trouble"):
        found = next((a for a in own if a.kind == kind), None)
        if found is not None:
            aspects[kind] = found.name
    other = [a.name for a in own if a.kind == "character" and not a.hidden]
    hidden = [a.name for a in own if a.kind == "character" and a.hidden]
    if other:
        aspects["other"] = other
    if hidden:
        aspects["hidden"] = hidden
    if aspects:
        data["aspects"] = aspects
    data["skills"] = dict(ch.skills)
    if ch.kind == "minor":
        # a minor NPC's one track of boxes (sheetfile keeps it under the system's first track)
        data["stress"] = {"boxes": len(ch.stress.get(system.tracks[0], []))}
    if ch.stunts:
        data["stunts"] = [{k: v for k, v in vars(s).items() if v not in ("", None)} for s in ch.stunts]
    return system.character_state.sheet_data(ch, data)


# --------------------------------------------------------------------------- TOML out


def _value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, list):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    raise TypeError(f"no TOML for {type(v).__name__}")


def _key(k: str) -> str:
    return k if k.replace("_", "").replace("-", "").isalnum() and k.isascii() else json.dumps(k, ensure_ascii=False)


def to_toml(data: dict) -> str:
    """The sheet's TOML: plain keys first, then [aspects], [skills], [stress], [[stunts]]."""
    lines = [f"{_key(k)} = {_value(v)}" for k, v in data.items() if not isinstance(v, (dict, list)) or
             (isinstance(v, list) and all(not isinstance(x, dict) for x in v))]
    for k, v in data.items():
        if isinstance(v, dict):
            tables = {kk: vv for kk, vv in v.items() if isinstance(vv, list) and any(isinstance(x, dict) for x in vv)}
            lines += ["", f"[{k}]"] + [f"{_key(kk)} = {_value(vv)}" for kk, vv in v.items() if kk not in tables]
            for kk, vv in tables.items():     # a system's table of tables (a mantle's stunts)
                for item in vv:
                    lines += ["", f"[[{k}.{kk}]]"] + [f"{_key(x)} = {_value(y)}" for x, y in item.items()]
    for k, v in data.items():
        if isinstance(v, list) and any(isinstance(x, dict) for x in v):
            for item in v:
                lines += ["", f"[[{k}]]"] + [f"{_key(kk)} = {_value(vv)}" for kk, vv in item.items()]
    return "\n".join(lines) + "\n"


def export_fari(campaign: m.Campaign, name: str) -> str:
    """The character as a Fari sheet (:mod:`pbp.fari`): the sheet, its fate points, marked
    stress and consequences."""
    from pbp.fari import to_fari

    table, ch = _find(campaign, name)
    doc = to_fari(sheet_data(campaign, table, ch), ch.stress, ch.consequences, campaign_system(campaign))
    return json.dumps(doc, ensure_ascii=False, indent=2) + "\n"


def export_sheet(campaign: m.Campaign, name: str, *, play: bool = False) -> str:
    """The sheet file of ``name``; with ``play`` (``pbp character edit``) its ``[play]``
    table too (:func:`play_data`), which an import does not take."""
    table, ch = _find(campaign, name)
    text = to_toml(sheet_data(campaign, table, ch))
    return text + (play_toml(play_data(table, ch)) if play else "")


def play_toml(play: dict) -> str:
    """The ``[play]`` table, with a comment on each part's form."""
    lines = ["", "# The play state: change it here to correct it (only what you change applies).",
             '# stress: "x" a marked box, "_" an empty one; consequences: the aspect in each slot, "" empty',
             "# (a condition: true or false); free_invokes: those this character holds, by aspect.", "[play]",
             f"taken_out = {_value(play['taken_out'])}", f"carried_points = {_value(play['carried_points'])}"]
    for part in ("stress", "consequences", "free_invokes"):
        for k, v in play[part].items():
            lines.append(f"{part}.{_key(k)} = {_value(v)}")
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- applying a changed sheet


def _resize(boxes: list[bool], n: int) -> list[bool]:
    return (list(boxes) + [False] * n)[:n]


def _merge_consequences(old: list[rs.Consequence], slots: list[rs.Consequence]) -> list[rs.Consequence]:
    """The new slots, each filled as the old slot of the same severity and track was."""
    left = list(old)
    out = []
    for slot in slots:
        same = next((q for q in left if q.severity == slot.severity and q.track == slot.track
                     and q.condition == slot.condition), None)
        if same is not None:
            left.remove(same)
            out.append(same)
        else:
            out.append(slot)
    return out


def apply_sheet(campaign: m.Campaign, name: str, data: dict, *, who: str, how: str,
                source: str = "sheet") -> list[str]:
    """Apply a changed sheet (its data) to the stored character; returns what changed, in
    words. Refused whole (SheetError) when the sheet breaks a rule; nothing changes then."""
    system = campaign_system(campaign)
    table, ch = _find(campaign, name)
    data, play = split_play(data)
    sheet = parse_sheet(data, system, source=source)
    new = sheet.character
    if new.name != ch.name:
        raise SheetError(f"{source}: 1 problem", [f'name: "{new.name}" is not "{ch.name}"; the name cannot be '
                                                  "changed here (posts and the play state refer to it)"],
                         hint="import the renamed character as a new one, and remove the old one")
    before_state = state_of(campaign, table, ch)
    snap = repo.snapshot(table)
    since = play_data(table, ch) if how == "edit" else None
    notes = apply_to_table(system, table, ch, sheet)
    try:
        apply_play(table, ch, play, since=since)
    except SheetError as exc:
        raise SheetError(f"{source}: {len(exc.problems)} problem{'s' if len(exc.problems) != 1 else ''}",
                         exc.problems) from None
    with m.db.atomic():
        repo.save_table(campaign, snap, table)
        if ch.player and not m.Member.select().where((m.Member.campaign == campaign) &
                                                     (m.Member.email == ch.player)).exists():
            add_member(campaign, ch.player, "player")
        if sheet.description != before_state["description"]:
            m.Character.update(description=sheet.description).where(
                (m.Character.campaign == campaign) & (m.Character.name == ch.name)).execute()
        after_state = state_of(campaign, table, ch)
        said = describe_diff(before_state, after_state)
        if said:
            m.SheetChange.create(campaign=campaign, character=ch.name, who=who, how=how,
                                 before=before_state, after=after_state)
    return said + notes


def apply_to_table(system, table: rs.Table, ch: rs.Character, sheet) -> list[str]:
    """The sheet's values on ``ch`` (in ``table``), the play state kept (see the module doc);
    returns notes on what was lost with it (free invokes on a removed aspect)."""
    new = sheet.character
    ch.kind, ch.player, ch.skills, ch.stunts = new.kind, new.player, dict(new.skills), list(new.stunts)
    ch.refresh, ch.aliases, ch.fate_points = new.refresh, list(new.aliases), new.fate_points
    sizes = stress_tracks(new, system) if new.kind != "minor" else {t: len(b) for t, b in new.stress.items()}
    ch.stress = {t: _resize(ch.stress.get(t, []), n) for t, n in sizes.items()}
    # the parsed sheet's slots: the system's consequences and, in Dresden Files Condensed,
    # the mantle's conditions beside or instead of them
    ch.consequences = _merge_consequences(ch.consequences, [copy.copy(q) for q in new.consequences])
    return _apply_aspects(table, ch.name, sheet.aspects)


def _apply_aspects(table: rs.Table, owner: str, wanted: list[rs.Aspect]) -> list[str]:
    """The character's own aspects as the sheet has them: kept ones keep their free invokes;
    a renamed one keeps them too: the high concept and the trouble by their kind, another
    aspect as the history pairs a rename (:func:`pair_aspects`: the aspects gone and those
    new, of the same kind and both shown or both hidden, in order); a removed one's are
    reported."""
    old = _own(table, owner)
    notes = []
    keep: list[rs.Aspect] = []
    left = list(old)
    found: list[rs.Aspect | None] = []
    for w in wanted:
        same = next((a for a in left if a.name.casefold() == w.name.casefold() and
                     (a.kind == w.kind or {a.kind, w.kind} <= set(OWN_KINDS))), None)
        if same is None and w.kind in ("high_concept", "trouble"):
            same = next((a for a in left if a.kind == w.kind), None)
        if same is not None:
            left.remove(same)
        found.append(same)
    for i, w in enumerate(wanted):
        if found[i] is None and w.kind == "character":
            same = next((a for a in left if a.kind == w.kind and a.hidden == w.hidden), None)
            if same is not None:
                left.remove(same)
                found[i] = same
    for w, same in zip(wanted, found):
        if same is not None:
            same.name, same.kind, same.hidden = w.name, w.kind, w.hidden
            keep.append(same)
        else:
            keep.append(rs.Aspect(w.name, kind=w.kind, owner=owner, hidden=w.hidden))
    for gone in left:
        held = ", ".join(f"{h} {n}" for h, n in gone.free_invokes.items() if n)
        if held:
            notes.append(f"{gone.name} is gone, and the free invokes on it with it ({held})")
    table.aspects[:] = [a for a in table.aspects if a not in old] + keep
    return notes


# --------------------------------------------------------------------------- the play state by hand
#
# The GM corrects play state with the same keys everywhere (``pbp character set``, the
# ``[play]`` table of ``pbp character edit``, ``/sheet set`` by mail): they go into the sheet
# data's ``play`` table, which the importer never sees (:func:`split_play`), and are applied
# after the sheet (:func:`apply_play`), only those that differ from the character now.

PLAY_KEYS = ("stress", "consequences", "free_invokes", "taken_out", "carried_points")
YES, NO = ("true", "yes", "on", "x", "1"), ("false", "no", "off", "_", "0", "")
MARKS = {"x": True, "X": True, "_": False, "-": False, "o": False, ".": False}


def _boxes_text(boxes: list[bool]) -> str:
    return "".join("x" if b else "_" for b in boxes)


def slot_keys(ch: rs.Character) -> list[tuple[str, rs.Consequence]]:
    """Each consequence slot's key (``consequences.KEY``): a condition's name, else its
    severity ("mild", "mild2"...); a second slot of the same key is KEY-2."""
    out, seen = [], {}
    for q in ch.consequences:
        base = q.condition or q.severity
        seen[base.casefold()] = seen.get(base.casefold(), 0) + 1
        out.append((base if seen[base.casefold()] == 1 else f"{base}-{seen[base.casefold()]}", q))
    return out


def play_data(table: rs.Table, ch: rs.Character) -> dict:
    """The play state the GM may correct, as the ``[play]`` table of an edited sheet:
    stress as boxes ("x" marked, "_" empty), each consequence slot's aspect ("" empty),
    the free invokes the character holds on each aspect, taken out, carried points."""
    return {"taken_out": ch.taken_out, "carried_points": ch.carried_points,
            "stress": {t: _boxes_text(b) for t, b in ch.stress.items()},
            "consequences": {k: (q.aspect or "") for k, q in slot_keys(ch)},
            "free_invokes": {a.name: a.free_for(ch.name) for a in table.aspects if a.free_for(ch.name)}}


def split_play(data: dict) -> tuple[dict, dict]:
    """A sheet's data without its ``play`` table, and that table (empty when none)."""
    rest = dict(data)
    play = rest.pop("play", None) or {}
    if not isinstance(play, dict):
        raise SheetError("sheet: 1 problem", ["play: is not a table; write [play] with keys such as "
                                              'stress.physical = "x__"'])
    return rest, play


def _set_play(data: dict, path: list[str], key: str, value: str) -> None:
    """``stress.TRACK=x__``, ``stress.TRACK.N=true``, ``consequences.SLOT=TEXT``,
    ``free_invokes.ASPECT=N``, ``taken_out=yes``, ``carried_points=N`` into ``data["play"]``
    (checked against the character by :func:`apply_play`)."""
    play = data.setdefault("play", {})
    head = path[0]
    if head in ("taken_out", "carried_points") and len(path) == 1:
        play[head] = value
        return
    if head in ("stress", "consequences", "free_invokes") and len(path) >= 2:
        name = ".".join(path[1:]) if head != "stress" else path[1]
        part = play.setdefault(head, {})
        if head == "stress" and len(path) == 3:
            part.setdefault(name, {})
            if isinstance(part[name], dict):
                part[name][path[2]] = value
                return
        if head == "stress" and len(path) > 3:
            raise ConfigError(f'no sheet key "{key}"', hint="e.g. stress.physical=x__ or stress.physical.2=true")
        part[name] = value
        return
    example = {"stress": "stress.physical=x__", "consequences": 'consequences.mild="Bruised Ribs"',
               "free_invokes": 'free_invokes."Deep Shadows"=1'}.get(head, f"{head}=0")
    raise ConfigError(f'no sheet key "{key}"', hint=f"e.g. {example}")


def _problem(where: str, what: str, example: str) -> SheetError:
    return SheetError("play: 1 problem", [f"{where}: {what}; e.g. {example}"])


def _flag(where: str, value, example: str) -> bool:
    if isinstance(value, bool):
        return value
    if str(value).strip().lower() in YES:
        return True
    if str(value).strip().lower() in NO:
        return False
    raise _problem(where, f'"{value}" is not yes or no', example)


def _count(where: str, value, example: str) -> int:
    if isinstance(value, bool):
        raise _problem(where, f"{value} is not a whole number", example)
    try:
        n = int(str(value).strip())
    except ValueError:
        raise _problem(where, f'"{value}" is not a whole number', example) from None
    if n < 0 or n > 99:
        raise _problem(where, f"{n} is not from 0 to 99", example)
    return n


def _stress(ch: rs.Character, track: str, value) -> list[bool]:
    have = {t.casefold(): t for t in ch.stress}
    if track.casefold() not in have:
        tracks = ", ".join(have.values()) or "none"
        raise _problem(f"stress.{track}", f"{ch.name} has no {track} stress track (tracks: {tracks})",
                       f"stress.{next(iter(have.values()), 'physical')}=x_")
    name = have[track.casefold()]
    boxes = list(ch.stress[name])
    example = f"stress.{name}={'x' + '_' * (len(boxes) - 1) if boxes else ''}"
    if isinstance(value, dict):
        for n, mark in value.items():
            if not str(n).isdigit() or not 1 <= int(n) <= len(boxes):
                raise _problem(f"stress.{name}.{n}", f"{ch.name}'s {name} track has boxes 1 to {len(boxes)}",
                               f"stress.{name}.1=true")
            boxes[int(n) - 1] = _flag(f"stress.{name}.{n}", mark, f"stress.{name}.{n}=true")
        return boxes
    text = str(value).strip().replace("[x]", "x").replace("[ ]", "_").replace(" ", "")
    if any(c not in MARKS for c in text):
        raise _problem(f"stress.{name}", f'"{value}" is not boxes: "x" for a marked box, "_" for an empty one',
                       example)
    if len(text) != len(boxes):
        raise _problem(f"stress.{name}", f"{len(text)} box{'es' if len(text) != 1 else ''} written, and "
                       f"{ch.name}'s {name} track has {len(boxes)}", example)
    return [MARKS[c] for c in text]


def _consequence(table: rs.Table, ch: rs.Character, key: str, value) -> None:
    slots = slot_keys(ch)
    found = next((q for k, q in slots if k.casefold() == key.casefold()), None)
    if found is None:
        have = ", ".join(k for k, _ in slots) or "none"
        raise _problem(f"consequences.{key}", f"{ch.name} has no {key} slot (slots: {have})",
                       f'consequences.{slots[0][0] if slots else "mild"}="Bruised Ribs"')
    text = str(value).strip()
    if found.condition:
        text = found.condition if _flag(f"consequences.{key}", text, f"consequences.{key}=yes") else ""
    current = next((a for a in table.aspects if a.owner == ch.name and a.kind == "consequence" and found.aspect
                    and a.name == found.aspect), None)
    if text == (found.aspect or ""):
        return
    if text:
        clash = next((a for a in table.aspects if a.owner == ch.name and a is not current
                      and a.name.casefold() == text.casefold()), None)
        if clash is not None:
            raise _problem(f"consequences.{key}", f'{ch.name} already has an aspect "{clash.name}"',
                           f'consequences.{key}="{text} (worse)"')
    if not text:
        found.aspect, found.recovering = None, False
        found.hit_track, found.recovery_scenes_left, found.recovery_sessions_left = "", 0, 0
        if current is not None:
            table.aspects.remove(current)
        return
    if current is not None:
        current.name = text             # a rename keeps the aspect's free invokes
    else:
        table.aspects.append(rs.Aspect(text, kind="consequence", owner=ch.name))
    found.aspect = text


def _free(table: rs.Table, ch: rs.Character, name: str, value) -> None:
    example = f'free_invokes."{name}"=1'
    n = _count(f'free_invokes."{name}"', value, example)
    matches = [a for a in table.aspects if a.name.casefold() == name.casefold()]
    if not matches:
        known = ", ".join(sorted({a.name for a in table.aspects if not a.hidden})) or "none"
        raise _problem(f'free_invokes."{name}"', f"no aspect {name} is in play (aspects: {known})", example)
    aspect = next((a for a in matches if a.free_for(ch.name)), matches[0])
    if aspect.kind == "boost" and n > 1:
        raise _problem(f'free_invokes."{aspect.name}"', "a boost has one free invoke", f'free_invokes."{aspect.name}"=1')
    if n == aspect.free_for(ch.name):
        return
    if n:
        aspect.free_invokes[ch.name] = n
    else:
        aspect.free_invokes.pop(ch.name, None)
        if aspect.kind == "boost" and not any(aspect.free_invokes.values()):
            table.aspects.remove(aspect)


def apply_play(table: rs.Table, ch: rs.Character, play: dict, *, since: dict | None = None) -> None:
    """The ``play`` table's values on ``ch``; raises SheetError naming the key, what was
    expected and an example (nothing is half-applied: callers apply it to a copy they
    throw away on error, or before saving). ``since``: the play state the values were
    written from (an edited sheet's), so only what the GM changed applies."""
    since = since or {}
    unknown = [k for k in play if k not in PLAY_KEYS]
    if unknown:
        raise _problem(f"play.{unknown[0]}", "unknown key; keys: " + ", ".join(PLAY_KEYS), 'stress.physical = "x__"')

    def changed(part: str, key: str | None = None) -> bool:
        if key is None:
            return part not in since or since[part] != play[part]
        return key not in (since.get(part) or {}) or since[part][key] != play[part][key]

    if "taken_out" in play and changed("taken_out"):
        ch.taken_out = _flag("taken_out", play["taken_out"], "taken_out=no")
    if "carried_points" in play and changed("carried_points"):
        ch.carried_points = _count("carried_points", play["carried_points"], "carried_points=1")
    examples = {"stress": 'stress.physical = "x__"', "consequences": 'consequences.mild = "Bruised Ribs"',
                "free_invokes": 'free_invokes."Deep Shadows" = 1'}
    for part in ("stress", "consequences", "free_invokes"):
        values = play.get(part) or {}
        if not isinstance(values, dict):
            raise _problem(part, "is not a table of keys", examples[part])
        for key, value in values.items():
            if not changed(part, key):
                continue
            if part == "stress":
                boxes = _stress(ch, key, value)
                ch.stress[next(t for t in ch.stress if t.casefold() == key.casefold())] = boxes
            elif part == "consequences":
                _consequence(table, ch, key, value)
            else:
                _free(table, ch, key, value)


# --------------------------------------------------------------------------- pbp character set


def _set_key(data: dict, key: str, value: str) -> None:
    parts = _key_parts(key)
    if parts and parts[0] in PLAY_KEYS:
        _set_play(data, parts, key, value)
        return
    path = key.split(".", 1)
    if len(path) == 2 and path[0] == "skills":
        skills = data.setdefault("skills", {})
        existing = next((k for k in skills if k.casefold() == path[1].casefold()), path[1])
        if value == "":
            skills.pop(existing, None)
        else:
            try:
                skills[existing] = parse_rating(value)
            except ValueError:
                raise ConfigError(f'{key}: "{value}" is not a rating', hint=f"e.g. {key}=Fair or {key}=2") from None
        return
    if len(path) == 2 and path[0] == "aspects" and path[1] in ("high_concept", "trouble", "other", "hidden"):
        aspects = data.setdefault("aspects", {})
        if path[1] in ("other", "hidden"):
            aspects[path[1]] = [v.strip() for v in value.split(",") if v.strip()]
        else:
            aspects[path[1]] = value
        return
    if len(path) == 2 and path[0] == "stunts":
        _set_stunt(data, path[1], value)
        return
    if key in INT_KEYS:
        try:
            data[key] = int(value)
        except ValueError:
            raise ConfigError(f'{key}: "{value}" is not a whole number', hint=f"e.g. {key}=3") from None
        return
    if key == "aliases":
        data[key] = [v.strip() for v in value.split(",") if v.strip()]
        return
    if key in TEXT_KEYS:
        data[key] = value
        return
    raise ConfigError(f'no sheet key "{key}"', hint="keys: refresh, milestone_refresh, fate_points, player, kind, "
                      "milestone_skills (Dresden Files Condensed), "
                      "description, aliases, skills.SKILL, aspects.high_concept, aspects.trouble, aspects.other, "
                      "aspects.hidden, stunts.NAME; the play state: stress.TRACK=x__, stress.TRACK.N=true, "
                      "consequences.SLOT=TEXT, free_invokes.ASPECT=N, taken_out=yes, carried_points=N "
                      "(pbp character edit for the rest)")


def _key_parts(key: str) -> list[str]:
    """``free_invokes."Deep Shadows"`` -> ["free_invokes", "Deep Shadows"]: dots split the
    key except inside quotes."""
    parts, cur, quoted = [], "", False
    for c in key:
        if c == '"':
            quoted = not quoted
        elif c == "." and not quoted:
            parts.append(cur)
            cur = ""
        else:
            cur += c
    parts.append(cur)
    return [p.strip() for p in parts]


def _set_stunt(data: dict, name: str, value: str) -> None:
    """``stunts.NAME=SKILL [ACTION] [+N] [CIRCUMSTANCE]`` adds or rewrites a stunt (a bonus of
    +2 unless written, for any action unless one is named); ``stunts.NAME=`` removes it."""
    stunts = data.setdefault("stunts", [])
    at = next((i for i, st in enumerate(stunts) if st["name"].casefold() == name.casefold()), None)
    if value.strip() == "":
        if at is None:
            raise ConfigError(f'no stunt "{name}" to remove', hint="stunts: " + (", ".join(st["name"] for st in stunts)
                                                                                 or "none"))
        del stunts[at]
        return
    words = value.split()
    stunt: dict = {"name": name, "skill": words.pop(0)}
    if words and words[0].casefold() in ("overcome", "advantage", "attack", "defend"):
        stunt["action"] = words.pop(0).lower()
    if words and words[0].lstrip("+-").isdigit() and words[0][0] in "+-":
        stunt["bonus"] = int(words.pop(0))
    if words:
        stunt["circumstance"] = " ".join(words)
    stunt["description"] = value.strip()
    if at is None:
        stunts.append(stunt)
    else:
        stunts[at] = stunt


def set_key(data: dict, key: str, value: str) -> None:
    """``key=value`` on a sheet's data (raises ConfigError for a key or value it cannot be)."""
    _set_key(data, key, value)


def set_values(campaign: m.Campaign, name: str, pairs: list[str], *, who: str) -> list[str]:
    table, ch = _find(campaign, name)
    data = sheet_data(campaign, table, ch)
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep:
            raise ConfigError(f'"{pair}" is not KEY=VALUE', hint="e.g. pbp character set Ruth fate_points=4")
        _set_key(data, key.strip(), value.strip())
    return apply_sheet(campaign, ch.name, data, who=who, how="set", source="pbp character set")


# --------------------------------------------------------------------------- history and undo


def _boxes(v) -> bool:
    return isinstance(v, list) and bool(v) and all(isinstance(b, bool) for b in v)


def _words(v) -> str:
    """One value of a sheet in words, whole (never cut, so no change is hidden): a name in
    quotes, yes/no, a whole number as one, a list comma-separated, boxes as [x][ ]."""
    if v is None or v == "" or v == [] or v == {}:
        return "(none)"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    if isinstance(v, str):
        return f'"{v}"'
    if _boxes(v):
        return "".join("[x]" if b else "[ ]" for b in v)
    if isinstance(v, list) and not any(isinstance(x, (dict, list)) for x in v):
        return ", ".join(_words(x) for x in v)
    if isinstance(v, dict) and all(_boxes(x) or x == [] for x in v.values()):
        return " ".join(f"{k} {_words(b)}" for k, b in v.items())
    return json.dumps(v, ensure_ascii=False, sort_keys=True)


def _item_key(item: dict, index: int) -> str:
    """How a list entry of a sheet is named in a change: a consequence by its condition or
    slot, a stunt by its name, else its place."""
    for key in ("condition", "name", "severity"):
        if item.get(key):
            return str(item[key])
    return str(index + 1)


def _leaves(v, path: str) -> dict[str, object]:
    """A sheet field as dotted paths to the values a person reads one by one, in the keys
    ``pbp character set`` takes: ``skills.Fight``, ``consequences.mild.aspect``,
    ``stress.physical``."""
    if isinstance(v, dict) and v and not all(_boxes(x) or x == [] for x in v.values()):
        return {k: x for key, val in v.items() for k, x in _leaves(val, f"{path}.{key}").items()}
    if isinstance(v, dict) and v:                        # stress tracks: one line per track
        return {f"{path}.{key}": val for key, val in v.items()}
    if isinstance(v, list) and v and all(isinstance(x, dict) for x in v):
        return {k: x for i, item in enumerate(v) for k, x in _leaves(item, f"{path}.{_item_key(item, i)}").items()}
    return {path: v}


def _is_entries(v) -> bool:
    return isinstance(v, list) and all(isinstance(e, list) and len(e) in (4, 5) for e in v)


def _state(entry: list) -> dict:
    """An aspect entry's system state (none in a row written before it was kept)."""
    return entry[4] if len(entry) > 4 else {}


def pair_aspects(before: list, after: list) -> tuple[list, list, list]:
    """Two lists of history aspect entries (:func:`sheet_aspects`) paired: the same name
    and kind, then a renamed one (the same kind, in order). Returns the pairs (before,
    after), the entries only before (removed) and those only after (added)."""
    left = list(after)
    pairs, removed = [], []
    for b in before:
        same = next((a for a in left if a[0].casefold() == b[0].casefold() and a[1] == b[1]), None)
        if same is None:
            removed.append(b)
        else:
            left.remove(same)
            pairs.append((b, same))
    for b in list(removed):
        same = next((a for a in left if a[1] == b[1]), None)
        if same is not None:
            left.remove(same)
            removed.remove(b)
            pairs.append((b, same))
    return pairs, removed, left


def _free_words(free: dict) -> str:
    return ", ".join(f"{h} {n}" for h, n in free.items() if n) or "none"


def _kind_words(kind: str) -> str:
    return kind.replace("_", " ")


def _aspect_lines(before: list, after: list) -> list[str]:
    pairs, removed, added = pair_aspects(before, after)
    out = []
    for b, a in pairs:
        if b[0] != a[0]:
            out.append(f'aspects: "{b[0]}" -> "{a[0]}" ({_kind_words(a[1])})')
        if b[2] != a[2]:
            out.append(f'aspects: "{a[0]}" {"hidden" if b[2] else "shown"} -> {"hidden" if a[2] else "shown"}')
        if b[3] != a[3]:
            out.append(f'aspects: "{a[0]}" free invokes {_free_words(b[3])} -> {_free_words(a[3])}')
        if len(b) > 4 and len(a) > 4 and b[4] != a[4]:
            then, later = _leaves(b[4], ""), _leaves(a[4], "")
            out += [f'aspects: "{a[0]}" {path.lstrip(".")}: {_words(then.get(path))} -> {_words(later.get(path))}'
                    for path in dict.fromkeys([*then, *later]) if then.get(path) != later.get(path)]
    out += [f'aspects: removed "{b[0]}" ({_kind_words(b[1])}' + (f"; free invokes {_free_words(b[3])})"
            if any(b[3].values()) else ")") for b in removed]
    out += [f'aspects: added "{a[0]}" ({_kind_words(a[1])}' + (f"; free invokes {_free_words(a[3])})"
            if any(a[3].values()) else ")") for a in added]
    return out


def describe_diff(before: dict | None, after: dict | None) -> list[str]:
    if before is None or after is None:
        return ["removed" if after is None else "created"]
    out = []
    for key in dict.fromkeys([*before, *after]):
        was, now = before.get(key), after.get(key)
        if was == now:
            continue
        if key == "aspects" and _is_entries(was or []) and _is_entries(now or []):
            out += _aspect_lines(was or [], now or [])
        elif key == "holds" and isinstance(was or {}, dict) and isinstance(now or {}, dict):
            was, now = was or {}, now or {}
            out += [f'holds: free invokes on "{name}" {was.get(name, 0)} -> {now.get(name, 0)}'
                    for name in dict.fromkeys([*was, *now]) if was.get(name, 0) != now.get(name, 0)]
        else:
            then, later = _leaves(was, key), _leaves(now, key)
            out += [f"{path}: {_words(then.get(path))} -> {_words(later.get(path))}"
                    for path in dict.fromkeys([*then, *later]) if then.get(path) != later.get(path)]
    return out


def history_name(campaign: m.Campaign, name: str) -> str:
    """The character whose history ``name`` asks for: what ``set``, ``sheet`` and ``undo``
    take (a full name, an alias, a short name), or a removed character's full name, since
    its history is kept. Any other name is an error naming the campaign's characters."""
    ch = repo.load_table(campaign).character(name)
    if ch is not None:
        return ch.name
    removed = (m.SheetChange.select(m.SheetChange.character).where(m.SheetChange.campaign == campaign)
               .order_by(m.SheetChange.id.desc()))
    for row in removed:
        if row.character.casefold() == name.casefold():
            return row.character
    _find(campaign, name)          # raises: no such character, with the list
    raise AssertionError("unreachable")


def history(campaign: m.Campaign, name: str) -> list[m.SheetChange]:
    """Every change to the sheet of the character ``name`` means (:func:`history_name`), oldest first."""
    key = history_name(campaign, name).casefold()
    rows = m.SheetChange.select().where(m.SheetChange.campaign == campaign).order_by(m.SheetChange.id)
    return [r for r in rows if r.character.casefold() == key]


def record_play(campaign: m.Campaign, before: repo.Snapshot, saved: repo.Saved, table: rs.Table, *, who: str,
                message_id: str | None, at: datetime | None = None) -> None:
    """A post's changes to sheets, one history row per character whose sheet changed: its
    row (fate points, stress, consequences...), its own aspects and the free invokes it
    holds (:func:`sheet_aspects`), the shape ``pbp character set`` records, so
    :func:`undo` takes it back. Built from what :func:`pbp.store.repo.save_table` compared
    (``saved``): no row is dumped again, and a character the post did not touch costs nothing.
    ``at``: the post's time (the pipeline's clock), else now. Only the entries the post
    changed are kept (before and after), the aspects and holds only if they changed."""
    names = [n for n in saved.changed if n in before.characters]     # one the post created has no before
    if not names:
        return
    wanted = set(names)

    def mine(f: dict) -> bool:      # an aspect on one of their sheets: owned, or held free invokes on
        return f["owner"] in wanted or not wanted.isdisjoint(f["free_invokes"])

    touched = {aid: was for aid, was, _ in saved.aspects}
    now_items = sorted(((a.id, f) for a in table.aspects if mine(f := repo._aspect_fields(a))), key=_by_id)
    then_items = sorted([(i, f) for i, f in now_items if i not in touched] +
                        [(i, was) for i, was in touched.items() if was is not None and mine(was)], key=_by_id)
    for name in names:
        rows = saved.rows.get(name)
        was_row = json.loads(rows[0] if rows else before.characters[name])
        now_row = json.loads(rows[1]) if rows else dict(was_row)
        then_aspects, then_holds = sheet_aspects(then_items, name)
        now_aspects, now_holds = sheet_aspects(now_items, name)
        if rows is None and (then_aspects, then_holds) == (now_aspects, now_holds):
            continue
        was_row.update(aspects=then_aspects, holds=then_holds)
        now_row.update(aspects=now_aspects, holds=now_holds)
        keys = [k for k in dict.fromkeys([*was_row, *now_row]) if was_row.get(k) != now_row.get(k)]
        _INSERT_CHANGE(campaign=campaign, character=name, who=who, how="play", message_id=message_id,
                       at=at or m.utcnow(), before={k: was_row.get(k) for k in keys},
                       after={k: now_row.get(k) for k in keys}, undone=False)


def _restore_aspects(table: rs.Table, owner: str, before: list, after: list) -> list[str]:
    """``owner``'s aspects as a change found them (``before``), where the change made them
    ``after``: a renamed one gets its old name back, an added one goes, a removed one comes
    back with the free invokes it had; an aspect's free invokes go back only where the
    change changed them (those gained since stay). An aspect changed again since is left
    as it is, and said so."""
    own = [a for a in table.aspects if a.owner == owner]

    def now_of(entry):
        return next((a for a in own if a.name.casefold() == entry[0].casefold() and a.kind == entry[1]), None)

    pairs, removed, added = pair_aspects(before, after)
    notes = []
    for b, a in pairs:
        cur = now_of(a)
        if cur is None:
            if b != a and now_of(b) is None:
                notes.append(f'"{a[0]}" has changed since; it is left as it is')
            continue
        cur.name, cur.hidden = b[0], b[2]
        if b[3] != a[3]:
            cur.free_invokes = dict(b[3])
        if len(b) > 4 and len(a) > 4 and b[4] != a[4]:
            cur.system_state = dict(b[4])
    for b in removed:
        if now_of(b) is None:
            table.aspects.append(rs.Aspect(b[0], kind=b[1], owner=owner, hidden=b[2], free_invokes=dict(b[3]),
                                           system_state=dict(_state(b))))
    for a in added:
        cur = now_of(a)
        if cur is not None:
            table.aspects.remove(cur)
            if any(cur.free_invokes.values()):
                notes.append(f'"{cur.name}" is gone, and the free invokes on it with it ({_free_words(cur.free_invokes)})')
    return notes


def _restore_holds(table: rs.Table, holder: str, before: dict, after: dict) -> list[str]:
    """The free invokes ``holder`` held on aspects not its own, where the change changed
    them; a boost left with no free invoke goes (a boost is its one invoke). One that has
    left play since cannot be given back, and is said so."""
    notes = []
    for name in dict.fromkeys([*before, *after]):
        was = before.get(name, 0)
        if was == after.get(name, 0):
            continue
        cur = next((a for a in table.aspects if a.owner != holder and a.name.casefold() == name.casefold()), None)
        if cur is None:
            if was:
                notes.append(f'"{name}" is no longer in play: the {was} free invoke{"s" if was != 1 else ""} '
                             f"{holder} held on it cannot be given back")
            continue
        free = {h: n for h, n in cur.free_invokes.items() if h != holder}
        if was:
            free[holder] = was
        cur.free_invokes = free
        if cur.kind == "boost" and not any(free.values()):
            table.aspects.remove(cur)
    return notes


def undo(campaign: m.Campaign, name: str, *, who: str) -> list[str]:
    """Take back the last change of ``name``'s sheet not undone yet: each field it changed
    goes back to its value before it (fields it did not change keep their value now); its
    aspects and the free invokes held go back as :func:`_restore_aspects` and
    :func:`_restore_holds` say."""
    table, ch = _find(campaign, name)
    last = (m.SheetChange.select().where((m.SheetChange.campaign == campaign) & (m.SheetChange.character == ch.name)
                                         & (m.SheetChange.undone == False) & (m.SheetChange.how != "undo"))  # noqa: E712
            .order_by(m.SheetChange.id.desc()).first())
    if last is not None and last.how == "import":
        raise ConfigError(f"{ch.name}'s last change is the import that made the character: there is no sheet "
                          "before it to go back to", hint=f"pbp character remove {ch.name}")
    if last is None or last.before is None or last.after is None:
        raise ConfigError(f"{ch.name} has no change to undo", hint=f"pbp character history {ch.name}")
    before_state = state_of(campaign, table, ch)
    snap = repo.snapshot(table)
    fields = repo._character_fields(ch)
    for key, was in last.before.items():
        if key in fields and last.after.get(key) != was:
            fields[key] = was
    restored = repo.character_to_state({**fields, "id": ch.id})
    table.characters[ch.name] = restored
    notes = []
    if "aspects" in last.before and last.before["aspects"] != last.after.get("aspects"):
        notes += _restore_aspects(table, ch.name, last.before["aspects"], last.after.get("aspects") or [])
    if last.before.get("holds", {}) != last.after.get("holds", {}):
        notes += _restore_holds(table, ch.name, last.before.get("holds") or {}, last.after.get("holds") or {})
    with m.db.atomic():
        repo.save_table(campaign, snap, table)
        if "description" in last.before and last.before["description"] != last.after.get("description"):
            m.Character.update(description=last.before["description"]).where(m.Character.id == ch.id).execute()
        after_state = state_of(campaign, table, restored)
        last.undone = True
        last.save()
        m.SheetChange.create(campaign=campaign, character=ch.name, who=who, how="undo",
                             before=before_state, after=after_state)
    return describe_diff(before_state, after_state) + notes


# --------------------------------------------------------------------------- list, remove


def remove_character(campaign: m.Campaign, name: str, *, who: str) -> str:
    from pbp.play.state import load_play
    from pbp.store.codec import dump

    table, ch = _find(campaign, name)
    play = load_play(campaign.play)
    busy = [what for what, part in (("the conflict", play.conflict), ("the contest", play.contest),
                                    ("the challenge", play.challenge)) if part is not None
            and ch.name in json.dumps(dump(part), ensure_ascii=False)]
    busy += ["a reaction pbp waits for"] if any(p.target == ch.name or p.attacker == ch.name for p in play.pending) else []
    if busy:
        raise ConfigError(f"{ch.name} is part of {busy[0]}; end it first", hint="/conflict end, /contest end, "
                          "/challenge end (or wait for the reaction's deadline)")
    state = state_of(campaign, table, ch)
    with m.db.atomic():
        m.Aspect.update(active=False).where((m.Aspect.campaign == campaign) & (m.Aspect.owner == ch.name)).execute()
        m.Character.delete().where(m.Character.id == ch.id).execute()
        m.SheetChange.create(campaign=campaign, character=ch.name, who=who, how="remove", before=state, after=None)
    return ch.name


def remove_member(campaign: m.Campaign, email: str) -> str:
    email = email.strip().lower()
    member = m.Member.get_or_none((m.Member.campaign == campaign) & (m.Member.email == email))
    if member is None:
        known = ", ".join(x.email for x in campaign.members) or "none"
        raise ConfigError(f"{email} is not a member of {campaign.slug} (members: {known})")
    plays = [c.name for c in m.Character.select().where((m.Character.campaign == campaign) &
                                                        (m.Character.player == email))]
    if plays:
        raise ConfigError(f"{email} plays {', '.join(plays)} in {campaign.slug}",
                          hint=f"remove the character first (pbp character remove {plays[0]}) or give it another "
                               f"player (pbp character set {plays[0]} player=ADDRESS)")
    if member.role == "gm" and m.Member.select().where((m.Member.campaign == campaign) &
                                                       (m.Member.role == "gm")).count() == 1:
        raise ConfigError(f"{email} is the only GM of {campaign.slug}", hint="add another GM first")
    member.delete_instance()
    return email
