"""A character sheet as data: the ``pbp sheet --json`` shape, also shown in replies.

There are two views of a sheet. :func:`sheet_dict` is everything, for the GM and the
operator, each aspect marked ``hidden``. :func:`table_sheet` is what the whole table may
know: no hidden aspect (nor the free invokes held on one), and for an NPC neither skills
nor stunts unless the campaign shows them (``show_npc_skills``). Which view a reply shows
is decided where replies are made (:mod:`pbp.views`).
"""
from __future__ import annotations

from pbp.rules.state import SHEET_DEFAULTS, SHEET_LAYOUT, character_view
from pbp.rules.systems import UnknownSystem, get_system


def _system_view(ch, table, *, secret: bool) -> tuple[dict, list]:
    """The system's own state on the sheet (the d10 hack's approaches and mech): its
    ``--json`` entries and its text lines (``shown``)."""
    try:
        state = get_system(table.system).character_state
    except UnknownSystem:
        return {}, []
    entries, lines = state.view(ch, secret=secret)
    return entries, [list(line) for line in lines]


def _in_track_order(stress: dict, table) -> dict:
    """The stress tracks in the system's order (physical, then mental), whatever order the
    store gave them back in (it writes keys sorted), so a sheet's tracks never swap places."""
    try:
        order = [t.casefold() for t in get_system(table.system).tracks]
    except UnknownSystem:
        return stress
    rank = {t: i for i, t in enumerate(order)}
    return dict(sorted(stress.items(), key=lambda kv: (rank.get(kv[0].casefold(), len(rank)), kv[0])))


def sheet_dict(ch, table) -> dict:
    """The ``pbp sheet --json`` shape (also attached to /sheet results): the GM's view. The
    character's own fields come from the one place that names them
    (:func:`pbp.rules.state.character_view`, in its ``SHEET_LAYOUT``); here are added what the
    table holds (the character's aspects, with the system's role for some, and the free
    invokes they hold) and the system's own entries (``character_state.view``)."""
    own = character_view(ch)
    own["stress"] = _in_track_order(own["stress"], table)
    entries, shown = _system_view(ch, table, secret=False)
    roles = _roles(ch, table)
    from_table = {
        "aspects": [{"name": a.name, "kind": a.kind, "free_invokes": dict(a.free_invokes), "hidden": a.hidden,
                     **({"role": roles[a.name]} if a.kind == "character" and a.name in roles else {})}
                    for a in table.aspects if a.owner == ch.name and a.kind != "consequence"],
        "free_invokes_held": {a.name: a.free_for(ch.name) for a in table.aspects if a.free_for(ch.name)},
    }
    sheet = {}
    for key in SHEET_LAYOUT:
        if key in own:
            sheet[key] = own[key]
        elif key in from_table:
            sheet[key] = from_table[key]
        elif key in SHEET_DEFAULTS:
            sheet[key] = entries.get(key, SHEET_DEFAULTS[key]())
    sheet.update((k, v) for k, v in own.items() if k not in sheet)
    sheet.update(entries)
    if shown or entries:
        sheet["shown"] = shown
    values = _box_values(sheet["stress"], table)
    if values:
        sheet["stress_values"] = values
    return sheet


def _box_values(stress: dict, table) -> dict:
    """What each stress box absorbs, per track, when not every box absorbs one shift (Fate
    Core's escalating boxes: 1, 2, 3...): a sheet shows the values, not bare boxes."""
    try:
        harm = get_system(table.system).harm
    except UnknownSystem:
        return {}
    values = {track: harm.values(len(boxes)) for track, boxes in stress.items()}
    return values if any(v != 1 for vs in values.values() for v in vs) else {}


def _roles(ch, table) -> dict[str, str]:
    """The system's names for some character aspects (Dresden Files Condensed: the
    relationship aspect), shown instead of their kind."""
    try:
        return get_system(table.system).character_state.aspect_roles(ch)
    except UnknownSystem:
        return {}


def _with_system(ch, table, *, secret: bool) -> dict:
    entries, shown = _system_view(ch, table, secret=secret)
    return {**entries, "shown": shown} if shown or entries else {}


def table_sheet(ch, table, *, npc_skills: bool = False) -> dict:
    """The same shape as every member of the table may read it: the name, the aspects that
    are not hidden, fate points, stress and consequences, the free invokes held on aspects
    they know; an NPC's skills and stunts only with ``npc_skills``. A PC's skills and stunts
    are the table's to see. ``skills_hidden`` says the skills were left out."""
    sheet = sheet_dict(ch, table)
    sheet["aspects"] = [a for a in sheet["aspects"] if not a["hidden"]]
    sheet["free_invokes_held"] = {a.name: a.free_for(ch.name) for a in table.aspects
                                  if a.free_for(ch.name) and not a.hidden}
    if ch.kind != "pc" and not npc_skills:
        sheet["skills"], sheet["stunts"] = {}, []
        sheet["skills_hidden"] = True
        for key in [k for k in _system_view(ch, table, secret=False)[0]]:
            sheet.pop(key, None)
        sheet.pop("shown", None)
        sheet.update(_with_system(ch, table, secret=True))
    return sheet
