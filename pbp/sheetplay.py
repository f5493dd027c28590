"""The play state corrected by hand: the same keys everywhere.

The GM corrects play state with the same keys everywhere (``pbp character set``, the
``[play]`` table of ``pbp character edit``, ``/sheet set`` by mail): ``stress.physical=x__``,
``stress.physical.2=true``, ``consequences.mild="Bruised Ribs"``, ``free_invokes."Deep
Shadows"=1``, ``taken_out=no``, ``carried_points=2``. They go into the sheet data's ``play``
table, which the importer never sees (:func:`split_play`), and are applied after the sheet
(:func:`apply_play`), only those that differ from the character now. A leaf under
:mod:`pbp.sheetedit` (changing a sheet) and :mod:`pbp.play.sheetfix` (``/sheet set``).
"""
from __future__ import annotations


from pbp.errors import ConfigError, SheetError
from pbp.rules import state as rs


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


def set_play(data: dict, path: list[str], key: str, value: str) -> None:
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
