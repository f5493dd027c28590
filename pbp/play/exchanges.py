"""The conflict's exchanges: the GM's conflict commands (``/conflict start``, ``/conflict
end``, ``/place``), the turn handed on (``/next``, ``/done``), free moves (``/move``), the
turn's line at the end of every reply, and the deadlines that keep a slow table moving
(reminders, then the default defence, absorption or handoff). The actions, defences and
harm they wrap are :mod:`pbp.play.conflict`'s.
"""
from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

from pbp import commands as c
from pbp.i18n import CommandLine, Joined, Msg, Msgs
from pbp.errors import RulesError
from pbp.play.conflict import (
    TURN_REF, absorb_ask, against, check_standing, defend_ask, conflict_note, rolled_opposition, touch, active,
    answer_defence, controller, default_absorb, default_defence, end, member, require_conflict, what
)
from pbp.play.core import GM, Ask, NoteResult, Post, Tell, after_post, deadline_job, handles, quote, status_line
from pbp.play.dates import when
from pbp.play.state import Pending, TurnClock
from pbp.rules import conflict as rc
from pbp.rules import turns as rt
from pbp.rules.names import and_names, same_name
from pbp.rules.reopen import ROLLER_DONE
from pbp.rules.results import Effect


@after_post
def settle_turn(post: Post) -> None:
    """After a post that touched the conflict: the turn clock and the handoff ask. (A held
    action dropped after touching it leaves the mark: harmless, as what ran it, a /next or
    the deadline's handoff, touched the conflict itself.)"""
    if post.__dict__.pop("_conflict_touched", False):
        _settle_turn(post)


# --------------------------------------------------------------------------- the GM's conflict commands


@handles(c.ConflictEnd)
def conflict_end(post: Post, cmd: c.ConflictEnd):
    post.require_gm("/conflict end", "/concede \"I slip away into the crowd\"")
    require_conflict(post, cmd)
    effects, changes = end(post, by_gm=True)
    return conflict_note(cmd.source, GM, "conflict_end", effects, changes)


@handles(c.ConflictStart)
def conflict_start(post: Post, cmd: c.ConflictStart):
    post.require_gm("/conflict start", "/sheet")
    if active(post) is not None:
        raise RulesError("a conflict is already going on", source=cmd.source,
                         expected="end it first with /conflict end", example="/conflict end")
    if not cmd.first:
        raise RulesError("say who acts first", source=cmd.source, expected="first NAME at the end",
                         example=f"{cmd.source} first {cmd.participants[0] if cmd.participants else 'Ruth'}")
    names = [post.find(p).name for p in cmd.participants]
    out = [n for n in names if post.table.character(n).taken_out]
    if out:
        raise RulesError(f"{', '.join(out)} {'is' if len(out) == 1 else 'are'} taken out until the scene ends",
                         source=cmd.source, expected="characters not taken out this scene",
                         example="/scene end")
    zones = post.play.scene.zones if post.play.scene is not None else None
    sides = None
    if cmd.against:                 # two sides as written, each named by its members
        second = names[len(names) - len(cmd.against):]
        first_side = [n for n in names if n not in second]
        sides = {**{n: and_names(first_side) for n in first_side}, **{n: and_names(second) for n in second}}
    kind = post.system.track_named(cmd.kind) if cmd.kind else post.system.tracks[0]
    conflict = rc.start_conflict(post.table, names, post.full_name(cmd.first), kind=kind or cmd.kind,
                                 tracks=post.system.tracks, zones=zones, sides=sides,
                                 concession_paid=post.system.concession == "paid")
    post.play.conflict = conflict
    post.play.turn_clock = None
    touch(post)
    sides = {}
    for who, side in conflict.sides.items():
        sides.setdefault(side, []).append(who)
    text = Msg("{begins}: {sides}. {first} acts first.", begins=post.system.explain.conflict_begins(conflict.kind, post.system.tracks),
               sides=against([", ".join(v) for v in sides.values()]), first=conflict.turns.current)
    return NoteResult(cmd.source, GM, "conflict_start", text=text)


