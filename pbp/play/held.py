"""Actions held until their turn (a campaign's ``hold_out_of_turn``, off by default).

With it on, an action a player (or the GM for an NPC) writes when it is not that
character's turn is not refused: it waits in the play state, the reply says so, and it
runs when the turn is handed to that character, by a ``/next`` in anyone's post or by the
deadline's default handoff. It runs as its author wrote it, in the post that hands the
turn on, and its result is in that post's reply to the table (its author among the
recipients). A held action the table no longer allows when its turn comes (the
conflict ended, the target is out) is dropped with a note saying why; nothing of it
stays. A character holds one action at a time: a second replaces the first.
"""
from __future__ import annotations

import copy

from pbp import commands as c
from pbp.errors import CommandError
from pbp.play.core import Author, NoteResult, Post
from pbp.play.sequence import on_out_of_turn, on_turn_holder
from pbp.play.state import Held

HOLDABLE = (c.Overcome, c.Advantage, c.Attack, c.Treat)


def may_hold(post: Post, cmd: c.Command, exc: CommandError) -> bool:
    """An out-of-turn refusal of an action, in a campaign that holds them."""
    return exc.depends_on == "turn" and isinstance(cmd, HOLDABLE) and post.flag("hold_out_of_turn") \
        and post.play.conflict is not None and post.play.conflict.turns.current is not None


@on_out_of_turn
def hold_for_turn(post: Post, cmd: c.Command, exc: CommandError) -> NoteResult | None:
    """An action refused out of turn waits for its turn, where the campaign holds them."""
    return hold(post, cmd) if may_hold(post, cmd, exc) else None


def hold(post: Post, cmd: c.Command) -> NoteResult:
    who = post.character(getattr(cmd, "actor", None), cmd).name
    replaced = [h for h in post.play.held if h.who == who]
    post.play.held = [h for h in post.play.held if h.who != who]
    post.play.held.append(Held(id=post.play.new_id(), who=who, author=post.author.email, role=post.author.role,
                               cmd=cmd, at=post.now))
    current = post.play.conflict.turns.current
    text = f"It is {current}'s turn, not {who}'s: this action is held and runs when the turn comes to {who}."
    if replaced:
        text += f" It replaces the action held before ({replaced[0].cmd.source})."
    return NoteResult(cmd.source, who, "held", text=text)


@on_turn_holder
def run_due(post: Post, apply) -> list:
    """Run the held action of whoever holds the turn now and has not acted (``apply``:
    the command runner, :func:`pbp.play.core.apply_command`)."""
    results = []
    while True:
        conflict = post.play.conflict
        if conflict is None or conflict.ended or conflict.turns.phase != "turn":
            return results
        due = next((h for h in post.play.held if h.who == conflict.turns.current), None)
        if due is None:
            return results
        post.play.held = [h for h in post.play.held if h.id != due.id]
        results += _run(post, due, apply)


def _run(post: Post, due: Held, apply) -> list:
    saved = (copy.deepcopy(post.table), copy.deepcopy(post.play), len(post.asks), len(post.tells),
             len(post.follow), post.author, post.command)
    note = NoteResult(due.cmd.source, due.who, "held_runs",
                      text=f"{due.who}'s turn: the action held since {due.at:%a %H:%M} UTC runs now.")
    post.author = Author(due.author, due.role)
    try:
        result = apply(post, due.cmd)
    except CommandError as exc:
        table, play, asks, tells, follow, _, _ = saved
        post.table.characters, post.table.aspects = table.characters, table.aspects
        post.play.__dict__.update(play.__dict__)     # with the ids it took: they are given again
        del post.asks[asks:], post.tells[tells:], post.follow[follow:]
        note.text = f"{due.who}'s held action ({due.cmd.source}) no longer applies and is dropped: {exc.message}."
        return [note]
    finally:
        post.author, post.command = saved[5], saved[6]
    return [note, result]
