"""Contests by post (Fate Condensed, "Contests", 001_0095f60d590caa10.txt; "Creating
Advantages in a Contest" in 000_7ba3f797fc1d45d3.txt).

* The GM starts one: ``/contest start NAME A, B "INTENT" vs C "INTENT" [vs ...] [threat NAME
  RATING | threat NAME with SKILL]... [victories N] [difficulty RATING] [hours N]``. Every
  side declares its intent ("what they hope to get out of it"). Victories: the system's
  (``System.contest_victories``, 3), at most ``contest_most_victories`` (5: "we recommend no
  more than five").
* **An exchange** waits for one overcome from each side: ``/overcome SKILL`` by any member
  (the difficulty may be left out: the contest's, Fair (+2) unless the GM set one with
  ``difficulty``; it decides the roll's own outcome, while the victory goes by the efforts). The side's others help with ``/help`` (teamwork) or create
  advantages *before* their side's overcome ("your side can try to create advantages before
  making your overcome roll"); targets defend as for any advantage.
* **An advantage that fails** costs the side its overcome this exchange, unless it was
  written ``on fail cost``: then the aspect is made and the other side gets its free invoke
  ("succeed at a cost ... by giving the other side a free invoke instead"): its member the
  aspect is on, else its first standing member (:func:`other_side`, which also says what
  three or more sides do). The choice is
  made ahead, on the line, because a question by mail would hold the exchange up.
* **The deadline** (the exchange's ``hours``, default the reaction deadline): a side that
  has not rolled by then forfeits its overcome (the documented default), and the exchange
  is settled at the tick.
* **Settling**, as soon as every side has rolled or forfeited: the highest effort marks a
  victory, two if that roll succeeded with style and no other side's did; a tie for the
  highest marks none and the GM owes a twist, ``/contest twist ASPECT`` (a new situation
  aspect; at the deadline, pbp adds "Unexpected Twist (to be named)"). Every threat then
  strikes: its static rating, or its character's attack roll (rolled now, in the ledger),
  hits everyone on each side it is not on whose effort is lower (a forfeited side counts
  as Mediocre (+0)), with the difference as shifts, absorbed as in a conflict (an NPC at
  once by policy, a PC by ``/absorb`` with the conflict's deadline and default).
* **The end**: the first side to the victories needed wins; the GM may end it with
  ``/contest end``; it ends with the scene. A side whose members have all been taken out
  owes nothing; when one side is left standing, it wins.

Every reply while a contest runs ends with the tally and what each side still owes this
exchange (:func:`tally_lines`). The settling is done when the last side's overcome is in.
An invoke after the dice on a side's roll counts while the exchange is open; once it is
settled, an invoke after the dice on one of its rolls (still open: the invoke window) settles
it again (:func:`resettle`: "at the end of each exchange, compare the efforts", and Fate
lets a player invoke after seeing the other side's roll), until the next exchange's first
roll, which closes the last exchange's rolls. The threats' hits stand as struck.
"""
from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

from pbp import commands as c
from pbp.errors import RulesError
from pbp.i18n import CommandLine, Joined, Msg, Msgs
from pbp.play import conflict as pc
from pbp.play.core import GM, Ask, NoteResult, Post, handles, number_roll, quote
from pbp.play.sequence import after_action, deadline_job, on_scene_end, prepare_action, roll_revised, status_line
from pbp.play.state import Contest, ContestRoll, ContestSideState, ContestThreat
from pbp.rules import harm
from pbp.rules.actions import resolve
from pbp.rules.bookkeeping import Report, create_aspect
from pbp.rules.ladder import describe
from pbp.rules.names import and_names, lookup_skill, same_name, skill_list
from pbp.rules.results import ActionResult, Effect

TWIST_REF = "twist:contest"
DEFAULT_TWIST = "Unexpected Twist (to be named)"
DEFAULT_DIFFICULTY = 2
"""What a side's overcome is rolled against when the GM sets no ``difficulty``: Fair (+2),
Fate's ordinary difficulty. The rules compare the sides' efforts; the difficulty decides
each roll's own outcome (a success with style is one of the two ways to two victories)."""
EXAMPLE = '/contest start Chase Ruth, Charles "escape" vs Ghoul "a meal"'


