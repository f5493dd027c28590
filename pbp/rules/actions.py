"""The resolution engine: the four actions and a plain roll, as pure functions over a
``Table``.

``resolve`` mutates the table in place (the pipeline hands it a throwaway copy inside a
database transaction) and reports every mutation as a ``Change`` in the returned
``ActionResult``, next to the ``Effect``\\ s that tell the story. Dice come in as a
``DiceSource``; nothing here reads mail, storage or the clock.

Dice are thrown in this order, so fixed dice line up: the actor's throw, the opposition's
throw (an active opponent), then rerolls from invokes in the order written.

Defaults the rules leave to the table, and how they are read here:

* An attack with no ``vs``: the target defends with the best of the skills the system
  allows against that kind of attack (Fight: Athletics or Fight; Shoot: Athletics;
  Provoke: Will). An attack skill the system does not list (an NPC's "Biting People") lets
  the defender pick the best of every defence skill.
* An overcome or advantage ``vs`` a character with no ``using``: that character opposes
  with the best of the skills ``System.opposing_skills`` gives for the actor's skill
  (Notice against Stealth, Empathy against Deceive, Will against Provoke...; otherwise the
  best of Athletics, Notice and Will).
* ``/defend Athletics vs Ghoul`` with no ``using``: the Ghoul attacks with its best attack
  skill that Athletics can answer (Fight or Shoot), or its best attack skill at all.
* Overcome and advantage with no ``vs`` at all are refused: the engine cannot guess a
  difficulty.

By post, an attack on a player's character is answered in a later mail, so it is rolled
in two halves (``pbp.play.conflict``):

* ``/attack`` whose opposition is ``DEFENCE_LATER`` (an ``Opposition`` naming nothing,
  which the parser never produces) rolls only the attacker's effort: no outcome, no
  shifts, one "attack_rolled" effect naming the target. ``if needed`` invokes cannot be
  judged before the defence and are refused. A ``+scale after`` (Dresden Files Condensed)
  adds nothing yet: the effect carries its bonus and levels (``scale_after``,
  ``scale_label``) for the defence.
* ``/defend`` against ``Opposition(rating=EFFORT, character=ATTACKER, skill=SKILL)`` (a
  rating *and* a character) answers that attack: the effort is fixed, the attacker is
  named so a hit or a tie's boost goes to them, and SKILL says which defences are allowed.
  Its ``scale_after`` is added to the attack if it beats the defence (a tie is no success).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Iterable

from pbp.i18n import Msg
from pbp.commands import (
    ActionCommand, Advantage, Attack, Command, Defend, InvokeMode, Opposition, Overcome, Roll,
)
from pbp.errors import CommandError, RulesError
from pbp.rules.bookkeeping import OWN_POINTS, FatePoints, Report, grant_free_invokes
from pbp.rules.dice import DiceSource
from pbp.rules.effort import (
    Opponent, best_skill, check_permission, effort_modifiers, passive, roll_effort, skill_rating,
)
from pbp.rules.invokes import AfterInvoke, Invoking, apply_invokes
from pbp.rules.ladder import describe
from pbp.rules.naming import GM
from pbp.rules.names import (
    and_names, find_aspect, find_character, find_skill, lookup_skill, quote, same_name, skill_list,
)
from pbp.rules.results import (
    ActionResult, DiceRoll, Effort, Modifier, Outcome, OppositionResult,
)
from pbp.rules.state import Aspect, Character, Table
from pbp.rules.system import AttackKind, System
from pbp.rules.teamwork import check_highest, row_text

MAX_DICE = 100
MAX_SIDES = 1000
MAX_PLAIN_BONUS = 4
"""The largest plain ``+N`` (or ``-N``) written on one action, from anyone: twice an
invoke. Teamwork, scale and situation bonuses fit; a ``+99`` that makes every roll a
success with style is refused (not capped, so nobody is surprised by a smaller number)."""
DEFENCE_LATER = Opposition()

@dataclass
class Action:
    """One action being resolved: who acts, on what table, with which dice and system."""

    cmd: ActionCommand
    name: str
    table: Table
    dice: DiceSource
    system: System
    actor: Character
    report: Report
    skills: tuple[str, ...]
    team: tuple[str, ...] = ()      # the helpers who added to the roll (they share its costs)
    scale_invokes: int = 0          # free invokes scale adds to a successful advantage
    approach: Modifier | None = None   # the system's second pool term (the d10 hack's approach)
    others: tuple[AfterInvoke, ...] = ()   # invokes by other people on this roll (after the dice)
    payer: FatePoints = OWN_POINTS  # who pays each fate point spent on the roll

    @property
    def source(self) -> str:
        return self.cmd.source

    def chose(self, outcome: str, take: str) -> bool:
        return any(c.outcome == outcome and c.take == take for c in self.cmd.choices)

    def skill(self, name: str, example: str = "") -> tuple[str, int]:
        """The skill named (and, where the system has one, the approach named with it)."""
        state = self.system.character_state
        name, approach = state.split_skill(name)
        found = find_skill(self.actor, name, self.skills, source=self.source, fallback_example=example)
        self.approach = state.approach(self.actor, approach, chosen=True, source=self.source, skill=found[0])
        return found

    def best(self, candidates: tuple[str, ...]) -> tuple[str, int]:
        """The actor's best of ``candidates`` (and best approach) when no skill is named."""
        found = best_skill(self.actor, candidates, self.skills)
        self.approach = self.system.character_state.approach(self.actor, None, chosen=False)
        return found


