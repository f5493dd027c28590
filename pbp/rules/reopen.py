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
* **Once per roll**: the same aspect may be invoked with a fate point only once on a roll,
  counting the original and the added invokes and whoever pays; free invokes may repeat.
* **Someone else's open roll**: an ally may invoke for +2 to the roller's effort (paid by
  the ally: a fate point or a free invoke they hold); anyone opposing may invoke
  ``oppose`` for +2 to the difficulty the roller faces (the defence, the attack, or the
  passive difficulty). Only the roller rerolls their own dice. Invoking another
  character's aspect this way is a hostile invoke like any other.
* **When a roll is open** is the pipeline's to track; ``is_open`` takes the facts: the next
  action in turn order has not started, the actor has not said ``/done``, and the
  campaign's invoke window (if any) has not elapsed.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Iterable, Sequence

from pbp.commands import ActionCommand, Command, Invoke, InvokeMode, Payment
from pbp.errors import DiceExhausted, RulesError
from pbp.rules.actions import resolve
from pbp.rules.bookkeeping import Report, reveal, spend_fate_point, use_free_invoke
from pbp.rules.dice import DiceMismatch, DiceSource
from pbp.rules.invokes import hostile_owner
from pbp.rules.ladder import describe
from pbp.rules.names import find_aspect, find_character, same_name
from pbp.rules.results import ActionResult, Change, Effect, InvokeUse, Modifier
from pbp.rules.state import Aspect, Character, Table
from pbp.rules.systems import System

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


@dataclass(frozen=True)
class RollFacts:
    """What the pipeline knows about a roll when an invoke or veto arrives."""

    rolled_at: datetime
    next_action_started: bool = False
    actor_done: bool = False


def closed_because(facts: RollFacts, now: datetime, window: RollWindow) -> str | None:
    """Why the roll is closed, or None while it is open."""
    if facts.next_action_started:
        return "the next action has started"
    if facts.actor_done:
        return "its roller said /done"
    if window.length is not None and now >= facts.rolled_at + window.length:
        return "the invoke window has passed"
    return None


def is_open(facts: RollFacts, now: datetime, window: RollWindow) -> bool:
    return closed_because(facts, now, window) is None


def check_open(facts: RollFacts, now: datetime, window: RollWindow, roll_id: int | None = None) -> None:
    """Refuse an after-the-dice invoke on a closed roll."""
    why = closed_because(facts, now, window)
    if why is not None:
        name = f"roll #{roll_id}" if roll_id is not None else "that roll"
        raise RulesError(f"{name} is closed: {why}", expected="an invoke on an open roll, or with the next roll",
                         example='/attack Ghoul with Fight +invoke "Deep Shadows"')


# -- re-running a roll --------------------------------------------------------------------

@dataclass(frozen=True)
class AfterInvoke:
    """An invoke made after the dice: by the roller (``invoker`` None) or by someone else."""

    invoke: Invoke
    invoker: str | None = None


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
              fresh_dice: DiceSource | None = None) -> ActionResult:
    """Re-run an open roll with ``extra_invokes`` added and ``removed_invokes`` (aspects)
    vetoed. ``table_before`` is a copy of the table as it was before the roll; like
    ``resolve``'s table it comes back changed into the state after the re-run (and an error
    leaves it half-changed: hand in a throwaway copy). ``throws`` are the faces thrown so
    far (``throws_of`` the last result, or ``OpenRoll.throws``); ``fresh_dice`` supplies a
    new reroll's dice."""
    return _rerun(cmd, table_before, throws, actor, system, extra_invokes, removed_invokes, fresh_dice)[0]


def _rerun(cmd: Command, table_before: Table, throws: Sequence[Faces | None], actor: str, system: System,
           extra_invokes: Iterable[Invoke | AfterInvoke], removed_invokes: Iterable[str | Invoke | AfterInvoke],
           fresh_dice: DiceSource | None) -> tuple[ActionResult, list[Faces | None]]:
    if not isinstance(cmd, ActionCommand):
        raise RulesError(f"/{cmd.name} takes no invokes, so there is nothing to invoke on",
                         expected="an open overcome, advantage, attack or defend",
                         example='/invoke "Deep Shadows"')
    extras = [_after(x, actor) for x in extra_invokes]
    throws = [None if t is None else tuple(t) for t in throws]
    # The roll as it was: same table, same dice. It settles the "if needed" invokes.
    first = resolve(cmd, copy.deepcopy(table_before), ReplayDice(throws, then=fresh_dice), actor, system)
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
    others = [_Other.plan(u, table_before, actor, first, system) for u in kept if u.invoker is not None]
    shift = sum(o.total if o.mode is InvokeMode.BONUS else -o.total for o in others)
    allies = tuple(o.aspect.name for o in others if o.mode is InvokeMode.BONUS)
    rerun = replace(cmd, invokes=tuple(u.invoke for u in own), modifier=cmd.modifier + shift,
                    side_aspects=cmd.side_aspects + allies)
    dice = ReplayDice([*head, *(u.throw for u in own_rerolls)], then=fresh_dice)
    result = resolve(rerun, table_before, dice, actor, system)
    _settle_others(result, others, table_before, cmd.modifier)
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