def _side_name(side: ContestSideState) -> str:
    return and_names(side.members)


def _side_words(side: ContestSideState) -> str:
    """"Ruth and Charles's side", "Ghoul's side"."""
    return Msg("{names}'s side", names=_side_name(side))


def _lines(lines: list) -> Joined:
    """Lines one under the other in a result, each said in the campaign's language."""
    return Joined([part for n, line in enumerate(lines) for part in ((line,) if not n else ("\n  ", line))])


def _side_of(contest: Contest, name: str) -> int | None:
    return next((i for i, s in enumerate(contest.sides) if any(same_name(m, name) for m in s.members)), None)


def _roll_of(contest: Contest, side: int) -> ContestRoll | None:
    return next((r for r in contest.rolls if r.side == side), None)


def _standing(post: Post, side: ContestSideState) -> bool:
    """Whether anyone on the side is still in (not taken out)."""
    return any(not (post.table.character(m) and post.table.character(m).taken_out) for m in side.members)


def _owing(post: Post, contest: Contest) -> list[int]:
    return [i for i, s in enumerate(contest.sides) if _roll_of(contest, i) is None and _standing(post, s)]


# --------------------------------------------------------------------------- the GM's commands


@handles(c.ContestStart)
def contest_start(post: Post, cmd: c.ContestStart):
    post.require_gm("/contest start", EXAMPLE)
    if post.play.contest is not None:
        raise RulesError(f'the contest "{post.play.contest.name}" is still running', source=cmd.source,
                         expected="one contest at a time: end it first", example="/contest end")
    if pc.active(post) is not None:
        raise RulesError("a conflict is going on: a contest runs outside one", source=cmd.source,
                         expected="the conflict ended first", example="/conflict end")
    most = post.system.contest_most_victories
    needed = cmd.victories or post.system.contest_victories
    if needed > most:
        raise RulesError(f"a contest of {needed} victories is too long: the rules recommend no more than {most}",
                         source=cmd.source, expected=f"victories 1 to {most}", example=EXAMPLE + f" victories {most}")
    sides, seen = [], {}
    for n, side in enumerate(cmd.sides, start=1):
        if not side.intent.strip():
            raise RulesError(f"side {n} has no intent: every side declares what it hopes to get out of the contest",
                             source=cmd.source, expected="the intent in quotes after the side's names", example=EXAMPLE)
        members = []
        for typed in side.members:
            name = post.find(typed, cmd.source).name
            if name.casefold() in seen:
                raise RulesError(f"{name} is on two sides", source=cmd.source, expected="each character on one side",
                                 example=EXAMPLE)
            seen[name.casefold()] = n
            members.append(name)
        sides.append(ContestSideState(members, side.intent))
    threats = []
    for t in cmd.threats:
        if t.skill is None:
            threats.append(ContestThreat(t.name, rating=t.rating))
            continue
        who = post.find(t.name, cmd.source)
        found = lookup_skill(who, t.skill, skill_list(post.table, post.system))
        if found is None:
            raise RulesError(f"{who.name} has no skill {t.skill!r} to attack with", source=cmd.source,
                             expected=f"one of {who.name}'s skills: " + ", ".join(who.skills),
                             example=f"{EXAMPLE} threat {quote(who.name)} with Fight")
        threats.append(ContestThreat(who.name, skill=found[0]))
    hours = float(cmd.hours) if cmd.hours else post.hours("reaction_deadline_hours")
    difficulty = DEFAULT_DIFFICULTY if cmd.difficulty is None else cmd.difficulty
    contest = Contest(cmd.name, sides, threats, needed, difficulty, hours,
                      deadline=post.now + timedelta(hours=hours))
    post.play.contest = contest
    lines = [Msg('Contest "{name}" begins, first to {n} victories:', name=contest.name, n=needed)]
    lines += [Msgs('{names} wants: "{intent}"', '{names} want: "{intent}"', len(s.members), names=_side_name(s),
                   intent=s.intent) for s in sides]
    for t in threats:
        lines.append(Msg("Threat: {name}, {rating}, hits every side whose roll is lower at the end of each exchange",
                         name=t.name, rating=describe(t.rating, post.system.ladder)) if t.skill is None else
                     Msg("Threat: {name}, attacking with {skill}, hits every side whose roll is lower at the end of "
                         "each exchange", name=t.name, skill=t.skill))
    lines.append(Msg("Each side: one overcome this exchange ({command}) by {by}; the others may /help or create an "
                     "advantage first.", command=CommandLine("/overcome SKILL"), by=post_when(contest)))
    return NoteResult(cmd.source, GM, "contest_start", text=_lines(lines))


