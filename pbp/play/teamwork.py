"""Teamwork by post: helpers combine the same skill on an ally's roll (the numbers are the
system's, :mod:`pbp.rules.teamwork`).

Fate Condensed, "Turn Order" and "Teamwork": "You can help an ally before their turn comes
around by creating an advantage or giving a +1 bonus as your action. If they take their turn
ahead of you in the exchange, you can't create an advantage to help them, but you can use up
your turn (skipping it for that exchange) to give them a +1 teamwork bonus." And: "You can
invoke an aspect on your ally's behalf to improve their roll at any time" (that is
``/invoke ASPECT on #ID``, :mod:`pbp.play.invoking`).

By mail:

* ``/help Charles``: the helper declares help for the ally's *next* roll. It is the helper's
  action: in a conflict it takes the helper's turn. The help waits in
  ``PlayState.helps``; the ally's next action roll takes every help waiting for them
  (``ActionCommand.helpers``) and the reply shows each helper's +1, or why not.
* ``/help from Cassandra, Ruth``: the ally asks; each named helper is asked by mail and
  confirms with ``/help Charles`` (a bare one in reply to that mail, too). A request not
  confirmed by the reaction deadline lapses. Only confirmed help counts on a roll.
* ``/help Charles on #7`` (or in reply to the mail of Charles's open roll, or confirming a
  request after Charles has already rolled): help added to the open roll after the dice.
  The roll is re-run with the same dice (:func:`pbp.play.invoking.revise`). In a conflict
  this is the helper giving up their turn for the exchange (their turn now, or a turn still
  to come); a helper who has acted this exchange cannot.

A declared help that no roll has used goes when the scene ends, and in a conflict when the
exchange it was given in ends (the helper's action was for that exchange).
"""
from __future__ import annotations

from dataclasses import replace

from pbp import commands as c
from pbp.errors import NotAllowedError, RulesError
from pbp.i18n import CommandLine, Joined, Msg
from pbp.play import conflict as pc
from pbp.play.core import Ask, NoteResult, Post, deadline_job, handles, on_scene_end, prepare_action, quote, status_line
from pbp.play.invoking import find_roll, open_rolls, revise
from pbp.play.state import TeamHelp
from pbp.rules import turns as rt
from pbp.rules.names import and_names, same_name
from pbp.rules.ladder import describe


def _ref(h: TeamHelp) -> str:
    return f"help:{h.id}"


def _live(post: Post, h: TeamHelp) -> bool:
    """A help given in a conflict's exchange lasts for that exchange only."""
    if h.exchange is None:
        return True
    conflict = pc.active(post)
    return conflict is not None and conflict.turns.exchange == h.exchange


def _drop(post: Post, h: TeamHelp) -> None:
    post.play.helps = [x for x in post.play.helps if x is not h]
    post.close_ref(_ref(h))


# --------------------------------------------------------------------------- a roll takes its helps


@prepare_action
def _take_helps(post: Post, cmd, actor: str):
    """An ally's action roll takes the confirmed helps waiting for them."""
    if not isinstance(cmd, c.ActionCommand):
        return cmd
    for h in [h for h in post.play.helps if not _live(post, h)]:
        _drop(post, h)
    mine = [h for h in post.play.helps if h.confirmed and same_name(h.ally, actor)]
    if not mine:
        return cmd
    for h in mine:
        _drop(post, h)
    names = tuple(h.helper for h in mine if h.helper not in cmd.helpers)
    return replace(cmd, helpers=cmd.helpers + names)


# --------------------------------------------------------------------------- the commands


def _turn_for_help(post: Post, helper: str, *, open_roll: bool, cmd: c.Command) -> str:
    """In a conflict, what helping costs the helper: their turn (the action of their turn,
    or, for an open roll, giving up a turn still to come). Returns words for the reply."""
    conflict = pc.active(post)
    if conflict is None or pc.member(conflict, helper) is None:
        return ""
    order = conflict.turns
    name = next(p for p in order.participants if same_name(p, helper))
    if order.current == name or not open_roll:
        order = rt.take_action(order, name, "action")   # refused out of turn, or a second time
        post.play.conflict = replace(conflict, turns=order)
        pc.touch(post)
        return Msg("{who} uses their turn to help", who=name)
    if name in order.acted:
        raise RulesError(f"{name} has already acted this exchange, so cannot give up a turn to help",
                         source=cmd.source, expected="a helper still to act this exchange",
                         example=f"/next {quote(rt.default_next(order) or name)}", depends_on="turn")
    post.play.conflict = replace(conflict, turns=replace(order, acted=order.acted + (name,)))
    pc.touch(post)
    return Msg("{who} gives up their turn this exchange to help", who=name)


def _open_roll_of(post: Post, ally: str, cmd: c.Help, request: TeamHelp | None):
    """The open roll of the ally a help is for: ``on #ID``, the roll the replied-to mail was
    about, or (confirming a request) the ally's roll made since the request; else None."""
    if cmd.roll_id is not None:
        ref = find_roll(post, cmd.roll_id, None, verb="help")
        if not same_name(ref.actor, ally):
            raise RulesError(f"roll #{cmd.roll_id} is {ref.actor}'s, not {ally}'s", source=cmd.source,
                             expected=f"one of {ally}'s open rolls", example=f"/help {quote(ref.actor)} on #{cmd.roll_id}")
        return ref
    rolls = [r for r in open_rolls(post) if same_name(r.actor, ally)]
    threaded = {int(t[5:]) for t in post.thread_refs() if t.startswith("roll:")}
    about = [r for r in rolls if threaded & set(r.ids)]
    if about:
        return about[-1]
    if request is not None:
        since = [r for r in rolls if r.rolled_at >= request.at]
        if since:
            return since[-1]
    return None


