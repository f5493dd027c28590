"""Property test of the fate point economy at the play level: random sequences of compels,
answers, deadlines, story details, spends, rolls with invokes (before and after the dice),
vetoes, scene and session boundaries. After every step:

* the campaign's total of fate points (on PCs' sheets, carried by NPCs, in the GM's pool,
  owed by hostile invokes, held in compels' escrow) changed by exactly what the documented
  sources and sinks say (pbp.rules.fate_points): a GM's compel accepted or defaulted (+1),
  a self-compel approved (+1), refusing an event (-1), a story detail approved (-1), a point
  spent, an invoke paid with a point (-1; a hostile one moves to "owed"), a vetoed one
  refunded, a new scene's pool, a session's refresh;
* no fate point count, pool, escrow or free invoke count is below zero;
* a step that is refused changes nothing (the pipeline's transaction: here, a restore).
"""
from __future__ import annotations

import copy
import random
from datetime import timedelta

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pbp import commands as c
from pbp.errors import CommandError
from pbp.play import apply_command, run_deadline_jobs
from pbp.play import economy
from pbp.play.invoking import open_roll_refs
from pbp.play.core import Author, Post, finish_post
from pbp.play.state import PlayState
from pbp.rules.compels import CompelState
from pbp.rules.dice import RandomDice
from pbp.rules.results import ActionResult
from pbp.rules.systems import get_system
from pbp.store import repo
from tests.helpers import FIXED_NOW

PCS = ("Ruth", "Charles", "Cassandra", "Ethan")
OWN = {"Ruth": "Hair-Trigger Temper", "Charles": "Curiosity Will Be My Death",
       "Cassandra": "Cannot Leave a Story Alone", "Ethan": "In Over My Head"}
HOSTILE = "Hungry for Flesh"          # the Ghoul's: invoking it is a hostile invoke
GM_AUTHOR = Author("gm@pbp.localhost", "gm")


def author(name: str) -> Author:
    return GM_AUTHOR if name == "GM" else Author(f"{name.lower()}@pbp.localhost", "player")


def cmd(command, **kw):
    return command(line=1, source=kw.pop("source", "/x"), **kw)


ops = st.one_of(
    st.tuples(st.just("gm_compel"), st.sampled_from(PCS), st.sampled_from(["event", "decision"])),
    st.tuples(st.just("player_compel"), st.sampled_from(PCS), st.sampled_from(PCS + ("Ghoul",)),
              st.sampled_from(["event", "decision"])),
    st.tuples(st.just("self_compel"), st.sampled_from(PCS)),
    st.tuples(st.just("answer"), st.sampled_from(["accept", "refuse", "approve", "deny", "withdraw"]),
              st.integers(0, 30), st.sampled_from(("GM", "party", "party") + PCS)),
    st.tuples(st.just("respond"), st.integers(0, 30), st.booleans()),
    st.tuples(st.just("spend"), st.sampled_from(PCS)),
    st.tuples(st.just("detail"), st.sampled_from(PCS)),
    st.tuples(st.just("roll"), st.sampled_from(PCS + ("Ghoul",)), st.sampled_from(["none", "own", "hostile"])),
    st.tuples(st.just("invoke_after"), st.integers(0, 10), st.sampled_from(["own", "hostile"])),
    st.tuples(st.just("veto"), st.integers(0, 10)),
    st.tuples(st.just("tick"), st.integers(1, 60)),
    st.tuples(st.just("scene"), st.sampled_from(["start", "end"])),
    st.tuples(st.just("session")),
)