@dataclass
class RollNumbers:
    """The rolled numbers of an action: the actor's effort against the opposition."""

    effort: Effort
    opposition: OppositionResult
    shifts: int
    outcome: Outcome


# -- entry point ---------------------------------------------------------------------------

def resolve(cmd: Command, table: Table, dice: DiceSource, actor: str, system: System, *,
            others: Iterable[AfterInvoke] = (), payer: FatePoints = OWN_POINTS) -> ActionResult:
    """Resolve one rolling command for ``actor`` (already worked out by the caller).

    ``others`` are the invokes other people make on the roll (``AfterInvoke(invoke,
    invoker)``: an ally's bonus is a term of the effort, an ``oppose`` a term of the
    opposition); ``payer`` says who pays each fate point spent on it, the roller's and
    theirs alike (:class:`pbp.rules.bookkeeping.FatePoints`: by default each character
    from their sheet; :class:`~pbp.rules.fate_points.GMPool` pays for NPCs from the GM's
    pool). A re-run after the dice is this call again with the same dice
    (:mod:`pbp.rules.reopen`)."""
    others = tuple(others)
    for kind, handler in _HANDLERS:
        if isinstance(cmd, kind):
            if others and kind is Roll:
                raise RulesError(f"/{cmd.name} takes no invokes, so there is nothing to invoke on",
                                 source=cmd.source, expected="an open overcome, advantage, attack or defend",
                                 example='/invoke "Deep Shadows"')
            return handler(cmd, table, dice, actor, system, others=others, payer=payer)
    raise RulesError(f"/{cmd.name} is not a roll the rules engine resolves", source=cmd.source)


def check_plain_bonus(modifier: int, source: str = "") -> None:
    """Refuse a written ``+N``/``-N`` beyond :data:`MAX_PLAIN_BONUS`."""
    if abs(modifier) > MAX_PLAIN_BONUS:
        sign = "+" if modifier > 0 else "-"
        raise RulesError(
            f"a plain bonus of {modifier:+d} is too big: an action takes at most {sign}{MAX_PLAIN_BONUS} "
            f"(for more, invoke an aspect or set a lower difficulty)", source=source,
            expected=f"a plain +N or -N from -{MAX_PLAIN_BONUS} to +{MAX_PLAIN_BONUS}",
            example="/overcome Athletics vs Fair +1")


def _begin(cmd: ActionCommand, name: str, table: Table, dice: DiceSource, actor: str, system: System,
           others: tuple[AfterInvoke, ...] = (), payer: FatePoints = OWN_POINTS) -> Action:
    if cmd.spin is not None and not system.spin_bonus:
        raise RulesError(f"{system.title or system.name} has no spin", source=cmd.source,
                         expected="the action without +spin", example=cmd.source.split(" +spin")[0])
    character = find_character(table, actor, source=cmd.source)
    allowed = system.tables.choices[name]
    for choice in cmd.choices:
        if (choice.outcome, choice.take) not in allowed:
            valid = ", ".join(f"on {o} {t}" for o, t in sorted(allowed)) or "none"
            raise RulesError(
                f'"on {choice.outcome} {choice.take}" is not a choice for {name} (choices: {valid})',
                source=cmd.source, expected=f"one of: {valid}",
                example="/overcome Athletics vs Good on tie boost",
            )
    return Action(cmd, name, table, dice, system, character, Report(), skill_list(table, system),
                  others=others, payer=payer)


