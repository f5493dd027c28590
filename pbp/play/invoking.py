"""Invokes after the dice, the bogus-rule veto and free invokes passed to allies, by post.

Fate lets a player invoke after seeing the dice; by post that invoke arrives in a later
mail. So every action roll is kept *open* for a while (``PlayState.open_rolls``):

* **Open** from the moment it is rolled until the next action in the turn order starts (in a
  conflict: any action that takes a turn, by anyone), its roller's next action (outside a
  conflict, where there is no turn order, other people's rolls do not close it), its
  roller's ``/done``, or the end of the campaign's invoke window
  (``Config.invoke_window_hours`` after the roll). A defence is a reaction: it closes
  nothing but its roller's own earlier roll.
* **What is kept** is what a re-run needs and no more: the command with the payment of
  each original invoke pinned as it was paid (its ``if needed`` ones settled: spent ones
  kept, skipped ones dropped), every throw made on it, the invokes added after the dice,
  the vetoed aspects, and a :class:`~pbp.play.state.TableDelta`: what the roll did to
  the table as counts (fate points, the GM's pool, free invokes) and aspects (created,
  used up, revealed). The delta is measured, not reported: a cheap picture of those
  counts is taken before and after the action and compared, so no copy of the table is
  ever saved (a few microseconds per roll, and a few hundred bytes in the play state).
* **A re-run** (``/invoke`` after the dice, the GM's ``/veto``) undoes the delta on a copy
  of the table *as it is now*, which leaves the table as it would be had the roll never
  happened, with everything that happened since kept; runs the roll again on it with
  :mod:`pbp.rules.reopen` (the same inputs plus the added invokes, minus the vetoed ones;
  the same dice, replayed; a new reroll draws fresh ones); and takes
  that copy as the new table. Later changes to what the roll created (someone spent a
  free invoke it gave) are carried over onto the re-run's version of it.
* **Not kept open**: a ``/treat`` roll (recovery acts on its outcome at once; its invokes go
  in the command) and a plain ``/roll`` (no invokes).
* **Limits** (each refused with a reply that says why, nothing changed): a later change
  that cannot be carried over, because the re-run no longer creates the aspect whose free
  invoke was spent since, or an aspect the roll used was removed or renamed since; and a
  roll already closed (invokes and vetoes are for open rolls: the GM fixes a closed one
  by hand with ``/fp give``). Harm is not part of a roll (the hit waits for ``/absorb``):
  a re-run updates the pending reactions that hang on the roll (the hit to absorb, the
  attack to defend against) and runs the ``roll_revised`` steps of :data:`pbp.play.sequence.SEQUENCE`.

NPCs pay with the GM's pool: every action and re-run is resolved with
:class:`pbp.rules.fate_points.GMPool` as its payer, so what an NPC spends comes out of the
pool, reported as a ``gm_pool`` change, and an empty pool refuses in its own words (rules
000, "Your Fate Points"). Hostile invokes' points are recorded as owed in ``PlayState.ledger`` (see
:mod:`pbp.play.economy` for when they are paid); a re-run replaces its roll's debts.
"""
from __future__ import annotations

import copy
import json
from dataclasses import replace
from datetime import timedelta

from pbp import commands as c
from pbp.commands import ActionCommand, Invoke, Payment
from pbp.errors import DiceExhausted, NotAllowedError, RulesError, UnknownNameError
from pbp.play import conflict as play_conflict
from pbp.play.economy import ensure_pool
from pbp.play.core import GM, NoteResult, Post, handles, number_roll, quote
from pbp.play.sequence import ROLL_REVISED, after_action, after_post, before_action, roll_revised
from pbp.play.state import AspectRecord, FreeDelta, RollRecordRef, TableDelta
from pbp.rules.aspects import give_free_invokes
from pbp.rules.bookkeeping import revealed
from pbp.rules.dice import DiceMismatch
from pbp.rules.fate_points import FateLedger, GMPool, owe_from_result
from pbp.rules.names import find_aspect, same_name, visible_to
from pbp.rules.reopen import NEXT_ACTION, OpenRoll, RollFacts, RollWindow, changes_between, closed_because, throws_of
from pbp.rules.results import ActionResult, Change, Effect
from pbp.rules.state import Aspect, Table
from pbp.rules.turns import uses_turn
from pbp.store.codec import dump as _dump
from pbp.store.codec import load as _load

# -- a cheap picture of what a roll can change --------------------------------------------