def post_when(contest: Contest) -> str:
    return pc.when(contest.deadline)


@handles(c.ContestTwist)
def contest_twist(post: Post, cmd: c.ContestTwist):
    post.require_gm("/contest twist", '/contest twist "Loose Rubble"')
    contest = _require(post, cmd)
    if contest.twist_deadline is None:
        raise RulesError("no twist is owed: a twist follows a tie for the highest effort", source=cmd.source,
                         expected="a situation aspect added the usual way", example=f'/aspect add {quote(cmd.aspect)}')
    report = Report()
    _twist(post, contest, cmd.aspect, report)
    return NoteResult(cmd.source, GM, "contest_twist", text=Msg("The twist: {aspect} is now in play.", aspect=cmd.aspect),
                      changes=report.changes)


def _twist(post: Post, contest: Contest, name: str, report: Report) -> None:
    if not any(same_name(a.name, name) and a.owner is None for a in post.table.aspects):
        create_aspect(post.table, report, name, None)
    contest.twist_deadline = None
    post.close_ref(TWIST_REF)


@handles(c.ContestEnd)
def contest_end(post: Post, cmd: c.ContestEnd):
    post.require_gm("/contest end", "/contest end")
    contest = _require(post, cmd)
    post.play.contest = None
    post.close_ref(TWIST_REF)
    return NoteResult(cmd.source, GM, "contest_end",
                      text=Msg('The GM ends the contest "{name}": {score}.', name=contest.name, score=_score(contest)))


def _require(post: Post, cmd: c.Command) -> Contest:
    if post.play.contest is None:
        raise RulesError("no contest is running", source=cmd.source, expected="a contest the GM has started",
                         example=EXAMPLE)
    return post.play.contest


# --------------------------------------------------------------------------- a side's rolls


def _stash(post: Post) -> dict:
    return post.__dict__.setdefault("_contest", {})


@prepare_action
def _side_roll(post: Post, cmd, actor: str):
    """A side member's overcome is the side's roll this exchange; an advantage comes before it."""
    contest = post.play.contest
    if contest is None or not isinstance(cmd, (c.Overcome, c.Advantage)):
        return cmd
    side = _side_of(contest, actor)
    if side is None:
        return cmd
    ch = post.table.character(actor)
    if ch is not None and ch.taken_out:
        raise RulesError(f"{actor} has been taken out of the contest", source=cmd.source,
                         expected="someone still in it", example="/table")
    done = _roll_of(contest, side)
    if done is not None:
        what = "forfeited its overcome" if done.effort is None else f"rolled ({done.roller})"
        raise RulesError(f"{_side_words(contest.sides[side])} has {what} this exchange "
                         f"(exchange {contest.exchange}): one overcome per side, and advantages come before it",
                         source=cmd.source, expected="the next exchange, or help on an open roll",
                         example=f"/help {quote(done.roller)}" if done.roller and done.effort is not None else "/table")
    strangers = [h for h in cmd.helpers if _side_of(contest, h) != side]
    if strangers:
        raise RulesError(f"{and_names(strangers)} {'is' if len(strangers) == 1 else 'are'} not on "
                         f"{_side_words(contest.sides[side])}: in a contest only allies help", source=cmd.source,
                         expected="helpers from the roller's own side", example=f"/overcome {quote(cmd.skill)}")
    _stash(post)[actor.casefold()] = (side, type(cmd).__name__)
    if isinstance(cmd, c.Advantage):
        cmd = replace(cmd, other_side=other_side(post, contest, side))
    if isinstance(cmd, c.Overcome):
        wanted = contest.difficulty
        if cmd.opposition is not None and cmd.opposition.rating != wanted:
            raise RulesError(f'in the contest "{contest.name}" each side rolls against {describe(wanted, post.system.ladder)}: '
                             "the efforts are compared", source=cmd.source,
                             expected="the overcome with no difficulty", example=f"/overcome {quote(cmd.skill)}")
        if cmd.opposition is None:
            cmd = replace(cmd, opposition=c.Opposition(rating=wanted))
    if contest.settled:
        ids = {r.roll for r in contest.settled if r.roll is not None}
        post.play.close_rolls(lambda h: any(i in ids for i in h.ids),
                              f'exchange {contest.exchange} of "{contest.name}" has begun, so exchange '
                              f'{contest.exchange - 1} stays as it was settled')
        contest.settled, contest.awarded = [], []
    return cmd


