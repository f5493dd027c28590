"""The sequence of play: what happens around an action, at a scene's or a conflict's end,
in the status lines and at deadlines, written once as data (:data:`SEQUENCE`), and the
decorators with which a feature module gives the code of a named step. Below
:mod:`pbp.play.core` and every feature module.
"""
from __future__ import annotations

from typing import Callable

from pbp.rules.system import System
from pbp.rules.systems import SYSTEMS


# --------------------------------------------------------------------------- the sequence
# What happens around an action, and when a scene or a conflict ends, written once: each
# point of the sequence names its steps in the order they run. A module gives the code of a
# step with ``@STAGE.step`` (``@after_action``...); a step that is not named here, or is
# given twice, is refused when the module is imported, and a named step nobody gave is
# refused when the sequence first runs (:func:`check_sequence` at the end of
# ``pbp.play``'s import). So the order never depends on which module was imported first.
# (Cf. GNU Mailman's ``core/pipelines.py``: the pipeline's order is data in one place.)

#: The slot of a point where the campaign's system's own steps run (``System.steps``: early
#: Fate's spin, the d10 hack's costs); a campaign whose system has none there runs only the
#: point's own steps, so a Fate Condensed campaign never runs spin's.
SYSTEM_STEPS = "(the system's steps)"

SEQUENCE: dict[str, tuple[str, ...]] = {
    # fn(post, cmd, actor) -> cmd: what the play state adds to an action before it rolls
    "prepare_action": (
        "teamwork._take_helps",         # confirmed helps waiting for the actor
        "challenges._take_task",        # an overcome that is a challenge's task: its difficulty
        "contests._side_roll",          # a contest side's roll of the exchange
        SYSTEM_STEPS,                   # early Fate: a bare +spin takes the number of the actor's own
    ),
    # fn(post, cmd, actor): just before the dice
    "before_action": (
        "invoking._before",             # close the rolls this action ends; picture the table
        SYSTEM_STEPS,                   # early Fate: use up the spin the action names
    ),
    # fn(post, cmd, actor, result): just after the dice
    "after_action": (
        "invoking._after",              # keep the roll open for invokes after the dice
        "challenges._task_taken",
        "contests._rolled",
        SYSTEM_STEPS,                   # the d10 hack: a cost for the GM to name; early Fate: 3+ shifts hold a spin
        "overview._could_invoke",       # the line of what the roller could still invoke
        "economy.gm_side_acted",        # an NPC acted: a compel's point is no longer unspendable
    ),
    # fn(post, roll, old, new) -> notes: after a roll is re-run (an invoke after the dice, a veto)
    "roll_revised": (
        "invoking._pending_follow",     # the defence or absorption waiting on it
        "invoking._harm_follow",        # harm already absorbed from it
        "challenges._task_revised",
        "contests._revised",
        SYSTEM_STEPS,                   # a cost or a spin follows the re-run roll
    ),
    # fn(post, cmd, actor, result, bonus): after the after_action steps, when a player's plain
    # +N was held back from the roll (:func:`held_bonus`)
    "bonus_held": (
        "bonuses.ask_for_bonus",        # the GM approves the +N, and the roll is re-run with it
    ),
    # fn(post, cmd, exc) -> a result, or None: an action refused because it is not its turn
    "out_of_turn": (
        "held.hold_for_turn",           # held until its turn, in a campaign that holds them
    ),
    # fn(post, apply) -> results: after each command and each deadline round, for whoever
    # holds the turn now (``apply``: :func:`apply_command`)
    "turn_holder": (
        "held.run_due",                 # the action held for them runs
    ),
    # fn(post) -> changes
    "scene_start": (
        "economy.scene_pool_opens",
    ),
    "scene_end": (
        "economy.scene_payout",         # open rolls close, hostile invokes are paid
        "teamwork._scene_end",
        "challenges._scene_end",
        "contests._scene_end",
        SYSTEM_STEPS,                   # costs and spins lapse
    ),
    "conflict_end": (
        "economy.conflict_payout",      # open rolls close, hostile invokes are paid
    ),
    # fn(post, who, terms) -> True to hold the conflict's end
    "conceded": (
        "concession.offer_concession",
    ),
    # fn(post, AbsorbResult)
    "taken_out": (
        "concession.offer_other_outcome",
    ),
    # fn(post): once every command of a post (or a deadline round) has applied and its rolls
    # are in the ledger, just before the reply is written
    "after_post": (
        "exchanges.settle_turn",         # the turn clock restarts, the handoff is asked for
        "invoking.harm_after",          # an NPC's harm as the post left it, for a re-run to check
        "overview.could_invoke_lines",  # the hint under a roll (not in the ledger: not part of the roll)
        "away.away_after",              # what now waits for an away player follows the away policy
        "pace.count_post",              # outside a conflict: the post is the author's owed post
    ),
    # fn(post) -> lines, at the end of every reply
    "status": (
        "exchanges.conflict_status",
        "compels.compel_status",
        "teamwork.help_status",
        "challenges.challenge_status",
        "contests.contest_status",
        "pace.pace_status",
    ),
    # fn(post) -> results, at each deadline round
    "deadlines": (
        "away.away_round",              # first: absences end, the away policy moves what waits for them
        "exchanges.conflict_deadlines",
        "compels.compel_deadlines",
        "teamwork._help_deadlines",
        "challenges.challenge_deadline",
        "contests.contest_deadlines",
        "pace.pace_deadlines",
    ),
}


