"""The fate point economy (000_7ba3f797fc1d45d3.txt "Refresh" and "Your Fate Points";
004_c619695e1641b466.txt "Invoking an Aspect", "Declaring a Story Detail"; 001 on
concession):

* "Each session, you start with fate points at least equal to your refresh ... if you have
  more fate points than your refresh, you'll start the next session with the fate points you
  ended this session with";
* "At the start of each scene, begin with a pool of fate points equal to the number of PCs.
  If the scene includes a major NPC or monster that conceded a previous conflict, or
  received hostile invokes in a previous scene, those fate points are added to your pool";
* a hostile invoke's point goes to the aspect's owner, "though they can't use it until
  AFTER THE SCENE";
* conceding pays "a fate point plus an extra one for each consequence they took";
* a story detail costs a point, and "the GM has VETO POWER over declared details".
"""
import copy
from datetime import datetime, timedelta

import pytest
from hypothesis import given, settings, strategies as st

from pbp.rules.systems import FATE_CONDENSED
from pbp.commands import Invoke, Opposition, Payment
from pbp.errors import CommandError, NotAllowedError, RulesError
from pbp.rules import compels as c
from pbp.rules.actions import resolve
from pbp.rules.aspects import add_situation_aspect, give_free_invokes
from pbp.rules.dice import FixedDice
from pbp.rules.fate_points import (
    GM, FateLedger, adjust_fate_points, approve_detail, concede, declare_detail, deny_detail,
    expire_detail, gm_pool_for_scene, gm_spend, open_scene, owe_from_result, pay_owed,
    GMPool, spend_fate_point, start_session,
)
from pbp.rules.results import Change

from .builders import attack, make_table, overcome

NOW = datetime(2026, 11, 29, 18, 0)


# -- a character's points -------------------------------------------------------------------

def test_refresh_raises_to_the_refresh_and_more_carries_over():
    table = make_table()
    ruth, ethan = table.character("Ruth"), table.character("Ethan")
    ruth.fate_points, ethan.fate_points = 5, 1
    assert start_session(ruth) == [] and ruth.fate_points == 5
    assert start_session(ethan) == [Change("fate_points", "Ethan", 1, 3, "refresh at the start of the session")]


def test_spending_below_zero_is_refused():
    ruth = make_table().character("Ruth")
    ruth.fate_points = 0
    with pytest.raises(RulesError, match="^Ruth has 0 fate points; there are no fate points to spend") as info:
        spend_fate_point(ruth, "a stunt")
    assert info.value.expected == "a fate point in hand" and info.value.example
    assert ruth.fate_points == 0


def test_the_gm_gives_and_takes_points_but_never_below_zero():
    ruth = make_table().character("Ruth")
    assert adjust_fate_points(ruth, 2, "gift") == Change("fate_points", "Ruth", 3, 5, "gift")
    with pytest.raises(RulesError, match="cannot take 6"):
        adjust_fate_points(ruth, -6)


def test_concession_pays_a_point_and_one_per_consequence():
    """A PC gets them now; an NPC carries them to the GM's pool of a later scene (Alice
    Westforth "conceding a conflict after she had taken a moderate consequence")."""
    table = make_table()
    assert concede(table.character("Ruth"), 2) == [Change("fate_points", "Ruth", 3, 6, "conceded (2 consequences taken)")]
    shoggoth = table.character("Shoggoth")
    concede(shoggoth, 1)
    assert shoggoth.carried_points == 2 and shoggoth.fate_points == 0


# -- the GM's pool --------------------------------------------------------------------------

def test_the_gm_s_pool_is_one_per_pc_plus_what_npcs_carry():
    """The worked example: four PCs and Alice's two points make six."""
    assert gm_pool_for_scene(4, 2) == 6
    assert gm_pool_for_scene(3) == 3 and gm_pool_for_scene(3, 0, compel_carry=1) == 4
    with pytest.raises(ValueError):
        gm_pool_for_scene(-1)


def test_opening_a_scene_brings_the_carried_points_in_and_drops_the_old_pool():
    table, ledger = make_table(), FateLedger(gm_pool=5)
    shoggoth = table.character("Shoggoth")
    shoggoth.carried_points = 2
    changes = open_scene(ledger, 4, [shoggoth, table.character("Ghoul")])
    assert ledger.gm_pool == 6 and shoggoth.carried_points == 0
    assert changes[-1] == Change("gm_pool", GM, 5, 6, "a new scene")


def test_the_gm_spends_from_the_pool_and_not_below_zero():
    ledger = FateLedger(gm_pool=1)
    assert gm_spend(ledger, "an NPC stunt") == Change("gm_pool", GM, 1, 0, "an NPC stunt")
    with pytest.raises(RulesError, match="the GM's pool has 0 fate points"):
        gm_spend(ledger, "invoking Hungry")