class Game:
    def __init__(self, chicago, config, seed: int) -> None:
        self.table = repo.load_table(chicago)
        self.play = PlayState()
        self.chicago, self.config = chicago, config
        self.now = FIXED_NOW
        self.dice = RandomDice(random.Random(seed))
        self.system = get_system("fate-condensed")
        self.rolls = 0

    def post(self, who: str) -> Post:
        self.now += timedelta(minutes=5)
        return Post(campaign=self.chicago, table=self.table, play=self.play, author=author(who), now=self.now,
                    dice=self.dice, system=self.system, settings=self.config)

    def total(self) -> int:
        return economy.total_points(self.post("GM"))

    def finish(self, post: Post, results) -> None:
        """What the pipeline does after the handlers: the ledger records each roll under the
        id it took when made, then the steps after the post run."""
        for r in results:
            if isinstance(r, ActionResult):
                assert r.roll_id is not None, r
                self.rolls += 1
                post.ledger[id(r)] = (r.roll_id, "hash")
        finish_post(post)

    def paid(self, result) -> int:
        """Points an action's own invokes took out of the total (hostile ones only move)."""
        return sum(1 for u in result.effort.invokes if u.paid_with == "fp" and u.hostile_owner is None)

    def check_floor(self) -> None:
        for ch in self.table.characters.values():
            assert ch.fate_points >= 0, ch
            assert ch.carried_points >= 0, ch
        for a in self.table.aspects:
            assert all(n >= 0 for n in a.free_invokes.values()), a
        assert self.play.ledger.gm_pool >= 0
        assert all(x.escrow >= 0 for x in self.play.compels)


def expected_and_run(game: Game, op) -> int | None:
    """Apply ``op``; returns the documented change of the total (None: nothing to do)."""
    kind = op[0]
    play = game.play
    if kind == "gm_compel":
        post = game.post("GM")
        apply_command(post, cmd(c.Compel, target=op[1], aspect=OWN[op[1]], kind=op[2], text="trouble"))
        return 0
    if kind == "player_compel":
        aspect = OWN.get(op[2], HOSTILE)
        post = game.post(op[1])
        apply_command(post, cmd(c.Compel, target=op[2], aspect=aspect, kind=op[3], text="trouble"))
        return 0
    if kind == "self_compel":
        apply_command(game.post(op[1]), cmd(c.Compel, target="me", aspect=OWN[op[1]], kind="decision", text="oops"))
        return 0
    if kind == "respond":       # a valid answer to an open item, by whoever it waits for
        open_items = [x for x in play.compels if x.is_open] + [d for d in play.details if d.state == "pending"]
        if not open_items:
            return None
        item = open_items[op[1] % len(open_items)]
        if getattr(item, "state", None) is CompelState.OFFERED:
            verb, who = ("accept" if op[2] else "refuse"), item.answerer
        else:
            verb, who = ("approve" if op[2] else "deny"), "GM"
        return expected_and_run(game, ("answer", verb, (play.compels + play.details).index(item), who))
    if kind == "answer":
        _, verb, n, who = op
        items = play.compels + play.details
        if not items:
            return None
        item = items[n % len(items)]
        if who == "party":      # whoever the item waits for
            waits = getattr(item, "answerer", None) if getattr(item, "state", None) is CompelState.OFFERED else "GM"
            who = "GM" if waits in (None, "GM") else waits
        before = copy.deepcopy(item)
        apply_command(game.post(who), cmd(getattr(c, verb.capitalize()), ref=item.id))
        if hasattr(before, "escrow"):
            if verb == "accept":
                return 0 if before.escrow else 1
            if verb == "refuse":
                return -1 if before.kind.value == "event" else 0
            if verb == "approve":
                return 1 if before.self_compel else 0
            return 0
        return -1 if verb == "approve" else 0
    if kind == "spend":
        apply_command(game.post(op[1]), cmd(c.FpSpend))
        return -1
    if kind == "detail":
        apply_command(game.post(op[1]), cmd(c.Detail, text="the guard is my cousin"))
        return 0
    if kind == "roll":
        _, who, invoke = op
        aspect = {"own": OWN.get(who, "Ghoul of the Chicago Undercity"), "hostile": HOSTILE if who != "Ghoul"
                  else "Hair-Trigger Temper"}.get(invoke)
        invokes = (c.Invoke(aspect, payment=c.Payment.FATE_POINT),) if aspect else ()
        post = game.post("GM" if who == "Ghoul" else who)
        result = apply_command(post, cmd(c.Overcome, skill="Athletics", opposition=c.Opposition(rating=2),
                                         invokes=invokes, actor=who if who == "Ghoul" else None))
        game.finish(post, [result])
        return -game.paid(result)
    if kind == "invoke_after":
        _, k, invoke = op
        mine = [r for r in open_roll_refs(play) if r.actor in PCS]
        if not mine:
            return None
        who = mine[k % len(mine)].actor
        mine = [r for r in mine if r.actor == who]
        before = _paid_on(game, mine[-1])
        post = game.post(who)
        aspect = OWN[who] if invoke == "own" else HOSTILE
        result = apply_command(post, cmd(c.InvokeAfter, invoke=c.Invoke(aspect, payment=c.Payment.FATE_POINT)))
        game.finish(post, [result])
        return -(game.paid(result) - before)
    if kind == "veto":
        rolls = [r for r in open_roll_refs(play) if r.ids and (r.cmd.invokes or r.added)]
        if not rolls:
            return None
        ref = rolls[op[1] % len(rolls)]
        aspect = (ref.cmd.invokes or tuple(a.invoke for a in ref.added))[0].aspect
        before = _paid_on(game, ref)
        post = game.post("GM")
        result = apply_command(post, cmd(c.Veto, ref=ref.ids[-1], aspect=aspect))
        game.finish(post, [result])
        return -(game.paid(result) - before)
    if kind == "tick":
        post = game.post("GM")
        post.now = game.now = game.now + timedelta(hours=op[1])
        due = [x for x in play.compels if x.is_open and x.deadline <= post.now]
        expected = sum(1 for x in due if x.state is CompelState.OFFERED and not x.escrow)
        game.finish(post, run_deadline_jobs(post))
        return expected
    if kind == "scene":
        post = game.post("GM")
        if op[1] == "end":
            economy.pay_owed_at_scene_end(post)
            return 0
        old = play.ledger.gm_pool
        economy.open_scene_pool(post)
        return play.ledger.gm_pool - old - 0   # carried points brought in only move (no conflict: none)
    if kind == "session":
        post = game.post("GM")
        expected = sum(max(0, ch.refresh - ch.fate_points) for ch in game.table.characters.values() if ch.kind == "pc")
        economy.start_session(post)
        return expected
    raise AssertionError(op)