def _contest(act: Action, skill: str, rating: int, against: Opponent | OppositionResult, *,
             may_oppose: bool) -> RollNumbers:
    mods = effort_modifiers(act.actor, skill, rating, act.name, system=act.system, approach=act.approach,
                            named=act.cmd.stunts, modifier=act.cmd.modifier, source=act.source,
                            spin=act.system.spin_bonus if act.cmd.spin is not None else 0,
                            spin_label=f"spin #{act.cmd.spin.roll}" if act.cmd.spin and act.cmd.spin.roll else "spin")
    mods += team_modifiers(act, skill, rating)
    other = against.character.name if isinstance(against, Opponent) else against.character
    levels, label = scale_difference(act, other)
    take = act.cmd.scale.take if act.cmd.scale is not None else "before"
    if levels > 0 and take == "before":
        mods.append(Modifier("scale", label, levels))
    effort = roll_effort(act.actor, skill, mods, act.dice, act.system)
    opposition = against.roll(act.dice, act.system) if isinstance(against, Opponent) else against
    if levels < 0 and isinstance(against, Opponent) and opposition.effort is not None:
        # the engine rolls for the higher opponent: its default, +1 per level before the roll
        opposition.effort.modifiers.append(Modifier("scale", label, -levels))
        opposition = OppositionResult(opposition.effort.total, opposition.label, opposition.effort,
                                      opposition.character)
    ctx = Invoking(act.table, act.actor, effort, opposition, act.dice, act.system, act.report, act.source, act.payer)
    apply_invokes(act.cmd.invokes, ctx, may_oppose=may_oppose or opposition.effort is not None, others=act.others)
    shifts = act.system.tiers.margin(effort.total, opposition.value)
    outcome = act.system.tiers.contest_tier(shifts, opposition.effort is not None)
    if levels > 0 and take == "after" and outcome in (Outcome.SUCCESS, Outcome.STYLE):
        # "+2 per level of difference to the result after the roll, if the roll succeeds"
        effort.modifiers.append(Modifier("scale", label, 2 * levels))
        shifts = act.system.tiers.margin(effort.total, opposition.value)
        outcome = act.system.tiers.contest_tier(shifts, opposition.effort is not None)
    act.scale_invokes = levels if levels > 0 and take == "invokes" else 0
    act.system.tiers.note(act.report, effort.total, outcome)
    return RollNumbers(effort, opposition, shifts, outcome)


def scale_difference(act: Action, other: str | None) -> tuple[int, str]:
    """Levels of scale the actor's side stands above (positive) or below (negative) the
    character opposing them, and the term's label, the higher side first ("Supernatural over
    Mundane"); 0 in a system without scale, against a difficulty, or at the same level. A
    ``+scale`` in a system without scale is refused. The actor's side is at its own level or
    at that of an aspect it invokes on the roll, whichever is higher (:func:`side_scale`)."""
    state = act.system.character_state
    if act.cmd.scale is not None and state.scale_of(act.actor) is None:
        raise RulesError(f"{act.system.title or act.system.name} has no scale", source=act.source,
                         expected="the action without +scale", example=act.source.split(" +scale")[0])
    if act.cmd.scale is not None and act.cmd.scale.take == "invokes" and act.name != "advantage":
        raise RulesError("+scale invokes is for create an advantage (a free invoke per level on a success)",
                         source=act.source, expected="+scale or +scale after",
                         example=act.source.replace("+scale invokes", "+scale"))
    if other is None or state.scale_of(act.actor) is None:
        if act.cmd.scale is not None:
            raise RulesError("scale compares two sides: against a difficulty there is none to take",
                             source=act.source, expected="an opposing character (vs NAME), or the action without "
                             "+scale", example=act.source.split(" +scale")[0])
        return 0, ""
    opponent = find_character(act.table, other, source=act.source)
    mine, my_name = side_scale(act)
    known, known_name = opposing_scale(act, opponent, after_the_dice=False)
    theirs, their_name = opposing_scale(act, opponent)
    if act.cmd.scale is not None and mine <= known:
        raise RulesError(f"{act.actor.name} ({my_name}) is not above {opponent.name} ({known_name}) in scale; "
                         "the higher side takes its benefit", source=act.source,
                         expected="the action without +scale", example=act.source.split(" +scale")[0])
    if mine >= theirs:
        return mine - theirs, f"{my_name} over {their_name}"
    return mine - theirs, f"{their_name} over {my_name}"


