"""Challenges by post (Fate Condensed, "Challenges", 001_0095f60d590caa10.txt): "a series of
overcome actions that tackle a bigger issue ... Treat each action as a separate overcome
roll. Teamwork actions are allowed, but may introduce costs or complications ... After the
rolls have been made, the GM will evaluate the successes, failures, and costs of each
action as they interpret how the scene proceeds."

* The GM sets it up: ``/challenge start NAME tasks SKILL vs DIFFICULTY, SKILL vs CHARACTER
  [for A, B] [hours N]``. ``for``: who may take the tasks (default: every player's
  character); ``hours``: the deadline (default: the campaign's reaction deadline).
* Players take tasks whenever they like, with the ordinary ``/overcome SKILL``: an overcome
  with an open task's skill is that task (the difficulty may be left out: the task's is
  used; a different one is refused). Teamwork (``/help``) works as on any roll, and the
  helpers who added share the task's cost. Invokes after the dice revise the task.
* Each task ends done (success, or with style), done at a cost (a tie, or a failure taken
  ``on fail cost``), or failed (a failure, or a tie taken ``on tie boost``). A task is
  taken once: an overcome with the skill of a task already taken is an ordinary overcome.
* Every reply while it runs ends with the board (:func:`board_lines`). When every task has
  been taken, or the deadline passes (``pbp tick``), or the GM says ``/challenge end``, the
  challenge is over and the GM is mailed the summary: successes, costs (and who shares
  them), failures, and the tasks nobody took.

Readings: the rules do not limit how many tasks one character takes, nor make a task
wait for anyone; the GM decides that at the table ("who may take them" is the ``for`` list).
A challenge runs outside a conflict: it cannot start while one runs, and an overcome by a
conflict's participant is never a task.
"""
from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from typing import Mapping

from pbp import commands as c
from pbp.errors import NotAllowedError, RulesError
from pbp.i18n import N_, CommandLine, Joined, Msg, Msgs
from pbp.play import conflict as pc
from pbp.play.core import GM, NoteResult, Post, Tell, handles, quote
from pbp.play.sequence import after_action, deadline_job, on_scene_end, prepare_action, roll_revised, status_line
from pbp.play.state import Challenge, ChallengeTask
from pbp.rules.effort import best_skill
from pbp.rules.ladder import describe
from pbp.rules.names import and_names, same_name, skill_list
from pbp.rules.results import ActionResult, Effect

OUTCOME_WORDS = {"fail": N_("failure"), "tie": N_("a tie"), "success": N_("success"), "style": N_("success with style")}
STATE_WORDS = {"open": "open", "done": "done", "cost": "done at a cost", "failed": "failed"}


def _label(t: ChallengeTask, ladder: Mapping[int, str]) -> str:
    against = describe(t.rating, ladder) if t.opponent is None else t.opponent
    return Msg("{n}. {skill} vs {against}", n=t.n, skill=t.skill, against=against)


def _allowed(post: Post, ch: Challenge) -> list[str]:
    if ch.who:
        return list(ch.who)
    return [x.name for x in post.table.characters.values() if x.player]


# --------------------------------------------------------------------------- the GM's commands


@handles(c.ChallengeStart)
def challenge_start(post: Post, cmd: c.ChallengeStart):
    post.require_gm("/challenge start", "/challenge start Yacht tasks Burglary vs Good")
    if post.play.challenge is not None:
        raise RulesError(f'the challenge "{post.play.challenge.name}" is still running', source=cmd.source,
                         expected="one challenge at a time: end it first", example="/challenge end")
    if pc.active(post) is not None:
        raise RulesError("a conflict is going on: a challenge runs outside one", source=cmd.source,
                         expected="the conflict ended first", example="/conflict end")
    tasks = []
    for n, task in enumerate(cmd.tasks, start=1):
        skill = post.system.skill_named(task.skill)
        if skill is None:
            raise RulesError(f'task {n}: "{task.skill}" is not {post.system.a_skill()}',
                             source=cmd.source, expected="a skill: " + ", ".join(post.system.skills),
                             example="/challenge start Yacht tasks Burglary vs Good, Athletics vs Fair")
        opponent = post.find(task.opponent).name if task.opponent else None
        tasks.append(ChallengeTask(n, skill, task.rating, opponent))
    who = [post.find(name).name for name in cmd.who]
    deadline = post.now + timedelta(hours=cmd.hours) if cmd.hours else post.deadline()
    ch = Challenge(cmd.name, tasks, who, post.now, deadline)
    post.play.challenge = ch
    takers = and_names(_allowed(post, ch)) if _allowed(post, ch) else Msg("nobody yet")
    text = Msgs('Challenge "{name}" begins: {n} task, for {takers}, until {until}. Take a task with /overcome and '
                'its skill (for example: {example}); helpers use /help.',
                'Challenge "{name}" begins: {n} tasks, for {takers}, until {until}. Take a task with /overcome and '
                'its skill (for example: {example}); helpers use /help.', len(tasks), name=ch.name, takers=takers,
                until=pc.when(deadline), example=CommandLine(f"/overcome {quote(tasks[0].skill)}"))
    return NoteResult(cmd.source, GM, "challenge_start", text=text)