@dataclass
class _Other:
    """Someone else's invoke on the roll, checked before the re-run and paid after it."""

    use: _Use
    invoker: Character
    aspect: Aspect
    mode: InvokeMode
    each: int

    @property
    def total(self) -> int:
        return self.each * self.use.invoke.times

    @classmethod
    def plan(cls, use: _Use, table: Table, actor: str, first: ActionResult, system: System) -> "_Other":
        invoke = use.invoke
        who = find_character(table, use.invoker)
        aspect = find_aspect(table, invoke.aspect, who.name)
        if invoke.mode is InvokeMode.REROLL:
            raise RulesError(
                f"only {actor} can reroll {actor}'s dice; {who.name} can invoke {aspect.name} for +2 "
                f"(an ally) or to oppose (+2 to the difficulty {actor} faces)",
                expected="an invoke for +2, or oppose", example=f'/invoke "{aspect.name}" on #142',
            )
        opposing = first.opposition.character if first.opposition else None
        if invoke.mode is InvokeMode.BONUS and same_name(opposing, who.name):
            raise RulesError(
                f"{who.name} opposes this roll: invoke {aspect.name} with oppose to raise the difficulty",
                expected="oppose", example=f'/invoke "{aspect.name}" oppose',
            )
        if invoke.times < 1 or (invoke.times > 1 and invoke.payment is not Payment.FREE):
            raise RulesError(f"{aspect.name} x{invoke.times}: only free invokes may be repeated on one roll",
                             expected="x2 or more only with free invokes",
                             example=f'/invoke "{aspect.name}" free x{max(invoke.times, 2)}')
        return cls(use, who, aspect, invoke.mode, system.invoke_bonus)


def _settle_others(result: ActionResult, others: list[_Other], table: Table, base_modifier: int) -> None:
    """Pay the others' invokes and move their +2s where they belong: an ally's onto the
    roller's effort, an opposing one onto the opposition (the re-run carried both in the
    roller's modifier so every outcome table saw the right shifts)."""
    if not others:
        return
    report = Report()
    paid = {u.aspect.casefold() for u in result.effort.invokes if u.paid_with == "fp"}
    ally_mods: list[Modifier] = []
    for other in others:
        each = other.each
        for _ in range(other.use.invoke.times):
            paid_with, holder = _pay(other, table, report, paid)
            how = {"free": f"free, held by {holder}", "boost": "boost", "fp": "fate point"}[paid_with]
            mode = other.mode.value
            label = f"{other.aspect.name} ({'oppose, ' if other.mode is InvokeMode.OPPOSE else ''}{how}, by {other.invoker.name})"
            result.effort.invokes.append(InvokeUse(
                other.aspect.name, mode, paid_with, other.invoker.name, holder=holder,
                hostile_owner=hostile_owner(other.aspect, other.invoker.name),
            ))
            if other.mode is InvokeMode.OPPOSE:
                _raise_difficulty(result, Modifier("invoke", label, each))
            else:
                ally_mods.append(Modifier("invoke", label, each))
    _restore_modifier(result, base_modifier)
    result.effort.modifiers.extend(ally_mods)
    result.effects.extend(report.effects)
    result.changes.extend(report.changes)