def opposing_scale(act: Action, opponent: Character, *, after_the_dice: bool = True) -> tuple[int, str]:
    """The level of the side opposing the actor and how it is named: the opponent's own, or
    the highest level of an aspect invoked for that side ("Aspects and Scale": "invoking the
    aspect grants the additional benefit of its scale"): the aspect the attacker invoked on
    an attack that the actor's defence answers (``Opposition.scale_aspect``), and, after the
    dice, an ``oppose`` invoke on the actor's roll by someone else (``others``). Named with
    the aspect (``Legendary (Warded Stacks)``). ``after_the_dice=False``: what the roller knew
    when writing the roll (a ``+scale`` is judged against it; an oppose invoke after the dice
    then only takes the benefit away). An aspect no longer in play brings nothing."""
    state = act.system.character_state
    level, name = state.scale_of(opponent)
    aspects: list[Aspect] = []
    opposition = act.cmd.opposition
    if (act.name == "defend" and opposition is not None and opposition.scale_aspect
            and same_name(opposition.character, opponent.name)):
        try:
            aspects.append(find_aspect(act.table, opposition.scale_aspect, opponent.name, source=act.source, system=act.system))
        except CommandError:
            pass                    # gone from play since the attack (the scene ended)
    if after_the_dice:
        aspects += [find_aspect(act.table, o.invoke.aspect, o.invoker or GM, source=act.source, system=act.system)
                    for o in act.others if o.invoke.mode is InvokeMode.OPPOSE]
    for aspect in aspects:
        carried = state.aspect_scale(aspect)
        if carried is not None and carried[0] > level:
            level, name = carried[0], f"{carried[1]} ({aspect.name})"
    return level, name


def side_scale(act: Action) -> tuple[int, str]:
    """The level of the actor's side on this roll and how it is named: the actor's own, or
    the highest level of an aspect the actor, or an ally after the dice (``others``),
    invokes on it ("Aspects and Scale": "the GM may determine that invoking the aspect grants
    the additional benefit of its scale"), named with the aspect (``Supernatural (Veiled)``).
    An ``if needed`` invoke is judged after the dice, so the scale it would grant is not known before them: refused for an aspect that
    would raise the level."""
    return _side(act)[:2]


def _side(act: Action) -> tuple[int, str, str | None]:
    """:func:`side_scale` and the aspect that set the level (None: the actor's own)."""
    state = act.system.character_state
    level, name = state.scale_of(act.actor)
    raised_by = None
    invoked = [(i, find_aspect(act.table, i.aspect, act.actor.name, source=act.source, system=act.system)) for i in act.cmd.invokes]
    # an ally's invoke after the dice (``others``): the ally's side is the roller's
    invoked += [(None, find_aspect(act.table, o.invoke.aspect, o.invoker, source=act.source, system=act.system))
                for o in act.others if o.invoke.mode is InvokeMode.BONUS]
    for invoke, aspect in invoked:
        carried = state.aspect_scale(aspect)
        if carried is None or carried[0] <= level:
            continue
        if invoke is not None and invoke.if_needed:
            raise RulesError(f"{aspect.name} carries {carried[1]} scale, which changes the roll before any "
                             "invoke is judged; invoke it plainly (an if needed invoke is decided after the dice)",
                             source=act.source, expected=f"+invoke {quote(aspect.name)} without if needed",
                             example=re.sub(r"\s+if needed(?: for style)?", "", act.source, count=1,
                                            flags=re.IGNORECASE))
        level, name, raised_by = carried[0], f"{carried[1]} ({aspect.name})", aspect.name
    return level, name, raised_by


def _scale_invokes(act: Action, name: str, target: Character | None) -> None:
    """"1 additional free invoke per level of difference to the results of a successful
    create advantage action"."""
    aspect = existing_aspect(act.table, name, target, act.actor.name)
    if aspect is None:
        return
    who = act.actor.name
    grant_free_invokes(act.report, aspect, who, act.scale_invokes)
    act.report.effect("scale_invokes", f"scale: {act.scale_invokes} more free invoke"
                      f"{'s' if act.scale_invokes != 1 else ''} on {aspect.name} for {who}",
                      aspect=aspect.name, holder=who, invokes=act.scale_invokes)


def team_modifiers(act: Action, skill: str, rating: int) -> list[Modifier]:
    """Teamwork (:mod:`pbp.rules.teamwork`): each helper's rating in the roller's skill, the
    system's bonus for the team, one ``teamwork`` term per +1 and one effect per helper
    (where the cap bit, or a helper below Average, is said too)."""
    if not act.cmd.helpers:
        return []
    helpers = []
    for name in act.cmd.helpers:
        who = find_character(act.table, name, source=act.source)
        if who is act.actor:
            raise RulesError(f"{who.name} cannot help their own roll", source=act.source,
                             expected="an ally who helps", example="/help Charles")
        found = lookup_skill(who, skill, act.skills)
        helpers.append((who.name, found[1] if found else 0))
    check_highest(act.actor.name, skill, rating, helpers, act.system.ladder, source=act.source)
    bonus = act.system.teamwork.combine(rating, helpers)
    for row in bonus.rows:
        act.report.effect("teamwork", row_text(row, skill, bonus.cap, act.actor.name, act.system.ladder), helper=row.helper,
                          rating=row.rating, adds=row.adds, why=row.why)
    act.team = bonus.sharing
    return [Modifier("teamwork", Msg("{who} (teamwork)", who=row.helper), row.adds) for row in bonus.rows if row.adds]


