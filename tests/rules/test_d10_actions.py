"""The d10 dice-pool hack played through the engine, row by row with fixed d10s
(004_c619695e1641b466.txt): the pool of "The Core Mechanic" (skill + approach), passive
opposition 1-5, every outcome row of "The Four Actions", "Defining Costs" on failures and
ties, "Invoking an Aspect" (+1 hit or a reroll, each point a different aspect), strain
("Attack": "The target must use STRAIN ... or take CONSEQUENCES") and the mech layer
("while they're in the cockpit, both sets apply")."""
from __future__ import annotations

import pytest

from pbp.commands import Choice, Invoke, InvokeMode, Opposition, Payment
from pbp.errors import RulesError
from pbp.rules import harm
from pbp.rules.actions import resolve
from pbp.rules.dice import FixedDice
from pbp.rules.results import Outcome
from pbp.rules.state import Aspect, Character, Table
from pbp.rules.systems.d10_pool import D10_POOL

from .builders import advantage, attack, defend, effect, effects, overcome

SYSTEM = D10_POOL


def table() -> Table:
    """Ruth: Fight 3, Move 2, Boldly 2, Carefully 1 (pools of 5 and 3); Charles: Tinker 2,
    Cleverly 1; the Captain (NPC): Fight 2, Move 1, best approach Boldly 1; a Grunt with no
    approaches (its skill alone)."""
    ruth = Character("Ruth", skills={"Fight": 3, "Move": 2, "Endure": 1}, fate_points=3,
                     system_state={"approaches": {"Boldly": 2, "Carefully": 1, "Cleverly": 0, "Quickly": 0}})
    charles = Character("Charles", skills={"Tinker": 2}, fate_points=3,
                        system_state={"approaches": {"Cleverly": 1, "Boldly": 0}})
    captain = Character("Captain", kind="npc", skills={"Fight": 2, "Move": 1, "Endure": 2}, fate_points=0,
                        system_state={"approaches": {"Boldly": 1}})
    grunt = Character("Grunt", kind="minor", skills={"Shoot": 2, "Move": 1}, stress={"strain": [False, False]})
    for ch in (ruth, captain):
        ch.stress = {"strain": [False] * SYSTEM.stress_boxes(ch.skill("Endure"))}
    t = Table(system=SYSTEM.name, characters={c.name: c for c in (ruth, charles, captain, grunt)})
    t.aspects += [Aspect("Ace Pilot", kind="high_concept", owner="Ruth"),
                  Aspect("Reckless", kind="trouble", owner="Ruth"),
                  Aspect("Rusting Hulks"),
                  Aspect("Greedy", kind="character", owner="Captain")]
    return t


def run(cmd, dice: str, actor: str = "Ruth", t: Table | None = None):
    return resolve(cmd, t or table(), FixedDice(dice), actor, SYSTEM)


def vs(n: int) -> Opposition:
    return Opposition(rating=n)


# -- the core mechanic ------------------------------------------------------------------------

def test_the_pool_is_skill_plus_approach():
    """"ADD the number for your SKILL and the number for your APPROACH to determine the size of
    your DICE POOL": Fight 3 + Boldly 2 throws five d10s, and neither number is added."""
    result = run(overcome("Fight Boldly", opposition=vs(2)), "8 9 10 1 5")
    assert result.effort.dice.faces == (8, 9, 10, 1, 5)
    assert result.effort.total == 3                    # 1 + 1 + 2 - 1 + 0
    assert [(m.label, m.value) for m in result.effort.modifiers] == [("Fight", 3), ("Boldly", 2)]


def test_the_approach_may_be_joined_with_a_hyphen():
    assert run(overcome("Move-Carefully", opposition=vs(1)), "8 2 2").effort.dice.faces == (8, 2, 2)


def test_naming_no_approach_is_refused_with_a_working_example():
    with pytest.raises(RulesError) as info:
        run(overcome("Fight", opposition=vs(2), source="/overcome Fight vs 2"), "8 9 10 1 5")
    assert "the pool is skill + approach" in info.value.message
    assert info.value.example == '/overcome "Fight Boldly" vs 2'


