"""A sheet change in words: what :func:`describe_diff` says of two states of a sheet
(the ``SheetChange`` row's before and after, :func:`pbp.sheetedit.state_of`), for the
history, ``pbp character set``, ``/sheet set`` and undo. Pure: no database.
"""
from __future__ import annotations

import json



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


def entry_state(entry: list) -> dict:
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


def free_words(free: dict) -> str:
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
            out.append(f'aspects: "{a[0]}" free invokes {free_words(b[3])} -> {free_words(a[3])}')
        if len(b) > 4 and len(a) > 4 and b[4] != a[4]:
            then, later = _leaves(b[4], ""), _leaves(a[4], "")
            out += [f'aspects: "{a[0]}" {path.lstrip(".")}: {_words(then.get(path))} -> {_words(later.get(path))}'
                    for path in dict.fromkeys([*then, *later]) if then.get(path) != later.get(path)]
    out += [f'aspects: removed "{b[0]}" ({_kind_words(b[1])}' + (f"; free invokes {free_words(b[3])})"
            if any(b[3].values()) else ")") for b in removed]
    out += [f'aspects: added "{a[0]}" ({_kind_words(a[1])}' + (f"; free invokes {free_words(a[3])})"
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