def _pay(other: _Other, table: Table, report: Report, paid: set[str]) -> tuple[str, str | None]:
    invoke, aspect, who = other.use.invoke, other.aspect, other.invoker
    if aspect.hidden:
        reveal(report, aspect)
    if invoke.payment is not Payment.FATE_POINT and aspect.free_for(who.name) > 0:
        return use_free_invoke(table, report, aspect, who.name), who.name
    if aspect.kind == "boost":
        raise RulesError(f"{aspect.name} is a boost: only whoever holds it can invoke it, for free")
    if invoke.payment is Payment.FREE:
        raise RulesError(f"{who.name} holds no free invoke on {aspect.name}",
                         expected="a free invoke you hold, or pay a fate point", example=f'/invoke "{aspect.name}"')
    if aspect.name.casefold() in paid:
        raise RulesError(
            f"{aspect.name} was already invoked with a fate point on this roll; an aspect may be "
            f"invoked once per roll, more only with free invokes",
            expected="another aspect, or a free invoke", example='/invoke "Deep Shadows"',
        )
    spend_fate_point(report, who, f"invoking {aspect.name}")
    paid.add(aspect.name.casefold())
    owner = hostile_owner(aspect, who.name)
    if owner:
        report.effect(
            "hostile_invoke",
            f"{who.name} invoked {owner}'s aspect {aspect.name}: {owner} gets that fate point at the end of the scene",
            aspect=aspect.name, owner=owner, invoker=who.name, fate_points=1,
        )
    return "fp", None


def _raise_difficulty(result: ActionResult, mod: Modifier) -> None:
    opposition = result.opposition
    if opposition.effort is not None:
        opposition.effort.modifiers.append(mod)
        opposition.value = opposition.effort.total
    else:
        opposition.value += mod.value
        opposition.label = f"{describe(opposition.value)}: {opposition.label} +{mod.value} {mod.label}"


def _restore_modifier(result: ActionResult, base: int) -> None:
    """Put the roller's own ``+N`` back as it was written, without the others' invokes."""
    mods = result.effort.modifiers
    at = next((i for i, m in enumerate(mods) if m.source == "modifier"), None)
    if at is not None:
        del mods[at]
    else:
        at = next((i for i, m in enumerate(mods) if m.source == "invoke"), len(mods))
    if base:
        mods.insert(at, Modifier("modifier", "modifier", base))


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

    def rerun(self, table_before: Table, system: System,
              fresh_dice: DiceSource | None = None) -> tuple["OpenRoll", ActionResult]:
        """Re-run on ``table_before`` (changed in place, as ``reresolve``); returns the open
        roll with every throw made so far, and the new result."""
        result, throws = _rerun(self.cmd, table_before, self.throws, self.actor, system,
                                self.added, self.vetoed, fresh_dice)
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


def changes_between(old: ActionResult, new: ActionResult) -> list[Difference]:
    """What the re-run changed: the numbers, the outcome, the hit, the story effects, and
    the sheets (each (what, subject) compared by where it ended up)."""
    diffs: list[Difference] = []
    actor = new.actor

    def number(what: str, subject: str, a, b, text: str) -> None:
        if a != b:
            diffs.append(Difference(what, subject, a, b, text))

    number("effort", actor, old.effort.total, new.effort.total,
           f"{actor}'s effort goes from {old.effort.total} to {new.effort.total}")
    if old.opposition and new.opposition:
        number("opposition", new.opposition.character or "difficulty", old.opposition.value, new.opposition.value,
               f"the opposition goes from {old.opposition.value} to {new.opposition.value}")
    number("shifts", actor, old.shifts, new.shifts, f"the shifts go from {old.shifts} to {new.shifts}")
    if old.outcome != new.outcome:
        a, b = _outcome_word(old.outcome), _outcome_word(new.outcome)
        diffs.append(Difference("outcome", actor, old.outcome, new.outcome, f"the outcome goes from {a} to {b}"))
    diffs += _hit_difference(old, new)
    diffs += _effect_differences(old, new)
    diffs += _sheet_differences(old.changes, new.changes)
    return diffs


def _outcome_word(outcome) -> str:
    return {"fail": "failure", "tie": "a tie", "success": "success", "style": "success with style"}.get(
        getattr(outcome, "value", outcome), str(outcome))


def _hits(result: ActionResult) -> dict[str, int]:
    return {e.data.get("target", ""): e.data.get("shifts", 0) for e in result.effects if e.kind == "hit"}


def _hit_difference(old: ActionResult, new: ActionResult) -> list[Difference]:
    before, after = _hits(old), _hits(new)
    diffs = []
    for target in dict.fromkeys([*before, *after]):
        a, b = before.get(target), after.get(target)
        if a == b:
            continue
        if a is None:
            text = f"now a hit of {b} shift{'s' if b != 1 else ''} on {target}"
        elif b is None:
            text = f"the hit on {target} is gone"
        else:
            text = f"the hit goes from {a} to {b} shift{'s' if b != 1 else ''}"
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
