"""Changing a character sheet safely.

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
  ``consequences.mild="Bruised Ribs"``...; ``fate_points`` is a sheet key): the ``[play]``
  table of ``pbp character edit``'s TOML and the same keys in ``/sheet set`` by mail
  (:mod:`pbp.sheetplay`).
* Every change is recorded, said in words (:mod:`pbp.sheetdiff`) and can be undone
  (:mod:`pbp.sheethistory`).
"""
from __future__ import annotations

import copy
import json

from pbp.errors import ConfigError, SheetError
from pbp.members import add_member
from pbp.rules import state as rs
from pbp.rules.ladder import parse_rating
from pbp.rules.sheets import stress_tracks
from pbp.rules.systems import campaign_system
from pbp.sheetdiff import describe_diff
from pbp.sheetfile import parse_sheet
from pbp.sheetplay import PLAY_KEYS, apply_play, play_data, set_play, split_play
from pbp.store import models as m
from pbp.store import repo

OWN_KINDS = ("high_concept", "trouble", "character")
INT_KEYS = ("refresh", "milestone_refresh", "milestone_skills", "fate_points")
TEXT_KEYS = ("player", "kind", "description")
PLAY_FIELDS = ("fate_points", "stress", "consequences", "taken_out", "carried_points")


# --------------------------------------------------------------------------- reading a character


def find_character(campaign: m.Campaign, name: str) -> tuple[rs.Table, rs.Character]:
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


def by_id(item: tuple[int | None, dict]) -> float:
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
    for _, f in sorted(items, key=by_id):
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

    table, ch = find_character(campaign, name)
    doc = to_fari(sheet_data(campaign, table, ch), ch.stress, ch.consequences, campaign_system(campaign))
    return json.dumps(doc, ensure_ascii=False, indent=2) + "\n"


def export_sheet(campaign: m.Campaign, name: str, *, play: bool = False) -> str:
    """The sheet file of ``name``; with ``play`` (``pbp character edit``) its ``[play]``
    table too (:func:`play_data`), which an import does not take."""
    table, ch = find_character(campaign, name)
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
    table, ch = find_character(campaign, name)
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


# --------------------------------------------------------------------------- pbp character set


def _set_key(data: dict, key: str, value: str) -> None:
    parts = _key_parts(key)
    if parts and parts[0] in PLAY_KEYS:
        set_play(data, parts, key, value)
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
    table, ch = find_character(campaign, name)
    data = sheet_data(campaign, table, ch)
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep:
            raise ConfigError(f'"{pair}" is not KEY=VALUE', hint="e.g. pbp character set Ruth fate_points=4")
        _set_key(data, key.strip(), value.strip())
    return apply_sheet(campaign, ch.name, data, who=who, how="set", source="pbp character set")


# --------------------------------------------------------------------------- list, remove


def remove_character(campaign: m.Campaign, name: str, *, who: str) -> str:
    from pbp.play.state import load_play
    from pbp.store.codec import dump

    table, ch = find_character(campaign, name)
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
    m.DigestItem.delete().where((m.DigestItem.campaign == campaign) & (m.DigestItem.email == email)).execute()
    return email
