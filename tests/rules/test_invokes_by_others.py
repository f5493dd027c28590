"""Invokes by others and who pays, as inputs of resolution (issue 9 item 7).

Rules text: 003_eba7e658178fc706.txt, "Invocando Aspectos": an invoke gives "+2 or reroll
all four dice, or add 2 to the difficulty of someone else's roll"; "you can't invoke the
same aspect more than once on a roll, except that you can spend as many free invokes on it
as you like". 000_7ba3f797fc1d45d3.txt, "Your Fate Points": "As the GM, you can spend fate
points from this pool to invoke aspects ... all exactly as the players do". The d10 hack,
004_c619695e1641b466.txt, "Invoking an Aspect": "REROLL the dice or ADD 1 HIT to your
roll"; "as long as each point you spend invokes a different aspect".

``resolve(..., others=[AfterInvoke(invoke, invoker)], payer=...)`` produces the result right
the first time: an ally's invoke is a term of the effort, an ``oppose`` one a term of the
opposition, and every fate point spent goes through the one payer. A re-run
(``pbp.rules.reopen``) is this call again with the same dice.

Ruth attacks with Fight Great (+4); the Ghoul defends with Fight Fair (+2).
"""
from __future__ import annotations

import copy
from datetime import datetime, timedelta

import pytest

from pbp.commands import Invoke, InvokeMode, Opposition, Payment
from pbp.errors import RulesError
from pbp.rules.actions import resolve
from pbp.rules.dice import FixedDice
from pbp.rules.fate_points import GM, FateLedger, GMPool
from pbp.rules.invokes import AfterInvoke
from pbp.rules.reopen import RollFacts, RollWindow, closed_because, reresolve, throws_of
from pbp.rules.results import Change, Modifier, Outcome
from pbp.rules.state import Aspect, Character, Table
from pbp.rules.systems import D10_POOL, FATE_CONDENSED

from .builders import attack, effect, effects, make_table, overcome
from .builders import roll as plain_roll

NOW = datetime(2026, 11, 29, 18, 0)


def by(name: str, aspect: str, mode: InvokeMode = InvokeMode.BONUS, payment: Payment = Payment.AUTO) -> AfterInvoke:
    return AfterInvoke(Invoke(aspect, mode=mode, payment=payment), name)


# -- the result right the first time --------------------------------------------------------

def test_an_allys_invoke_is_a_term_of_the_effort_and_the_outcome_table_sees_it():
    """Ruth's Fight +4 and [0][0][0][0] against the Ghoul's +2 and [0][0][+][+] (Great +4)
    would be a tie (a boost for Ruth). With Charles's invoke of Deep Shadows for her (+2) it
    is +6 against +4: a success, a 2-shift hit, and no tie's boost."""
    table = make_table()
    result = resolve(attack("Ghoul", "Fight"), table, FixedDice("0000,00++"), "Ruth", FATE_CONDENSED,
                     others=[by("Charles", "Deep Shadows")])
    assert result.effort.total == 6 and result.opposition.value == 4
    assert result.outcome is Outcome.SUCCESS and effect(result, "hit").data["shifts"] == 2
    assert "boost" not in effects(result)
    assert [m.source for m in result.effort.modifiers] == ["skill", "invoke"]
    assert result.effort.modifiers[-1] == Modifier("invoke", "Deep Shadows (fate point, by Charles)", 2)
    assert table.character("Charles").fate_points == 2 and table.character("Ruth").fate_points == 3


def test_an_opposing_invoke_is_a_term_of_the_opposition():
    """The Ghoul invokes its own Hungry against Ruth's attack (+4 and [0][0][0][0] against
    +2 and [0][0][0][0]: 2 shifts): its defence becomes +4, a tie, and Ruth's effort is
    untouched: her terms are her skill alone."""
    table = make_table()
    result = resolve(attack("Ghoul", "Fight"), table, FixedDice("0000,0000"), "Ruth", FATE_CONDENSED,
                     others=[by("Ghoul", "Hungry", InvokeMode.OPPOSE)])
    assert [m.source for m in result.effort.modifiers] == ["skill"] and result.effort.total == 4
    assert result.opposition.value == 4
    assert result.opposition.effort.modifiers[-1] == Modifier("invoke", "Hungry (oppose, fate point, by Ghoul)", 2)
    assert result.outcome is Outcome.TIE and "hit" not in effects(result)


