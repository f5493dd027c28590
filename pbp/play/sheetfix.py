"""``/sheet set NAME KEY=VALUE ...``: the GM's small fixes to a sheet by mail.

The same change as ``pbp character set`` on the server (:mod:`pbp.sheetedit`): the sheet
with the keys changed is checked with the import's rules, and only the differences apply;
the play state (fate points unless set, marked stress, consequences, free invokes) stays.
The play state has keys of its own (``stress.physical=x__``, ``stress.physical.2=true``,
``consequences.mild="Bruised Ribs"``, ``free_invokes."Deep Shadows"=1``, ``taken_out=no``,
``carried_points=2``), applied after the sheet (:func:`pbp.sheetplay.apply_play`).
The post's changes go into the sheet history like any post's. By mail, the keys that live
outside the character's row or change who is a member (``description``, ``player``,
``kind``) are left to the server's ``pbp character set``.
"""
from __future__ import annotations

from pbp import commands as c
from pbp.errors import ConfigError, RulesError, SheetError
from pbp.play.core import GM, NoteResult, Post, handles, quote
from pbp.sheetdiff import describe_diff
from pbp.sheetedit import apply_to_table, set_key, sheet_data
from pbp.sheetplay import apply_play, play_data, split_play
from pbp.sheetfile import parse_sheet

SERVER_ONLY = ("description", "player", "kind")


@handles(c.SheetSet)
def sheet_set(post: Post, cmd: c.SheetSet):
    post.require_gm("/sheet set", "/sheet set Ruth fate_points=4")
    ch = post.find(cmd.character)
    example = f"/sheet set {quote(ch.name)} fate_points=4"
    data = sheet_data(post.campaign, post.table, ch)
    for pair in cmd.values:
        key, _, value = pair.partition("=")
        if key in SERVER_ONLY:
            raise RulesError(f"{key} is changed on the server: pbp character set {ch.name} {key}=...",
                             expected="a key of the sheet itself (fate_points, refresh, skills.SKILL, aspects...)",
                             example=example)
        try:
            set_key(data, key, value)
        except ConfigError as exc:
            raise RulesError(str(exc), expected=exc.hint or "a sheet key and its value", example=example) from None
    data, play = split_play(data)
    try:
        sheet = parse_sheet(data, post.system, source=f"{ch.name}'s sheet")
    except SheetError as exc:
        raise RulesError(f"{exc}: " + "; ".join(exc.problems), expected="a sheet the rules allow",
                         example=example) from None
    npc_hidden = not ch.player and not post.flag("show_npc_skills")
    before, before_public = _seen(post, ch), _seen(post, ch, public=True, npc_hidden=npc_hidden)
    notes = apply_to_table(post.system, post.table, ch, sheet)
    try:
        apply_play(post.table, ch, play)
    except SheetError as exc:
        raise RulesError("; ".join(exc.problems), expected="the play state as the sheet has it (/sheet "
                         f"{quote(ch.name)})", example=example.replace("fate_points=4", f"stress.{post.system.tracks[0]}=x__")) from None
    after, after_public = _seen(post, ch), _seen(post, ch, public=True, npc_hidden=npc_hidden)
    said = describe_diff(before, after) + notes
    text = f"The GM fixes {ch.name}'s sheet: " + ("; ".join(said) if said else "nothing changes") + "."
    # The table is told what it may see: never hidden aspects or free invokes on one, and
    # an NPC's skills, stunts and system numbers (approaches) only where the campaign shows
    # them (show_npc_skills); a fix of nothing else is the GM's alone.
    told = describe_diff(before_public, after_public) + notes
    if told == said:
        return NoteResult(cmd.source, GM, "sheet_set", text=text)
    if not told:
        return NoteResult(cmd.source, GM, "sheet_set", text=text, gm_only=True)
    return NoteResult(cmd.source, GM, "sheet_set", text=text,
                      public_text=f"The GM fixes {ch.name}'s sheet: " + "; ".join(told) + ".")


def _seen(post: Post, ch, *, public: bool = False, npc_hidden: bool = False) -> dict:
    """What the reply tells of a sheet: the sheet's own values, its aspects, stunts and
    the system's own state (the d10 hack's approaches and mech), and the play state the GM
    may correct (:func:`pbp.sheetplay.play_data`). The ``public`` view is the table's: no
    hidden aspect nor the free invokes on one, and with ``npc_hidden`` (an NPC, in a
    campaign not showing NPCs' numbers) no skills, stunts or secret system state."""
    play = play_data(post.table, ch)
    hidden = {a.name for a in post.table.aspects if a.hidden}
    own = [a for a in post.table.aspects if a.owner == ch.name and a.kind in ("high_concept", "trouble", "character")]
    state, _ = post.system.character_state.view(ch, secret=public and npc_hidden)
    seen = {} if public and npc_hidden else {"skills": dict(ch.skills), "stunts": [s.name for s in ch.stunts]}
    seen.update(state)
    seen.update({"refresh": ch.refresh, "fate_points": ch.fate_points, "aliases": list(ch.aliases),
                 "aspects": sorted(a.name for a in own if not a.hidden)})
    if not public:
        seen["hidden aspects"] = sorted(a.name for a in own if a.hidden)
    seen.update({"stress": {t: list(b) for t, b in ch.stress.items()}, "consequences": play["consequences"],
                 "free_invokes": {k: v for k, v in play["free_invokes"].items() if public is False or k not in hidden},
                 "taken_out": play["taken_out"], "carried_points": play["carried_points"]})
    return seen