def test_an_npc_s_paid_invoke_comes_out_of_the_pool():
    table, ledger = make_table(), FateLedger(gm_pool=2)
    ghoul = table.character("Ghoul")
    cmd = attack("Ruth", "Fight", invokes=(Invoke("Deep Shadows", payment=Payment.FATE_POINT),))
    result = resolve(cmd, table, FixedDice("0000,0000"), "Ghoul", system=FATE_CONDENSED, payer=GMPool(ledger))
    assert ledger.gm_pool == 1 and ghoul.fate_points == 1
    assert result.changes[0] == Change("gm_pool", GM, 2, 1, "invoking Deep Shadows (Ghoul)")
    ledger.gm_pool = 0
    with pytest.raises(RulesError, match="^the GM's pool has 0 fate points; invoking Deep Shadows needs one"):
        resolve(cmd, table, FixedDice("0000,0000"), "Ghoul", system=FATE_CONDENSED, payer=GMPool(ledger))
    assert ghoul.fate_points == 1


# -- hostile invokes ------------------------------------------------------------------------

def test_a_hostile_invoke_is_owed_until_the_scene_ends():
    table, ledger = make_table(), FateLedger()
    cmd = attack("Ghoul", "Fight", invokes=(Invoke("Hungry"),))
    result = resolve(cmd, table, FixedDice("0000,0000"), "Ruth", system=FATE_CONDENSED)
    owe_from_result(ledger, result, scene="Warehouse")
    assert ledger.owed_total == 1 and table.character("Ruth").fate_points == 2
    pay_owed(ledger, table, scene="Docks")
    assert ledger.owed_total == 1
    changes = pay_owed(ledger, table, scene="Warehouse")
    assert table.character("Ghoul").carried_points == 1 and ledger.owed == []
    assert changes[0].what == "carried_points"


def test_a_pc_owed_a_point_gets_it_on_the_sheet():
    table, ledger = make_table(), FateLedger(gm_pool=1)
    cmd = attack("Ruth", "Fight", invokes=(Invoke("Hair-Trigger Temper"),))
    result = resolve(cmd, table, FixedDice("0000,0000"), "Ghoul", system=FATE_CONDENSED, payer=GMPool(ledger))
    owe_from_result(ledger, result)
    pay_owed(ledger, table)
    assert table.character("Ruth").fate_points == 4 and ledger.gm_pool == 0


# -- story details --------------------------------------------------------------------------

def test_a_story_detail_is_paid_when_the_gm_approves():
    table = make_table()
    request = declare_detail(table, 4, "Ruth", "The guard is my cousin", NOW)
    assert request.state == "pending" and table.character("Ruth").fate_points == 3
    assert approve_detail(request, table, GM) == [Change("fate_points", "Ruth", 3, 2, "story detail #4")]
    assert request.state == "approved"


def test_a_denied_or_expired_detail_costs_nothing():
    table = make_table()
    request = declare_detail(table, 4, "Ruth", "The guard is my cousin", NOW)
    with pytest.raises(NotAllowedError, match="only the GM"):
        deny_detail(request, "Ruth")
    assert deny_detail(request, GM, "that would solve it outright") == [] and request.state == "denied"
    late = declare_detail(table, 5, "Ruth", "Dynamite", NOW, deadline=NOW + timedelta(days=1))
    assert not expire_detail(late, NOW)
    assert expire_detail(late, NOW + timedelta(days=1)) and late.state == "expired"
    assert table.character("Ruth").fate_points == 3


def test_a_detail_needs_a_point_in_hand():
    table = make_table()
    table.character("Ruth").fate_points = 0
    with pytest.raises(RulesError, match="declaring a story detail costs one"):
        declare_detail(table, 4, "Ruth", "The guard is my cousin", NOW)


# -- the property: points come and go only by the documented sources and sinks -------------

PCS = ["Ruth", "Charles", "Ethan"]
TARGETS = PCS + ["Ghoul"]
KINDS = ["event", "decision"]
ids = st.integers(0, 7)