def test_oppose_against_a_passive_difficulty_is_said_in_the_systems_words():
    """The d10 hack: an invoke is "+1 hit"; the Ghoul's oppose raises a passive 2 to 3."""
    ruth = Character("Ruth", skills={"Fight": 3}, fate_points=3,
                     system_state={"approaches": {"Boldly": 2, "Carefully": 1, "Cleverly": 0, "Quickly": 0}})
    ghoul = Character("Ghoul", kind="npc", skills={"Fight": 2}, fate_points=0)
    t = Table(system=D10_POOL.name, characters={"Ruth": ruth, "Ghoul": ghoul})
    t.aspects.append(Aspect("Rusting Hulks"))
    ledger = FateLedger(gm_pool=1)
    result = resolve(overcome("Fight Boldly", opposition=Opposition(rating=2)), t, FixedDice("8 9 2 2 2"), "Ruth",
                     D10_POOL, others=[by("Ghoul", "Rusting Hulks", InvokeMode.OPPOSE)], payer=GMPool(ledger))
    assert result.opposition.value == 3 and result.shifts == -1
    assert result.opposition.label == "3 hits: 2 hits +1 hit Rusting Hulks (oppose, fate point, by Ghoul)"
    assert ledger.gm_pool == 0 and ghoul.fate_points == 0


def test_the_d10_hacks_refusals_name_its_bonus():
    """Only the roller rerolls; the refusal says what another may do, in hits."""
    ruth = Character("Ruth", skills={"Fight": 3}, fate_points=3,
                     system_state={"approaches": {"Boldly": 2, "Carefully": 1, "Cleverly": 0, "Quickly": 0}})
    t = Table(system=D10_POOL.name, characters={"Ruth": ruth, "Kim": Character("Kim", skills={}, fate_points=2)})
    t.aspects.append(Aspect("Rusting Hulks"))
    with pytest.raises(RulesError) as info:
        resolve(overcome("Fight Boldly", opposition=Opposition(rating=2)), t, FixedDice("8 9 2 2 2"), "Ruth",
                D10_POOL, others=[by("Kim", "Rusting Hulks", InvokeMode.REROLL)])
    assert info.value.message.startswith("only Ruth can reroll Ruth's dice; Kim can invoke Rusting Hulks for +1 hit")
    assert "+2" not in info.value.message and info.value.expected and info.value.example


def test_oppose_before_anyone_rolls_against_the_roller_is_refused():
    """The first half of an attack on a player's character (the defence comes in a later
    mail) has no opposition yet: an oppose by another is refused with what to do instead."""
    from pbp.rules.actions import DEFENCE_LATER

    table = make_table()
    before = copy.deepcopy(table)
    with pytest.raises(RulesError) as info:
        resolve(attack("Ruth", "Fight", opposition=DEFENCE_LATER), table, FixedDice("0000"), "Ghoul", FATE_CONDENSED,
                others=[by("Ruth", "Deep Shadows", InvokeMode.OPPOSE)])
    assert "nobody has rolled against Ghoul yet" in info.value.message
    assert info.value.example == '/defend Athletics +invoke "Deep Shadows"'
    assert table.character("Ruth").fate_points == before.character("Ruth").fate_points


def test_a_plain_roll_takes_no_invokes_by_others():
    with pytest.raises(RulesError, match="takes no invokes"):
        resolve(plain_roll(count=4), make_table(), FixedDice("0000"), "Ruth", FATE_CONDENSED,
                others=[by("Charles", "Deep Shadows")])


# -- one payment path -----------------------------------------------------------------------