def _marks(table: Table, pool: int) -> tuple:
    """Fate points, carried points, the GM's pool and every aspect's free invokes and
    hidden flag: the whole of what resolving an action may change. Aspects are known by
    name and place (unique among the aspects in play)."""
    chars = {name: (ch.fate_points, ch.carried_points) for name, ch in table.characters.items()}
    aspects = {(a.name.casefold(), (a.owner or "").casefold()): (a, a.hidden, dict(a.free_invokes))
               for a in table.aspects}
    return chars, aspects, pool


def _record(a: Aspect, hidden: bool, free: dict) -> AspectRecord:
    return AspectRecord(a.name, a.kind, a.owner, hidden, dict(free), dict(a.system_state))


def _delta(before: tuple, after: tuple) -> TableDelta:
    (chars0, aspects0, pool0), (chars1, aspects1, pool1) = before, after
    delta = TableDelta(gm_pool=pool1 - pool0)
    for name, (fp1, carried1) in chars1.items():
        fp0, carried0 = chars0.get(name, (fp1, carried1))
        if fp1 != fp0:
            delta.fate_points[name] = fp1 - fp0
        if carried1 != carried0:
            delta.carried[name] = carried1 - carried0
    for key, (a, hidden0, free0) in aspects0.items():
        if key not in aspects1:
            delta.removed.append(_record(a, hidden0, free0))
            continue
        _, hidden1, free1 = aspects1[key]
        for holder in dict.fromkeys([*free0, *free1]):
            change = free1.get(holder, 0) - free0.get(holder, 0)
            if change:
                delta.free.append(FreeDelta(a.name, a.owner, holder, change))
        if hidden0 and not hidden1:
            delta.revealed.append(_record(a, hidden0, free0))
    for key, (a, hidden1, free1) in aspects1.items():
        if key not in aspects0:
            delta.created.append(_record(a, hidden1, free1))
    return delta


def _changes(before: tuple, after: tuple) -> list[Change]:
    """The same comparison as sheet changes, for the reply's "Changed:" line."""
    d = _delta(before, after)
    chars0 = before[0]
    out = [Change("fate_points", n, chars0[n][0], chars0[n][0] + v) for n, v in d.fate_points.items()]
    out += [Change("carried_points", n, chars0[n][1], chars0[n][1] + v) for n, v in d.carried.items()]
    if d.gm_pool:
        out.append(Change("gm_pool", GM, before[2], after[2]))
    old_free = {(a.name, a.owner): free for a, _, free in before[1].values()}
    for f in d.free:
        was = old_free.get((f.aspect, f.owner), {}).get(f.holder, 0)
        out.append(Change("free_invokes", f"{f.aspect} (held by {f.holder})", was, was + f.change))
    out += [Change("aspect", r.name, None, "created", f"on {r.owner}" if r.owner else "on the scene") for r in d.created]
    out += [Change("boost" if r.kind == "boost" else "aspect", r.name, "in play", "gone") for r in d.removed]
    out += [Change("aspect", r.name, "hidden", "revealed") for r in d.revealed]
    return out


# -- rolls opening and closing ----------------------------------------------------------------

def _stash(post: Post) -> dict:
    """Per-post bookkeeping that never reaches the play state."""
    stash = post.__dict__.get("_invoking")
    if stash is None:
        stash = post.__dict__["_invoking"] = {"results": [], "marks": None, "refs": {}, "entry_of": {}}
    return stash


@after_post
def harm_after(post: Post) -> None:
    """An NPC this post's rolls hit at once: its harm as the post left it, which a re-run
    of the roll checks is still so before it takes the absorption back (:func:`_harm_follow`)."""
    for _, ref in post.__dict__.get("_invoking", {}).get("results", ()):
        if ref.harm_target:
            ref.harm_after = _harm(post.table, ref.harm_target)
            _save(post, ref)


# -- open rolls as the play state keeps them ----------------------------------------------------
# Each is [actor, [ledger ids], rolled at (ISO), the RollRecordRef as JSON]: carrying them costs
# a message that does not touch them nothing; they are decoded only when an invoke, a veto or
# a re-run needs them (and cached for the post).

def _encode(ref: RollRecordRef) -> list:
    return [ref.actor, list(ref.ids), ref.rolled_at.isoformat(), json.dumps(_dump(ref), separators=(",", ":"))]


def open_roll_ids(play) -> set[int]:
    """The ledger ids of the rolls still open for invokes."""
    return {rid for entry in play.open_rolls for rid in entry[1]}