def _paid_on(game: Game, ref) -> int:
    """Points the open roll's current result took (its non-hostile fate point invokes)."""
    return game.paid_on.get(ref.ids[0], 0) if ref.ids else 0


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=st.lists(ops, min_size=1, max_size=25), seed=st.integers(0, 2**32))
def test_fate_points_change_only_by_documented_sources_and_sinks(chicago, config, steps, seed):
    game = Game(chicago, config, seed)
    game.paid_on = {}
    for op in steps:
        total = game.total()
        pool_before, opened_before = game.play.ledger.gm_pool, game.play.pool_scene
        saved = copy.deepcopy((game.table, game.play, game.paid_on))
        try:
            expected = expected_and_run(game, op)
        except CommandError:
            game.table, game.play, game.paid_on = saved
            assert game.total() == total
            continue
        if expected is None:
            continue
        if op[0] != "scene" and opened_before is None and game.play.pool_scene is not None:
            expected += len(PCS) - pool_before     # the pool opened when an NPC first needed it
        assert game.total() == total + expected, (op, game.total(), total, expected)
        game.check_floor()
        for ref in open_roll_refs(game.play):        # remember what each open roll has cost so far
            if ref.ids:
                game.paid_on[ref.ids[0]] = sum(
                    1 for i in (*ref.cmd.invokes, *(a.invoke for a in ref.added))
                    if i.payment is c.Payment.FATE_POINT and i.aspect not in ref.vetoed
                    and not _hostile(game, ref, i.aspect))


def _hostile(game: Game, ref, aspect: str) -> bool:
    a = game.table.find_aspect(aspect)
    return a is not None and a.owner is not None and a.owner != ref.actor