def test_once_per_roll_counts_the_roller_and_the_gms_pool_alike():
    """Ruth pays a point for Deep Shadows; the Ghoul (the GM's pool) may not pay for it again
    on the same roll, but a free invoke the Ghoul holds may be spent on it."""
    table = make_table()
    ledger = FateLedger(gm_pool=3)
    cmd = attack("Ghoul", "Fight", invokes=(Invoke("Deep Shadows", payment=Payment.FATE_POINT),))
    with pytest.raises(RulesError, match="already invoked with a fate point on this roll") as info:
        resolve(cmd, copy.deepcopy(table), FixedDice("0000,0000"), "Ruth", FATE_CONDENSED,
                others=[by("Ghoul", "Deep Shadows", InvokeMode.OPPOSE)], payer=GMPool(ledger))
    assert info.value.expected and info.value.example
    table.find_aspect("Deep Shadows").free_invokes["Ghoul"] = 1
    result = resolve(cmd, table, FixedDice("0000,0000"), "Ruth", FATE_CONDENSED,
                     others=[by("Ghoul", "Deep Shadows", InvokeMode.OPPOSE)], payer=GMPool(ledger))
    assert [(u.invoker, u.paid_with) for u in result.effort.invokes] == [("Ruth", "fp"), ("Ghoul", "free")]
    assert ledger.gm_pool == 3 and table.character("Ruth").fate_points == 2


def test_each_npc_spend_comes_out_of_the_pool_in_turn():
    """Two NPCs pay on one roll: the Ghoul's own Hungry on its overcome against the Corpse,
    and the Corpse's oppose invoke of Deep Shadows. Both come out of the one pool, each
    reported as a ``gm_pool`` change naming the NPC; with a single point the second is
    refused in the pool's words, at its source."""
    table = make_table()
    cmd = overcome("Athletics", opposition=Opposition(character="Corpse"),
                   invokes=(Invoke("Hungry", payment=Payment.FATE_POINT),))
    ledger = FateLedger(gm_pool=2)
    result = resolve(cmd, copy.deepcopy(table), FixedDice("0000,0000"), "Ghoul", FATE_CONDENSED,
                     others=[by("Corpse", "Deep Shadows", InvokeMode.OPPOSE)], payer=GMPool(ledger))
    assert ledger.gm_pool == 0
    assert [c for c in result.changes if c.what == "gm_pool"] == [
        Change("gm_pool", GM, 2, 1, "invoking Hungry (Ghoul)"),
        Change("gm_pool", GM, 1, 0, "invoking Deep Shadows (Corpse)"),
    ]
    assert not [c for c in result.changes if c.what == "fate_points"]
    short = FateLedger(gm_pool=1)
    with pytest.raises(RulesError) as info:
        resolve(cmd, copy.deepcopy(table), FixedDice("0000,0000"), "Ghoul", FATE_CONDENSED,
                others=[by("Corpse", "Deep Shadows", InvokeMode.OPPOSE)], payer=GMPool(short))
    assert info.value.message == "the GM's pool has 0 fate points; invoking Deep Shadows needs one"
    assert info.value.expected and info.value.example == "/fp" and info.value.hint


def test_a_pc_pays_from_the_sheet_even_when_the_pool_pays_for_npcs():
    table = make_table()
    ledger = FateLedger(gm_pool=2)
    result = resolve(attack("Ghoul", "Fight"), table, FixedDice("0000,0000"), "Ruth", FATE_CONDENSED,
                     others=[by("Charles", "Deep Shadows")], payer=GMPool(ledger))
    assert ledger.gm_pool == 2 and table.character("Charles").fate_points == 2
    assert Change("fate_points", "Charles", 3, 2, "invoking Deep Shadows") in result.changes