def open_roll_refs(play) -> list[RollRecordRef]:
    """Every open roll, decoded (for tests and tools; handlers use :func:`open_rolls`)."""
    return [_load(RollRecordRef, json.loads(entry[3])) for entry in play.open_rolls]


def roll_ref_of(post: Post, result: ActionResult) -> RollRecordRef | None:
    """The open roll this post's ``result`` was kept as (None: not kept open)."""
    return next((ref for r, ref in _stash(post)["results"] if r is result), None)


def open_rolls(post: Post) -> list[RollRecordRef]:
    """The open rolls, decoded once per post."""
    stash = _stash(post)
    out = []
    for entry in post.play.open_rolls:
        got = stash["refs"].get(id(entry))
        if got is None or got[0] is not entry:
            ref = _load(RollRecordRef, json.loads(entry[3]))
            got = stash["refs"][id(entry)] = (entry, ref)
            stash["entry_of"][id(ref)] = entry
        out.append(got[1])
    return out


def _add(post: Post, ref: RollRecordRef) -> None:
    entry = _encode(ref)
    post.play.open_rolls.append(entry)
    stash = _stash(post)
    stash["refs"][id(entry)] = (entry, ref)
    stash["entry_of"][id(ref)] = entry


def _save(post: Post, ref: RollRecordRef) -> None:
    entry = _stash(post)["entry_of"].get(id(ref))
    if entry is not None:
        entry[:] = _encode(ref)


def _close_expired(post: Post) -> None:
    """Close the rolls whose invoke window has passed (:func:`pbp.rules.reopen.closed_because`;
    the next action and ``/done`` close theirs when they happen)."""
    hours = post.hours("invoke_window_hours")
    if not hours or hours <= 0:
        return
    window = RollWindow(timedelta(hours=hours))
    post.play.close_rolls(lambda r: closed_because(RollFacts(r.rolled_at), post.now, window) is not None,
                          window.passed)


def _in_conflict(post: Post) -> bool:
    conflict = post.play.conflict
    return conflict is not None and not conflict.ended


@before_action
def _before(post: Post, cmd, actor: str) -> None:
    """The next action closes the rolls it ends; an NPC's action opens the GM's pool it
    pays from (:class:`pbp.rules.fate_points.GMPool`, the payer of every action by post);
    then the table is pictured."""
    stash = _stash(post)
    action = getattr(cmd, "name", "")
    if isinstance(cmd, ActionCommand):
        if _in_conflict(post) and uses_turn(action):
            post.play.close_rolls(lambda r: True, NEXT_ACTION)
        else:
            post.play.close_rolls(lambda r: same_name(r.actor, actor), f"{actor} has rolled again")
    ch = post.table.character(actor)
    if ch is not None and ch.kind != "pc":
        ensure_pool(post)
    target = post.table.character(cmd.target) if isinstance(cmd, c.Attack) and cmd.target else None
    stash["harm"] = (target.name, _harm(post.table, target.name)) if target is not None and not target.player else None
    stash["marks"] = _marks(post.table, post.play.ledger.gm_pool)


@after_action
def _after(post: Post, cmd, actor: str, result) -> None:
    """Keep an action's roll open for invokes, and record what it owes."""
    stash = _stash(post)
    before, stash["marks"] = stash["marks"], None
    if not isinstance(cmd, ActionCommand) or not isinstance(result, ActionResult) or before is None:
        return
    owed = _owe(post, result)
    if cmd.source.lstrip().lower().startswith("/treat"):
        return      # recovery acts on the outcome after the roll: its invokes go in the /treat itself
    ref = RollRecordRef(
        id=result.roll_id, ids=(result.roll_id,), cmd=_pinned(cmd, result), actor=result.actor,
        throws=tuple(throws_of(result)), rolled_at=post.now,
        delta=_delta(before, _marks(post.table, post.play.ledger.gm_pool)), owed=owed,
        summary=_summary(cmd, result, post.table), outcome=outcome_of(result),
    )
    if stash.get("harm"):
        ref.harm_target, ref.harm_before = stash["harm"]
    _add(post, ref)
    stash["results"].append((result, ref))


def kept_open(post: Post, result) -> bool:
    """Whether this post kept ``result``'s roll open for invokes after the dice."""
    return any(r is result for r, _ in _stash(post)["results"])


