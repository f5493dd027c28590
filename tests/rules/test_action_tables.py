"""Each action's outcome table is the system's (``System.tables``, pbp/rules/outcome_tables.py).

Fate Condensed's tables (003_eba7e658178fc706.txt, "Superar", "Defender") are the ordinary
case and are tested row by row in test_overcome.py, test_advantage.py and
test_attack_defend.py. Here: what early Fate (002_3a4e52a093e280aa.txt, "Spin") and the d10
hack (004_c619695e1641b466.txt, "The Four Actions") change, row by row with fixed dice, and
that a system's own table is the only place that decides it.
"""
from __future__ import annotations

from dataclasses import replace

import pytest

from pbp.commands import Choice, Opposition
from pbp.errors import RulesError
from pbp.rules.actions import resolve
from pbp.rules.dice import FixedDice
from pbp.rules.results import Outcome
from pbp.rules.state import Aspect, Character, Table
from pbp.rules.systems import D10_POOL, EARLY_FATE, FATE_CONDENSED
from pbp.rules.systems.d10_pool import PoolTables
from pbp.rules.systems.early_fate import EarlyTables
from pbp.rules.outcome_tables import FateTables

from .builders import advantage, attack, defend, effect, effects, make_table, overcome

EF = EARLY_FATE


def early_table() -> Table:
    """Ruth: Fists Good (+3), Athletics Fair (+2); a Thug: Fists Fair (+2), Athletics Average."""
    ruth = Character("Ruth", skills={"Fists": 3, "Athletics": 2, "Endurance": 2, "Resolve": 1}, fate_points=3)
    thug = Character("Thug", kind="npc", skills={"Fists": 2, "Athletics": 1}, fate_points=0)
    t = Table(system=EF.name, characters={c.name: c for c in (ruth, thug)})
    t.aspects.append(Aspect("Dark Alley"))
    return t


def early(cmd, dice: str, actor: str = "Ruth", t: Table | None = None):
    return resolve(cmd, t or early_table(), FixedDice(dice), actor, EF)


def test_systems_carry_their_tables():
    assert type(FATE_CONDENSED.tables) is FateTables
    assert isinstance(EF.tables, EarlyTables) and isinstance(D10_POOL.tables, PoolTables)


# -- early Fate: "If a character gets 3 or more shifts on an action, he gets to spin that
# action ... As a default, spin can add +1": style's benefit is the spin, not a boost. -----------

def test_early_fate_overcome_with_style_spins_instead_of_a_boost():
    """Fists Good (+3) ++00 = Fantastic (+5) against Fair (+2): 3 shifts, a spin and no boost;
    under Fate Condensed the same roll gains a boost ("Superar": "e você também ganha um
    impulso")."""
    t = early_table()
    result = early(overcome("Fists", opposition=Opposition(rating=2)), "++00", t=t)
    assert result.outcome is Outcome.STYLE and effects(result) == ["spin", "success"]
    assert not [a for a in t.aspects if a.kind == "boost"]


def test_fate_condensed_overcome_with_style_still_gains_a_boost():
    result = resolve(overcome("Fight", opposition=Opposition(rating=1)), make_table(), FixedDice("+000"), "Ruth",
                     FATE_CONDENSED)
    assert result.outcome is Outcome.STYLE and effects(result) == ["success", "boost"]


def test_early_fate_defence_with_style_spins_instead_of_a_boost():
    """Athletics Fair (+2) ++0+ = Superb (+5) against an attack of Fair (+2): not hit, a spin."""
    result = early(defend("Athletics", opposition=Opposition(rating=2)), "++0+")
    assert effects(result) == ["spin", "defended"]


def test_early_fate_attack_with_style_hits_and_spins():
    """Fists Good (+3) ++++ = +7 against the Thug's best defence, Fists Fair (+2) 0000: 5
    shifts, a hit of 5 and a spin (Fate Condensed's attack with style gives no boost either)."""
    result = early(attack("Thug", "Fists"), "++++,0000")
    kinds = [k for k in effects(result) if k != "absorbed"]
    assert kinds[:2] == ["spin", "hit"] and effect(result, "hit").data["shifts"] == 5


def test_early_fate_advantage_with_style_two_free_invokes_and_a_spin():
    """The text has no advantage table: Fate Condensed's two free invokes at style, and the
    spin of 3 or more shifts."""
    t = early_table()
    result = early(advantage("Athletics", aspect="Cornered", opposition=Opposition(rating=1)), "++00", t=t)
    assert effects(result) == ["spin", "aspect_created", "free_invoke"]
    assert t.find_aspect("Cornered").free_for("Ruth") == 2


