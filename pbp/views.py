"""Who reads what: the table's view of a post's results, and what only the GM is told.

Every member reads the table's mail (in relay mode pbp sends it to each of them; in list
mode it goes to the list), so it shows only what every player may know. The GM knows
everything. What the players do not know:

* **Hidden aspects** (``hidden`` on a sheet, ``/aspect add ... hidden``): their names, and
  anything about them, until someone discovers them or the GM's side uses them openly
  (an invoke or a compel reveals them). A player's character knows none, not even its own.
* **NPCs' skills and stunts**, unless the campaign shows them (``show_npc_skills``). What
  an NPC rolls in play shows in that roll's working, as any roll does.

So, where replies are made (:mod:`pbp.pipeline`):

* the table's version of each result drops what the players may not know: a ``gm_only``
  result (a hidden aspect added, renamed or removed; the GM's own ``/sheet``) shows
  nothing; a result's ``public_text`` and ``public_sheet`` stand for its text and sheet;
  effects marked ``gm_only`` (the GM's chance to reveal an aspect a discover missed) and
  changes that name an aspect only the GM knows ("Secret Weakness created") are left out;
* the results the table read otherwise go to the GM in a mail of their own, whole, when
  the GM wrote the post (they see what their commands did) or a result has something for
  the GM to act on (a ``gm_only`` effect). A player's ``/sheet NPC`` is not news to the
  GM: it sends them nothing.

The JSON of ``pbp process --json`` is the operator's record and keeps everything.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from pbp.rules.results import ActionResult, Change


@dataclass(frozen=True)
class Views:
    """A post's results as the table reads them (one per result, in order) and the GM's
    copy: the results the table read otherwise, whole (empty when the GM need not be told)."""

    table: list
    gm: list


def secret_names(table, names_at_start=(), results=()) -> frozenset[str]:
    """The (case-folded) names of aspects only the GM knows: hidden at the start of the post
    (``names_at_start``: (name, hidden, owner)) or at its end, or named by a ``gm_only``
    result (a hidden aspect added and gone again in one post), and not the name of an
    aspect the table knows. An aspect revealed during the post is known: its changes show."""
    hidden = {a.name.casefold() for a in table.aspects if a.hidden}
    known = {a.name.casefold() for a in table.aspects if not a.hidden}
    for name, was_hidden, *_ in names_at_start:
        (hidden if was_hidden else known).add(name.casefold())
    for result in results:
        if getattr(result, "gm_only", False):
            hidden.update(n.casefold() for ch in result.changes for n in _aspect_names(ch))
    return frozenset(hidden - known)


def _aspect_names(change: Change) -> tuple[str, ...]:
    """The aspect names a change line would show."""
    if change.what == "free_invokes":
        return (change.subject.rsplit(" (held by ", 1)[0],)
    if change.what == "aspect_scale":
        return (change.subject,)
    if change.what in ("aspect", "boost"):
        renamed = change.detail == "renamed" and isinstance(change.before, str)
        return (change.subject, change.before) if renamed else (change.subject,)
    return ()


def public_changes(changes, secret: frozenset[str]) -> list:
    return [ch for ch in changes if not any(n.casefold() in secret for n in _aspect_names(ch))]


def _public(result, secret: frozenset[str]):
    """The table's version of one result, and whether it differs from the whole one."""
    changes = public_changes(result.changes, secret)
    effects = [e for e in result.effects if not e.data.get("gm_only")]
    if isinstance(result, ActionResult):
        differs = len(changes) != len(result.changes) or len(effects) != len(result.effects)
        return (replace(result, changes=changes, effects=effects) if differs else result), differs
    if getattr(result, "gm_only", False):
        return replace(result, text="", sheet=None, public_text=None, public_sheet=None, changes=[], effects=[]), True
    text = result.text if result.public_text is None else result.public_text
    sheet = result.sheet if result.public_sheet is None else result.public_sheet
    differs = (text != result.text or sheet != result.sheet or len(changes) != len(result.changes)
               or len(effects) != len(result.effects))
    if not differs:
        return result, False
    return replace(result, text=text, sheet=sheet, changes=changes, effects=effects), True


def views(results, table, *, names_at_start=(), author_is_gm: bool, secret_rolls=None) -> Views:
    """The table's results and the GM's copy for one post (or deadline round). A secret or
    blind roll (``secret_rolls``: roll id -> the note the table reads, :mod:`pbp.play.secrets`)
    is that note on the table, and the GM is told it whole whoever wrote the post."""
    secret = secret_names(table, names_at_start, results)
    secret_rolls = secret_rolls or {}
    table_results, differ = [], []
    for result in results:
        note = secret_rolls.get(getattr(result, "roll_id", None)) if isinstance(result, ActionResult) else None
        if note is not None:
            table_results.append(note)
            differ.append(result)
            continue
        public, differs = _public(result, secret)
        table_results.append(public)
        if differs:
            differ.append(result)
    for_gm = any(e.data.get("gm_only") for r in differ for e in r.effects) or any(
        getattr(r, "roll_id", None) in secret_rolls for r in differ)
    return Views(table_results, differ if (author_is_gm or for_gm) else [])


def shows_anything(result) -> bool:
    """Whether a result, as the table reads it, says anything at all."""
    if isinstance(result, ActionResult):
        return True
    return bool(result.text or result.sheet or result.changes or result.effects)


def public_sheets(changed: list[tuple[dict, dict | None]]) -> list[dict]:
    """The table's "Sheets:" lines: the table's view of each changed sheet whose table view
    changed (a sheet that changed only where the table cannot see is not listed).
    ``changed`` pairs each sheet's table view after the post with the one before (None: a
    new character)."""
    return [after for after, before in changed if after != before]