def _owe(post: Post, result: ActionResult) -> tuple:
    ledger = post.play.ledger
    n = len(ledger.owed)
    scene = post.play.scene.name if post.play.scene else ""
    owe_from_result(ledger, result, scene)
    return tuple(ledger.owed[n:])


def _pinned(cmd: ActionCommand, result: ActionResult) -> ActionCommand:
    """The command with each invoke as it was paid: a re-run never pays differently, and its
    ``if needed`` invokes stay as the dice settled them."""
    invokes = tuple(Invoke(u.aspect, c.InvokeMode(u.mode), Payment.FATE_POINT if u.paid_with == "fp" else Payment.FREE)
                    for u in result.effort.invokes if u.paid_with != "skipped" and same_name(u.invoker, result.actor))
    return replace(cmd, invokes=invokes)


def outcome_of(result: ActionResult) -> str:
    """A roll's outcome as its open roll keeps it (``RollRecordRef.outcome``): the tier, or
    ``catastrophic`` for a failure the system calls one (the d10 hack's negative hits)."""
    if result.outcome is None:
        return ""
    if any(e.kind == "catastrophic" for e in result.effects):
        return "catastrophic"
    return result.outcome.value


def _summary(cmd, result: ActionResult, table) -> str:
    target = getattr(cmd, "target", "") or (result.opposition.character if result.opposition else "")
    found = table.character(target) if target else None
    target = found.name if found is not None else target       # "Wren" -> "Wren Solace"
    what = {"overcome": "overcome", "advantage": "advantage", "attack": "attack", "defend": "defence"}.get(
        result.action, result.action)
    return f"{result.actor}'s {what}" + (f" on {target}" if target and result.action == "attack" else "") + \
        (f" with {result.skill}" if result.skill else "")


# -- finding the roll a command is about ---------------------------------------------------------

def find_roll(post: Post, roll_id: int | None, invoker: str | None, verb: str = "invoke") -> RollRecordRef:
    """The open roll an ``/invoke`` or ``/veto`` is about: ``#ID``, else the roll the replied-to
    mail was about (the invoker's own first), else the invoker's latest open roll."""
    _close_expired(post)
    rolls = open_rolls(post)
    if roll_id is not None:
        for r in rolls:
            if roll_id in r.ids:
                return r
        why = post.play.closed_rolls.get(str(roll_id))
        if why:
            raise RulesError(f"roll #{roll_id} is closed to invokes: {why}",
                             expected="an invoke on an open roll, or on your next roll",
                             example='/attack Ghoul with Fight +invoke "Deep Shadows"',
                             hint="the GM can still give back a fate point by hand: /fp give NAME 1")
        other = post.play.named(roll_id)
        if other is not None:
            answer = ("/accept, /refuse, /approve or /deny" if other.startswith(("compel", "story", "bonus", "aspect"))
                      else "its own command")
            raise RulesError(f"#{roll_id} is {other}, not a roll: it is answered with {answer}, not /{verb}",
                             expected=_open_list(rolls),
                             example=_roll_example(post, verb, rolls[-1].ids[-1] if rolls and rolls[-1].ids else None))
        raise RulesError(f"there is no open roll #{roll_id}", expected=_open_list(rolls),
                         example=_roll_example(post, verb, rolls[-1].ids[-1] if rolls and rolls[-1].ids else None))
    threaded = [int(ref[5:]) for ref in post.thread_refs() if ref.startswith("roll:")]
    about = [r for r in rolls if any(i in r.ids for i in threaded)]
    own = [r for r in about if invoker and same_name(r.actor, invoker)]
    if own:
        return own[-1]
    if len(about) == 1:
        return about[0]
    if about:
        raise RulesError("the mail you reply to is about several rolls; say which one",
                         expected=_open_list(about), example=_roll_example(post, verb, about[0].ids[-1] if about[0].ids else None))
    own = [r for r in rolls if invoker and same_name(r.actor, invoker)]
    if own:
        return own[-1]
    who = invoker or "you"
    raise RulesError(f"{who} has no open roll to {verb} on", expected=_open_list(rolls),
                     example='/invoke "Deep Shadows" on #142' if verb == "invoke" else '/veto #142 "Deep Shadows"',
                     hint="a roll closes when the next action starts, at /done, or when the invoke window passes")