@handles(c.Place)
def place(post: Post, cmd: c.Place):
    """``/place NAME in ZONE [with ALLY]``: the GM positions someone; in a conflict, someone
    not in it joins it and acts later in this exchange, on ALLY's side, or without ``with``
    on the one side of their kind (:func:`pbp.rules.conflict.joining_side`)."""
    post.require_gm("/place", "/table")
    ch = post.find(cmd.character)
    conflict = active(post)
    if cmd.beside is not None and (conflict is None or member(conflict, ch.name) is not None):
        why = (f"{ch.name} is already in the conflict" if conflict is not None
               else "there is no conflict going on")
        raise RulesError(f'"with" names the side of someone who joins a conflict, and {why}', source=cmd.source,
                         expected=f"/place {quote(ch.name)} in {quote(cmd.zone)}, without \"with\"",
                         example=f"/place {quote(ch.name)} in {quote(cmd.zone)}")
    scene = post.play.scene
    zones = conflict.zones if conflict is not None and conflict.zones is not None else (scene.zones if scene else None)
    if zones is None:
        raise RulesError("this scene has no zone map", source=cmd.source, expected="a scene started with zones",
                         example='/scene start "Warehouse" zones "Dock", "Floor" borders "Dock"-"Floor"')
    if not any(z.casefold() == cmd.zone.strip().casefold() for z in zones.zones):
        listed = ", ".join(f'"{z}"' for z in zones.zones)
        raise RulesError(f'there is no zone "{cmd.zone}" in this scene (zones: {listed})', source=cmd.source,
                         expected=f"one of {listed}", example=f'/place {quote(ch.name)} in "{zones.zones[0]}"')
    zones = zones.place(ch.name, cmd.zone)
    text = Msg("{who} is in {zone}.", who=ch.name, zone=zones.zone_of(ch.name))
    if conflict is not None:
        if member(conflict, ch.name) is None:
            if ch.taken_out:
                raise RulesError(f"{ch.name} is taken out until the scene ends", source=cmd.source,
                                 expected="a character not taken out this scene", example="/scene end")
            beside = post.find(cmd.beside).name if cmd.beside is not None else None
            example = f"/place {quote(ch.name)} in {quote(cmd.zone)} with {quote(next(iter(conflict.sides)))}"
            side = rc.joining_side(post.table, conflict, ch.name, beside, example=example)
            allies = rc.members(conflict, side)
            sides = dict(conflict.sides)
            sides[ch.name] = side
            conflict = replace(conflict, sides=sides, turns=rt.join(conflict.turns, ch.name))
            text += (f" {ch.name} joins the conflict on the side of {and_names(allies)} and has not acted"
                     " this exchange.")
        post.play.conflict = replace(conflict, zones=zones)
        touch(post)
    if scene is not None:
        scene.zones = zones
    return NoteResult(cmd.source, GM, "place", text=text)


# --------------------------------------------------------------------------- turns and moves


@handles(c.Next)
def next_turn(post: Post, cmd: c.Next):
    conflict = require_conflict(post, cmd)
    order = conflict.turns
    if cmd.actor:
        by = post.character(cmd.actor, cmd).name
    elif post.author.is_gm and not any(ch.player == post.author.email for ch in post.table.characters.values()):
        by = None
    else:
        by = post.character(None, cmd).name
    by_gm = by is None or (post.author.is_gm and not same_name(order.current, by))
    before = order.exchange
    order = rt.hand_off(order, by or GM, post.full_name(cmd.character), by_gm=by_gm)
    post.play.conflict = replace(conflict, turns=order)
    touch(post)
    who = by or "The GM"
    if order.exchange != before:
        text = Msg("{who} hands the turn to {next}, who opens exchange {n}.", who=who, next=order.current, n=order.exchange)
    else:
        text = Msg("{who} hands the turn to {next}.", who=who, next=order.current)
    return NoteResult(cmd.source, by or GM, "next", text=text)


@handles(c.Done)
def done(post: Post, cmd: c.Done):
    """``/done``: close your open rolls to further invokes; then, in a conflict, the last to
    act in an exchange may end their turn without naming anyone, and the GM names who opens
    the next exchange. Otherwise it only says what is still owed."""
    who = post.character(cmd.actor, cmd).name
    closed = post.play.close_rolls(lambda r: same_name(r.actor, who), ROLLER_DONE)
    ids = [f"#{r.ids[0]}" for r in closed if r.ids]
    said = Msgs("Roll {ids} closed to further invokes.", "Rolls {ids} closed to further invokes.", len(ids),
                ids=", ".join(ids)) if ids else ""
    result = _turn_done(post, cmd, who)
    if said:
        result.text = Joined([result.text, " ", said])
    return result


