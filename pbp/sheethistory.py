"""The history of every sheet change, and undo.

Every change by play (a post, :func:`record_play`) or by hand is a ``SheetChange`` row:
who, when, which message, the sheet before and after: the character's row, its own aspects
and the free invokes it holds (:func:`pbp.sheetedit.state_of`). A change by play keeps
only the entries it changed, before and after (issue 23: a post's history row is a few
hundred bytes, not two whole sheets), which is all :func:`undo` and
:func:`pbp.sheetdiff.describe_diff` read. :func:`undo` takes back the last change not yet
undone, field by field (only what that change changed, so later changes to other fields
stay), the aspects one by one (:func:`_restore_aspects`, :func:`_restore_holds`), and is
itself recorded.
"""
from __future__ import annotations

import json
from datetime import datetime

from pbp.errors import ConfigError
from pbp.rules import state as rs
from pbp.sheetdiff import describe_diff, entry_state, free_words, pair_aspects
from pbp.sheetedit import by_id, find_character, sheet_aspects, state_of
from pbp.store import models as m
from pbp.store import repo
from pbp.store.prepared import Insert

_INSERT_CHANGE = Insert(m.SheetChange, ("campaign", "character", "at", "who", "how", "message_id", "before", "after",
                                        "undone"))


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
    find_character(campaign, name)          # raises: no such character, with the list
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
    now_items = sorted(((a.id, f) for a in table.aspects if mine(f := repo._aspect_fields(a))), key=by_id)
    then_items = sorted([(i, f) for i, f in now_items if i not in touched] +
                        [(i, was) for i, was in touched.items() if was is not None and mine(was)], key=by_id)
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
                                           system_state=dict(entry_state(b))))
    for a in added:
        cur = now_of(a)
        if cur is not None:
            table.aspects.remove(cur)
            if any(cur.free_invokes.values()):
                notes.append(f'"{cur.name}" is gone, and the free invokes on it with it ({free_words(cur.free_invokes)})')
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
    table, ch = find_character(campaign, name)
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