def _roll_example(post: Post, verb: str, roll_id: int | None) -> str:
    """A working ``/invoke``, ``/veto`` or ``/cost`` on roll ``roll_id``, naming an aspect
    the author knows; with no open roll, ``/table`` (it shows what is open)."""
    if roll_id is None:
        return "/table"
    if verb == "cost":
        return f'/cost #{roll_id} minor "the alarm goes off"'
    viewer = GM if post.author.is_gm else post.speaker()
    known = [a.name for a in post.table.aspects if visible_to(a, viewer, post.table)] or ["Deep Shadows"]
    return f'/veto #{roll_id} "{known[0]}"' if verb == "veto" else f'/invoke "{known[0]}" on #{roll_id}'


def _open_list(rolls: list[RollRecordRef]) -> str:
    named = [f"#{r.ids[-1]} ({r.summary})" for r in rolls if r.ids]
    return "an open roll: " + ", ".join(named) if named else "an open roll (there is none now)"


# -- re-running a roll ----------------------------------------------------------------------------

class _Stale(RulesError):
    """A later change that a re-run cannot carry over."""


def _undo(table: Table, delta: TableDelta, pool: int, roll: str) -> tuple[int, dict]:
    """Take the roll's effects off ``table``; returns the pool without them and the later
    changes made to the aspects the roll created (to carry over onto the re-run's)."""
    for name, v in delta.fate_points.items():
        _char(table, name, roll).fate_points -= v
    for name, v in delta.carried.items():
        _char(table, name, roll).carried_points -= v
    pool -= delta.gm_pool
    for f in delta.free:
        a = _aspect(table, f.aspect, f.owner, roll)
        a.free_invokes[f.holder] = a.free_for(f.holder) - f.change
    for r in delta.revealed:
        _aspect(table, r.name, r.owner, roll).hidden = True
    later: dict[tuple, dict] = {}
    for r in delta.created:
        a = _aspect(table, r.name, r.owner, roll)
        diff = {h: a.free_for(h) - r.free_invokes.get(h, 0) for h in {*a.free_invokes, *r.free_invokes}}
        later[(r.name.casefold(), (r.owner or "").casefold())] = {h: v for h, v in diff.items() if v}
        table.aspects[:] = [x for x in table.aspects if x is not a]
    for r in delta.removed:
        if _find(table, r.name, r.owner) is not None:
            raise _Stale(f"roll {roll} can no longer be changed: {r.name} is in play again since")
        table.aspects.append(Aspect(r.name, kind=r.kind, owner=r.owner, free_invokes=dict(r.free_invokes),
                                    hidden=r.hidden, system_state=dict(r.system_state)))
    return pool, later


def _carry_over(table: Table, later: dict, roll: str) -> None:
    for (name, owner), diff in later.items():
        if not diff:
            continue
        a = next((x for x in table.aspects if x.name.casefold() == name and (x.owner or "").casefold() == owner), None)
        if a is None:
            raise _Stale(f"roll {roll} can no longer be changed: without it {name} would not exist, "
                         "but its free invokes have been used or given since")
        for holder, v in diff.items():
            a.free_invokes[holder] = a.free_for(holder) + v


def _check(table: Table, pool: int, roll: str) -> None:
    for ch in table.characters.values():
        if ch.fate_points < 0:
            raise _Stale(f"roll {roll} can no longer be changed: {ch.name} has spent since the fate point it would need")
    for a in table.aspects:
        for holder, n in list(a.free_invokes.items()):
            if n < 0:
                raise _Stale(f"roll {roll} can no longer be changed: {holder} has used a free invoke on "
                             f"{a.name} since, which the changed roll would not give")
            if n == 0:
                del a.free_invokes[holder]
    if pool < 0:
        raise _Stale(f"roll {roll} can no longer be changed: the GM's pool has been spent since")


def _char(table: Table, name: str, roll: str):
    ch = table.character(name)
    if ch is None:
        raise _Stale(f"roll {roll} can no longer be changed: {name} is no longer in the campaign")
    return ch


def _find(table: Table, name: str, owner: str | None) -> Aspect | None:
    return next((a for a in table.aspects if same_name(a.name, name) and same_name(a.owner, owner)), None)


def _aspect(table: Table, name: str, owner: str | None, roll: str) -> Aspect:
    a = _find(table, name, owner)
    if a is None:
        raise _Stale(f"roll {roll} can no longer be changed: {name} is no longer in play")
    return a


def _run(open_roll: OpenRoll, table: Table, post: Post, pool: FateLedger, fresh=None) -> tuple[OpenRoll, ActionResult]:
    """Re-run ``open_roll`` on ``table``, NPCs paying from ``pool`` (a scratch ledger)."""
    try:
        return open_roll.rerun(table, post.system, fresh_dice=fresh, payer=GMPool(pool))
    except (DiceExhausted, DiceMismatch) as error:
        raise RulesError(f"the roll cannot be replayed: {error}", expected="a roll that can be replayed",
                         example="/done", hint="the GM can adjust by hand: /fp give NAME 1") from None