def test_a_defence_the_engine_picks_uses_the_best_approach():
    """The Captain defends with Fight (2) + Boldly (1): three dice."""
    result = run(attack("Captain", "Fight Boldly"), "8 8 2 2 2,8 2 2")
    assert result.opposition.effort.dice.faces == (8, 2, 2)
    assert result.opposition.value == 1


def test_a_character_without_approaches_rolls_the_skill_alone():
    """The grunt has no approaches: its Shoot 2 is a pool of two."""
    result = run(attack("Ruth", "Shoot", opposition=Opposition(character="Ruth", skill="Move")), "10 8,8 2 2 2",
                 actor="Grunt")
    assert result.opposition.effort.dice.faces == (8, 2, 2, 2)     # Ruth: Move 2 + Boldly 2
    assert result.effort.dice.faces == (10, 8) and result.effort.total == 3


@pytest.mark.parametrize("rating", [0, 6, 9])
def test_passive_opposition_is_one_to_five(rating):
    """"passive target number from 1 to 5"."""
    with pytest.raises(RulesError) as info:
        run(overcome("Fight Boldly", opposition=vs(rating), source=f'/overcome "Fight Boldly" vs {rating}'),
            "8 9 10 1 5")
    assert "1 to 5" in info.value.message
    assert info.value.example == f'/overcome "Fight Boldly" vs {1 if rating < 1 else 5}'


@pytest.mark.parametrize("rating", [1, 5])
def test_passive_opposition_bounds_are_allowed(rating):
    assert run(overcome("Fight Boldly", opposition=vs(rating)), "2 2 2 2 2").opposition.value == rating


# -- Interpreting Results, each action ---------------------------------------------------------
# Ruth's pool for "Fight Boldly" is five dice; against a passive 2:
FAIL, CATASTROPHE, TIE, SUCCESS, STYLE = "8 2 2 2 2", "1 1 2 2 2", "8 9 2 2 2", "10 9 2 2 2", "10 10 8 2 2"


@pytest.mark.parametrize("dice, outcome, kinds", [
    (CATASTROPHE, Outcome.FAIL, ["catastrophic", "fail"]),   # NEGATIVE HITS: catastrophic failure
    (FAIL, Outcome.FAIL, ["fail"]),                          # FAILURE: You fail
    (TIE, Outcome.TIE, ["cost_minor"]),                      # TIE: success with a minor cost
    (SUCCESS, Outcome.SUCCESS, ["success"]),                 # SUCCESS: no cost
    (STYLE, Outcome.STYLE, ["success", "boost"]),            # WITH STYLE: and a boost
])
def test_overcome_rows(dice, outcome, kinds):
    result = run(overcome("Fight Boldly", opposition=vs(2)), dice)
    assert result.outcome is outcome and effects(result) == kinds


def test_overcome_failure_may_become_success_at_a_severe_cost():
    """"The GM may instead allow you to succeed, but at a guaranteed severe cost"."""
    result = run(overcome("Fight Boldly", opposition=vs(2), choices=(Choice("fail", "cost"),)), FAIL)
    assert effects(result) == ["cost_major"] and effect(result, "cost_major").data["gm_decides"]


def test_overcome_tie_may_be_taken_as_a_boost_instead():
    """"TIE: Partial success, or success with a minor cost": the partial success is played as
    Fate's "fail with a boost" when the player chooses it."""
    result = run(overcome("Fight Boldly", opposition=vs(2), choices=(Choice("tie", "boost"),)), TIE)
    assert effects(result) == ["fail", "boost"]


@pytest.mark.parametrize("dice, kinds, free", [
    (FAIL, ["fail"], None),                                   # you don't create the aspect
    (TIE, ["fail", "boost"], None),                           # TIE: a boost instead
    (SUCCESS, ["aspect_created", "free_invoke"], 1),          # SUCCESS: one free invoke
    (STYLE, ["aspect_created", "free_invoke"], 2),            # WITH STYLE: two
])
def test_advantage_new_aspect_rows(dice, kinds, free):
    t = table()
    result = run(advantage("Fight Boldly", aspect="Off Balance", opposition=vs(2)), dice, t=t)
    assert effects(result) == kinds
    if free:
        assert t.find_aspect("Off Balance").free_for("Ruth") == free