def other_side(post: Post, contest: Contest, side: int) -> tuple[str, ...]:
    """Who may hold the free invoke a side's failed advantage gives "the other side"
    (:attr:`pbp.commands.Advantage.other_side`): the other side's members still standing,
    in the order named, the first holding it unless the aspect is on another of them. With
    no other side (a side against threats alone) the GM's side holds it. With three or more
    sides the rules do not say which: the GM's side holds it (the GM may ``/give`` it on),
    unless the campaign's ``contest_invoke_next_side`` gives it to the next side in the
    order of ``/contest start`` (after the last, the first)."""
    def members(i: int) -> list[str]:
        s = contest.sides[i]
        return [m for m in s.members if not (post.table.character(m) and post.table.character(m).taken_out)]

    others = [i for i in range(len(contest.sides)) if i != side and members(i)]
    everyone = [m for i in others for m in members(i)]
    if not others:
        return (GM,)
    if len(others) == 1:
        return tuple(everyone)
    if post.flag("contest_invoke_next_side"):
        nxt = min(others, key=lambda i: (i - side) % len(contest.sides))
        return tuple(members(nxt)) + tuple(m for m in everyone if m not in members(nxt))
    return (GM, *everyone)


@after_action
def _rolled(post: Post, cmd, actor: str, result) -> None:
    contest = post.play.contest
    got = _stash(post).pop(actor.casefold(), None)
    if contest is None or got is None or not isinstance(result, ActionResult) or result.outcome is None:
        return
    side, kind = got
    if kind == "Advantage":
        if any(e.kind == "fail" for e in result.effects) and result.outcome.value == "fail":
            contest.rolls.append(ContestRoll(side, why=f"{actor}'s advantage failed"))
            result.effects.append(Effect("contest_forfeit", Msg(
                "{who}'s advantage failed, so {side} forfeits its overcome this exchange (written \"on fail cost\", the "
                "other side would have had a free invoke instead).", who=actor, side=_side_words(contest.sides[side])),
                                         {"side": side}))
        else:
            return
    else:
        helpers = [e.data["helper"] for e in result.effects if e.kind == "teamwork" and e.data.get("adds")]
        roll = ContestRoll(side, actor, result.effort.total, result.outcome.value, helpers=helpers, roll=result.roll_id)
        contest.rolls.append(roll)
        result.effects.append(Effect("contest_roll", Msg('{who} rolls for {side} in "{name}", exchange {n}: effort '
                                                         '{effort}.', who=actor, side=_side_words(contest.sides[side]),
                                                         name=contest.name, n=contest.exchange,
                                                         effort=describe(roll.effort, post.system.ladder)),
                                     {"side": side, "effort": roll.effort}))
    if not _owing(post, contest):
        effects, changes = settle(post, contest)
        result.effects.extend(effects)
        result.changes.extend(changes)


@roll_revised
def _revised(post: Post, ref, old: ActionResult, new: ActionResult) -> list[str]:
    contest = post.play.contest
    if contest is None:
        return []
    for settled, rolls in ((False, contest.rolls), (True, contest.settled)):
        for roll in rolls:
            if roll.roll is not None and roll.roll in ref.ids and roll.effort is not None:
                roll.effort, roll.outcome = new.effort.total, new.outcome.value
                if settled:
                    return [f"{roll.roller}'s side now stands at {describe(roll.effort, post.system.ladder)} in exchange "
                            f"{contest.exchange - 1}.", *resettle(post, contest)]
                return [f"{roll.roller}'s side now stands at {describe(roll.effort, post.system.ladder)} this exchange."]
    return []


# --------------------------------------------------------------------------- settling an exchange