def revise(post: Post, ref: RollRecordRef, *, invoke: Invoke | None = None, invoker: str | None = None,
           veto: str | None = None, bonus: int = 0, helper: str | None = None, note: str = "") -> ActionResult:
    """Re-run an open roll with an invoke added, an aspect vetoed, a plain bonus the GM
    approved (:mod:`pbp.play.bonuses`) or a teamwork helper (:mod:`pbp.play.teamwork`), replace its effects on the table, and return the
    new result for the reply (its changes are the net ones)."""
    label = f"#{ref.ids[0]}" if ref.ids else "above"
    current = OpenRoll(ref.cmd, ref.actor, ref.throws, ref.added, ref.vetoed)
    if invoke is not None:
        wanted = current.with_invoke(invoke, invoker)
    elif veto is not None:
        wanted = current.with_veto(veto)
    elif helper is not None:
        wanted = current.with_helper(helper)
    else:
        wanted = current.with_bonus(bonus)
    ledger = post.play.ledger
    start = _marks(post.table, ledger.gm_pool)

    work = copy.deepcopy(post.table)
    pool, later = _undo(work, ref.delta, ledger.gm_pool, label)
    _, old = _run(current, copy.deepcopy(work), post, FateLedger(gm_pool=pool))
    base = _marks(work, pool)
    scratch = FateLedger(gm_pool=pool)
    new_open, new = _run(wanted, work, post, scratch, fresh=post.dice)
    pool = scratch.gm_pool
    delta = _delta(base, _marks(work, pool))
    _carry_over(work, later, label)
    _check(work, pool, label)

    for name, ch in work.characters.items():
        mine = post.table.characters[name]
        mine.fate_points, mine.carried_points = ch.fate_points, ch.carried_points
    post.table.aspects[:] = work.aspects
    ledger.gm_pool = pool
    for owed in ref.owed:
        if owed in ledger.owed:
            ledger.owed.remove(owed)
    ref.cmd, ref.throws, ref.added, ref.vetoed, ref.delta = (new_open.cmd, new_open.throws, new_open.added,
                                                            new_open.vetoed, delta)
    ref.owed = _owe(post, new)
    ref.outcome = outcome_of(new)

    new.changes = _changes(start, _marks(post.table, ledger.gm_pool))
    ref.ids = (*ref.ids, number_roll(post, new).roll_id)   # the re-run's own ledger row: a new id of the same roll
    new.revises = ref.ids[0] if len(ref.ids) > 1 else None  # the roll players know, as its reply names it
    notes = [n for hook in ROLL_REVISED.of(post.system) for n in hook(post, ref, old, new)]
    said = [d.text for d in changes_between(old, new, post.system.explain) if d.what in ("effort", "opposition", "shifts", "outcome", "hit")]
    head = (f"Roll {label} revised: " if ref.ids else "The roll above, revised: ") + \
        ("; ".join(said) if said else "the outcome stands")
    lines = [Effect("after_dice", note, {"roll": ref.ids[0] if ref.ids else None})] if note else []
    lines.append(Effect("revised", head + "." + "".join(f" {n}" for n in notes),
                        {"roll": ref.ids[0] if ref.ids else None, "differences": said}))
    new.effects = [*lines, *new.effects]
    _stash(post)["results"].append((new, ref))
    _save(post, ref)
    return new