def test_advantage_new_aspect_failure_may_work_to_someone_elses_advantage():
    """"or you create it but whatever you end up doing works to someone else's advantage
    instead - they get the free invoke"."""
    t = table()
    result = run(advantage("Fight Boldly", aspect="Off Balance", target="Captain",
                           opposition=Opposition(rating=2), choices=(Choice("fail", "cost"),)), FAIL, t=t)
    assert effects(result) == ["aspect_created", "enemy_free_invoke"]
    assert t.find_aspect("Off Balance").free_for("Captain") == 1


@pytest.mark.parametrize("dice, holder, free", [
    (FAIL, None, 1),          # FAILURE: a free invoke to someone else (the GM's side)
    (TIE, "Ruth", 1),         # TIE OR SUCCEED: free invoke on the aspect
    (SUCCESS, "Ruth", 1),
    (STYLE, "Ruth", 2),       # SUCCEED WITH STYLE: two
])
def test_advantage_existing_aspect_rows(dice, holder, free):
    t = table()
    result = run(advantage("Fight Boldly", aspect="Rusting Hulks", opposition=vs(2)), dice, t=t)
    if holder is None:
        assert effects(result) == ["enemy_free_invoke"]
    else:
        assert t.find_aspect("Rusting Hulks").free_for(holder) == free


# The Captain defends with Fight 2 + Boldly 1 (three dice); its throw "8 2 2" is 1 hit.
@pytest.mark.parametrize("dice, kinds, hit", [
    ("2 2 2 2 2,8 2 2", ["miss"], None),           # FAILURE: no harm
    ("8 2 2 2 2,8 2 2", ["boost"], None),          # TIE: no harm, but a boost
    ("8 9 2 2 2,8 2 2", ["hit", "absorbed"], 1),   # SUCCESS: harm = hits above the opposition
    ("10 9 2 2 2,8 2 2", ["hit", "absorbed"], 2),
    ("10 10 8 2 2,8 2 2", ["hit", "absorbed"], 4),  # WITH STYLE: as success...
])
def test_attack_rows(dice, kinds, hit):
    result = run(attack("Captain", "Fight Boldly"), dice)
    assert [k for k in effects(result) if k != "absorbed"] == [k for k in kinds if k != "absorbed"]
    if hit:
        assert effect(result, "hit").data["shifts"] == hit


def test_attack_with_style_may_trade_a_hit_for_a_boost():
    """"you may also reduce the value of your hit by one to gain a boost"."""
    result = run(attack("Captain", "Fight Boldly", choices=(Choice("style", "boost"),)), "10 10 8 2 2,8 2 2")
    assert effect(result, "hit").data["shifts"] == 3 and "boost" in effects(result)


# Ruth defends with Move 2 + Boldly 2 (four dice) against an attack of 2 hits.
@pytest.mark.parametrize("dice, kinds", [
    ("8 2 2 2", ["hit"]),                # FAILURE: you suffer what you were trying to prevent
    ("8 9 2 2", ["gm_boost"]),           # TIE: you grant your opponent a boost (the GM's side)
    ("10 9 2 2", ["defended"]),          # SUCCESS: you avoid the attack
    ("10 10 8 2", ["defended", "boost"]),  # WITH STYLE: and a boost
])
def test_defend_rows(dice, kinds):
    result = run(defend("Move Boldly", opposition=vs(2)), dice)
    assert effects(result) == kinds


def test_defend_tie_boosts_the_attacker():
    t = table()
    result = run(defend("Move Boldly", opposition=Opposition(rating=2, character="Captain", skill="Fight")),
                 "8 9 2 2", t=t)
    assert effect(result, "boost").data["holder"] == "Captain"


# -- invoking -------------------------------------------------------------------------------

def test_an_invoke_adds_one_hit():
    """"ADD 1 HIT to your roll": a tie becomes a success."""
    result = run(overcome("Fight Boldly", opposition=vs(2), invokes=(Invoke("Ace Pilot"),)), TIE)
    assert result.effort.total == 3 and result.outcome is Outcome.SUCCESS


def test_an_invoke_may_reroll_the_pool():
    result = run(overcome("Fight Boldly", opposition=vs(2), invokes=(Invoke("Ace Pilot", mode=InvokeMode.REROLL),)),
                 f"{CATASTROPHE},{STYLE}")
    assert [r.faces for r in result.effort.rolls] == [(1, 1, 2, 2, 2), (10, 10, 8, 2, 2)]
    assert result.outcome is Outcome.STYLE and "catastrophic" not in effects(result)