_COSTS = ("cost_minor", "cost_major")


def _result(act: Action, skill: str, contest: RollNumbers) -> ActionResult:
    if act.team and any(e.kind in _COSTS for e in act.report.effects):
        act.report.effect("team_cost", Msg("{team} helped {who}, so the same cost falls on {team} (supporters face "
                                           "the roll's costs)", team=and_names(act.team), who=act.actor.name),
                          shared_with=list(act.team), roller=act.actor.name)
    return ActionResult(
        command=act.source, actor=act.actor.name, action=act.name, skill=skill,
        effort=contest.effort, opposition=contest.opposition, shifts=contest.shifts,
        outcome=contest.outcome, effects=act.report.effects, changes=act.report.changes,
    )


def _opponent(act: Action, name: str) -> Character:
    who = find_character(act.table, name, source=act.source)
    if who is act.actor:
        raise RulesError(f"{act.actor.name} cannot oppose their own {act.name}", source=act.source,
                         expected="a difficulty or another character after vs", example=_with_difficulty(act, act.cmd.skill))
    return who


def _with_difficulty(act: Action, skill: str) -> str:
    """The action as written, reduced to its skill (and aspect) with a difficulty added."""
    skill = quote(skill or "Athletics")
    aspect = getattr(act.cmd, "aspect", None)
    what = f' "{aspect}"' if act.name == "advantage" and aspect else (" discover" if act.name == "advantage" else "")
    verb = "advantage" if act.name == "advantage" else act.name
    return f"/{verb} {skill}{what} vs Fair"


def _difficulty(act: Action, opposition: Opposition | None, skill: str) -> Opponent | OppositionResult:
    """What an overcome or advantage is rolled against: a difficulty or an opposing roll."""
    if opposition is None or (opposition.rating is None and not opposition.character):
        raise RulesError(
            f"/{act.name} needs a difficulty or an opponent", source=act.source,
            expected="vs DIFFICULTY (a ladder word or number) or vs CHARACTER",
            example=_with_difficulty(act, skill),
        )
    if opposition.rating is not None:
        return _passive(act, opposition.rating)
    who = _opponent(act, opposition.character)
    if opposition.skill:
        found = find_skill(who, opposition.skill, act.skills, source=act.source, opponent=True)
    else:
        found = best_skill(who, act.system.opposing_skills(act.system.skill_named(skill) or skill), act.skills)
    return Opponent(who, *found, action="defend")


def _passive(act: Action, rating: int) -> OppositionResult:
    """A passive opposition, within the system's range (the d10 hack: "passive target
    number from 1 to 5")."""
    bounds = act.system.passive_range
    if bounds is not None and not bounds[0] <= rating <= bounds[1]:
        low, high = bounds
        raise RulesError(
            f"a passive opposition in {act.system.title or act.system.name} is {low} to {high}, not {rating}",
            source=act.source, expected=f"vs a number from {low} to {high}",
            example=act.source.replace(f"vs {rating}", f"vs {max(low, min(high, rating))}", 1)
            if f"vs {rating}" in act.source else _with_difficulty(act, act.cmd.skill or "").replace("Fair", str(high)))
    return passive(rating, act.system.ladder)


def _required_skill(act: Action, example: str) -> tuple[str, int]:
    if not act.cmd.skill:
        raise RulesError(f"/{act.name} needs a skill", source=act.source, example=example)
    return act.skill(act.cmd.skill, example)


# -- overcome ------------------------------------------------------------------------------

def _overcome(cmd: Overcome, table: Table, dice: DiceSource, actor: str, system: System, **inputs) -> ActionResult:
    act = _begin(cmd, "overcome", table, dice, actor, system, **inputs)
    skill, rating = _required_skill(act, "/overcome Athletics vs Fair")
    contest = _contest(act, skill, rating, _difficulty(act, cmd.opposition, skill), may_oppose=False)
    system.tables.overcome(act, contest.outcome)
    return _result(act, skill, contest)


# -- create an advantage -------------------------------------------------------------------