ops = st.one_of(
    st.tuples(st.just("spend"), st.sampled_from(PCS)),
    st.tuples(st.just("drain"), st.sampled_from(PCS)),
    st.tuples(st.just("offer_gm"), st.sampled_from(PCS), st.sampled_from(KINDS)),
    st.tuples(st.just("offer_player"), st.sampled_from(PCS), st.sampled_from(TARGETS), st.sampled_from(KINDS)),
    st.tuples(st.just("self"), st.sampled_from(PCS), st.sampled_from(KINDS)),
    st.tuples(st.just("accept"), ids, st.booleans()),
    st.tuples(st.just("refuse"), ids, st.booleans()),
    st.tuples(st.just("approve"), ids, st.booleans()),
    st.tuples(st.just("deny"), ids, st.booleans()),
    st.tuples(st.just("withdraw"), ids, st.booleans()),
    st.tuples(st.just("expire"), ids, st.booleans()),
    st.tuples(st.just("hostile"), st.sampled_from(PCS)),
    st.tuples(st.just("npc_invoke"), st.sampled_from(PCS)),
    st.tuples(st.just("payout")),
    st.tuples(st.just("concede"), st.sampled_from(TARGETS), st.integers(0, 3)),
    st.tuples(st.just("refresh"), st.sampled_from(PCS)),
    st.tuples(st.just("scene"), st.integers(1, 4)),
    st.tuples(st.just("gm_spend")),
    st.tuples(st.just("detail"), st.sampled_from(PCS), st.booleans()),
    st.tuples(st.just("free_create"), st.sampled_from(PCS), st.integers(1, 2), st.booleans()),
    st.tuples(st.just("free_give"), st.sampled_from(PCS), st.sampled_from(PCS), st.integers(1, 2)),
    st.tuples(st.just("free_use"), st.sampled_from(PCS)),
)


