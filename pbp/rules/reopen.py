"""Invokes after the dice, and the bogus-rule veto, by re-running the roll.

Fate lets a player invoke after seeing the dice, and lets anyone at the table call an
invoke bogus. By post both arrive later, in another mail. An *open roll* is therefore kept
as the original command plus the faces that were thrown, in order; any change to it is made
by re-running ``resolve`` on the table as it was before the roll, with dice that replay the
original throws and only then draw fresh ones (for a new reroll). The re-run is the
original roll plus the added invokes, or minus a vetoed one, exactly: nothing is patched by
hand, and a vetoed invoke's cost is refunded simply because the re-run does not pay it.

Readings and rules kept here:

* **What the original roll settled stays settled.** The ``if needed`` invokes of the
  original command were judged when its dice fell; a re-run keeps that judgement (the
  spent ones become ordinary invokes, paid as they were paid; the skipped ones are dropped)
  and then applies the invokes added after the dice. Added invokes are decisions made
  while looking at the dice, so ``if needed`` makes no sense for them: refused here too
  (the parser refuses it first).
* **A veto names an aspect** and removes every use of that aspect on the roll (the
  original's and the added ones); a vetoed reroll's throw goes with it.
* **The re-run's inputs**: the command with the roller's own invokes (the settled ones
  and the added ones, minus the vetoed), the invokes by others as ``resolve``'s
  ``others``, the same payer (who pays each fate point: :mod:`pbp.rules.bookkeeping`),
  and the same dice. ``resolve`` pays them all one way (:mod:`pbp.rules.invokes`).
* **Once per roll**: the same aspect may be invoked with a fate point only once on a roll,
  counting the original and the added invokes and whoever pays; free invokes may repeat.
* **Someone else's open roll**: an ally may invoke for the system's invoke bonus (+2; +1
  hit in the d10 hack) on the roller's effort (paid by the ally: a fate point or a free
  invoke they hold); anyone opposing may invoke ``oppose`` for the same on the difficulty
  the roller faces (the defence, the attack, or the passive difficulty). Only the roller
  rerolls their own dice. Invoking another character's aspect this way is a hostile
  invoke like any other.
* **When a roll is open** is the pipeline's to track (:mod:`pbp.play.invoking` closes rolls
  with the reasons named here); ``closed_because`` takes the facts: the next action in
  turn order has not started, the actor has not said ``/done``, and the campaign's invoke
  window (if any) has not elapsed: closed from the moment it has (``now >= rolled_at +
  length``).
"""
from __future__ import annotations

import copy
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Iterable, Sequence

from pbp.commands import ActionCommand, Command, Invoke, InvokeMode, Payment
from pbp.errors import DiceExhausted, RulesError
from pbp.rules.actions import resolve
from pbp.rules.bookkeeping import OWN_POINTS, FatePoints
from pbp.rules.dice import DiceMismatch, DiceSource
from pbp.rules.invokes import AfterInvoke
from pbp.rules.names import same_name
from pbp.rules.results import ActionResult, Change, Effect
from pbp.rules.state import Table
from pbp.rules.system import System

Faces = tuple[int, ...]


# -- dice that replay a roll --------------------------------------------------------------

class ReplayDice:
    """Replays ``throws`` in order, then draws from ``then``. A ``None`` in ``throws`` is a
    throw not made yet: it is drawn from ``then`` at that point. ``drawn`` keeps every
    throw handed out, replayed or fresh."""

    def __init__(self, throws: Iterable[Faces | None], then: DiceSource | None = None) -> None:
        self._throws = [None if t is None else tuple(t) for t in throws]
        self._next = 0
        self._then = then
        self.drawn: list[Faces] = []

    def _replay(self, n: int, what: str, fresh) -> Faces:
        if self._next < len(self._throws):
            faces = self._throws[self._next]
            self._next += 1
            if faces is not None:
                if len(faces) != n:
                    raise DiceMismatch(f"replayed throw {self._next} {faces} does not fit {what}")
                self.drawn.append(faces)
                return faces
        if self._then is None:
            raise DiceExhausted(f"the replayed roll has no throw left for {what}",
                                hint="a new reroll needs fresh dice (fresh_dice=...)")
        faces = tuple(fresh())
        self.drawn.append(faces)
        return faces

    def fate(self, n: int = 4) -> Faces:
        return self._replay(n, f"{n} Fate dice", lambda: self._then.fate(n))

    def die(self, sides: int, n: int) -> Faces:
        return self._replay(n, f"{n}d{sides}", lambda: self._then.die(sides, n))


