"""Scenes open at the same time (issue 24, item 4): a split party.

The GM opens a scene beside the one in play by naming its PCs: ``/scene start "Docks" with
Ruth, Ghoul`` while "Warehouse" is open parks "Warehouse" and opens "Docks" for Ruth (and
the Ghoul). Each scene is its own thread (its root is the post that opened it) and keeps its
own part of the play state (:data:`pbp.play.state.SCENE_PARTS`: its conflict and turn
order, the reactions it waits for, its open rolls, its challenge or contest, the GM's fate
point pool for it) and its own situation aspects.

The play state holds the scene posts act in where it always has (``PlayState.scene``,
``conflict``...), so every handler works on "the scene" as before and a table that plays one
scene at a time never sees any of this; the other scenes wait in ``PlayState.elsewhere``,
each a :class:`pbp.play.state.ParkedScene`. A post acts in the scene of the thread it
answers: :func:`enter_thread` (the pipeline calls it before anything is applied) parks the
scene in play and brings that one in. A post that answers no scene's thread acts in the one
open scene its subject names, or else in the scene in play.

Parking a scene takes its situation aspects, zone aspects and boosts off the table (they
are kept with it, hidden ones hidden) and bringing it back puts them back, so one scene's
``/scene end`` never clears another's aspects, and its stress and recovery touch only the
characters in it (:func:`cast`).
"""
from __future__ import annotations

import re

from pbp.play.core import Post
from pbp.play.state import SCENE_PARTS, AspectRecord, ParkedScene, PlayState
from pbp.rules.recovery import SCENE_ASPECTS
from pbp.rules.state import Aspect


def park(post: Post) -> ParkedScene:
    """Take the scene in play, its parts and its aspects, off the play state and the table;
    the play state is left with no scene (fresh parts)."""
    play = post.play
    parked = ParkedScene(**{part: getattr(play, part) for part in SCENE_PARTS})
    fresh = PlayState()
    for part in SCENE_PARTS:
        setattr(play, part, getattr(fresh, part))
    kept = [a for a in post.table.aspects if a.kind in SCENE_ASPECTS]
    post.table.aspects = [a for a in post.table.aspects if a.kind not in SCENE_ASPECTS]
    parked.aspects = [AspectRecord(a.name, a.kind, a.owner, a.hidden, dict(a.free_invokes), dict(a.system_state))
                      for a in kept]
    return parked


def bring_back(post: Post, parked: ParkedScene) -> None:
    """Put a parked scene in play (the play state has none in play, :func:`park`)."""
    play = post.play
    for part in SCENE_PARTS:
        setattr(play, part, getattr(parked, part))
    post.table.aspects += [Aspect(name=a.name, kind=a.kind, owner=a.owner, free_invokes=dict(a.free_invokes),
                                  hidden=a.hidden, system_state=dict(a.system_state)) for a in parked.aspects]


def open_beside(post: Post) -> None:
    """Park the scene in play so that a new one opens beside it."""
    if post.play.scene is not None:
        post.play.elsewhere.append(park(post))


def enter(post: Post, number: int) -> bool:
    """Act in the open scene ``number`` (parking the one in play); False when none is."""
    play = post.play
    if play.scene is not None and play.scene.number == number:
        return True
    found = next((p for p in play.elsewhere if p.scene.number == number), None)
    if found is None:
        return False
    play.elsewhere.remove(found)
    if play.scene is not None:
        play.elsewhere.append(park(post))
    bring_back(post, found)
    play.elsewhere.sort(key=lambda p: p.scene.number)
    return True


def enter_thread(post: Post, chain: tuple[str, ...], subject: str = "") -> None:
    """Act in the scene whose thread the post is in: the one whose root is among the ids
    the post answers (``chain``: its References and In-Reply-To); for a post in no scene's
    thread, the one open scene its ``subject`` names (a new mail "Docks: Charles waits")."""
    post.scene_of_post = post.play.scene
    if not post.play.elsewhere:
        return
    ids = set(chain)
    scenes = [post.play.scene, *(p.scene for p in post.play.elsewhere)]
    if ids and any(s is not None and s.root in ids for s in scenes):
        found = next(s for s in scenes if s is not None and s.root in ids)
    else:
        named = [s for s in scenes if s is not None and _names(subject, s.name)]
        found = named[0] if len(named) == 1 else None
    if found is not None:
        enter(post, found.number)
    post.scene_of_post = post.play.scene


def _names(subject: str, name: str) -> bool:
    """Whether ``subject`` holds the scene's ``name`` as whole words, in any case."""
    return re.search(r"(?<!\w)" + re.escape(name.casefold()) + r"(?!\w)", subject.casefold()) is not None


def after_scene_end(post: Post) -> None:
    """When the scene in play ends and others are open, the next post acts in the oldest of
    them unless it answers another's thread."""
    play = post.play
    if play.scene is None and play.elsewhere:
        bring_back(post, play.elsewhere.pop(0))


def due_elsewhere(post: Post, reminder) -> None:
    """Bring into play the open scene whose deadline comes first, when it is before the one
    in play's (the deadline job runs on the scene in play)."""
    play = post.play
    if not play.elsewhere:
        return
    here = play.scene_deadline(reminder)
    first = min(play.elsewhere, key=lambda p: p.deadline(play, reminder) or post.now.max)
    there = first.deadline(play, reminder)
    if there is not None and there <= post.now and (here is None or there < here):
        enter(post, first.scene.number)


def cast(post: Post) -> set[str] | None:
    """The characters in the scene in play, when it names its PCs (None: every character)."""
    scene = post.play.scene
    if scene is None or not scene.members:
        return None
    conflict = post.play.conflict
    return {*scene.members, *scene.npcs, *(conflict.participants if conflict is not None else ())}


def readers(post: Post, gms: set[str]) -> set[str] | None:
    """The addresses that read the table mail of the scene the post acted in (the one it
    opened, or ended, or the one in play), when it names its PCs: their players and the GMs
    (None: every member)."""
    scene = post.scene_of_post or post.play.scene
    if scene is None or not scene.members:
        return None
    found = set(gms)
    for name in scene.members:
        ch = post.table.character(name)
        if ch is not None and ch.player:
            found.add(ch.player.lower())
    return found


def others(play: PlayState) -> list[dict]:
    """The other open scenes, as ``/table`` lists them."""
    return [{"number": p.scene.number, "name": p.scene.name, "members": list(p.scene.members),
             "conflict": p.conflict is not None and not p.conflict.ended} for p in play.elsewhere]