@roll_revised
def _pending_follow(post: Post, ref: RollRecordRef, old: ActionResult, new: ActionResult) -> list[str]:
    """The reactions waiting on a roll follow it: the hit to absorb, the attack to defend."""
    hits = {e.data.get("target"): e.data.get("shifts", 0) for e in new.effects if e.kind == "hit"}
    notes = []
    followed = set()                # who had a hit of this roll still waiting to be absorbed
    for p in list(post.play.pending):
        if p.roll_id is None or p.roll_id not in ref.ids:
            continue
        if p.kind == "absorb":
            followed.add(p.target)
            shifts = next((v for k, v in hits.items() if same_name(k, p.target)), None)
            if shifts is None:
                post.play.pending.remove(p)
                post.close_ref(f"pending:{p.id}")
                notes.append(f"{p.target} no longer has a hit to absorb.")
            elif shifts != p.shifts:
                p.shifts = shifts
                notes.append(f"{p.target} now absorbs {post.system.explain.hit(shifts)}.")
        elif p.kind == "defend":
            play_conflict.keep_attack_scale(p, new)   # an invoke after the dice may bring scale
            if p.attack_effort != new.effort.total:
                p.attack_effort = new.effort.total
                notes.append(f"{p.target} now defends against {new.effort.total}.")
    old_hits = {e.data.get("target"): e.data.get("shifts", 0) for e in old.effects if e.kind == "hit"}
    waiting = {p.target for p in post.play.pending}
    for target, shifts in old_hits.items():
        ch = post.table.character(target or "")
        if (ch is not None and ch.player and target not in waiting and target not in followed
                and hits.get(target) != shifts):
            notes.append(f"{target} has already absorbed the old hit: the GM adjusts {target}'s sheet by hand.")
    for e in [e for e in new.effects if e.kind == "hit" and e.data.get("target") not in old_hits]:
        ch = post.table.character(e.data.get("target") or "")
        if ch is not None and ch.player:          # a new hit on a PC waits for their /absorb
            from pbp.rules import harm

            for hit in harm.hits(replace(new, effects=[e])):
                effects, changes = play_conflict.land_hit(post, hit, new.skill or "")
                new.effects.extend(effects)
                new.changes.extend(changes)
            for p in post.play.pending:
                if p.roll_id is None and p.kind == "absorb" and p.target == ch.name and p.opened_at == post.now:
                    p.roll_id = ref.ids[-1] if ref.ids else None
            notes.append(f"{ch.name} now has a hit to absorb.")
    return notes


def _harm(table: Table, name: str) -> dict:
    """An NPC's harm as the hit left it: stress, consequences, taken out, consequence aspects."""
    ch = table.character(name)
    if ch is None:
        return {}
    aspects = [[a.name, a.kind, dict(a.free_invokes)] for a in table.aspects
               if a.kind == "consequence" and same_name(a.owner, ch.name)]
    return {"stress": {k: list(v) for k, v in ch.stress.items()},
            "consequences": [dict(vars(q)) for q in ch.consequences], "taken_out": ch.taken_out, "aspects": aspects}


@roll_revised
def _harm_follow(post: Post, ref: RollRecordRef, old: ActionResult, new: ActionResult) -> list[str]:
    """An NPC absorbed the old hit at once: take that absorption back and land the new hit
    (while nothing else has touched the NPC's sheet since)."""
    name = ref.harm_target
    if not name or not ref.harm_before:
        return []
    old_hit = [e.data.get("shifts") for e in old.effects if e.kind == "hit" and same_name(e.data.get("target"), name)]
    new_hits = [e for e in new.effects if e.kind == "hit" and same_name(e.data.get("target"), name)]
    if old_hit == [e.data.get("shifts") for e in new_hits]:
        return []
    ch = post.table.character(name)
    now = _harm(post.table, name)
    if now != ref.harm_after or ref.harm_after.get("taken_out"):
        return [f"{name}'s sheet has changed since the hit (or the hit took {name} out): the GM adjusts "
                f"{name}'s stress and consequences by hand."]
    from pbp.rules import harm
    from pbp.rules.state import Consequence

    before = ref.harm_before
    ch.stress = {k: list(v) for k, v in before["stress"].items()}
    ch.consequences = [Consequence(**q) for q in before["consequences"]]
    ch.taken_out = before["taken_out"]
    kept = {a[0] for a in before["aspects"]}
    dropped = [a for a in post.table.aspects if a.kind == "consequence" and same_name(a.owner, name) and a.name not in kept]
    post.table.aspects[:] = [a for a in post.table.aspects if a not in dropped]
    conflict = post.play.conflict
    if conflict is not None and dropped and name in conflict.consequences_taken:
        gone = {a.name for a in dropped}
        taken = dict(conflict.consequences_taken)
        taken[name] = tuple(q for q in taken[name] if q not in gone)
        post.play.conflict = replace(conflict, consequences_taken=taken)
    effects, changes = [], []
    track = harm.hit_track(new.skill, post.system, default=conflict.kind if conflict is not None else post.system.tracks[0])
    for hit in harm.hits(new, track):
        if same_name(hit.target, name):
            e, ch_ = play_conflict.land_hit(post, hit, new.skill or "", track=track)
            effects += e
            changes += ch_
    new.effects.extend(effects)
    after = _harm(post.table, name)
    for t in dict.fromkeys([*now["stress"], *after["stress"]]):
        a, b = now["stress"].get(t, []), after["stress"].get(t, [])
        if a != b:
            new.changes.append(Change("stress", f"{name} ({t})", _boxes(a), _boxes(b)))
    new.changes += [ch for ch in changes if ch.what != "stress"]
    ref.harm_after = after
    if not old_hit:
        return [f"{name} absorbs the new hit."]
    return [f"{name}'s absorption of the old hit is taken back" + (" and the new hit absorbed." if effects else ".")]