@handles(c.ChallengeEnd)
def challenge_end(post: Post, cmd: c.ChallengeEnd):
    post.require_gm("/challenge end", "/challenge end")
    if post.play.challenge is None:
        raise RulesError("no challenge is running", source=cmd.source, expected="a challenge to end",
                         example="/challenge start Yacht tasks Burglary vs Good")
    text = _finish(post, Msg("the GM ended it"))
    return NoteResult(cmd.source, GM, "challenge_end", text=text)


# --------------------------------------------------------------------------- taking a task


def _stash(post: Post) -> dict:
    return post.__dict__.setdefault("_challenge", {})


@prepare_action
def _take_task(post: Post, cmd, actor: str):
    """An overcome with an open task's skill is that task: the task's difficulty is filled in."""
    ch = post.play.challenge
    if ch is None or not isinstance(cmd, c.Overcome):
        return cmd
    conflict = pc.active(post)
    if conflict is not None and pc.member(conflict, actor) is not None:
        return cmd
    skill = post.system.skill_named(cmd.skill) or cmd.skill
    task = next((t for t in ch.tasks if t.state == "open" and same_name(t.skill, skill)), None)
    if task is None:
        return cmd
    allowed = _allowed(post, ch)
    if not any(same_name(actor, a) for a in allowed):
        raise NotAllowedError(f'the tasks of the challenge "{ch.name}" are for {and_names(allowed)}, not {actor}',
                              expected=f"one of {and_names(allowed)} to take task {task.n}",
                              example=f"/help {quote(allowed[0])}" if allowed else "/table")
    wanted = c.Opposition(rating=task.rating) if task.opponent is None else c.Opposition(character=task.opponent)
    given = cmd.opposition
    if given is not None and (given.rating != wanted.rating or not same_name(given.character, wanted.character)):
        raise RulesError(f"task {_label(task, post.system.ladder)}: the difficulty is the task's", source=cmd.source,
                         expected="the overcome with the task's difficulty, or with none",
                         example=f"/overcome {quote(task.skill)}")
    _stash(post)[actor.casefold()] = task.n
    if given is None:
        cmd = replace(cmd, opposition=wanted)
    return cmd


def _settle(task: ChallengeTask, result: ActionResult) -> None:
    kinds = [e.kind for e in result.effects]
    task.by = result.actor
    task.effort = result.effort.total if result.effort else None
    task.outcome = OUTCOME_WORDS.get(result.outcome.value, result.outcome.value) if result.outcome else ""
    task.helpers = [e.data["helper"] for e in result.effects if e.kind == "teamwork" and e.data.get("adds")]
    if "cost_major" in kinds:
        task.state, task.note = "cost", N_("a serious cost")
    elif "cost_minor" in kinds:
        task.state, task.note = "cost", N_("a minor cost")
    elif "success" in kinds:
        task.state, task.note = "done", ""
    else:
        task.state, task.note = "failed", N_("and gains a boost") if any(e.kind == "boost" for e in result.effects) else ""


@after_action
def _task_taken(post: Post, cmd, actor: str, result) -> None:
    ch = post.play.challenge
    n = _stash(post).pop(actor.casefold(), None)
    if ch is None or n is None or not isinstance(result, ActionResult) or result.outcome is None:
        return
    task = ch.tasks[n - 1]
    task.roll = result.roll_id
    _settle(task, result)
    result.effects.append(Effect("challenge_task", Msg('Challenge "{name}", task {label}: {text}.', name=ch.name,
                                                       label=_label(task, post.system.ladder), text=_task_words(task)),
                                 {"task": task.n, "state": task.state}))
    if all(t.state != "open" for t in ch.tasks):
        result.effects.append(Effect("challenge_over", _finish(post, Msg("every task has been taken")), {}))


@roll_revised
def _task_revised(post: Post, ref, old: ActionResult, new: ActionResult) -> list[str]:
    ch = post.play.challenge
    if ch is None:
        return []
    for task in ch.tasks:
        if task.roll is not None and task.roll in ref.ids:
            before = task.state
            _settle(task, new)
            if task.state != before:
                return [Msg("Task {label} is now {text}.", label=_label(task, post.system.ladder),
                            text=_task_words(task))]
    return []


def _task_words(t: ChallengeTask) -> str:
    if t.state == "open":
        return Msg("open")
    who = Msg("{who}, helped by {helpers}", who=t.by, helpers=and_names(t.helpers)) if t.helpers else t.by
    if t.state == "done":
        return Msg("done by {who} ({outcome})", who=who, outcome=t.outcome)
    if t.state == "cost":
        shares = Msgs("; {helpers} shares it", "; {helpers} share it", len(t.helpers),
                      helpers=and_names(t.helpers)) if t.helpers else ""
        return Msg("done by {who}, at {cost}{shares} ({outcome})", who=who, cost=Msg(t.note), shares=shares,
                   outcome=t.outcome)
    if t.note:
        return Msg("failed by {who} ({outcome}, {note})", who=who, outcome=t.outcome, note=Msg(t.note))
    return Msg("failed by {who} ({outcome})", who=who, outcome=t.outcome)


