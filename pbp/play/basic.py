"""Handlers that need no scene: sheets, fate points and the ``/again`` marker."""
from __future__ import annotations

from pbp import commands as c
from pbp.play.core import GM, NoteResult, Post, handles
from pbp.play.economy import gm_pool_text   # the pool's bookkeeping lives there
from pbp.rules import conflict as rc
from pbp.rules.fate_points import adjust_fate_points, spend_fate_point
from pbp.sheets_view import sheet_dict, table_sheet


@handles(c.Sheet)
def show_sheet(post: Post, cmd: c.Sheet):
    """A player's /sheet is in the table's mail, so it shows what the table may know; the
    GM's is answered to the GM alone, whole (hidden aspects, an NPC's skills and stunts)."""
    ch = post.character(cmd.character, cmd, for_reading=True)
    if post.author.is_gm:
        return NoteResult(cmd.source, ch.name, "sheet", sheet=sheet_dict(ch, post.table), gm_only=True)
    return NoteResult(cmd.source, ch.name, "sheet", sheet=sheet_dict(ch, post.table),
                      public_sheet=table_sheet(ch, post.table, npc_skills=post.flag("show_npc_skills")))


@handles(c.FpGive, c.FpTake)
def fp_give_take(post: Post, cmd: c.FpGive | c.FpTake):
    verb = "give" if type(cmd) is c.FpGive else "take"
    post.require_gm(f"/fp {verb}", '/fp spend "to declare a story detail"')
    ch = post.character(cmd.character, cmd, for_reading=True)
    change = adjust_fate_points(ch, cmd.amount if verb == "give" else -cmd.amount, verb)
    return NoteResult(cmd.source, ch.name, "fp", text=f"{ch.name}: fate points {change.before} -> {change.after}",
                      changes=[change])


@handles(c.FpSpend)
def fp_spend(post: Post, cmd: c.FpSpend):
    ch = post.character(cmd.character, cmd)
    change = spend_fate_point(ch, cmd.reason)
    why = f" ({cmd.reason})" if cmd.reason else ""
    return NoteResult(cmd.source, ch.name, "fp", text=f"{ch.name} spends a fate point{why}: "
                      f"{change.before} -> {change.after}", changes=[change])


@handles(c.FpShow)
def fp_show(post: Post, cmd: c.FpShow):
    if post.author.is_gm and not cmd.character:
        return NoteResult(cmd.source, GM, "fp", text=gm_pool_text(post), gm_only=True)
    ch = post.character(cmd.character, cmd, for_reading=True)
    s = "s" if ch.fate_points != 1 else ""
    text = f"{ch.name} has {ch.fate_points} fate point{s} (refresh {ch.refresh})"
    if ch.kind == "pc" or not post.author.is_gm:
        return NoteResult(cmd.source, ch.name, "fp", text=text)
    # what an NPC carries for a later scene's pool is the GM's business, answered to the GM alone
    s = "s" if ch.carried_points != 1 else ""
    text = f"{text}; carries {ch.carried_points} point{s} into a later scene's GM pool"
    conflict = post.play.conflict
    owed = rc.owed_at_end(conflict, ch.name) if conflict is not None and not conflict.ended else 0
    if owed:
        text += f", and {owed} more when the conflict ends"
    return NoteResult(cmd.source, ch.name, "fp", gm_only=True, text=text)



@handles(c.Again)
def again(post: Post, cmd: c.Again):
    """The pipeline has already let the post through its copy check (pbp.copies); the
    result says so on the table, with what changed when the author wrote it."""
    ch = _own_character(post)
    why = f": {cmd.changed}" if cmd.changed else " (a new attempt, not a copy of an earlier post)"
    return NoteResult(cmd.source, ch, "again", text=f"{ch} tries again{why}")


def _own_character(post: Post) -> str:
    own = [x.name for x in post.table.characters.values() if (x.player or "").lower() == post.author.email]
    return own[0] if len(own) == 1 else ("GM" if post.author.is_gm else post.author.email)


# Rolls and the four actions are handled in pbp.play.conflict (turn order, attacks across mails).


@handles(c.Mech)
def mech(post: Post, cmd: c.Mech):
    """``/mech in`` / ``/mech out``: into the cockpit or out (the system's own state: while in
    it, the mech's aspects and stunts layer on the pilot's; the d10 hack)."""
    ch = post.character(cmd.actor, cmd)
    change = post.system.character_state.board(ch, cmd.boarding, title=post.system.title or post.system.name,
                                               source=cmd.source)
    name = ch.system_state["mech"]["name"]
    text = (f"{ch.name} climbs into {name}'s cockpit: its aspects and stunts are {ch.name}'s too while piloting."
            if cmd.boarding else f"{ch.name} climbs out of {name}: its aspects and stunts wait in the cockpit.")
    return NoteResult(cmd.source, ch.name, "mech", text=text, changes=[change])
