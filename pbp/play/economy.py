"""Fate points by post outside compels: the GM's pool, hostile invokes paid out, a
session's refresh. Compels, story details and the requests that wait for the GM are
:mod:`pbp.play.compels`.

* **The GM's pool** opens with each scene (one point per PC, plus what NPCs in the scene
  carry); NPCs' invokes are paid from it: every action and re-run resolves with
  :class:`pbp.rules.fate_points.GMPool` as its payer (:func:`pbp.play.core.resolve_action`,
  :mod:`pbp.play.invoking`), and :mod:`pbp.play.invoking` opens the pool at an NPC's
  need. A campaign that plays without ``/scene start`` gets one pool, opened when first
  needed.
* **Hostile invokes** are owed in ``PlayState.ledger`` and paid when the scene ends
  (:func:`pay_owed_at_scene_end`) or when a conflict ends (:func:`pay_owed_at_conflict_end`):
  the steps ``economy.scene_payout`` and ``economy.conflict_payout`` of
  :data:`pbp.play.sequence.SEQUENCE`. The open rolls close first
  (:meth:`pbp.play.state.PlayState.close_rolls`), so a paid-out hostile invoke can no longer
  be vetoed or re-run.

This module imports nothing of the invoking code: :mod:`pbp.play.invoking` asks it for the
pool, never the other way round.
"""
from __future__ import annotations

from pbp.errors import RulesError
from pbp.play.core import GM, Post
from pbp.play.sequence import after_action, on_conflict_end, on_scene_end, on_scene_start
from pbp.rules import fate_points as fp
from pbp.rules.results import Change


# --------------------------------------------------------------------------- the GM's pool


def _scene_key(post: Post) -> str:
    scene = post.play.scene
    return f"{scene.number}:{scene.name}" if scene is not None else ""


def open_scene_pool(post: Post, npcs: list[str] | None = None) -> list[Change]:
    """Open the GM's pool for the current scene: one point per PC, plus the points the
    NPCs in it carry (``npcs``; by default the scene's NPCs, given at its start or by
    ``/npc join``, and those in the current conflict)."""
    if npcs is None:
        conflict = post.play.conflict
        scene = post.play.scene
        npcs = list(dict.fromkeys([*(scene.npcs if scene is not None else ()),
                                   *(conflict.participants if conflict is not None else ())]))
    present = [ch for ch in (post.table.character(n) for n in npcs) if ch is not None and ch.kind != "pc"]
    # "a pool of fate points equal to the number of PCs": in a scene that names its PCs (a
    # split party, pbp.play.parallel), the PCs in it
    members = post.play.scene.members if post.play.scene is not None else []
    pcs = sum(1 for ch in post.table.characters.values() if ch.kind == "pc" and (not members or ch.name in members))
    ledger = post.play.ledger
    carry = 1 if ledger.compel_point and post.play.pool_scene is not None else 0
    ledger.compel_point = False
    changes = fp.open_scene(ledger, pcs, present, compel_carry=carry)
    post.play.pool_scene = _scene_key(post)
    return changes


def pool_is_open(post: Post) -> bool:
    """Whether the current scene's pool has been opened (at its start, or when first needed)."""
    return post.play.pool_scene == _scene_key(post)


def npcs_enter(post: Post, typed: list[str]) -> tuple[list[str], list[Change]]:
    """NPCs enter the current scene (``/npc join``). With the scene's pool open, what each
    carries joins it now ("Your Fate Points": the pool counts the NPCs in the scene who
    conceded earlier); otherwise it joins when the pool opens."""
    scene = post.play.scene
    names, changes = [], []
    for name in typed:
        ch = post.find(name)
        if ch.player:
            raise RulesError(f"{ch.name} is a player's character; /npc join brings NPCs into the scene",
                             source=post.command.source if post.command else "", example="/npc join Ghoul")
        names.append(ch.name)
        if ch.name in scene.npcs:
            continue
        scene.npcs.append(ch.name)
        if post.play.pool_scene == _scene_key(post) and ch.carried_points:
            before = post.play.ledger.gm_pool
            post.play.ledger.gm_pool += ch.carried_points
            changes += [Change("carried_points", ch.name, ch.carried_points, 0, "brought into the GM's pool"),
                        Change("gm_pool", GM, before, post.play.ledger.gm_pool, f"{ch.name} joins the scene")]
            ch.carried_points = 0
    return names, changes + ensure_pool(post)