def _advantage(cmd: Advantage, table: Table, dice: DiceSource, actor: str, system: System, **inputs) -> ActionResult:
    act = _begin(cmd, "advantage", table, dice, actor, system, **inputs)
    target = find_character(table, cmd.target, source=cmd.source) if cmd.target else None
    owner = target.name if target else None
    skill, rating = _required_skill(act, '/advantage Notice "Deep Shadows" vs Fair')
    against = _difficulty(act, cmd.opposition, skill)
    if cmd.discover:
        hidden = _first_hidden(table, owner)
        contest = _contest(act, skill, rating, against, may_oppose=False)
        system.tables.discover(act, contest.outcome, hidden, owner, _enemy(act, contest, owner))
    else:
        if not cmd.aspect:
            raise RulesError("/advantage needs the aspect to create or use", source=cmd.source,
                             example='/advantage Crafts "On Fire" on Shoggoth vs Good')
        existing = existing_aspect(table, cmd.aspect, target, act.actor.name)
        contest = _contest(act, skill, rating, against, may_oppose=False)
        if existing is None:
            system.tables.new_aspect(act, contest.outcome, cmd.aspect, owner, _enemy(act, contest, owner))
        elif existing.hidden:
            system.tables.guess(act, contest.outcome, existing, cmd.aspect, _enemy(act, contest, existing.owner))
        else:
            system.tables.known_aspect(act, contest.outcome, existing, _enemy(act, contest, existing.owner))
        if act.scale_invokes and contest.outcome in (Outcome.SUCCESS, Outcome.STYLE):
            _scale_invokes(act, cmd.aspect, target)
    return _result(act, skill, contest)


def existing_aspect(table: Table, name: str, target: Character | None, viewer: str) -> Aspect | None:
    """The aspect an advantage works on, if it is already in play.

    On a named target: that target's aspect of this name, hidden or not (naming a hidden
    aspect exactly is a guess that may uncover it). With no target: a scene aspect of that
    name, else any aspect the actor can see with that name (``/advantage Notice
    "Distracted"`` when Distracted is on the Ghoul).
    """
    key = name.casefold()
    named = [a for a in table.aspects if a.name.casefold() == key]
    owner = target.name if target else None
    for aspect in named:
        if same_name(aspect.owner, owner):
            return aspect
    if target is None:
        for aspect in named:
            if not aspect.hidden:
                return aspect
    return None


def _first_hidden(table: Table, owner: str | None) -> Aspect | None:
    for aspect in table.aspects:
        if aspect.hidden and same_name(aspect.owner, owner):
            return aspect
    return None


def _enemy(act: Action, contest: RollNumbers, owner: str | None) -> str | None:
    """Who benefits when the advantage goes wrong: the opposing roller; else, in a contest
    (``Advantage.other_side``), the other side's member the aspect is on, or the first of
    them; else the character the aspect is on (if it is not the actor); else nobody named:
    the GM's side (:meth:`pbp.rules.outcome_tables.FateTables.enemy_free_invoke` gives it to ``GM``)."""
    if contest.opposition.character:
        return contest.opposition.character
    others = getattr(act.cmd, "other_side", ())
    if others:
        return next((m for m in others if owner and same_name(m, owner)), others[0])
    if owner and not same_name(owner, act.actor.name):
        return owner
    return None


# -- attack --------------------------------------------------------------------------------

def _attack(cmd: Attack, table: Table, dice: DiceSource, actor: str, system: System, **inputs) -> ActionResult:
    act = _begin(cmd, "attack", table, dice, actor, system, **inputs)
    if not cmd.target:
        raise RulesError("/attack needs a target", source=cmd.source, example="/attack Ghoul with Fight")
    target = _opponent(act, cmd.target)
    attack_skills = tuple(system.attack_skills)
    if cmd.skill:
        skill, rating = act.skill(cmd.skill, f"/attack {target.name} with Fight")
    else:
        skill, rating = act.best(attack_skills)
    check_permission(act.actor, skill, attack_skills, "attack", system, source=cmd.source,
                     example=f"/attack {target.name} with {attack_skills[0]}")
    kind = system.attack_kind(system.skill_named(skill) or skill)
    if cmd.opposition == DEFENCE_LATER:
        return _attack_first_half(act, skill, rating, target)
    contest = _contest(act, skill, rating, _defence(act, cmd.opposition, target, kind), may_oppose=False)
    system.tables.attack(act, contest, target)
    return _result(act, skill, contest)