def settle(post: Post, contest: Contest) -> tuple[list[Effect], list]:
    """The end of the exchange: victories, the twist, the threats' hits, the next exchange
    or the end. Returns the effects and the sheet changes for the reply."""
    out: list[Effect] = []
    changes: list = []
    n = contest.exchange
    effect, contest.awarded = _award(post, contest, contest.rolls, n)
    out.append(effect)
    out += _threats(post, contest, changes)
    if _over(post, contest, out):
        return out, changes
    contest.exchange += 1
    contest.settled, contest.rolls = contest.rolls, []
    contest.deadline = post.now + timedelta(hours=contest.hours)
    return out, changes


def _award(post: Post, contest: Contest, rolls: list[ContestRoll], n: int, *, twist: bool = True
           ) -> tuple[Effect, list[int]]:
    """Exchange ``n``'s victories from its ``rolls``: marked on the sides, and returned as
    the reply's effect and ``[side, victories]`` (``[]``: none marked). A tie asks the GM
    for the twist, unless not ``twist`` (one is owed already)."""
    rolled = [r for r in rolls if r.effort is not None]
    if not rolled:
        return Effect("contest_none", Msg("Exchange {n}: no side rolled, so no victory.", n=n), {}), []
    top = max(r.effort for r in rolled)
    leaders = [r for r in rolled if r.effort == top]
    if len(leaders) > 1:
        names = and_names([_side_words(contest.sides[r.side]) for r in leaders])
        if twist:
            contest.twist_deadline = post.deadline()
            contest.twist_exchange = n
            post.ask(Ask(ref=TWIST_REF, who=GM, deadline=contest.twist_deadline,
                         subject=Msg('The twist in "{name}"', name=contest.name),
                         text=Msg('GM: exchange {n} of "{name}" ended in a tie. Name the twist, a new situation aspect: '
                                  '{command}. If you have not by {by}, pbp adds "{twist}".', n=n, name=contest.name,
                                  command=CommandLine('/contest twist "Loose Rubble"'),
                                  by=pc.when(contest.twist_deadline), twist=DEFAULT_TWIST)))
        return Effect("contest_tie", Msg("Exchange {n}: a tie for the highest effort ({effort}) between {names}: no "
                                         "victory, and a twist: the GM adds a new situation aspect.", n=n,
                                         effort=describe(top, post.system.ladder), names=names), {}), []
    win = leaders[0]
    style = win.outcome == "style" and not any(r.outcome == "style" for r in rolled if r is not win)
    marks = 2 if style else 1
    side = contest.sides[win.side]
    side.victories += marks
    how = Msg("succeeded with style, and no one else did: two victories") if style else Msg("one victory")
    return Effect("contest_victory", Msgs("Exchange {exchange}: {names} has the highest effort ({effort}): {how}.",
                                          "Exchange {exchange}: {names} have the highest effort ({effort}): {how}.",
                                          len(side.members), names=_side_name(side),
                                          effort=describe(top, post.system.ladder), how=how, exchange=n),
                  {"side": win.side, "victories": marks}), [win.side, marks]


def _over(post: Post, contest: Contest, out: list[Effect]) -> bool:
    """Whether a side has won (the victories needed, or the only side standing): then the
    contest ends, said in ``out``."""
    winner = next((s for s in contest.sides if s.victories >= contest.needed), None)
    standing = [s for s in contest.sides if _standing(post, s)]
    if winner is None and len(standing) == 1:
        winner = standing[0]
    if winner is None:
        return False
    post.play.contest = None
    post.close_ref(TWIST_REF)
    out.append(Effect("contest_over", Msgs('{names} wins the contest "{name}" ("{intent}"): {score}. The GM narrates '
                                           'how it ends.', '{names} win the contest "{name}" ("{intent}"): {score}. The '
                                           'GM narrates how it ends.', len(winner.members), names=_side_name(winner),
                                           name=contest.name, intent=winner.intent, score=_score(contest)), {}))
    return True