def _boxes(boxes: list) -> str:
    return "".join("[x]" if b else "[ ]" for b in boxes)


# -- the commands ---------------------------------------------------------------------------------

@handles(c.InvokeAfter)
def invoke_after(post: Post, cmd: c.InvokeAfter):
    """``/invoke ASPECT [reroll|oppose] [free|fp] [on #ID]`` on an open roll."""
    who = post.character(cmd.actor, cmd)
    invoker = who.name
    ref = find_roll(post, cmd.roll_id, invoker)
    if who.kind != "pc":
        ensure_pool(post)       # an NPC pays from the GM's pool: opened at its first need
    other = None if same_name(invoker, ref.actor) else invoker
    how = {c.InvokeMode.BONUS: f"for {post.system.explain.worth(post.system.invoke_bonus)}", c.InvokeMode.REROLL: "to reroll",
           c.InvokeMode.OPPOSE: "to raise the difficulty"}[cmd.invoke.mode]
    whose = "" if other is None else f" on {ref.actor}'s roll"
    by = f"{invoker} invokes {cmd.invoke.aspect} {how}{whose}, after the dice."
    return revise(post, ref, invoke=cmd.invoke, invoker=other, note=by)


@handles(c.Veto)
def veto(post: Post, cmd: c.Veto):
    """``/veto #ROLL ASPECT ["REASON"]``: the GM's bogus rule. The invoke is taken back, its
    cost refunded (the re-run never pays it), and the outcome recomputed."""
    post.require_gm("/veto", '/veto #142 "Distracted"')
    if not cmd.aspect:
        raise RulesError("say which invoke you veto", expected="the aspect after the roll id",
                         example='/veto #142 "Distracted"')
    ref = find_roll(post, cmd.ref, None, verb="veto")
    why = f" ({cmd.reason})" if cmd.reason else ""
    return revise(post, ref, veto=cmd.aspect,
                  note=f"The GM vetoes the invoke of {cmd.aspect}{why}: it is taken back and its cost refunded.")


@handles(c.GiveInvoke)
def give(post: Post, cmd: c.GiveInvoke):
    """``/give ASPECT NAME [N]``: pass free invokes (or a boost) you hold to an ally. The GM
    gives from the GM's side without ``/as``, or from an NPC with it."""
    if post.author.is_gm and not cmd.actor:
        giver = GM
    else:
        giver = post.character(cmd.actor, cmd).name
    if cmd.to.lower() == "me":
        raise NotAllowedError("you cannot give free invokes to yourself", expected="an ally's name",
                              example=f"/give {quote(cmd.aspect)} Charles")
    to = GM if cmd.to.upper() == GM else post.find(cmd.to).name
    try:
        aspect = find_aspect(post.table, cmd.aspect, giver, source=cmd.source, system=post.system)
    except UnknownNameError as exc:
        # the example gives what the giver holds, or shows the table when they hold nothing
        held = [a.name for a in post.table.aspects if a.free_for(giver) > 0 and visible_to(a, giver, post.table)]
        exc.example = f"/give {quote(held[0])} {quote(to)}" if held else "/table"
        raise exc from None
    hidden = aspect.hidden
    changes = give_free_invokes(post.table, aspect, giver, to, cmd.count, system=post.system)
    if changes[0].what == "boost":
        text = f"{giver} passes the boost {changes[0].subject} to {to}"
    else:
        n = cmd.count
        name = changes[0].subject.rsplit(" (held by ", 1)[0]
        text = f"{giver} gives {n} free invoke{'s' if n != 1 else ''} on {name} to {to}"
    recipient = post.table.character(to)
    if hidden and recipient is not None and recipient.player:
        # a player cannot use an aspect they do not know: given to one, it is revealed
        changes.insert(0, revealed(aspect))
        hidden = False
    return NoteResult(cmd.source, giver, "give", text=text, changes=changes, gm_only=hidden)