def _turn_done(post: Post, cmd: c.Done, who: str) -> NoteResult:
    conflict = active(post)
    order = conflict.turns if conflict is not None else None
    if order is None or order.current != who:
        return NoteResult(cmd.source, who, "done", text=Msg("{who} is done.", who=who))
    if order.phase == "awaiting_handoff" and rt.exchange_over(order):
        post.play.conflict = replace(conflict, turns=replace(order, current=None))
        touch(post)
        return NoteResult(cmd.source, who, "done",
                          text=Msg("{who} is done; exchange {n} is over and the GM names who opens the next.", who=who,
                                   n=order.exchange))
    if order.phase == "awaiting_handoff":
        return NoteResult(cmd.source, who, "done",
                          text=Msg("{who} is done, and still has to hand the turn on with /next NAME.", who=who))
    return NoteResult(cmd.source, who, "done",
                      text=Msg("{who} is done, and still has to take their turn or pass it with /next NAME.", who=who))


@handles(c.Move)
def move(post: Post, cmd: c.Move):
    actor = post.character(cmd.actor, cmd)
    conflict = active(post)
    if conflict is not None and member(conflict, actor.name) is not None:
        check_standing(post, conflict, actor.name, cmd, "move")
        here = conflict.zones.zone_of(actor.name) if conflict.zones is not None else None
        try:
            conflict = rc.move(conflict, actor.name, cmd.zone)
        except RulesError as exc:
            exc.source = exc.source or cmd.source
            raise
        post.play.conflict = conflict
        if post.play.scene is not None:
            post.play.scene.zones = conflict.zones
        touch(post)
        there = conflict.zones.zone_of(actor.name)
    else:
        scene = post.play.scene
        if scene is None or scene.zones is None:
            raise RulesError("this scene has no zone map to move on", source=cmd.source,
                             expected="a scene started with zones",
                             example='/scene start "Warehouse" zones Dock, Office borders Dock-Office')
        here = scene.zones.zone_of(actor.name)
        scene.zones = scene.zones.move(actor.name, cmd.zone)
        there = scene.zones.zone_of(actor.name)
    return NoteResult(cmd.source, actor.name, "move", text=Msg("{who} moves from {here} to {there}.", who=actor.name, here=here,
                                                                           there=there))


def _settle_turn(post: Post) -> None:
    """After a post: restart the turn clock when the turn moved, and ask whoever has acted
    to hand off."""
    conflict = active(post)
    if conflict is None or conflict.turns.phase == "gm":
        post.play.turn_clock = None
        return
    order = conflict.turns
    clock = post.play.turn_clock
    if clock is not None and (clock.who, clock.phase, clock.exchange) == (order.current, order.phase, order.exchange):
        return
    post.play.turn_clock = TurnClock(who=order.current, phase=order.phase, exchange=order.exchange,
                                     deadline=post.deadline())
    if order.phase == "awaiting_handoff":
        post.play.forget_thread_refs(TURN_REF)
        post.ask(Ask(ref=TURN_REF, who=controller(post, order.current), text=_handoff_text(post, order),
                     deadline=post.play.turn_clock.deadline))


def _handoff_text(post: Post, order: rt.TurnOrder) -> str:
    who = order.current
    by = when(post.play.turn_clock.deadline)
    default = rt.default_next(order)
    command = CommandLine((f"/as {quote(who)} " if controller(post, who) == GM else "/") + "next NAME")
    if rt.exchange_over(order):
        return Msg("{who}, name who opens exchange {n} (anyone, {who} included): {command}. If nobody has by {by}, "
                   "{default} opens it.", who=who, n=order.exchange + 1, command=command, by=by, default=default)
    waiting = ", ".join(rt.still_to_act(order))
    return Msg("{who}, hand the turn on to one of {waiting}: {command}. If nobody has by {by}, the turn passes to "
               "{default}.", who=who, waiting=waiting, command=command, by=by, default=default)


@status_line
def conflict_status(post: Post) -> list[str]:
    lines = []
    conflict = active(post)
    # whose turn it is, unless this post asks the actor to hand it on (issue 27: the ask says
    # who names whom, with the command and its deadline; the line said it a second time)
    if conflict is not None and not any(a.ref == TURN_REF for a in post.asks):
        lines.append(rt.status_line(conflict.turns))
    for p in post.play.pending:
        if p.held_by is not None:
            lines.append(Msg("Held for concession #{n}: {what} on {who} (#{id}).", n=p.held_by, what=what(post, p),
                             who=p.target, id=p.id))
            continue
        if p.kind == "defend":
            lines.append(Msg("Waiting for {who} to defend against {what} (#{id}) by {by}.", who=p.target,
                             what=what(post, p), id=p.id, by=when(p.deadline)))
        else:
            lines.append(Msg("Waiting for {who} to absorb {what} (#{id}) by {by}.", who=p.target, what=what(post, p),
                             id=p.id, by=when(p.deadline)))
    return lines


