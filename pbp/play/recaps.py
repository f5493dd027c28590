"""``/recap``: the scene so far in a few lines (:mod:`pbp.archive.recap`), from the results
the table's mails held in this scene (the archive's rows), the aspects in play that the
table may know and whose turn it is. ``/recap "NOTE"`` by the GM keeps the note, which
leads every recap of the scene from then on (in mail and on the archive's scene page)."""
from __future__ import annotations

from pbp import commands as c
from pbp.archive.recap import recap as recap_lines
from pbp.archive.view import scene_facts
from pbp.errors import RulesError
from pbp.i18n import N_, Joined, Msg
from pbp.play.core import NoteResult, Post, handles

NOTE_EXAMPLE = '/recap "The warehouse is burning and the Ghoul has fled into the sewers."'


@handles(c.Recap)
def recap(post: Post, cmd: c.Recap):
    scene = post.play.scene
    if cmd.note:
        post.require_gm(N_("a note that leads the recap"), NOTE_EXAMPLE)
    if scene is None:
        raise RulesError("there is no scene in play to recap", source=cmd.source,
                         expected="a scene in play (the GM starts one with /scene start)",
                         example='/scene start "The Warehouse"')
    key = str(scene.number)
    if cmd.note:
        post.play.recap_notes[key] = cmd.note
    conflict = post.play.conflict
    turn = conflict.turns.current if conflict is not None and not conflict.ended else None
    lines = recap_lines(scene_facts(post.campaign, scene.number),
                        in_play=[a.name for a in post.table.aspects if not a.hidden], turn=turn,
                        note=post.play.recap_notes.get(key, ""))
    text = Joined([Msg("The story so far in {scene}:", scene=scene.name),
                   *(part for line in lines for part in ("\n- ", line))])
    return NoteResult(cmd.source, post.speaker(), "recap", text=text)