def ensure_pool(post: Post) -> list[Change]:
    """The pool of the current scene, opened now if no scene start opened it."""
    if pool_is_open(post):
        return []
    return open_scene_pool(post)


def gm_pool_text(post: Post) -> str:
    """The GM's ``/fp`` (and a line of the GM's ``/table``): the current scene's pool and
    what NPCs carry for a later one."""
    pool = post.play.ledger.gm_pool
    text = (f"The GM's pool: {pool} fate point{'s' if pool != 1 else ''}" if pool_is_open(post)
            else "The GM's pool opens with the scene's first need (one point per PC)")
    carried = [(ch.name, ch.carried_points) for ch in post.table.characters.values() if ch.carried_points]
    if carried:
        text += "; NPCs carry " + ", ".join(f"{n} {p}" for n, p in carried) + " for a later scene"
    return text + "."


def pay_owed_at_scene_end(post: Post) -> list[Change]:
    """The scene is over: its open rolls close (a paid-out hostile invoke can no longer be
    vetoed or re-run), and hostile invokes' points go to the aspects' owners (a PC's sheet;
    an NPC carries them to a later scene's pool)."""
    post.play.close_rolls(lambda r: True, "the scene has ended")
    return fp.pay_owed(post.play.ledger, post.table)


def pay_owed_at_conflict_end(post: Post) -> list[Change]:
    """"At the end of a conflict ... the GM also pays out fate points owed to players for
    hostile invokes that happened during the conflict": the same payout (open rolls close
    with the conflict), for the conflict code to call when a conflict ends."""
    post.play.close_rolls(lambda r: True, "the conflict is over")
    return fp.pay_owed(post.play.ledger, post.table)


def start_session(post: Post) -> list[Change]:
    """Refresh every PC up to their refresh (more carries over)."""
    return [ch for pc in post.table.characters.values() if pc.kind == "pc" for ch in fp.start_session(pc)]


def total_points(post: Post) -> int:
    """Every fate point in the campaign: on PCs' sheets, carried by NPCs, in the GM's pool,
    owed by hostile invokes and held in compels' escrow (what the property tests watch)."""
    table, play = post.table, post.play
    return (sum(ch.fate_points for ch in table.characters.values() if ch.kind == "pc")
            + sum(ch.carried_points for ch in table.characters.values())
            + play.ledger.gm_pool + play.ledger.owed_total + sum(x.escrow for x in play.compels))


@on_scene_start
def scene_pool_opens(post: Post) -> list[Change]:
    return open_scene_pool(post)


@after_action
def gm_side_acted(post: Post, cmd, actor: str, result) -> None:
    """An NPC's action is the GM's opportunity to spend the point a compel brought: a point
    that ends a scene unspent only carries over when no NPC acted after the compel."""
    who = post.table.character(actor) if actor else None
    if who is not None and who.kind != "pc":
        post.play.ledger.compel_point = False


@on_scene_end
def scene_payout(post: Post) -> list[Change]:
    return [ch for ch in pay_owed_at_scene_end(post) if ch.what != "owed"]


@on_conflict_end
def conflict_payout(post: Post) -> list[Change]:
    if "conflict" not in post.system.hostile_payout:     # the d10 hack pays after the scene
        post.play.close_rolls(lambda r: True, "the conflict is over")
        return []
    return [ch for ch in pay_owed_at_conflict_end(post) if ch.what != "owed"]