# --------------------------------------------------------------------------- deadlines


@deadline_job
def conflict_deadlines(post: Post) -> list:
    """Reminders before, and defaults at, the deadlines of defences, absorptions and turns."""
    results = []
    lead = timedelta(hours=post.hours("reminder_hours"))
    reminders: dict[str, list[tuple[str, str, tuple[str, ...]]]] = {}   # who -> (subject, text, refs)
    for pending in sorted(post.play.pending, key=lambda p: (p.deadline, p.id)):
        if not any(p.id == pending.id for p in post.play.pending):
            continue                                   # closed by an earlier default this round
        if pending.held_by is not None:
            continue                                   # a concession answers it (pbp.play.concession)
        if pending.deadline <= post.now:
            results.append(_default(post, pending))
        elif not pending.reminded and pending.deadline - lead <= post.now and not post.quiet(pending.target):
            pending.reminded = True
            subject = (Msg("Reminder: {who}, defend by {by}", who=pending.target, by=when(pending.deadline))
                       if pending.kind == "defend" else
                       Msg("Reminder: {who}, absorb by {by}", who=pending.target, by=when(pending.deadline)))
            reminders.setdefault(pending.target, []).append((subject, _reminder_text(post, pending),
                                                             (f"pending:{pending.id}",)))
    results += _turn_deadline(post, lead, reminders)
    for who, items in reminders.items():       # one mail per person, however much is due
        post.tell(Tell(to=(who,), subject=items[0][0], text=Joined([part for n, (_, text, _) in enumerate(items)
                                                                    for part in ((text,) if not n else ("\n", text))]),
                       refs=tuple(ref for _, _, refs in items for ref in refs)))
    return results


def _reminder_text(post: Post, pending: Pending) -> str:
    ch = post.find(pending.target)
    ask = defend_ask(post, pending, ch) if pending.kind == "defend" else absorb_ask(post, pending, ch)
    return Msg("Reminder: {what} is still waiting for you.\n\n{ask}\n", what=what(post, pending), ask=ask.text)


def _default(post: Post, pending: Pending):
    if pending.kind == "absorb":
        return default_absorb(post, pending)
    ch = post.find(pending.target)
    skill, _ = default_defence(post, ch, pending)
    cmd = c.Defend(line=0, source=f"/defend {skill}", skill=skill, opposition=rolled_opposition(pending), actor=ch.name)
    result = answer_defence(post, pending, cmd, ch.name)
    result.effects.insert(0, Effect("deadline", Msg("{who} did not answer by {by}: {who} defends with {skill}, with "
                                                    "no invokes", who=ch.name, by=when(pending.deadline), skill=skill),
                                    {"pending": pending.id}))
    return result


def _turn_deadline(post: Post, lead: timedelta, reminders: dict) -> list:
    conflict = active(post)
    clock = post.play.turn_clock
    if conflict is None or clock is None or clock.expired:
        return []
    order = conflict.turns
    if clock.deadline <= post.now:
        if order.phase == "awaiting_handoff" and order.current == clock.who:
            to = rt.default_next(order)
            post.play.conflict = replace(conflict, turns=rt.hand_off(order, clock.who, to, by_gm=True))
            touch(post)
            return [NoteResult(f"(deadline: {clock.who} hands off)", clock.who, "next",
                               text=Msg("{who} did not hand the turn on by {by}: the turn passes to {to}.",
                                        who=clock.who, by=when(clock.deadline), to=to))]
        clock.expired = True
        post.tell(Tell(to=(GM,), subject=Msg("{who}'s turn has stalled", who=clock.who),
                       text=Msg("{who} has not acted since the turn came to them; the deadline was {by}. You can hand "
                                "the turn on for them: {command}\n", who=clock.who, by=when(clock.deadline),
                                command=CommandLine("/next NAME"))))
        return []
    if not clock.reminded and clock.deadline - lead <= post.now and not post.quiet(controller(post, clock.who)):
        clock.reminded = True
        if clock.phase == "awaiting_handoff":
            text = Msg("Reminder: {who}, please hand the turn on ({command}) by {by}.\n{handoff}\n", who=clock.who,
                       command=CommandLine("/next NAME"), by=when(clock.deadline), handoff=_handoff_text(post, order))
        else:
            text = Msg("Reminder: {who}, please take your turn by {by}.\n", who=clock.who, by=when(clock.deadline))
        reminders.setdefault(controller(post, clock.who), []).append(
            (Msg("Reminder: {who}, your turn", who=clock.who), text, ()))
    return []