# --------------------------------------------------------------------------- the board and the end


def board(post: Post, ch: Challenge, *, gm: bool) -> dict:
    """The board as plain data (the ``challenge`` of ``pbp table --json``; the footer's
    lines, :func:`board_lines`, are written from it). Nothing on it is hidden from the
    players but the rating an NPC opponent would oppose a task with (``gm``, or the
    campaign's ``show_npc_skills``; a PC's sheet is the table's to see)."""
    tasks = []
    for t in ch.tasks:
        task = {"n": t.n, "skill": t.skill, "difficulty": t.rating, "opponent": t.opponent, "state": t.state,
                "by": t.by or None, "helpers": list(t.helpers), "roll": t.roll, "effort": t.effort,
                "outcome": t.outcome or None, "cost": t.note if t.state == "cost" else None,
                "note": t.note if t.state == "failed" and t.note else None,
                "label": _label(t, post.system.ladder), "text": _task_words(t)}
        opponent = post.table.character(t.opponent) if t.opponent else None
        if opponent is not None and (gm or opponent.player or post.flag("show_npc_skills")):
            skill, rating = best_skill(opponent, post.system.opposing_skills(t.skill),
                                       skill_list(post.table, post.system))
            task["opposed_with"] = {"skill": skill or None, "rating": rating}
        tasks.append(task)
    return {"name": ch.name, "started_at": ch.started_at.isoformat(), "deadline": ch.deadline.isoformat(),
            "_deadline": ch.deadline, "who": _allowed(post, ch),
            "taken": sum(1 for t in ch.tasks if t.state != "open"), "tasks": tasks}


def board_lines(post: Post, ch: Challenge) -> list[str]:
    return board_text(board(post, ch, gm=False))


def board_text(view: dict) -> list[str]:
    """The board's lines, from its data (:func:`board`)."""
    lines = [Msg('Challenge "{name}": {taken} of {n} tasks taken, until {until}.', name=view["name"],
                 taken=view["taken"], n=len(view["tasks"]), until=pc.when(view["_deadline"]))]
    lines += [Msg("  {label}: {text}", label=t["label"], text=t["text"]) for t in view["tasks"]]
    return lines


def _summary(post: Post, ch: Challenge, why: str) -> str:
    groups = [(Msg("Successes:"), "done"), (Msg("At a cost:"), "cost"), (Msg("Failures:"), "failed"),
              (Msg("Not taken:"), "open")]
    lines = [Msg('Challenge "{name}" is over: {why}.', name=ch.name, why=why)]
    for title, state in groups:
        tasks = [t for t in ch.tasks if t.state == state]
        if tasks:
            lines.append(title)
            lines += [Msg("  {label}", label=_label(t, post.system.ladder)) if state == "open" else
                      Msg("  {label}: {text}", label=_label(t, post.system.ladder), text=_task_words(t))
                      for t in tasks]
    lines.append(Msg("Narrate from these: the successes move the group forward, the costs and failures bring the "
                     "complications."))
    return Joined([part for n, line in enumerate(lines) for part in ((line,) if not n else ("\n", line))])


def _finish(post: Post, why: str) -> str:
    """End the challenge: the GM is mailed the summary; returns the table's line."""
    ch = post.play.challenge
    post.play.challenge = None
    summary = _summary(post, ch, why)
    post.tell(Tell(to=(GM,), subject=Msg('Challenge "{name}": the summary', name=ch.name),
                   text=Joined([summary, "\n"])))
    tally = {state: sum(1 for t in ch.tasks if t.state == state) for state in STATE_WORDS}
    return Msg('Challenge "{name}" is over ({why}): {done} done, {cost} at a cost, {failed} failed, {open} not taken. '
               'The GM has the summary and narrates what follows.', name=ch.name, why=why, done=tally["done"],
               cost=tally["cost"], failed=tally["failed"], open=tally["open"])


@status_line
def challenge_status(post: Post) -> list[str]:
    ch = post.play.challenge
    return board_lines(post, ch) if ch is not None else []


@deadline_job
def challenge_deadline(post: Post) -> list:
    ch = post.play.challenge
    if ch is None or post.now < ch.deadline:
        return []
    text = _finish(post, Msg("its deadline, {by}, has passed", by=pc.when(ch.deadline)))
    return [NoteResult(f'(deadline: challenge "{ch.name}")', GM, "challenge_end", text=text)]


@on_scene_end
def _scene_end(post: Post) -> list:
    if post.play.challenge is not None:
        _finish(post, Msg("the scene ended"))
    return []