def throws_of(result: ActionResult) -> list[Faces]:
    """The throws of a resolved roll in the order ``resolve`` drew them: the actor's first
    throw, the opposition's throw (an active opponent), then each reroll in order."""
    rolls = result.effort.rolls
    opposition = result.opposition.effort.rolls if result.opposition and result.opposition.effort else []
    return [rolls[0].faces, *(r.faces for r in opposition), *(r.faces for r in rolls[1:])]


# -- the window ---------------------------------------------------------------------------

@dataclass(frozen=True)
class RollWindow:
    """The campaign's invoke window: how long after the roll invokes may still come in
    (``None``: no time limit; only the next action or ``/done`` closes the roll)."""

    length: timedelta | None = None

    @property
    def passed(self) -> str:
        """Why a roll is closed once the window has passed."""
        return f"the invoke window ({self.length / timedelta(hours=1):g} hours after the roll) has passed"


@dataclass(frozen=True)
class RollFacts:
    """What the pipeline knows about a roll when an invoke or veto arrives."""

    rolled_at: datetime
    next_action_started: bool = False
    actor_done: bool = False


NEXT_ACTION = "the next action has started"
ROLLER_DONE = "its roller said /done"


def closed_because(facts: RollFacts, now: datetime, window: RollWindow) -> str | None:
    """Why the roll is closed, or None while it is open."""
    if facts.next_action_started:
        return NEXT_ACTION
    if facts.actor_done:
        return ROLLER_DONE
    if window.length is not None and now >= facts.rolled_at + window.length:
        return window.passed
    return None


# -- re-running a roll --------------------------------------------------------------------

@dataclass
class _Use:
    """One invoke on the re-run roll, with the throw its reroll made (None: not made yet)."""

    invoke: Invoke
    invoker: str | None = None
    throw: Faces | None = None
    added: bool = False


def reresolve(cmd: Command, table_before: Table, throws: Sequence[Faces], actor: str,
              system: System, extra_invokes: Iterable[Invoke | AfterInvoke] = (),
              removed_invokes: Iterable[str | Invoke | AfterInvoke] = (),
              fresh_dice: DiceSource | None = None, payer: FatePoints = OWN_POINTS) -> ActionResult:
    """Re-run an open roll with ``extra_invokes`` added and ``removed_invokes`` (aspects)
    vetoed. ``table_before`` is a copy of the table as it was before the roll; like
    ``resolve``'s table it comes back changed into the state after the re-run (and an error
    leaves it half-changed: hand in a throwaway copy). ``throws`` are the faces thrown so
    far (``throws_of`` the last result, or ``OpenRoll.throws``); ``fresh_dice`` supplies a
    new reroll's dice; ``payer`` pays every fate point spent on the roll (as ``resolve``)."""
    return _rerun(cmd, table_before, throws, actor, system, extra_invokes, removed_invokes, fresh_dice, payer)[0]


def _rerun(cmd: Command, table_before: Table, throws: Sequence[Faces | None], actor: str, system: System,
           extra_invokes: Iterable[Invoke | AfterInvoke], removed_invokes: Iterable[str | Invoke | AfterInvoke],
           fresh_dice: DiceSource | None, payer: FatePoints) -> tuple[ActionResult, list[Faces | None]]:
    """The roll's inputs (the command with its invokes as they were settled, plus the added
    ones, minus the vetoed ones; the invokes by others as ``others``) resolved once more
    with the same dice. Nothing is patched afterwards."""
    if not isinstance(cmd, ActionCommand):
        raise RulesError(f"/{cmd.name} takes no invokes, so there is nothing to invoke on",
                         expected="an open overcome, advantage, attack or defend",
                         example='/invoke "Deep Shadows"')
    extras = [_after(x, actor) for x in extra_invokes]
    throws = [None if t is None else tuple(t) for t in throws]
    # The roll as it was: same table, same dice. It settles the "if needed" invokes and
    # tells which throws were the roll's and which its rerolls'.
    first = resolve(cmd, copy.deepcopy(table_before), ReplayDice(throws, then=fresh_dice), actor, system,
                    payer=copy.deepcopy(payer))
    thrown = throws_of(first)
    head = thrown[: len(thrown) - (len(first.effort.rolls) - 1)]
    uses = _settled(first)
    later = iter(throws[len(thrown):])
    for extra in extras:
        rerolls = extra.invoker is None and extra.invoke.mode is InvokeMode.REROLL
        uses.append(_Use(extra.invoke, extra.invoker, next(later, None) if rerolls else None, added=True))
    vetoed = {_vetoed_name(v).casefold(): _vetoed_name(v) for v in removed_invokes}
    _check_vetoed(vetoed, uses)
    kept = [u for u in uses if u.invoke.aspect.casefold() not in vetoed]
    own = [u for u in kept if u.invoker is None]
    own_rerolls = [u for u in own if u.invoke.mode is InvokeMode.REROLL]
    others = [AfterInvoke(u.invoke, u.invoker) for u in kept if u.invoker is not None]
    dice = ReplayDice([*head, *(u.throw for u in own_rerolls)], then=fresh_dice)
    result = resolve(replace(cmd, invokes=tuple(u.invoke for u in own)), table_before, dice, actor, system,
                     others=others, payer=payer)
    # Every throw made on this roll, for the next re-run: the original's, then each added
    # reroll's, a vetoed one's too (None if it never rolled), so positions never shift.
    for use, roll in zip(own_rerolls, result.effort.rolls[1:]):
        use.throw = roll.faces
    added = [u.throw for u in uses if u.added and u.invoker is None and u.invoke.mode is InvokeMode.REROLL]
    return result, [*thrown, *added]