def test_early_fate_attack_may_still_trade_a_stylish_shift_for_a_boost():
    """Silent in the text: the player's "on style boost" is Fate Condensed's (docs/early-fate.md)."""
    result = early(attack("Thug", "Fists", choices=(Choice("style", "boost"),)), "++++,0000")
    assert effect(result, "hit").data["shifts"] == 4 and "boost" in effects(result)


def test_early_fate_ties_are_fate_condensed_s():
    """In a contest a tie is no success ("exceeds his opponent's total"): the tie's boost."""
    result = early(attack("Thug", "Fists"), "-000,0000")     # 3 - 1 = 2 against Fists 2 + 0 = 2
    assert result.outcome is Outcome.TIE and effects(result) == ["boost"]


# -- the d10 hack: "the four actions in hits" --------------------------------------------------

def pool_table() -> Table:
    ruth = Character("Ruth", skills={"Fight": 3, "Move": 2, "Endure": 1}, fate_points=3,
                     system_state={"approaches": {"Boldly": 2, "Carefully": 1, "Cleverly": 0, "Quickly": 0}})
    captain = Character("Captain", kind="npc", skills={"Fight": 2, "Move": 1}, fate_points=0,
                        system_state={"approaches": {"Boldly": 1}})
    for ch in (ruth, captain):
        ch.stress = {"strain": [False] * D10_POOL.stress_boxes(ch.skill("Endure"))}
    return Table(system=D10_POOL.name, characters={c.name: c for c in (ruth, captain)})


def pool(cmd, dice: str, actor: str = "Ruth"):
    return resolve(cmd, pool_table(), FixedDice(dice), actor, D10_POOL)


def test_d10_attack_harm_is_said_in_hits():
    """"SUCCESS: Inflict harm on your target equal to the number of hits above the
    opposition": 10 9 = 3 hits against the Captain's 8 2 2 = 1 hit: 2 hits of harm."""
    result = pool(attack("Captain", "Fight Boldly"), "10 9 2 2 2,8 2 2")
    assert effect(result, "hit").text == "Ruth inflicts 2 hits of harm on Captain"
    assert effect(result, "hit").data["shifts"] == 2


def test_d10_style_trades_one_hit_for_a_boost_in_hits():
    """"SUCCESS WITH STYLE: As normal success, but you may also reduce the value of your hit by
    one to gain a boost": 10 10 8 = 5 hits against 1: 4, traded down to 3 and a boost."""
    result = pool(attack("Captain", "Fight Boldly", choices=(Choice("style", "boost"),)), "10 10 8 2 2,8 2 2")
    assert effect(result, "hit").text == "Ruth inflicts 3 hits of harm on Captain"
    assert "one hit of a stylish hit traded for it" in effect(result, "boost").text


def test_d10_defence_failure_takes_harm_in_hits():
    """Defend, "FAILURE: You suffer the consequences of whatever you were trying to prevent":
    Move Boldly 8 2 2 2 = 1 hit against an attack of 2: 1 hit of harm."""
    result = pool(defend("Move Boldly", opposition=Opposition(rating=2)), "8 2 2 2")
    assert effect(result, "hit").text == "Ruth takes 1 hit of harm"


def test_fate_condensed_hit_words_are_unchanged():
    result = resolve(attack("Ghoul", "Fight"), make_table(), FixedDice("+000,0000"), "Ruth", FATE_CONDENSED)
    assert effect(result, "hit").text.startswith("Ruth hits Ghoul for ")


def test_a_choice_outside_the_systems_table_is_refused_with_its_choices():
    class NoTieBoost(FateTables):
        choices = {**FateTables.choices, "overcome": frozenset({("fail", "cost")})}

    system = replace(FATE_CONDENSED, tables=NoTieBoost())
    with pytest.raises(RulesError) as info:
        resolve(overcome("Fight", opposition=Opposition(rating=1), choices=(Choice("tie", "boost"),)), make_table(),
                FixedDice("0000"), "Ruth", system)
    assert "(choices: on fail cost)" in info.value.message


def test_a_systems_table_decides_the_rows():
    """A variant overriding one row changes that row and nothing else."""
    class GenerousTies(FateTables):
        def overcome(self, act, outcome):
            if outcome is Outcome.TIE:
                act.report.effect("success", f"{act.actor.name} overcomes the obstacle")
                return
            super().overcome(act, outcome)

    system = replace(FATE_CONDENSED, tables=GenerousTies())
    tie = resolve(overcome("Fight", opposition=Opposition(rating=4)), make_table(), FixedDice("0000"), "Ruth", system)
    fail = resolve(overcome("Fight", opposition=Opposition(rating=5)), make_table(), FixedDice("0000"), "Ruth", system)
    assert effects(tie) == ["success"] and effects(fail) == ["fail"]