def test_several_points_need_different_aspects():
    """"as long as each point you spend invokes a different aspect"."""
    two = (Invoke("Ace Pilot", payment=Payment.FATE_POINT), Invoke("Reckless", payment=Payment.FATE_POINT))
    assert run(overcome("Fight Boldly", opposition=vs(5), invokes=two), TIE).effort.total == 4
    with pytest.raises(RulesError):
        run(overcome("Fight Boldly", opposition=vs(5), invokes=(two[0], two[0])), TIE)


def test_a_hostile_invocation_gives_the_point_to_the_target_after_the_scene():
    """"you give that point to that enemy ... they can't use it until AFTER THE SCENE"."""
    t = table()
    result = run(overcome("Fight Boldly", opposition=vs(3), invokes=(Invoke("Greedy"),)), TIE, t=t)
    assert t.characters["Ruth"].fate_points == 2 and t.characters["Captain"].fate_points == 0
    assert "hostile_invoke" in effects(result)


# -- strain and consequences ----------------------------------------------------------------

def test_strain_absorbs_one_hit_per_box_and_is_named_strain():
    t = table()
    done = harm.absorb(t, "Ruth", "strain", 2, stress=2, unit="strain", system=SYSTEM)
    assert done.stress_boxes == (0, 1) and t.characters["Ruth"].stress["strain"] == [True, True, False]
    with pytest.raises(RulesError) as info:
        harm.absorb(table(), "Ruth", "strain", 2, stress=2, unit="stress", system=SYSTEM)
    assert '"strain N", not "stress 2"' in info.value.message and info.value.example == "/absorb strain 2"


def test_strain_or_consequences_or_taken_out():
    """"The target must use STRAIN to push through the harm or take CONSEQUENCES; if that's
    not possible, your target is TAKEN OUT"."""
    t = table()
    plans = harm.absorption_options(t.characters["Ruth"], "strain", 5, SYSTEM)
    assert plans[0].describe() == "mild + 3 strain boxes"
    out = harm.absorb(t, "Grunt", "strain", 3, stress=2, unit="strain", system=SYSTEM)
    assert out.taken_out


@pytest.mark.parametrize("endure, boxes", [(0, 3), (1, 3), (2, 4), (3, 4), (4, 5)])
def test_strain_size(endure, boxes):
    """The text does not size strain: 3 boxes, 4 from Endure +2, 5 from +4 (docs/systems.md)."""
    assert SYSTEM.stress_boxes(endure) == boxes


# -- the mech layer -------------------------------------------------------------------------

def _pilot(piloting: bool) -> Table:
    t = table()
    t.characters["Ruth"].system_state["mech"] = {
        "name": "Dock Bravo", "aspects": ["Patched Armour"], "piloting": piloting,
        "stunts": [{"name": "Servo Fists", "skill": "Fight", "action": "overcome", "bonus": 1,
                    "circumstance": "", "description": ""}]}
    return t


def test_the_mechs_stunts_apply_only_in_the_cockpit():
    """"while they're in the cockpit, both sets apply"."""
    inside = run(overcome("Fight Boldly", opposition=vs(2)), FAIL, t=_pilot(True))
    outside = run(overcome("Fight Boldly", opposition=vs(2)), FAIL, t=_pilot(False))
    assert (inside.effort.total, outside.effort.total) == (2, 1)
    assert ("stunt", "Servo Fists", 1) in [(m.source, m.label, m.value) for m in inside.effort.modifiers]


def test_the_mechs_aspects_may_be_invoked_only_in_the_cockpit():
    """The mech's aspects are the pilot's to invoke while piloting, and not otherwise."""
    result = run(overcome("Fight Boldly", opposition=vs(2), invokes=(Invoke("Patched Armour"),)), FAIL,
                 t=_pilot(True))
    assert result.effort.total == 3 and [i.aspect for i in result.effort.invokes] == ["Patched Armour"]
    from pbp.errors import UnknownNameError
    with pytest.raises(UnknownNameError, match='no aspect "Patched Armour" is in play'):
        run(overcome("Fight Boldly", opposition=vs(2), invokes=(Invoke("Patched Armour"),)), FAIL, t=_pilot(False))