def _after(x: Invoke | AfterInvoke, actor: str) -> AfterInvoke:
    after = x if isinstance(x, AfterInvoke) else AfterInvoke(x)
    if after.invoke.if_needed:
        raise RulesError(
            f'"if needed" is for invokes made before the dice; after the dice you can see whether '
            f"{after.invoke.aspect} is needed",
            expected="an invoke without if needed", example=f'/invoke "{after.invoke.aspect}"',
        )
    if after.invoker is not None and same_name(after.invoker, actor):
        return AfterInvoke(after.invoke)
    return after


def _settled(first: ActionResult) -> list[_Use]:
    """The original invokes as they were spent: one use each, paid as it was paid."""
    uses = []
    for u in first.effort.invokes:
        if u.paid_with == "skipped":
            continue
        payment = Payment.FATE_POINT if u.paid_with == "fp" else Payment.FREE
        uses.append(_Use(Invoke(u.aspect, InvokeMode(u.mode), payment), None, u.reroll.faces if u.reroll else None))
    return uses


def _check_vetoed(vetoed: dict[str, str], uses: list[_Use]) -> None:
    invoked = {u.invoke.aspect.casefold(): u.invoke.aspect for u in uses}
    for key, name in vetoed.items():
        if key in invoked:
            continue
        listed = ", ".join(dict.fromkeys(invoked.values())) or "none"
        raise RulesError(f"{name} was not invoked on this roll (invoked: {listed})",
                         expected="the aspect of an invoke on the roll",
                         example=f'/veto #142 "{next(iter(invoked.values()), "Deep Shadows")}"')


def _vetoed_name(v: str | Invoke | AfterInvoke) -> str:
    if isinstance(v, AfterInvoke):
        v = v.invoke
    return v.aspect if isinstance(v, Invoke) else v


# -- an open roll, as the pipeline keeps it -----------------------------------------------

@dataclass(frozen=True)
class OpenRoll:
    """The original command and every throw made on it, plus what came after the dice:
    the added invokes (a vetoed one stays listed, so its throw keeps its place) and the
    vetoed aspects."""

    cmd: ActionCommand
    actor: str
    throws: tuple[Faces | None, ...]
    added: tuple[AfterInvoke, ...] = ()
    vetoed: tuple[str, ...] = ()
    id: int | None = None
    rolled_at: datetime | None = None

    @classmethod
    def of(cls, cmd: ActionCommand, result: ActionResult, *, id: int | None = None,
           rolled_at: datetime | None = None) -> "OpenRoll":
        return cls(cmd, result.actor, tuple(throws_of(result)), id=id, rolled_at=rolled_at)

    def with_invoke(self, invoke: Invoke, invoker: str | None = None) -> "OpenRoll":
        return replace(self, added=(*self.added, _after(AfterInvoke(invoke, invoker), self.actor)))

    def with_bonus(self, bonus: int) -> "OpenRoll":
        """The roll with a plain ``+bonus`` added to its command (one the GM approved)."""
        return replace(self, cmd=replace(self.cmd, modifier=self.cmd.modifier + bonus))

    def with_helper(self, helper: str) -> "OpenRoll":
        """The roll with one more teamwork helper (help given after the dice)."""
        return replace(self, cmd=replace(self.cmd, helpers=(*self.cmd.helpers, helper)))

    def with_veto(self, aspect: str) -> "OpenRoll":
        return replace(self, vetoed=(*self.vetoed, aspect))

    def rerun(self, table_before: Table, system: System, fresh_dice: DiceSource | None = None,
              payer: FatePoints = OWN_POINTS) -> tuple["OpenRoll", ActionResult]:
        """Re-run on ``table_before`` (changed in place, as ``reresolve``); returns the open
        roll with every throw made so far, and the new result."""
        result, throws = _rerun(self.cmd, table_before, self.throws, self.actor, system,
                                self.added, self.vetoed, fresh_dice, payer)
        return replace(self, throws=tuple(throws)), result


