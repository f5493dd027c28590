"""Keeping each applied post for the archive, in the post's own transaction.

The pipeline calls :func:`keep` once a post's (or deadline round's) replies are written:
the author's own text, the table's reply and the GM's copy in Markdown (rendered from
the results, the way a forum reads them), the private mails' text, the results as the
table read them (for the recap), the scene, whose turn it is and the rolls' ids. Nothing
here parses the MIME that was sent. What the archive needs besides, it reads from the
ledger (``RollRecord``), the sheet history (``SheetChange``) and the campaign's rows.
"""
from __future__ import annotations

from pbp.store import models as m
from pbp.store.prepared import Insert, Select

#: Prepared once per database (issue 23: peewee's SQL build cost more than the insert).
_INSERT = Insert(m.ArchivePost, ("campaign", "post_id", "source", "author", "author_name", "at", "subject", "text",
                                 "command_lines", "scene", "scene_number", "scene_open", "turn", "shown", "gm",
                                 "private", "facts", "roll_ids"))
_LAST_SCENE = Select(lambda campaign_id: m.ArchivePost.select(
    m.ArchivePost.scene, m.ArchivePost.scene_number, m.ArchivePost.scene_open)
    .where(m.ArchivePost.campaign == campaign_id).order_by(m.ArchivePost.id.desc()).limit(1))


def keep(campaign: m.Campaign, *, post, source, commands, seen, shown: str, gm: str, private: list[dict],
         sent: list[dict]) -> tuple[int, list[dict]] | None:
    """One ``ArchivePost`` row. ``post`` is the applied :class:`pbp.play.core.Post`,
    ``source`` the :class:`pbp.posts.NeutralPost` (None for a deadline round), ``seen`` the
    :class:`pbp.views.Views`, ``shown``/``gm`` the Markdown bodies ("" when not sent).
    Returns the row's id and its ``facts`` (the post's message row refers to them rather
    than repeat them, :func:`pbp.pipeline._kept_result`); None when no row was kept."""
    if source is None and not sent:
        return None
    play = post.play
    conflict = play.conflict
    turn = conflict.turns.current if conflict is not None and not conflict.ended else None
    scene = play.scene
    name, number = (scene.name, scene.number) if scene is not None else (None, None)
    acted = post.scene_of_post
    if acted is not None and acted is not scene:    # a split party's scene it ended, another now in play
        name, number, scene, turn = acted.name, acted.number, None, None
    elif scene is None:             # a post that ended the scene belongs to it
        last = _LAST_SCENE(campaign.id)
        if last and last[0]["scene_open"]:
            name, number = last[0]["scene"], last[0]["scene_number"]
    facts = [r.to_dict() for r in seen.table] if shown else []
    if source is not None:
        post_id, kind, text, subject = source.id, ("mail" if source.source == "mail" else "forum"), \
            source.new_text, source.subject
        author, author_name = source.author, source.author_name
    else:
        post_id, kind, text, subject, author, author_name = sent[0]["message_id"], "deadline", "", "", "", ""
    row_id = _INSERT(
        campaign=campaign.id, post_id=post_id, source=kind, author=author, author_name=author_name or "",
        at=post.now, subject=subject or "", text=text or "",
        command_lines=sorted({cmd.line for cmd in commands or ()}),
        scene=name, scene_number=number, scene_open=scene is not None,
        turn=turn, shown=shown, gm=gm, private=private, facts=facts,
        roll_ids=[rid for rid, _ in post.ledger.values()])
    return row_id, facts