def test_a_re_run_with_the_pool_is_the_same_call_with_the_same_dice():
    """The Ghoul's attack on Ruth (Fight +2 against her Fight +4, all [0]: a failure), re-run
    with the Corpse's invoke of Deep Shadows for the Ghoul, paid from the GM's pool: the
    re-run's dice are the original's, the +2 is a term of the Ghoul's effort, and the pool
    pays once, in the re-run itself (the Corpse's own points are not touched)."""
    table = make_table()
    before = copy.deepcopy(table)
    cmd = attack("Ruth", "Fight")
    first = resolve(cmd, table, FixedDice("0000,0000"), "Ghoul", FATE_CONDENSED)
    assert first.outcome is Outcome.FAIL and first.opposition.value == 4
    ledger = FateLedger(gm_pool=1)
    again = reresolve(cmd, before, throws_of(first), "Ghoul", FATE_CONDENSED,
                      extra_invokes=[by("Corpse", "Deep Shadows")], payer=GMPool(ledger))
    assert again.effort.dice == first.effort.dice and again.opposition.effort.dice == first.opposition.effort.dice
    assert again.effort.total == first.effort.total + 2 and again.opposition.value == first.opposition.value
    assert again.outcome is Outcome.TIE
    assert again.effort.modifiers[-1] == Modifier("invoke", "Deep Shadows (fate point, by Corpse)", 2)
    assert ledger.gm_pool == 0 and before.character("Corpse").fate_points == 0


# -- the window the live code uses ----------------------------------------------------------

def test_the_window_closes_the_moment_it_has_passed_in_the_live_words():
    """pbp's choice (the rules text is silent): open while less than the window has passed
    (docs/compels.md). pbp.play.invoking closes rolls with these words."""
    window = RollWindow(timedelta(hours=24))
    facts = RollFacts(rolled_at=NOW)
    assert closed_because(facts, NOW + timedelta(hours=24) - timedelta(microseconds=1), window) is None
    assert closed_because(facts, NOW + timedelta(hours=24), window) == \
        "the invoke window (24 hours after the roll) has passed"
    assert RollWindow(timedelta(hours=1.5)).passed == "the invoke window (1.5 hours after the roll) has passed"


# -- the re-announcement in the system's words ----------------------------------------------

def test_a_revision_says_the_margin_and_the_hit_in_the_systems_words():
    """Fate counts shifts; the d10 hack counts hits ("Inflict harm on your target equal to
    the number of hits"), so a revision there says hits and harm, never shifts."""
    from pbp.rules.reopen import changes_between

    cmd = attack("Ghoul", "Fight")
    table = make_table()
    before = copy.deepcopy(table)
    first = resolve(cmd, table, FixedDice("0-00,0000"), "Ruth", FATE_CONDENSED)
    again = reresolve(cmd, before, throws_of(first), "Ruth", FATE_CONDENSED, extra_invokes=[Invoke("Monster Hunter")])
    fate = [d.text for d in changes_between(first, again, FATE_CONDENSED.explain) if d.what in ("shifts", "hit")]
    assert fate == ["the shifts go from 1 to 3", "the hit goes from 1 to 3 shifts"]
    pool = [d.text for d in changes_between(first, again, D10_POOL.explain) if d.what in ("shifts", "hit")]
    assert pool == ["the hits go from 1 to 3", "the harm goes from 1 to 3 hits"]
    gone = resolve(cmd, make_table(), FixedDice("--00,0000"), "Ruth", FATE_CONDENSED)     # a tie: no hit
    assert [d.text for d in changes_between(gone, first, D10_POOL.explain) if d.what == "hit"] == \
        ["now 1 hit of harm on Ghoul"]
    assert [d.text for d in changes_between(gone, first, FATE_CONDENSED.explain) if d.what == "hit"] == \
        ["now a hit of 1 shift on Ghoul"]


def test_an_allys_own_free_invoke_names_them_once():
    """issue 27: "Deep Shadows (free, held by Charles, by Charles)". The holder who spends
    their own free invoke is named once; one spent for someone else's stays "by"."""
    table = make_table()
    shadows = next(a for a in table.aspects if a.name == "Deep Shadows")
    shadows.free_invokes = {"Charles": 1}
    result = resolve(attack("Ghoul", "Fight"), table, FixedDice("0000,00++"), "Ruth", FATE_CONDENSED,
                     others=[by("Charles", "Deep Shadows", payment=Payment.FREE)])
    label = result.effort.modifiers[-1].label
    assert label == "Deep Shadows (free, held by Charles)", label