def _attack_first_half(act: Action, skill: str, rating: int, target: Character) -> ActionResult:
    """The attacker's effort alone; the target's defence comes later (see the module doc)."""
    if any(i.if_needed for i in act.cmd.invokes):
        raise RulesError(
            f"{target.name} defends in a later mail, so pbp cannot tell yet whether an invoke is "
            "needed; invoke it plainly now", source=act.source,
            example=f'/attack {target.name} with {skill} +invoke "{act.cmd.invokes[0].aspect}"',
        )
    mods = effort_modifiers(act.actor, skill, rating, "attack", system=act.system, approach=act.approach,
                            named=act.cmd.stunts, modifier=act.cmd.modifier, source=act.source)
    mods += team_modifiers(act, skill, rating)
    levels, label = scale_difference(act, target.name)
    # "+2 per level ... after the roll, if the roll succeeds": whether it succeeds is known
    # when the defence is rolled, so the bonus goes with the attack to the defence
    after = 2 * levels if levels > 0 and act.cmd.scale is not None and act.cmd.scale.take == "after" else 0
    if levels > 0 and not after:
        mods.append(Modifier("scale", label, levels))
    effort = roll_effort(act.actor, skill, mods, act.dice, act.system)
    ctx = Invoking(act.table, act.actor, effort, None, act.dice, act.system, act.report, act.source, act.payer)
    apply_invokes(act.cmd.invokes, ctx, may_oppose=False, others=act.others)
    # the aspect with scale the attacker invoked: the defence answers the attacker's side at its level
    raised_by = _side(act)[2] if act.system.character_state.scale_of(act.actor) is not None else None
    waits = (f"; scale after the roll ({label}): +{after} if the attack beats the defence, nothing on a tie"
             if after else "")
    act.report.effect("attack_rolled", Msg("{who} defends against an effort of {n}", who=target.name, n=effort.total)
                      if not waits else f"{target.name} defends against an effort of {effort.total}{waits}",
                      target=target.name, attacker=act.actor.name, effort=effort.total,
                      **({"scale_aspect": raised_by} if raised_by else {}),
                      **({"scale_after": after, "scale_label": label} if after else {}))
    return ActionResult(command=act.source, actor=act.actor.name, action="attack", skill=skill, effort=effort,
                        opposition=None, shifts=None, outcome=None, effects=act.report.effects,
                        changes=act.report.changes)


def _defence(act: Action, opposition: Opposition | None, target: Character,
             kind: AttackKind | None) -> Opponent | OppositionResult:
    """Who defends against an attack and with what; by default the target, actively."""
    if opposition is not None and opposition.rating is not None:
        return _passive(act, opposition.rating)
    who = _opponent(act, opposition.character) if opposition and opposition.character else target
    allowed = act.system.defences_against(kind)
    if opposition is not None and opposition.skill:
        skill, rating = find_skill(who, opposition.skill, act.skills, source=act.source, opponent=True)
        check_permission(who, skill, allowed, "defend", act.system, source=act.source)
    else:
        skill, rating = best_skill(who, allowed, act.skills)
    return Opponent(who, skill, rating, "defend")


# -- defend --------------------------------------------------------------------------------

def _defend(cmd: Defend, table: Table, dice: DiceSource, actor: str, system: System, **inputs) -> ActionResult:
    act = _begin(cmd, "defend", table, dice, actor, system, **inputs)
    opposition = cmd.opposition
    if opposition is None or (opposition.rating is None and not opposition.character):
        raise RulesError("/defend needs the attack it answers", source=cmd.source,
                         expected="vs ATTACK (a ladder word or number) or vs ATTACKER",
                         example="/defend Athletics vs Great")
    own = act.skill(cmd.skill, "/defend Athletics vs Great") if cmd.skill else None
    if opposition.rating is not None and opposition.character:
        attack, kind = _rolled_attack(act, opposition)
    elif opposition.rating is not None:
        attack, kind = _passive(act, opposition.rating), None
    else:
        attack = _attacker(act, opposition, own[0] if own else None)
        kind = system.attack_kind(system.skill_named(attack.skill) or attack.skill)
    allowed = system.defences_against(kind)
    skill, rating = own or act.best(allowed)
    check_permission(act.actor, skill, allowed, "defend", system, source=cmd.source,
                     example=f"/defend {allowed[0]}")
    contest = _contest(act, skill, rating, attack, may_oppose=True)
    if opposition.scale_after and opposition.rating is not None and opposition.character:
        contest = _scale_after_the_defence(act, contest, opposition)
    system.tables.defend(act, contest)
    return _result(act, skill, contest)


def _scale_after_the_defence(act: Action, contest: RollNumbers, opposition: Opposition) -> RollNumbers:
    """An attack rolled in an earlier mail with ``+scale after`` ("+2 per level of difference
    to the result after the roll, if the roll succeeds", Dresden Files Condensed, "Scale"):
    now that the defence is rolled, the attack succeeds if it beats it (a tie is no success),
    and then takes its bonus; the reply says which."""
    bonus, label = opposition.scale_after, opposition.scale_label or "scale"
    attack = contest.opposition
    if contest.shifts >= 0:
        act.report.effect("scale_after", f"scale after the roll ({label}): {attack.character}'s attack does not "
                          f"beat {act.actor.name}'s defence, so it takes nothing", bonus=0)
        return contest
    total = attack.value + bonus
    raised = OppositionResult(total, f"{attack.label} +{bonus} scale after the roll ({label}) = {describe(total, act.system.ladder)}",
                              attack.effort, attack.character)
    shifts = act.system.tiers.margin(contest.effort.total, total)
    act.report.effect("scale_after", f"scale after the roll ({label}): {attack.character}'s attack beats "
                      f"{act.actor.name}'s defence, so it takes +{bonus} (2 per level), {describe(total, act.system.ladder)}",
                      bonus=bonus)
    return RollNumbers(contest.effort, raised, shifts, act.system.tiers.contest_tier(shifts, False))