def resettle(post: Post, contest: Contest) -> list[str]:
    """The last exchange settled again, a roll of it revised after the dice (an invoke on
    the earlier side's roll once the last side has rolled): its victories taken back and
    marked anew, the twist asked for or no longer owed; the threats' hits stand. Returns
    the reply's notes."""
    n = contest.exchange - 1
    if contest.awarded:
        contest.sides[contest.awarded[0]].victories -= contest.awarded[1]
    tie_before = not contest.awarded
    effect, contest.awarded = _award(post, contest, contest.settled, n, twist=not tie_before)
    notes = [f"Exchange {n} is settled again: {effect.text.split(': ', 1)[1]}"]
    if tie_before and contest.awarded and contest.twist_deadline is not None and contest.twist_exchange == n:
        contest.twist_deadline = None
        post.close_ref(TWIST_REF)
        notes.append("No twist is owed now.")
    if contest.threats:
        notes.append(f"The threats' hits of exchange {n} stand as struck (the GM adjusts them by hand).")
    out: list[Effect] = []
    if _over(post, contest, out):
        notes += [e.text for e in out]
    else:
        notes.append(f"Now: {_score(contest)}.")
    return notes


def _threats(post: Post, contest: Contest, changes: list) -> list[Effect]:
    """Each threat hits every side it is not on whose effort is lower than its rating or roll."""
    out: list[Effect] = []
    for t in contest.threats:
        if t.skill is None:
            rating, label = t.rating, Msg("{name} ({rating})", name=t.name, rating=describe(t.rating, post.system.ladder))
        else:
            cmd = c.Roll(line=0, source=f'/roll {t.skill} (the threat\'s attack in "{contest.name}", exchange '
                                        f'{contest.exchange})', count=4, sides="F",
                         skill=t.skill, actor=t.name)
            result = number_roll(post, resolve(cmd, post.table, post.dice, t.name, post.system))
            post.follow.append(result)
            rating, label = result.effort.total, Msg("{name}'s attack with {skill} ({rating})", name=t.name,
                                                     skill=t.skill, rating=describe(result.effort.total, post.system.ladder))
        own = _side_of(contest, t.name)
        for i, side in enumerate(contest.sides):
            if i == own or not _standing(post, side):
                continue
            roll = _roll_of(contest, i)
            effort = roll.effort if roll is not None and roll.effort is not None else 0
            if effort >= rating:
                continue
            shifts = rating - effort
            out.append(Effect("contest_hit", Msg("{label} beats {names}'s {effort}: a hit of {shifts} on each of them.",
                                                 label=label, names=_side_name(side),
                                                 effort=describe(effort, post.system.ladder),
                                                 shifts=post.system.explain.margin(shifts)), {"side": i, "shifts": shifts}))
            for member in side.members:
                ch = post.table.character(member)
                if ch is None or ch.taken_out:
                    continue
                # a threat's hit lands on the system's first track (Fate Condensed: physical)
                effects, more = pc.land_hit(post, harm.Hit(member, shifts, attacker=t.name), t.skill or "",
                                            track=post.system.tracks[0])
                out.extend(effects)
                changes.extend(more)
    return out


def _score(contest: Contest) -> str:
    return Joined([part for n, s in enumerate(contest.sides)
                   for part in ((() if not n else ("; ",)) + (_side_name(s), f" {s.victories}"))])


# --------------------------------------------------------------------------- the tally, deadlines, the end


