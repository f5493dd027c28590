"""Invoking aspects within an action: +2, a reroll, or +2 to the difficulty another faces;
the roller's invokes and other people's, paid the same way.

Order of play (so fixed dice are consumed predictably): the actor's throw, the
opposition's throw, then the actor's unconditional invokes in the order written (a reroll
takes the next throw), then the invokes by others (:class:`AfterInvoke`, made after the
dice and handed to ``resolve`` by a re-run: :mod:`pbp.rules.reopen`), then the actor's
``if needed`` ones.

Payment, from "Invocando Aspectos": an invoke costs a fate point or a free invoke. AUTO
spends the invoker's own free invoke (a boost counts) when there is one, else a fate point,
paid through the ``payer`` (:class:`pbp.rules.bookkeeping.FatePoints`: the character, or
the GM's pool for an NPC). "You can't invoke the same aspect more than once on a roll, but
you may spend as many free invokes on it as you like": so at most one *paid* use of an
aspect per roll, counting everyone who invokes on it, and ``times`` > 1 only when every
use is free. One payment path (:func:`_pay`) for all of them.

``oppose`` reading: "+2 to the difficulty someone else faces". In the actor's own action
the only other roll is the opposition's, and the difficulty it faces is the actor's
effort; so an oppose invoke adds +2 on the actor's side, labelled "(oppose)". It is
allowed where someone else's roll really meets the actor's: in ``/defend`` (the attack,
fixed or rolled, must clear the defence) and against an active opponent; against a fixed
difficulty nobody else rolls, and it is refused with a pointer to a plain +2.

Invokes by others on the actor's roll: an ally's is a term of the actor's effort (paid by
the ally); an ``oppose`` one is a term of the opposition (its roll, or the passive
difficulty); only the actor rerolls the actor's dice, and whoever opposes the roll cannot
add to it. (The worth is the system's: ``System.invoke_bonus``, +1 hit in the d10 hack.)

``if needed`` reading: "change the outcome" means change the outcome tier. After
everything else, each if-needed +2 is spent, in order, only when adding it moves the roll
to a better tier (fail->tie, tie->success, success->style); an if-needed reroll is spent
only while the outcome is worse than success. The rest are recorded as skipped and cost
nothing. Each is judged on its own, so two +2s at -4 shifts are both skipped (neither alone
changes the tier).
"""
from __future__ import annotations

import re

from dataclasses import dataclass, field
from typing import Iterable

from pbp.commands import Invoke, InvokeMode, Payment
from pbp.errors import RulesError, UnknownNameError
from pbp.rules.bookkeeping import OWN_POINTS, FatePoints, Report, reveal, use_free_invoke
from pbp.rules.dice import DiceSource
from pbp.rules.effort import skill_rating
from pbp.rules.ladder import describe
from pbp.rules.names import find_aspect, find_character, same_name
from pbp.rules.results import Effort, InvokeUse, Modifier, OppositionResult, Outcome
from pbp.rules.state import Aspect, Character, Table
from pbp.rules.system import System


@dataclass(frozen=True)
class AfterInvoke:
    """An invoke made after the dice: by the roller (``invoker`` None) or by someone else
    (who, and in ``invoke`` which aspect, bonus or ``oppose``, and how it is paid)."""

    invoke: Invoke
    invoker: str | None = None


@dataclass(frozen=True)
class Use:
    """One use of an invoke (an ``x3`` invoke is three uses); ``by`` is someone other than
    the roller who invokes on the roll (None: the roller)."""

    invoke: Invoke
    aspect: Aspect
    by: Character | None = None


@dataclass
class Invoking:
    """What the invokes of one roll act upon. ``invoker`` is the roller; ``opposition``
    the opposition their effort meets (None: none yet, the first half of an attack);
    ``payer`` who pays each fate point spent."""

    table: Table
    invoker: Character
    effort: Effort
    opposition: OppositionResult | None
    dice: DiceSource
    system: System
    report: Report
    source: str = ""
    payer: FatePoints = field(default=OWN_POINTS)

    def shifts(self) -> int:
        return self.system.tiers.margin(self.effort.total, self.opposition.value if self.opposition else 0)

    def outcome(self, bonus: int = 0) -> Outcome:
        return self.system.outcome(self.shifts() + bonus)