def _rolled_attack(act: Action, opposition: Opposition) -> tuple[OppositionResult, AttackKind | None]:
    """An attack rolled in an earlier mail: its effort, who made it and with what."""
    who = _opponent(act, opposition.character)
    skill = opposition.skill or ""
    kind = act.system.attack_kind(act.system.skill_named(skill) or skill) if skill else None
    effort = act.system.explain.passive(opposition.rating)
    label = (Msg("{who}'s attack ({skill}), {effort}", who=who.name, skill=skill, effort=effort) if skill else
             Msg("{who}'s attack, {effort}", who=who.name, effort=effort))
    return OppositionResult(opposition.rating, label, None, who.name), kind


def _attacker(act: Action, opposition: Opposition, defence: str | None) -> Opponent:
    """The character whose attack the actor answers, and the skill they attack with."""
    who = _opponent(act, opposition.character)
    attack_skills = tuple(act.system.attack_skills)
    if opposition.skill:
        skill, rating = find_skill(who, opposition.skill, act.skills, source=act.source, opponent=True)
        check_permission(who, skill, attack_skills, "attack", act.system, source=act.source)
        return Opponent(who, skill, rating, "attack")
    canonical = act.system.skill_named(defence) if defence else None
    answerable = tuple(s for s in attack_skills if canonical in act.system.attack_kinds[act.system.attack_skills[s]].defences)
    return Opponent(who, *best_skill(who, answerable or attack_skills, act.skills), action="attack")


# -- a plain roll --------------------------------------------------------------------------

def _roll(cmd: Roll, table: Table, dice: DiceSource, actor: str, system: System, **_) -> ActionResult:
    """``/roll 4dF+2``, ``/roll Fight``, ``/roll 3d6``: dice, an optional skill and a
    modifier; no opposition, so no outcome and no shifts. The system's dice decide what a
    plain roll throws (``System.dice.plain``): Fate's any dice written, the rating added; the
    d10 hack's a pool of d10s counted as hits, sized by the skill and approach."""
    if not 1 <= cmd.count <= MAX_DICE:
        raise RulesError(f"roll between 1 and {MAX_DICE} dice, not {cmd.count}", source=cmd.source,
                         example="/roll 4dF+2")
    sides = str(cmd.sides).upper()
    if sides != "F" and (not sides.isdigit() or not 2 <= int(sides) <= MAX_SIDES):
        raise RulesError(f"a die has 2 to {MAX_SIDES} sides, not {cmd.sides}", source=cmd.source,
                         example="/roll 3d6")
    pool = system.dice
    pool.check_plain(cmd, sides, system)
    modifiers: list[Modifier] = []
    if cmd.skill:
        character = find_character(table, actor, source=cmd.source)
        state = system.character_state
        name, approach = state.split_skill(cmd.skill)
        skill, rating = find_skill(character, name, skill_list(table, system), source=cmd.source,
                                   fallback_example="/roll Fight")
        modifiers.append(Modifier("skill", skill, rating))
        term = state.approach(character, approach, chosen=False, source=cmd.source, skill=skill)
        if term is not None:       # the pool's second term, named or the character's best
            modifiers.append(term)
    else:
        character, skill = table.character(actor), None
    if cmd.modifier:
        modifiers.append(Modifier("modifier", "modifier", cmd.modifier))
    throw = pool.plain(dice, cmd.count, sides, skill_rating(modifiers), written=cmd.dice_written)
    effort = Effort(roller=character.name if character else actor, skill=skill,
                    rolls=[throw], modifiers=modifiers, rating_counts=pool.adds_rating)
    return ActionResult(command=cmd.source, actor=effort.roller, action="roll", skill=skill,
                        effort=effort, opposition=None, shifts=None, outcome=None)


_HANDLERS: tuple[tuple[type, Callable[..., ActionResult]], ...] = (
    (Overcome, _overcome),
    (Advantage, _advantage),
    (Attack, _attack),
    (Defend, _defend),
    (Roll, _roll),
)