class Game:
    """The table, the ledger and the compels, with the total the documented effects predict."""

    def __init__(self) -> None:
        self.table = make_table()
        self.ledger = FateLedger(gm_pool=3)
        self.compels: list[c.CompelRecord] = []
        self.origin: dict[int, str] = {}     # compel id -> "gm" | "player" | "self"
        self.expected = self.total()
        self.aspects = 0

    def total(self) -> int:
        chars = self.table.characters.values()
        return (sum(ch.fate_points for ch in chars) + sum(ch.carried_points for ch in chars)
                + self.ledger.gm_pool + self.ledger.owed_total + sum(k.escrow for k in self.compels))

    def snapshot(self):
        return (copy.deepcopy(self.table), copy.deepcopy(self.ledger),
                [(k.state, k.escrow, len(k.history)) for k in self.compels])

    def compel(self, i: int, state: c.CompelState | None = None) -> c.CompelRecord:
        """The i-th compel; with ``state``, the i-th of those in that state (if any), so
        that most answers reach a compel they apply to and some do not."""
        if not self.compels:
            raise RulesError("no compel yet")
        fitting = [k for k in self.compels if k.state is state] or self.compels
        return fitting[i % len(fitting)]

    def open(self, transition, origin: str) -> None:
        self.compels.append(transition.compel)
        self.origin[transition.compel.id] = origin

    def settled_effect(self, compel: c.CompelRecord) -> int:
        """The documented effect of an accepted compel: a new point for the GM's compel and
        an approved self-compel; the escrowed point only moves for a player's."""
        return 0 if self.origin[compel.id] == "player" else 1

    def run(self, op: tuple) -> None:
        name, *args = op
        getattr(self, f"do_{name}")(*args)

    # each operation applies itself and adds its documented effect to ``expected``

    def do_spend(self, who):
        spend_fate_point(self.table.character(who), "a stunt")
        self.expected -= 1

    def do_drain(self, who):
        ch = self.table.character(who)
        while ch.fate_points:
            spend_fate_point(ch, "a stunt")
            self.expected -= 1

    def do_offer_gm(self, target, kind):
        self.open(c.offer(self.table, len(self.compels), target, self._aspect(target), kind, "x", NOW), "gm")

    def do_offer_player(self, proposer, target, kind):
        t = c.offer(self.table, len(self.compels), target, self._aspect(target), kind, "x", NOW, proposer=proposer)
        self.open(t, "self" if proposer == target else "player")

    def do_self(self, who, kind):
        self.open(c.offer(self.table, len(self.compels), who, self._aspect(who), kind, "x", NOW, proposer=who), "self")

    def do_accept(self, i, right_party):
        compel = self.compel(i, c.CompelState.OFFERED)
        c.accept(compel, self.table, compel.answerer if right_party else "Ethan", NOW, self.ledger)
        self.expected += self.settled_effect(compel)

    def do_refuse(self, i, right_party):
        compel = self.compel(i, c.CompelState.OFFERED)
        c.refuse(compel, self.table, compel.answerer if right_party else "Charles", NOW, self.ledger)
        self.expected -= 1 if compel.kind is c.CompelKind.EVENT else 0

    def do_approve(self, i, as_gm):
        compel = self.compel(i, c.CompelState.AWAITING_GM)
        t = c.approve(compel, self.table, GM if as_gm else "Ruth", NOW)
        self.expected += self.settled_effect(compel) if t.after is c.CompelState.ACCEPTED else 0

    def do_deny(self, i, awaiting):
        c.deny(self.compel(i, c.CompelState.AWAITING_GM if awaiting else None), self.table, GM, NOW)

    def do_withdraw(self, i, as_gm):
        compel = self.compel(i, c.CompelState.AWAITING_GM if as_gm else c.CompelState.OFFERED)
        c.withdraw(compel, self.table, GM if as_gm else compel.proposer, NOW)

    def do_expire(self, i, offered):
        compel = self.compel(i, c.CompelState.OFFERED if offered else c.CompelState.AWAITING_GM)
        compel.deadline = NOW
        t = c.expire(compel, self.table, NOW, self.ledger)
        if t is not None and t.after is c.CompelState.ACCEPTED:
            self.expected += self.settled_effect(compel)

    def do_hostile(self, who):
        cmd = attack("Ghoul", "Fight", invokes=(Invoke("Hungry", payment=Payment.FATE_POINT),))
        owe_from_result(self.ledger, resolve(cmd, self.table, FixedDice("0000,0000"), who, system=FATE_CONDENSED))

    def do_npc_invoke(self, target):
        cmd = attack(target, "Fight", invokes=(Invoke("Deep Shadows", payment=Payment.FATE_POINT),))
        if self.ledger.gm_pool < 1:
            raise RulesError("the pool is empty")
        resolve(cmd, self.table, FixedDice("0000,0000"), "Ghoul", system=FATE_CONDENSED, payer=GMPool(self.ledger))
        self.expected -= 1

    def do_payout(self):
        pay_owed(self.ledger, self.table)

    def do_concede(self, who, consequences):
        concede(self.table.character(who), consequences)
        self.expected += 1 + consequences

    def do_refresh(self, who):
        ch = self.table.character(who)
        self.expected += max(0, ch.refresh - ch.fate_points)
        start_session(ch)

    def do_scene(self, pcs):
        self.expected += pcs - self.ledger.gm_pool
        open_scene(self.ledger, pcs, [self.table.character("Ghoul"), self.table.character("Shoggoth")])

    def do_gm_spend(self):
        gm_spend(self.ledger, "an NPC stunt")
        self.expected -= 1

    def do_detail(self, who, approved):
        request = declare_detail(self.table, 1, who, "a detail", NOW)
        if approved:
            approve_detail(request, self.table, GM)
            self.expected -= 1
        else:
            deny_detail(request, GM)

    def do_free_create(self, holder, n, boost):
        self.aspects += 1
        add_situation_aspect(self.table, f"Aspect {self.aspects}", free=1 if boost else n, holder=holder,
                             kind="boost" if boost else "situation")

    def do_free_give(self, giver, to, n):
        held = [a for a in self.table.aspects if a.free_for(giver)]
        if not held:
            raise RulesError("nothing to give")
        give_free_invokes(self.table, held[0], giver, to, n)

    def do_free_use(self, who):
        held = [a for a in self.table.aspects if a.free_for(who)]
        if not held:
            holders = sorted({h for a in self.table.aspects for h, n in a.free_invokes.items() if n and h != GM})
            who = holders[0] if holders else who
            held = [a for a in self.table.aspects if a.free_for(who)]
        if not held:
            raise RulesError("nothing to use")
        cmd = overcome("Athletics", opposition=Opposition(rating=0), invokes=(Invoke(held[0].name, payment=Payment.FREE),))
        resolve(cmd, self.table, FixedDice("0000"), who, system=FATE_CONDENSED)

    def _aspect(self, who: str) -> str:
        return {"Ruth": "Hair-Trigger Temper", "Ghoul": "Hungry"}.get(who, "Deep Shadows")


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(st.lists(ops, max_size=40))
def test_fate_points_move_only_by_documented_sources_and_sinks(sequence):
    game = Game()
    for op in sequence:
        before = game.snapshot()
        try:
            game.run(op)
        except CommandError:
            after = game.snapshot()
            assert repr(after) == repr(before), f"{op} was refused but changed the game"
        assert game.total() == game.expected, f"after {op}"
        for ch in game.table.characters.values():
            assert ch.fate_points >= 0 and ch.carried_points >= 0
        assert game.ledger.gm_pool >= 0 and all(o.points > 0 for o in game.ledger.owed)
        assert all(k.escrow in (0, 1) for k in game.compels)
        assert all(k.escrow == 0 for k in game.compels if not k.is_open)
        for aspect in game.table.aspects:
            assert all(n >= 0 for n in aspect.free_invokes.values())
            if aspect.kind == "boost":
                assert sum(aspect.free_invokes.values()) == 1