def _reworded(source: str, pattern: str, by: str, fallback: str) -> str:
    """The command line as written with one option changed (``oppose`` dropped, ``fp`` made
    ``free``): the example that fixes what was refused. ``fallback`` without a line."""
    fixed, n = re.subn(pattern, by, source, count=1, flags=re.IGNORECASE)
    return fixed if source and n else fallback


def _unheld_free(exc: UnknownNameError, ctx: Invoking, invoke: Invoke) -> UnknownNameError:
    """An unknown aspect's refusal, its example naming one that is in play: a free invoke
    there when the invoker holds one on it, else a paid one (the example must play)."""
    stand_in = next((a for a in ctx.table.aspects if f'"{a.name}"'.casefold() in (exc.example or "").casefold()), None)
    if invoke.payment is Payment.FREE and (stand_in is None or stand_in.free_for(ctx.invoker.name) < 1):
        exc.example = _reworded(exc.example, r"\s+free\b", "", exc.example)
    return exc


def plan(invokes: Iterable[Invoke], ctx: Invoking, *, may_oppose: bool) -> list[Use]:
    """Check what can be checked before any dice move: names, ``times`` and ``oppose``."""
    uses: list[Use] = []
    for invoke in invokes:
        try:
            aspect = find_aspect(ctx.table, invoke.aspect, ctx.invoker.name, source=ctx.source, system=ctx.system)
        except UnknownNameError as exc:
            raise _unheld_free(exc, ctx, invoke) from None
        if invoke.times < 1:
            raise RulesError(f"cannot invoke {aspect.name} {invoke.times} times", source=ctx.source)
        if invoke.times > 1 and invoke.payment is Payment.FATE_POINT:
            raise RulesError(
                f"{aspect.name} x{invoke.times}: only free invokes may be repeated on one roll",
                source=ctx.source, expected="x2 or more only with free invokes",
                example=_reworded(ctx.source, r"\bfp\b", "free", f'/invoke "{aspect.name}" free x{invoke.times}'),
            )
        if invoke.mode is InvokeMode.OPPOSE and not may_oppose:
            raise RulesError(
                f'"oppose" raises the difficulty someone else faces; nobody else rolls against '
                f"{ctx.invoker.name} here, so invoke {aspect.name} for "
                f"{ctx.system.explain.worth(ctx.system.invoke_bonus)} instead",
                source=ctx.source, expected=f"+invoke {aspect.name} without oppose",
                example=_reworded(ctx.source, r"\s+oppose\b", "", f'/invoke "{aspect.name}"'),
            )
        uses.extend(Use(invoke, aspect) for _ in range(invoke.times))
    return uses


def plan_others(others: Iterable[AfterInvoke], ctx: Invoking) -> list[Use]:
    """Check the invokes other people make on the roll: who, which aspect, and whether they
    may (only the roller rerolls; the opposing side opposes, it does not add)."""
    uses: list[Use] = []
    actor, worth = ctx.invoker.name, ctx.system.explain.worth(ctx.system.invoke_bonus)
    for other in others:
        invoke = other.invoke
        who = find_character(ctx.table, other.invoker)      # errors name the /invoke, not the roll's line
        aspect = find_aspect(ctx.table, invoke.aspect, who.name, system=ctx.system)
        if invoke.mode is InvokeMode.REROLL:
            raise RulesError(
                f"only {actor} can reroll {actor}'s dice; {who.name} can invoke {aspect.name} for {worth} "
                f"(an ally) or to oppose ({worth} to the difficulty {actor} faces)",
                expected=f"an invoke for {worth}, or oppose", example=f'/invoke "{aspect.name}"',
            )
        opposing = ctx.opposition.character if ctx.opposition else None
        if invoke.mode is InvokeMode.BONUS and same_name(opposing, who.name):
            raise RulesError(
                f"{who.name} opposes this roll: invoke {aspect.name} with oppose to raise the difficulty",
                expected="oppose", example=f'/invoke "{aspect.name}" oppose',
            )
        if invoke.mode is InvokeMode.OPPOSE and ctx.opposition is None:
            raise RulesError(
                f"nobody has rolled against {actor} yet, so there is no difficulty to raise; "
                f"{who.name} can invoke {aspect.name} on their own roll against it",
                expected=f"an invoke for {worth} on your own roll", example=f'/defend Athletics +invoke "{aspect.name}"',
            )
        if invoke.times < 1 or (invoke.times > 1 and invoke.payment is not Payment.FREE):
            raise RulesError(f"{aspect.name} x{invoke.times}: only free invokes may be repeated on one roll",
                             expected="x2 or more only with free invokes",
                             example=f'/invoke "{aspect.name}" free x{max(invoke.times, 2)}')
        uses.extend(Use(invoke, aspect, who) for _ in range(invoke.times))
    return uses


