"""Which of the table's mails each member gets (issue 24, item 5): mail people can bear.

Each member chooses a delivery mode (``/settings mail=mine``, kept with their other
settings, :mod:`pbp.play.people`):

* ``every`` (the default): every mail of the table, as before.
* ``mine``: only the table's mails that concern them: the result of their own post, one
  that asks them for something (their defence, their absorption, a compel on their
  character, a story detail), one that passes the turn (or the owed post of a paced scene)
  to them, one whose action names their character, and the answer to a post that replied
  to one of theirs. A GM in this mode still gets every mail that asks the GM (or an NPC)
  for something or passes the turn to an NPC: what the GM must act on.
* ``digest``: one mail a day instead (:mod:`pbp.digest`), holding the table's mails they
  did not get, in order; none when nothing happened. A table mail that asks them for an
  answer by a deadline or passes them the turn still comes at once, so a digest never
  costs them a defence or their turn, and so does the result of their own post.

A member may also mute scenes by name (``/mute "The Docks"``, ``/unmute``): the table's
mails in a muted scene reach them only when they concern them, and never a digest. Mails
of their own (a compel to accept, the GM's approvals, reminders, the GM's copy) are never
held back: they are for them alone. A pure leaf: it decides from the post, the store keeps
nothing here.
"""
from __future__ import annotations

from dataclasses import dataclass

from pbp.play.core import GM, Post
from pbp.play.people import MemberSettings


def turn_holders(post: Post) -> tuple[str, ...]:
    """Whose turn it is: the conflict's current actor, or who owes the next post of a
    scene the GM keeps the pace of with a posting order (:mod:`pbp.play.pace`)."""
    conflict = post.play.conflict
    if conflict is not None and not conflict.ended:
        return (conflict.turns.current,) if conflict.turns.current else ()
    pace = post.play.pace
    if pace is not None and pace.order:
        left = [s for s in pace.order if s not in pace.done]
        return tuple(left[:1])
    return ()


def players_of(post: Post, names, gms: set[str]) -> set[str]:
    """The addresses of the players of ``names`` (characters; GM and NPCs: every GM)."""
    found: set[str] = set()
    for name in names:
        if not name:
            continue
        if name == GM:
            found |= gms
            continue
        ch = post.table.character(name)
        if ch is not None and ch.player:
            found.add(ch.player.lower())
        elif ch is not None:
            found |= gms            # an NPC's business is the GM's
    return found


def _named(results) -> set[str]:
    """The characters the post's rolls act against (the opposition a roll names)."""
    names: set[str] = set()
    for res in results:
        value = getattr(getattr(res, "opposition", None), "character", None)
        if isinstance(value, str):
            names.add(value)
    return names


@dataclass(frozen=True)
class Readers:
    """Who gets a post's table mail now (``to``), and who is held back for their digest
    (``digest``); the members left out of both got nothing of it (``mine`` or a muted scene)."""

    to: tuple[str, ...]
    digest: tuple[str, ...] = ()


def sort_readers(post: Post, readers: list[str], results, *, replied_author: str | None, gms: set[str]) -> Readers:
    """Split the table mail's ``readers`` by each one's delivery mode and muted scenes."""
    people = post.play.people
    if not any(people.get(r) is not None and (people[r].mail != "every" or people[r].muted) for r in readers):
        return Readers(to=tuple(readers))
    passed = {t for t in turn_holders(post) if t not in post.turn_before}
    author = (post.author.email or "").lower()
    # what cannot wait for a digest: an answer asked by a deadline, the turn, their own post
    urgent = players_of(post, {a.who for a in post.asks if a.deadline is not None} | passed, gms) | {author}
    concerns = urgent | players_of(post, {a.who for a in post.asks} | _named(results), gms)
    if replied_author:
        concerns.add(replied_author.lower())
    scene = post.scene_of_post or post.play.scene
    scene_name = getattr(scene, "name", None)
    to, held = [], []
    for email in readers:
        settings = people.get(email) or MemberSettings()
        if settings.mutes(scene_name) or settings.mail == "mine":
            if email in concerns:
                to.append(email)
        elif settings.mail == "digest":
            (to if email in urgent else held).append(email)
        else:
            to.append(email)
    return Readers(to=tuple(to), digest=tuple(held))