@handles(c.Help)
def help_ally(post: Post, cmd: c.Help):
    helper = post.character(cmd.actor, cmd).name
    if cmd.ally.strip().lower() == "me":
        raise NotAllowedError("you cannot help yourself", expected="the ally you help",
                              example="/help Charles")
    ally = post.find(cmd.ally).name
    if same_name(ally, helper):
        raise NotAllowedError(f"{helper} cannot help their own roll", expected="the ally you help",
                              example="/help Charles")
    request = next((h for h in post.play.helps if not h.confirmed and same_name(h.helper, helper)
                    and same_name(h.ally, ally)), None)
    ref = _open_roll_of(post, ally, cmd, request)
    if ref is not None:
        if not isinstance(ref.cmd, c.ActionCommand) or ref.cmd.skill == "":
            raise RulesError(f"{ally}'s roll is not an action that teamwork can help", source=cmd.source,
                             example=f"/help {quote(ally)}")
        if helper in ref.cmd.helpers:
            raise RulesError(f"{helper} already helps this roll of {ally}'s", source=cmd.source,
                             expected="help once per roll", example=f'/invoke "Deep Shadows" on #{ref.ids[-1] if ref.ids else 1}')
        cost = _turn_for_help(post, helper, open_roll=True, cmd=cmd)
        if request is not None:
            _drop(post, request)
        note = (Msg("{who} helps {ally}'s roll after the dice ({cost}).", who=helper, ally=ally, cost=cost) if cost
                else Msg("{who} helps {ally}'s roll after the dice.", who=helper, ally=ally))
        return revise(post, ref, helper=helper, note=note)
    if any(h.confirmed and same_name(h.helper, helper) and same_name(h.ally, ally) for h in post.play.helps):
        raise RulesError(f"{helper} already helps {ally}'s next roll", source=cmd.source,
                         expected="help once per roll", example=f"/help {quote(ally)}")
    cost = _turn_for_help(post, helper, open_roll=False, cmd=cmd)
    conflict = pc.active(post)
    exchange = conflict.turns.exchange if conflict is not None and pc.member(conflict, helper) else None
    if request is not None:
        _drop(post, request)
    post.play.helps.append(TeamHelp(post.play.new_id(), helper, ally, post.now, exchange=exchange))
    text = Msg("{who} will help {ally}'s next roll: +1 if {who} has at least {least} in the skill {ally} rolls, up to "
               "{ally}'s own rating in it; {who} shares that roll's costs.", who=helper, ally=ally,
               least=describe(post.system.teamwork.least, post.system.ladder))
    if cost:
        text = Joined([text, Msg(" ({cost}.)", cost=cost)])
    return NoteResult(cmd.source, helper, "help", text=text)


@handles(c.HelpAsk)
def help_ask(post: Post, cmd: c.HelpAsk):
    ally = post.character(cmd.actor, cmd).name
    asked = []
    for typed in cmd.helpers:
        who = post.find(typed, cmd.source)
        if same_name(who.name, ally):
            raise NotAllowedError("you cannot ask yourself for help", expected="the allies you ask",
                                  example="/help from Cassandra, Ruth")
        if any(same_name(h.helper, who.name) and same_name(h.ally, ally) for h in post.play.helps):
            continue
        h = TeamHelp(post.play.new_id(), who.name, ally, post.now, confirmed=False, deadline=post.deadline())
        post.play.helps.append(h)
        asked.append(who.name)
        post.ask(Ask(ref=_ref(h), who=who.name, deadline=h.deadline,
                     subject=Msg("{ally} asks for {who}'s help", ally=ally, who=who.name),
                     text=Msg("{who}, to help {ally}'s next roll reply {command} by {by} (it is {who}'s action).",
                              who=who.name, ally=ally, command=CommandLine(f"/help {quote(ally)}"),
                              by=pc.when(h.deadline))))
    if not asked:
        raise RulesError("everyone named already helps or has been asked", source=cmd.source,
                         expected="an ally not asked yet", example="/help from Cassandra")
    return NoteResult(cmd.source, ally, "help_ask", text=Msg("{ally} asks {who} for help with the next roll.", ally=ally,
                                                             who=and_names(asked)))


# --------------------------------------------------------------------------- when helps go


@deadline_job
def _help_deadlines(post: Post) -> list:
    """A request not confirmed by its deadline lapses; in a conflict, a help whose exchange
    has ended goes."""
    out = []
    for h in list(post.play.helps):
        if not _live(post, h):
            _drop(post, h)
        elif not h.confirmed and h.deadline is not None and post.now >= h.deadline:
            _drop(post, h)
            out.append(NoteResult(f"(deadline: help #{h.id})", h.ally, "help",
                                  text=Msg("{who} did not confirm by {by}: no help from {who} on {ally}'s next roll.",
                                           who=h.helper, by=pc.when(h.deadline), ally=h.ally)))
    return out


@on_scene_end
def _scene_end(post: Post) -> list:
    for h in list(post.play.helps):
        _drop(post, h)
    return []


@status_line
def help_status(post: Post) -> list[str]:
    lines = []
    for h in post.play.helps:
        if not _live(post, h):
            continue
        if h.confirmed:
            lines.append(Msg("{who} helps {ally}'s next roll.", who=h.helper, ally=h.ally))
        else:
            lines.append(Msg("Waiting for {who} to confirm help for {ally} by {by}.", who=h.helper, ally=h.ally,
                             by=pc.when(h.deadline)))
    return lines