def tally(post: Post, contest: Contest, *, gm: bool) -> dict:
    """The contest as plain data (the ``contest`` of ``pbp table --json``; the footer's
    lines, :func:`tally_lines`, are written from it): the sides with their intents,
    victories and this exchange's roll (or forfeit, or what they still owe), the threats,
    the twist owed. A threat's attack skill's rating is an NPC's skill: only with ``gm``
    or the campaign's ``show_npc_skills`` (a PC's is the table's to see)."""
    sides = []
    for i, side in enumerate(contest.sides):
        roll = _roll_of(contest, i)
        standing = _standing(post, side)
        if roll is None:
            owes = Msg("owes an overcome") if standing else Msg("all taken out")
        elif roll.effort is None:
            owes = Msg("forfeited ({why})", why=roll.why)
        else:
            owes = Msg("rolled: {who}, {effort}", who=roll.roller, effort=describe(roll.effort, post.system.ladder))
        sides.append({"members": list(side.members), "intent": side.intent, "victories": side.victories,
                      "standing": standing, "owes": roll is None and standing,
                      "rolled": None if roll is None or roll.effort is None else
                      {"by": roll.roller, "effort": roll.effort, "outcome": roll.outcome, "roll": roll.roll,
                       "helpers": list(roll.helpers)},
                      "forfeited": roll.why if roll is not None and roll.effort is None else None,
                      "text": owes})
    threats = []
    for t in contest.threats:
        threat = {"name": t.name, "rating": t.rating, "skill": t.skill, "side": _side_of(contest, t.name)}
        who = post.table.character(t.name) if t.skill is not None else None
        if who is not None and (gm or who.player or post.flag("show_npc_skills")):
            found = lookup_skill(who, t.skill, skill_list(post.table, post.system))
            threat["skill_rating"] = found[1] if found is not None else 0
        threats.append(threat)
    twist = None
    if contest.twist_deadline is not None:
        twist = {"exchange": contest.twist_exchange, "deadline": contest.twist_deadline.isoformat(),
                 "_deadline": contest.twist_deadline, "default": DEFAULT_TWIST}
    return {"name": contest.name, "exchange": contest.exchange, "needed": contest.needed,
            "difficulty": contest.difficulty, "deadline": contest.deadline.isoformat(), "_deadline": contest.deadline,
            "sides": sides, "owing": [s["members"] for s in sides if s["owes"]], "threats": threats, "twist": twist}


def tally_lines(post: Post, contest: Contest) -> list[str]:
    return tally_text(tally(post, contest, gm=False))


def tally_text(view: dict) -> list[str]:
    """The tally's lines, from its data (:func:`tally`)."""
    lines = [Msg('Contest "{name}", exchange {n}, first to {needed} victories (until {until}):', name=view["name"],
                 n=view["exchange"], needed=view["needed"], until=pc.when(view["_deadline"]))]
    for side in view["sides"]:
        lines.append(Msgs('  {names} ("{intent}"): {n} victory; this exchange: {text}',
                          '  {names} ("{intent}"): {n} victories; this exchange: {text}', side["victories"],
                          names=and_names(side["members"]), intent=side["intent"], text=side["text"]))
    if view["twist"] is not None:
        lines.append(Msg("  Waiting for the GM's twist ({command}) by {by}.", command=CommandLine("/contest twist"),
                         by=pc.when(view["twist"]["_deadline"])))
    return lines


@status_line
def contest_status(post: Post) -> list[str]:
    contest = post.play.contest
    return tally_lines(post, contest) if contest is not None else []


@deadline_job
def contest_deadlines(post: Post) -> list:
    contest = post.play.contest
    if contest is None:
        return []
    out = []
    if contest.twist_deadline is not None and post.now >= contest.twist_deadline:
        report = Report()
        _twist(post, contest, DEFAULT_TWIST, report)
        out.append(NoteResult(f'(deadline: the twist in "{contest.name}")', GM, "contest_twist",
                              text=Msg('The GM did not name the twist in time: "{twist}" is in play; the GM can rename '
                                       'it with /aspect rename.', twist=DEFAULT_TWIST), changes=report.changes))
    if post.now >= contest.deadline:
        late = _owing(post, contest)
        for i in late:
            contest.rolls.append(ContestRoll(i, why="it did not roll by the deadline"))
        names = and_names([_side_name(contest.sides[i]) for i in late]) if late else ""
        if late:
            text = Msgs('Exchange {exchange} of "{name}": {names} did not roll by {by}, and forfeits the overcome.',
                        'Exchange {exchange} of "{name}": {names} did not roll by {by}, and forfeit the overcome.', len(late),
                        names=names, by=pc.when(contest.deadline), name=contest.name, exchange=contest.exchange)
        else:
            text = Msg('Exchange {n} of "{name}": the deadline has passed.', n=contest.exchange, name=contest.name)
        effects, changes = settle(post, contest)
        out.append(NoteResult(f'(deadline: contest "{contest.name}")', GM, "contest",
                              text=_lines([text] + [e.text for e in effects if e.text]), effects=effects,
                              changes=changes))
    return out


@on_scene_end
def _scene_end(post: Post) -> list:
    if post.play.contest is not None:
        post.play.contest = None
        post.close_ref(TWIST_REF)
    return []