# -- what changed, for the re-announcement ------------------------------------------------

@dataclass(frozen=True)
class Difference:
    """One thing that differs between two results of the same roll."""

    what: str        # effort | opposition | shifts | outcome | hit | effect | <a Change's what>
    subject: str
    before: object
    after: object
    text: str


def changes_between(old: ActionResult, new: ActionResult, explainer) -> list[Difference]:
    """What the re-run changed: the numbers, the outcome, the hit, the story effects, and
    the sheets (each (what, subject) compared by where it ended up). The margin and the hit
    are said in the system's words (``explainer``, the system's ``explain``: always given,
    no system is assumed)."""
    diffs: list[Difference] = []
    actor = new.actor
    words = explainer

    def number(what: str, subject: str, a, b, text: str) -> None:
        if a != b:
            diffs.append(Difference(what, subject, a, b, text))

    number("effort", actor, old.effort.total, new.effort.total,
           f"{actor}'s effort goes from {old.effort.total} to {new.effort.total}")
    if old.opposition and new.opposition:
        number("opposition", new.opposition.character or "difficulty", old.opposition.value, new.opposition.value,
               f"the opposition goes from {old.opposition.value} to {new.opposition.value}")
    number("shifts", actor, old.shifts, new.shifts, f"the {words.unit}s go from {old.shifts} to {new.shifts}")
    if old.outcome != new.outcome:
        a, b = _outcome_word(old.outcome), _outcome_word(new.outcome)
        diffs.append(Difference("outcome", actor, old.outcome, new.outcome, f"the outcome goes from {a} to {b}"))
    diffs += _hit_difference(old, new, words)
    diffs += _effect_differences(old, new)
    diffs += _sheet_differences(old.changes, new.changes)
    return diffs


def _outcome_word(outcome) -> str:
    return {"fail": "failure", "tie": "a tie", "success": "success", "style": "success with style"}.get(
        getattr(outcome, "value", outcome), str(outcome))


def _hits(result: ActionResult) -> dict[str, int]:
    return {e.data.get("target", ""): e.data.get("shifts", 0) for e in result.effects if e.kind == "hit"}


def _hit_difference(old: ActionResult, new: ActionResult, words) -> list[Difference]:
    before, after = _hits(old), _hits(new)
    diffs = []
    for target in dict.fromkeys([*before, *after]):
        a, b = before.get(target), after.get(target)
        if a == b:
            continue
        if a is None:
            text = f"now {words.hit_of(b)} on {target}"
        elif b is None:
            text = f"the hit on {target} is gone"
        else:
            text = words.hit_goes(a, b)
        diffs.append(Difference("hit", target, a, b, text))
    return diffs


def _effect_differences(old: ActionResult, new: ActionResult) -> list[Difference]:
    def keyed(effects: list[Effect]) -> dict[tuple[str, str], Effect]:
        return {(e.kind, e.text): e for e in effects if e.kind != "hit"}

    before, after = keyed(old.effects), keyed(new.effects)
    diffs = [Difference("effect", e.kind, e.text, None, f"no longer: {e.text}") for k, e in before.items() if k not in after]
    diffs += [Difference("effect", e.kind, None, e.text, f"now: {e.text}") for k, e in after.items() if k not in before]
    return diffs


def _sheet_differences(old: list[Change], new: list[Change]) -> list[Difference]:
    def ends(changes: list[Change]) -> dict[tuple[str, str], tuple[object, object]]:
        out: dict[tuple[str, str], tuple[object, object]] = {}
        for c in changes:
            first = out[(c.what, c.subject)][0] if (c.what, c.subject) in out else c.before
            out[(c.what, c.subject)] = (first, c.after)
        return out

    before, after = ends(old), ends(new)
    diffs = []
    for key in dict.fromkeys([*before, *after]):
        start = (before.get(key) or after.get(key))[0]
        a = before[key][1] if key in before else start
        b = after[key][1] if key in after else start
        if a != b:
            what, subject = key
            label = what.replace("_", " ")
            diffs.append(Difference(what, subject, a, b, f"{subject}: {label} {_shown(a)} -> {_shown(b)}"))
    return diffs


def _shown(value: object) -> str:
    return "none" if value is None else str(value)
