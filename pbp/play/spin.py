"""Spin, held by mail (early Fate, 002_3a4e52a093e280aa.txt, "Spin").

"If a character gets 3 or more shifts on an action, he gets to spin that action. ... As a
default, spin can add +1 to either his own next action, or another player's, as long as the
player can relate that action to the action that his character took to get the spin."

By mail the spin is held and named later:

* A roll whose result carries a ``spin`` effect (the system's tiers report it,
  ``EarlyTiers.note``) holds a spin under the roll's id, for the roller.
* A later action names it: ``+spin`` (the actor's own) or ``+spin #12`` (the spin of roll
  #12, the roller's or another player's). It adds the system's ``spin_bonus`` (+1) to that
  action's effort, shown as its own term, and is used up. Writing it is the player relating
  the action to the spinning one; the GM's approval is the GM's to withhold by reply, as for
  any narration.
* **Expiry** (a documented choice: the text speaks of the *next* action): the roller's spin
  lapses when the roller takes another action without it; any held spin lapses at the end
  of the scene and after the campaign's ``reaction_deadline_hours`` from the roll.
* An invoke after the dice (or a veto) that moves the roll across 3 shifts gives or takes
  its spin (``spin_follows``); a spin already used stays used.
* These steps are early Fate's own (``EARLY_FATE.steps``, ``SPIN_STEPS``): they run in its
  campaigns only. Any other system refuses ``+spin`` in the rules core
  (``spin_bonus == 0``, :func:`pbp.rules.actions.resolve`).
"""
from __future__ import annotations

from dataclasses import replace

from pbp.commands import ActionCommand, SpinUse
from pbp.errors import RulesError
from pbp.play.core import Post
from pbp.play.sequence import after_action, before_action, on_scene_end, prepare_action, roll_revised
from pbp.play.dates import when
from pbp.play.state import HeldSpin
from pbp.rules.names import same_name
from pbp.rules.results import Change, Effect


def _live(post: Post) -> list[HeldSpin]:
    post.play.spins[:] = [s for s in post.play.spins if s.expires > post.now]
    return post.play.spins


@prepare_action
def own_spin(post: Post, cmd, actor: str):
    """``+spin`` names the actor's own held spin: the action takes its number (``+spin #12``),
    so its term reads ``spin #12`` like anyone's."""
    if not isinstance(cmd, ActionCommand) or cmd.spin is None or cmd.spin.roll or not post.system.spin_bonus:
        return cmd
    own = [s for s in _live(post) if same_name(s.owner, actor)][-1:]
    return replace(cmd, spin=SpinUse(own[0].roll)) if own else cmd


@before_action
def use_spin(post: Post, cmd, actor: str) -> None:
    """Check and use up the spin an action names; the actor's own unused spins lapse."""
    if not isinstance(cmd, ActionCommand):
        return
    spins = _live(post)
    if cmd.spin is None:
        spins[:] = [s for s in spins if not same_name(s.owner, actor)]   # "his own next action"
        return
    if cmd.spin.roll:
        found = [s for s in spins if s.roll == cmd.spin.roll]
    else:
        found = [s for s in spins if same_name(s.owner, actor)][-1:]
    if not found:
        held = ", ".join(f"#{s.roll} ({s.owner}'s, until {when(s.expires)})" for s in spins) or "none"
        what = f"no spin #{cmd.spin.roll} is held" if cmd.spin.roll else f"{actor} holds no spin"
        raise RulesError(f"{what} (spins held: {held})", source=cmd.source,
                         expected="+spin #ID of a spin that is held, or the action without +spin",
                         example=(cmd.source.split(" +spin")[0] + f" +spin #{spins[0].roll}") if spins
                         else cmd.source.split(" +spin")[0])
    spins.remove(found[0])
    spins[:] = [s for s in spins if not same_name(s.owner, actor)]


@after_action
def hold_spin(post: Post, cmd, actor: str, result) -> None:
    """A roll with 3+ shifts holds a spin under its id (the roll's own, taken when it was made)."""
    spin = next((e for e in getattr(result, "effects", ()) if e.kind == "spin"), None)
    if spin is None or not isinstance(cmd, ActionCommand) or result.roll_id is None:
        return
    expires, roll = post.deadline(), result.roll_id
    post.play.spins.append(HeldSpin(roll, result.actor, spin.data.get("bonus", 1), expires))
    at = result.effects.index(spin)
    result.effects[at] = Effect("spin", f"{spin.text}: {result.actor}'s spin #{roll}, held until "
                                        f"{when(expires)} or the scene's end (+spin, or +spin #{roll} "
                                        f"for another player)", {**spin.data, "roll": roll})


@roll_revised
def spin_follows(post: Post, ref, old, new) -> list[str]:
    """An invoke after the dice (or a veto) that moves a roll across 3 shifts gives or takes
    its spin; a spin already used stays used."""
    if not ref.ids:
        return []
    roll = ref.ids[0]
    had = any(e.kind == "spin" for e in old.effects)
    has = next((e for e in new.effects if e.kind == "spin"), None)
    held = [s for s in post.play.spins if s.roll == roll]
    if has is not None and not had:
        expires = post.deadline()
        post.play.spins.append(HeldSpin(roll, new.actor, has.data.get("bonus", 1), expires))
        return [f"{new.actor} now holds spin #{roll} until {when(expires)} or the scene's end (+spin #{roll})."]
    if has is None and had and held:
        post.play.spins[:] = [s for s in post.play.spins if s.roll != roll]
        return [f"Spin #{roll} is gone: the roll no longer has 3 shifts."]
    return []


@on_scene_end
def spins_lapse(post: Post) -> list[Change]:
    gone = [Change("spin", f"#{s.roll} ({s.owner})", "held", "lapsed", "the scene ended") for s in post.play.spins]
    post.play.spins.clear()
    return gone
