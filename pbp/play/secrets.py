"""Secret and blind rolls (issue 25; docs/verify.md, "Secret and blind rolls").

``/roll secret ...``, ``/as NPC overcome ... secret`` and ``/as NPC advantage ... secret``
(or, for a campaign's ``secret_skills``, without the word): the GM rolls where the table
cannot see; in a conflict, only an overcome or an advantage against a difficulty
(:func:`pbp.play.conflict._secret`). ``blind`` is the same word for a player's roll whose result only the GM learns
(the GM asks for a Notice roll to spot a lie; the player writes ``/roll blind Notice``, or
the GM rolls it for them with ``/as Ruth roll blind Notice``). The table's mail says that
roll #N was made, by whom and on what, under the scene's dice commitment, never its dice or
outcome; the GM gets the whole result in a mail of their own (:mod:`pbp.views`); what the
roll created (a boost) is hidden from the table like a hidden aspect; the roll is closed to
invokes (an invoke would show its total). At the scene's end the dice and the outcome are
revealed with the seed (:meth:`pbp.store.seeds.SceneDice.reveal`), but for the rolls the GM
holds past it (``/hold #N``): under ``pbp-dice/2`` each secret roll throws with a key of its
own (:func:`secret_throws`), which ``/reveal #N`` shows later.
"""
from __future__ import annotations

import contextlib

from pbp import commands as c
from pbp import verify_dice
from pbp.errors import RulesError
from pbp.play.core import GM, NoteResult, Post, handles
from pbp.rules.names import same_name
from pbp.rules.results import ActionResult

CLOSED_WHY = "it was a secret roll: its dice and result are the GM's until the scene ends"


def _what(cmd) -> str:
    if isinstance(cmd, c.Roll):
        if cmd.skill:
            return cmd.skill
        return f"{cmd.count}d{cmd.sides}" + (f"{cmd.modifier:+d}" if cmd.modifier else "")
    if isinstance(cmd, c.Advantage):
        return f"create an advantage with {cmd.skill}"
    return f"overcome with {cmd.skill}"


def _key(aspect) -> tuple[str, str]:
    return aspect.name.casefold(), (aspect.owner or "").casefold()


def seen_aspects(post: Post) -> frozenset[tuple[str, str]]:
    """The aspects the table can see before a secret roll (:func:`keep_secret` keeps it so)."""
    return frozenset(_key(a) for a in post.table.aspects if not a.hidden)


def keep_secret(post: Post, cmd, result, seen: frozenset[tuple[str, str]]) -> None:
    """Make a resolved roll secret: the table's note, the GM's whole result, the reveal.
    ``seen``: the aspects the table saw before the roll (:func:`seen_aspects`); any other
    aspect in play after it (a boost, an advantage's new aspect, a hidden one it uncovered)
    is hidden from the table as a hidden aspect is, since it would tell the outcome. Its free
    invokes stay the roller's."""
    if not isinstance(result, ActionResult) or result.roll_id is None:
        return
    post.play.close_rolls(lambda head: result.roll_id in head.ids, CLOSED_WHY)
    for aspect in post.table.aspects:
        if _key(aspect) not in seen:
            aspect.hidden = True
    blind = cmd.secrecy == "blind"
    under = " under this scene's dice commitment" if post.seeds is not None and post.seeds.scene is not None else ""
    how = "blind" if blind else "in secret"
    text = (f"Roll #{result.roll_id}: {result.actor} rolled {how} ({_what(cmd)}){under}. "
            + ("Rolled; the GM knows the result." if blind else "The GM knows the result.")
            + " Its dice are shown when the scene ends.")
    post.secret_rolls[result.roll_id] = NoteResult(result.command, result.actor, "secret_roll", text=text)
    if post.seeds is not None:
        post.seeds.keep_secret(result, _what(cmd))


@contextlib.contextmanager
def secret_throws(post: Post, cmd):
    """The throws of a secret roll, under the next secret key of the scene's seed."""
    context = post.seeds.secretly() if post.seeds is not None else contextlib.nullcontext()
    if context is None:
        raise RulesError(f"this scene's dice seed has no secret key left: it has had {verify_dice.KEYS} secret "
                         "rolls", source=cmd.source,
                         expected="a new seed first: /reveal shows this one's dice and commits a new one, with "
                                  "new keys", example="/reveal")
    with context:
        yield


def on_a_board(post: Post, cmd, actor: str, fighting: bool = False) -> str | None:
    """Why a secret roll cannot be made here, when it would count on a board every reply
    shows: a challenge's open task of the same skill (``fighting``: the actor is in a conflict,
where an overcome is no task), or a contest side's roll. Those boards
    tell each task's or side's result (issue 25: nothing of a secret roll's outcome reaches
    the table). The same tests as :mod:`pbp.play.challenges` and :mod:`pbp.play.contests`."""
    play = post.play
    if isinstance(cmd, c.Overcome) and play.challenge is not None and not fighting:
        skill = post.system.skill_named(cmd.skill) or cmd.skill
        task = next((t for t in play.challenge.tasks if t.state == "open" and same_name(t.skill, skill)), None)
        if task is not None:
            return f'it would take task {task.n} of the challenge "{play.challenge.name}", whose board shows its result'
    if isinstance(cmd, (c.Overcome, c.Advantage)) and play.contest is not None:
        if any(same_name(member, actor) for side in play.contest.sides for member in side.members):
            return f'{actor} is in the contest "{play.contest.name}", whose board shows each side\'s roll'
    return None


def _not_committed(post: Post, cmd) -> None:
    if post.seeds is None:
        raise RulesError("this table's dice are not committed (fixed dice): there is no secret roll to "
                         "hold or reveal", source=cmd.source, expected="a table with committed dice",
                         example="/table")


@handles(c.Hold)
def hold(post: Post, cmd: c.Hold) -> NoteResult:
    """``/hold #3``: secret roll #3 stays secret when its scene ends (docs/verify.md)."""
    post.require_gm("/hold", "/hold #3")
    _not_committed(post, cmd)
    try:
        text = post.seeds.hold(cmd.ref)
    except LookupError as exc:
        raise RulesError(str(exc), source=cmd.source, expected="a secret roll of the open scene, not revealed yet",
                         example=_example(post, "/hold")) from None
    return NoteResult(cmd.source, GM, "hold", text=text)


def reveal_roll(post: Post, cmd: c.Reveal) -> NoteResult:
    """``/reveal #3``: secret roll #3 alone, now: its dice, its result and its key."""
    _not_committed(post, cmd)
    try:
        text = post.seeds.reveal_roll(post, cmd.ref)
    except LookupError as exc:
        raise RulesError(str(exc), source=cmd.source, expected="a secret roll not revealed yet",
                         example=_example(post, "/reveal")) from None
    return NoteResult(cmd.source, GM, "reveal", text=text)


def _example(post: Post, verb: str) -> str:
    """The command with a secret roll the GM may name (the latest one kept), else ``/reveal``."""
    latest = post.seeds.latest_secret()
    return f"{verb} #{latest}" if latest is not None else "/reveal"