class Stage:
    """One point of :data:`SEQUENCE`: its steps, run in the order written there, with the
    campaign's system's own steps (``System.steps``) in the point's :data:`SYSTEM_STEPS`
    slot. A point with a slot runs for a system only (:meth:`of`)."""

    def __init__(self, name: str):
        self.name = name
        self.order = SEQUENCE[name]
        self._given: dict[str, Callable] = {}
        self._of: dict[int, tuple[System, list[Callable]]] = {}

    def _systems_steps(self) -> list[str]:
        """The steps the registered systems add here (in a point with a system slot)."""
        if SYSTEM_STEPS not in self.order:
            return []
        return list(dict.fromkeys(key for system in SYSTEMS.values() for key in system.steps.get(self.name, ())))

    def step(self, fn: Callable) -> Callable:
        """Give the code of one named step (the decorator)."""
        key = step_name(fn)
        if key not in self.order and key not in self._systems_steps():
            raise ValueError(f"{key} is not a step of {self.name!r}: name it in pbp.play.sequence.SEQUENCE "
                             "or in a system's steps")
        if key in self._given:
            raise ValueError(f"{key} is given twice for {self.name!r}")
        self._given[key] = fn
        self._of.clear()
        return fn

    def missing(self) -> list[str]:
        wanted = [key for key in self.order if key != SYSTEM_STEPS] + self._systems_steps()
        return [key for key in wanted if key not in self._given]

    def _run(self, keys: list[str]) -> list[Callable]:
        missing = [key for key in keys if key not in self._given]
        if missing:
            raise RuntimeError(f"steps of {self.name!r} never given: {', '.join(missing)}")
        return [self._given[key] for key in keys]

    def steps(self) -> list[Callable]:
        """The steps in their order (each named step must have been given), at a point
        without a system slot."""
        if SYSTEM_STEPS in self.order:
            raise TypeError(f"{self.name!r} has a slot for the system's steps: run {self.name}.of(post.system)")
        return self._run(list(self.order))

    def of(self, system: System) -> list[Callable]:
        """The steps a campaign of ``system`` runs here, in their order: the point's own,
        with the system's (``System.steps``) in the slot, none of another system's."""
        kept = self._of.get(id(system))
        if kept is not None and kept[0] is system:
            return kept[1]
        own = tuple(system.steps.get(self.name, ()))
        if own and SYSTEM_STEPS not in self.order:
            raise ValueError(f"{system.name} names steps for {self.name!r}, which has no slot for a system's steps")
        steps = self._run([key for slot in self.order for key in (own if slot == SYSTEM_STEPS else (slot,))])
        self._of[id(system)] = (system, steps)
        return steps

    def __iter__(self):
        return iter(self.steps())


def step_name(fn: Callable) -> str:
    """``invoking._after``: the module's last name and the function's."""
    return f"{fn.__module__.rsplit('.', 1)[-1]}.{fn.__name__}"


STAGES: dict[str, Stage] = {name: Stage(name) for name in SEQUENCE}
PREPARE_ACTION = STAGES["prepare_action"]
BEFORE_ACTION = STAGES["before_action"]
AFTER_ACTION = STAGES["after_action"]
ROLL_REVISED = STAGES["roll_revised"]
BONUS_HELD = STAGES["bonus_held"]
OUT_OF_TURN = STAGES["out_of_turn"]
TURN_HOLDER = STAGES["turn_holder"]
SCENE_START = STAGES["scene_start"]
SCENE_END = STAGES["scene_end"]
CONFLICT_END = STAGES["conflict_end"]
CONCEDED = STAGES["conceded"]
TAKEN_OUT = STAGES["taken_out"]
AFTER_POST = STAGES["after_post"]
STATUS = STAGES["status"]
DEADLINE_JOBS = STAGES["deadlines"]

prepare_action = PREPARE_ACTION.step
before_action = BEFORE_ACTION.step
after_action = AFTER_ACTION.step
roll_revised = ROLL_REVISED.step
on_bonus_held = BONUS_HELD.step
on_out_of_turn = OUT_OF_TURN.step
on_turn_holder = TURN_HOLDER.step
on_scene_start = SCENE_START.step
on_scene_end = SCENE_END.step
on_conflict_end = CONFLICT_END.step
on_conceded = CONCEDED.step
on_taken_out = TAKEN_OUT.step
after_post = AFTER_POST.step     # fn(post), once the whole post has applied and is in the ledger
status_line = STATUS.step        # fn(post) -> lines for the end of every reply ("Turn: ...")
deadline_job = DEADLINE_JOBS.step   # fn(post) -> results, applied at each deadline round (post.now)


def check_sequence() -> None:
    """Every step :data:`SEQUENCE` names has been given (run once all of ``pbp.play`` is imported)."""
    missing = [f"{stage.name}: {key}" for stage in STAGES.values() for key in stage.missing()]
    missing += [f"{system.name} names steps for {point!r}, which has no slot for a system's steps"
                for system in SYSTEMS.values() for point in system.steps
                if point not in SEQUENCE or SYSTEM_STEPS not in SEQUENCE[point]]
    if missing:
        raise RuntimeError("steps named in pbp.play.sequence.SEQUENCE but never given: " + "; ".join(missing))