def apply_invokes(invokes: Iterable[Invoke], ctx: Invoking, *, may_oppose: bool,
                  others: Iterable[AfterInvoke] = ()) -> None:
    """Spend the roller's ``invokes`` and the ``others``' on the roll (see the module doc
    for the order), each through :func:`_pay` with one "once per roll" rule for all."""
    uses = plan(invokes, ctx, may_oppose=may_oppose)
    theirs = plan_others(others, ctx)
    paid: set[tuple[str, str]] = set()
    for use in uses:
        if not use.invoke.if_needed:
            _spend(use, ctx, paid)
    for use in theirs:
        _spend(use, ctx, paid)
    for use in uses:
        if use.invoke.if_needed:
            if _needed(use, ctx):
                _spend(use, ctx, paid)
            else:
                ctx.effort.invokes.append(InvokeUse(
                    use.aspect.name, use.invoke.mode.value, "skipped", ctx.invoker.name, if_needed=True,
                ))


def _needed(use: Use, ctx: Invoking) -> bool:
    """``if needed`` means needed to avoid failing: spent while the roll fails and the
    invoke lifts it (to a tie or a success), never to turn a success into one with style.
    ``if needed for style`` aims at style: spent while below it and the invoke lifts it.
    A reroll cannot be judged ahead, so it is spent whenever the roll is below the aim."""
    rank = ctx.system.rank
    now = rank(ctx.outcome())
    aim = rank(Outcome.STYLE) if use.invoke.for_style else rank(Outcome.TIE)
    if now >= aim:
        return False
    if use.invoke.mode is InvokeMode.REROLL:
        return True
    return rank(ctx.outcome(ctx.system.invoke_bonus)) > now


def _another_aspect(ctx: Invoking, aspect: Aspect, paid: set[tuple[str, str]], source: str, invoker: str) -> str:
    """The roll as written with its second invoke of ``aspect`` naming another aspect in play
    that is not invoked yet (or dropped, when there is none): a working example in the
    roll's own words and system."""
    candidates = [a for a in ctx.table.aspects if not a.hidden and a.kind != "boost"
                  and _key(a) not in paid and _key(a) != _key(aspect)]
    candidates.sort(key=lambda a: hostile_owner(a, invoker) is not None)   # not hostile first
    others = [a.name for a in candidates]
    written = list(re.finditer(r'\+invoke\s+"' + re.escape(aspect.name) + r'"[^+]*?(?=\s*\+|\s*$)', source,
                               re.IGNORECASE))
    if not source or len(written) < 2:
        return f'/invoke "{others[0]}"' if others else "/sheet"
    last = written[-1]
    instead = f'+invoke "{others[0]}"' if others else ""
    return (source[:last.start()].rstrip() + (" " + instead if instead else "") + source[last.end():]).rstrip()


def _key(aspect: Aspect) -> tuple[str, str]:
    return aspect.name.casefold(), (aspect.owner or "").casefold()


def hostile_owner(aspect: Aspect, invoker: str) -> str | None:
    """The other character an aspect is on; invoking it is a hostile invoke."""
    return aspect.owner if aspect.owner and not same_name(aspect.owner, invoker) else None


