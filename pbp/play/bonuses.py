"""Fair play by default: what a player may not simply grant themselves waits for the GM.

* **A plain +N** on a player's action (``/overcome Athletics vs Fair +1``) is a judgement
  call, like a story detail: Fate leaves situational bonuses to the GM. Unless the campaign
  sets ``free_bonuses``, the action rolls at once *without* the bonus and stays open for
  invokes as every roll does (:mod:`pbp.play.invoking`); a **bonus request** #N goes to the
  GM, whose ``/approve`` (or a bare "approve" in reply) re-runs the roll with the bonus:
  same dice, the outcome recomputed, whatever hangs on it (a hit, a defence) updated. A
  denial, no answer by the deadline, or the roll closing first (the next action in turn
  order, the roller's ``/done``, the invoke window) leaves the roll as it fell. Rolling at
  once keeps play moving and the dice honest: nobody waits for the GM to roll, and nobody
  can roll again.
* **An aspect change** on a player's own sheet (high concept, trouble, other character
  aspects, or a situation aspect someone put on them) waits for the GM the same way; the
  player renames consequences and boosts freely (:func:`pbp.play.scenes.rename`).

Both are :class:`pbp.rules.fate_points.DetailRequest` of their own ``kind``: the same
numbering, ``/approve`` / ``/deny`` / ``/withdraw``, reply threads, reminders, deadlines
and status lines as story details (:mod:`pbp.play.compels`).
"""
from __future__ import annotations

from pbp.play.core import GM, NoteResult, Post
from pbp.play.sequence import on_bonus_held
from pbp.play.compels import GmRequest, open_request, request_kind
from pbp.play.invoking import open_roll_ids, open_rolls, revise, roll_ref_of
from pbp.rules import aspects as ra
from pbp.rules.fate_points import DetailRequest
from pbp.rules.results import ActionResult, Effect


@on_bonus_held
def ask_for_bonus(post: Post, cmd, actor: str, result: ActionResult, bonus: int) -> None:
    """The action rolled without the player's ``+bonus``; ask the GM for it."""
    ref = roll_ref_of(post, result)
    what = ref.summary if ref is not None else f"{actor}'s roll"
    request = DetailRequest(post.play.new_id(), actor, f"+{bonus} on {what}", post.now, post.deadline(),
                            kind="bonus", data={"bonus": bonus, "roll": result.roll_id})
    open_request(post, request,
          f"Bonus request #{request.id}: {actor}'s +{bonus} waits for the GM; the roll above is without it.",
          f"{actor} asks for a +{bonus} on {what}:\n  {cmd.source}\n"
          f"Approve it and the roll is re-run with the bonus (same dice), while it is still open.")
    result.effects.append(Effect("bonus_request", f"{actor}'s +{bonus} waits for the GM (bonus request "
                                 f"#{request.id}); the roll stands without it until the GM approves.",
                                 {"request": request.id, "bonus": bonus}))


def approve_bonus(post: Post, request: DetailRequest):
    """Re-run the open roll with the approved bonus; a closed roll keeps its result."""
    roll, bonus = request.data.get("roll"), int(request.data.get("bonus", 0))
    ref = next((r for r in open_rolls(post) if roll in r.ids), None)
    if ref is None:
        why = post.play.closed_rolls.get(str(roll), "it is no longer open")
        request.state, request.reason = "expired", f"roll #{roll} closed first"
        return NoteResult(f"/approve #{request.id}", GM, "approve",
                          text=f"Bonus request #{request.id} can no longer apply: roll #{roll} is closed "
                               f"({why}); the roll stands as it fell.")
    return revise(post, ref, bonus=bonus,
                  note=f"The GM approves bonus request #{request.id}: {request.character}'s +{bonus}.")


def bonus_still_open(post: Post, request: DetailRequest) -> bool:
    """Whether a bonus request's roll is still open."""
    roll = request.data.get("roll")
    return roll is None or roll in open_roll_ids(post.play)


def ask_for_rename(post: Post, who: str, aspect, new_name: str, source: str) -> NoteResult:
    """A player renames an aspect of their sheet: the GM approves the new name first."""
    request = DetailRequest(post.play.new_id(), who, f'"{aspect.name}" -> "{new_name}"', post.now,
                            post.deadline(), kind="aspect",
                            data={"aspect": aspect.name, "owner": aspect.owner, "to": new_name})
    open_request(post, request,
          f'Aspect change #{request.id}: {who} renames "{aspect.name}" to "{new_name}" once the GM approves.',
          f'{who} asks to rename the aspect "{aspect.name}" to "{new_name}".')
    return NoteResult(source, who, "aspect", text=f'Aspect change #{request.id}: "{aspect.name}" becomes '
                                                  f'"{new_name}" once the GM approves.')


def approve_rename(post: Post, request: DetailRequest) -> NoteResult:
    data = request.data
    changes = ra.rename_aspect(post.table, data["aspect"], data["to"], data.get("owner"), system=post.system)
    return NoteResult(f"/approve #{request.id}", GM, "approve",
                      text=f'The GM approves aspect change #{request.id}: "{data["aspect"]}" is now "{data["to"]}".',
                      changes=changes)


@request_kind("bonus")
class BonusRequest(GmRequest):
    """A held-back +N: approved, the open roll is re-run with it."""

    denied = "the roll stands without it"

    def approve(self, post: Post, request: DetailRequest):
        return approve_bonus(post, request)

    def waiting(self, post: Post, request: DetailRequest) -> str | None:
        return super().waiting(post, request) if bonus_still_open(post, request) else None


@request_kind("aspect")
class AspectChange(GmRequest):
    """A player's rename of a sheet aspect: approved, the aspect is renamed."""

    denied = "the aspect keeps its name"

    def approve(self, post: Post, request: DetailRequest):
        return approve_rename(post, request)