def _pay(use: Use, ctx: Invoking, paid: set[tuple[str, str]]) -> tuple[str, str | None]:
    """Pay for one use, whoever invokes; returns (paid_with, holder of the free invoke used)."""
    invoker = use.by or ctx.invoker
    invoke, aspect, name = use.invoke, use.aspect, invoker.name
    source = ctx.source if use.by is None else ""    # another's invoke is not on the roll's line
    if invoke.payment is not Payment.FATE_POINT and aspect.free_for(name) > 0:
        return use_free_invoke(ctx.table, ctx.report, aspect, name), name
    if aspect.kind == "boost":
        raise RulesError(f"{aspect.name} is a boost: only whoever holds it can invoke it, for free",
                         source=source)
    if invoke.payment is Payment.FREE or invoke.times > 1:
        held = ", ".join(f"{h} ({n})" for h, n in aspect.free_invokes.items() if n) or "nobody"
        raise RulesError(
            f"{name} holds no free invoke on {aspect.name} (free invokes held by: {held})",
            source=source, expected="a free invoke you hold, or pay a fate point",
            example=_reworded(source, r"\s+free\b", "", f'/invoke "{aspect.name}"'),
        )
    if _key(aspect) in paid:
        raise RulesError(
            f"{aspect.name} was already invoked with a fate point on this roll; an aspect may be "
            f"invoked once per roll, more only with free invokes",
            source=source, expected="another aspect, or a free invoke",
            example=_another_aspect(ctx, aspect, paid, source, invoker.name),
        )
    ctx.payer.spend(ctx.report, invoker, f"invoking {aspect.name}")
    paid.add(_key(aspect))
    owner = hostile_owner(aspect, name)
    if owner:
        ctx.report.effect(
            "hostile_invoke",
            f"{name} invoked {owner}'s aspect {aspect.name}: {owner} gets that fate point at the end of the scene",
            aspect=aspect.name, owner=owner, invoker=name, fate_points=1,
        )
    return "fp", None


def _label(aspect: Aspect, mode: InvokeMode, paid_with: str, holder: str | None, by: str | None = None) -> str:
    how = {"free": f"free, held by {holder}", "boost": "boost", "fp": "fate point"}[paid_with]
    if mode is InvokeMode.OPPOSE:
        how = f"oppose, {how}"
    if by and paid_with == "free" and holder and holder.casefold() == by.casefold():
        by = None         # "held by Oskar Brandt" says who invoked it: not ", by Oskar Brandt" again
    return f"{aspect.name} ({how}{f', by {by}' if by else ''})"


def _spend(use: Use, ctx: Invoking, paid: set[tuple[str, str]]) -> None:
    paid_with, holder = _pay(use, ctx, paid)
    aspect, mode = use.aspect, use.invoke.mode
    invoker = use.by or ctx.invoker
    if aspect.hidden:
        reveal(ctx.report, aspect)
    reroll = None
    term = Modifier("invoke", _label(aspect, mode, paid_with, holder, use.by.name if use.by else None),
                    ctx.system.invoke_bonus)
    if mode is InvokeMode.REROLL:
        reroll = ctx.system.roll(ctx.dice, skill_rating(ctx.effort.modifiers))
        ctx.effort.rolls.append(reroll)
    elif use.by is not None and mode is InvokeMode.OPPOSE:
        _raise_difficulty(ctx, term)
    else:
        ctx.effort.modifiers.append(term)
    ctx.effort.invokes.append(InvokeUse(
        aspect.name, mode.value, paid_with, invoker.name, holder=holder,
        hostile_owner=hostile_owner(aspect, invoker.name), if_needed=use.invoke.if_needed, reroll=reroll,
    ))


def _raise_difficulty(ctx: Invoking, term: Modifier) -> None:
    """Someone else's ``oppose``: a term of the opposition's roll, or added to the passive
    difficulty (its label says so, in the system's words)."""
    opposition = ctx.opposition
    if opposition.effort is not None:
        opposition.effort.modifiers.append(term)
        opposition.value = opposition.effort.total
    else:
        explain = ctx.system.explain
        was = explain.passive(opposition.value) if opposition.label == describe(opposition.value, ctx.system.ladder) else opposition.label
        opposition.value += term.value
        opposition.label = f"{explain.passive(opposition.value)}: {was} {explain.worth(term.value)} {term.label}"
