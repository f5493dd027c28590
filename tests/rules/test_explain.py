"""How a result is explained comes from the system (``System.explain``, pbp/rules/explain.py):
one renderer per part of a result (the dice, the effort, the opposition, the outcome, the
harm), Fate's the ordinary case, the d10 hack's in hits (004_c619695e1641b466.txt, "The Core
Mechanic": "Each die that comes up 8 or higher counts as a HIT"; "Interpreting Results")."""
from __future__ import annotations

from pbp.commands import Opposition
from pbp.render import action_rows, headline, verdict
from pbp.rules import explain
from pbp.rules.actions import resolve
from pbp.rules.dice import FixedDice
from pbp.rules.results import DiceRoll
from pbp.rules.state import Character, Table
from pbp.rules.systems import D10_POOL, EARLY_FATE, FATE_CONDENSED, FATE_CORE

from .builders import make_table, overcome


def pool_result(dice: str, vs: int = 2):
    ruth = Character("Ruth", skills={"Fight": 3}, fate_points=3,
                     system_state={"approaches": {"Boldly": 2, "Carefully": 1, "Cleverly": 0, "Quickly": 0}})
    t = Table(system=D10_POOL.name, characters={"Ruth": ruth})
    return resolve(overcome("Fight Boldly", opposition=Opposition(rating=vs)), t, FixedDice(dice), "Ruth", D10_POOL)


def test_each_system_carries_an_explainer():
    assert type(FATE_CONDENSED.explain) is explain.FateExplainer
    assert FATE_CORE.explain.unit == EARLY_FATE.explain.unit == "shift"
    assert D10_POOL.explain.unit == "hit"


def test_fate_dice_and_shifts():
    x = FATE_CONDENSED.explain
    roll = DiceRoll((1, 0, -1, 1), "F")
    assert x.faces(roll) == "[+] [0] [-] [+]" and x.dice_value(roll) == "+1"
    assert x.amount(4) == "+4 Great" and x.passive(2) == "Fair (+2)"
    assert x.margin(1) == "1 shift" and x.margin(3) == "3 shifts"
    assert x.hit(2) == "a 2-shift hit" and x.hit(2, "physical", definite=True) == "the 2-shift physical hit"
    assert x.clears("stress") == "stress clears"


def test_d10_faces_count_hits():
    """8-9 one hit, 10 two, 1 takes one away: [8+] [9+] [10++] [1-] [5] counts 3 hits."""
    x = D10_POOL.explain
    roll = D10_POOL.roll(FixedDice("8 9 10 1 5"), 5)
    assert x.faces(roll) == "[8+] [9+] [10++] [1-] [5]" and x.dice_value(roll) == "3 hits"
    assert x.passive(1) == "1 hit" and x.margin(2) == "2 hits" and x.hit(1) == "1 hit of harm"


def test_a_d10_result_is_explained_in_hits():
    """Fight 3 + Boldly 2 = five dice, 10 9 = 3 hits against a passive 2: success by 1 hit."""
    res = pool_result("10 9 2 2 2")     # resolved and explained in the campaign's system, as the pipeline does
    rows = {r.label: r for r in action_rows(res, D10_POOL)}
    assert rows["dice"].value == "3 hits" and rows["effort"].value == "3 hits" and rows["vs"].text == "2 hits"
    assert headline(res, D10_POOL) == "Ruth overcomes with Fight + Boldly, 5 dice"
    assert verdict(res, D10_POOL) == "success, 1 hit"


def test_a_catastrophic_failure_is_named():
    """"NEGATIVE HITS: Catastrophic failure": 1 1 = -2 hits against 2."""
    res = pool_result("1 1 2 2 2")
    assert verdict(res, D10_POOL) == "catastrophic failure, 4 hits short"


def test_fate_condensed_explanation_is_unchanged():
    res = resolve(overcome("Fight", opposition=Opposition(rating=2)), make_table(), FixedDice("+0-+"), "Ruth",
                  FATE_CONDENSED)
    rows = {r.label: r for r in action_rows(res, FATE_CONDENSED)}
    assert rows["dice"].text == "[+] [0] [-] [+]" and rows["dice"].value == "+1"
    assert rows["effort"].value == "+5 Superb" and rows["vs"].text == "Fair (+2)"
    assert verdict(res, FATE_CONDENSED) == "success with style, 3 shifts"


def test_the_ladder_is_shown_with_the_systems_words():
    """Early Fate's ladder ends at Terrible (-2): beyond it, numbers (002, "the ladder")."""
    assert EARLY_FATE.explain.amount(-3) == "-3" and EARLY_FATE.explain.passive(-2) == "Terrible (-2)"
    assert FATE_CONDENSED.explain.amount(-3) == "-3 Catastrophic"


def test_sheet_errors_name_the_system_by_its_title():
    assert FATE_CONDENSED.a_skill() == "a Fate Condensed skill"
    assert EARLY_FATE.a_skill() == "an early Fate skill"
    assert D10_POOL.a_skill() == "a skill of the d10 dice-pool hack"


def test_a_conflict_begins_in_the_systems_words():
    """Early Fate names stress tracks, not kinds of conflict ("either health stress or
    composure stress", 002 "Stress"); the d10 hack has one track, strain."""
    assert FATE_CONDENSED.explain.conflict_begins("physical", FATE_CONDENSED.tracks) == "A physical conflict begins"
    assert EARLY_FATE.explain.conflict_begins("health", EARLY_FATE.tracks) == "A conflict begins (health stress)"
    assert D10_POOL.explain.conflict_begins("strain", D10_POOL.tracks) == "A conflict begins"


def test_a_second_paid_invoke_of_one_aspect_gets_an_example_in_the_roll_s_words():
    """004, "Invoking an Aspect": "as long as each point you spend invokes a different aspect":
    the example is the roll as written with another aspect in play, not a Fate line."""
    import pytest

    from pbp.commands import Invoke, Payment
    from pbp.errors import RulesError
    from pbp.rules.state import Aspect

    ruth = Character("Ruth", skills={"Fight": 3}, fate_points=3,
                     system_state={"approaches": {"Boldly": 2, "Carefully": 1, "Cleverly": 0, "Quickly": 0}})
    t = Table(system=D10_POOL.name, characters={"Ruth": ruth})
    t.aspects += [Aspect("Ace Pilot", kind="high_concept", owner="Ruth"), Aspect("Rusting Hulks")]
    source = '/overcome "Fight Boldly" vs 3 +invoke "Ace Pilot" +invoke "Ace Pilot"'
    two = (Invoke("Ace Pilot", payment=Payment.FATE_POINT),) * 2
    with pytest.raises(RulesError) as info:
        resolve(overcome("Fight Boldly", opposition=Opposition(rating=3), invokes=two, source=source), t,
                FixedDice("8 9 2 2 2"), "Ruth", D10_POOL)
    assert info.value.example == '/overcome "Fight Boldly" vs 3 +invoke "Ace Pilot" +invoke "Rusting Hulks"'


def test_an_invoke_is_worth_the_systems_bonus_in_its_words():
    """Fate: "+2"; the d10 hack: "ADD 1 HIT to your roll"."""
    assert FATE_CONDENSED.explain.worth(FATE_CONDENSED.invoke_bonus) == "+2"
    assert D10_POOL.explain.worth(D10_POOL.invoke_bonus) == "+1 hit"


def test_an_oppose_invoke_without_an_opponent_names_the_systems_bonus():
    import pytest

    from pbp.commands import Invoke, InvokeMode
    from pbp.errors import RulesError
    from pbp.rules.state import Aspect

    ruth = Character("Ruth", skills={"Fight": 3}, fate_points=3,
                     system_state={"approaches": {"Boldly": 2, "Carefully": 1, "Cleverly": 0, "Quickly": 0}})
    t = Table(system=D10_POOL.name, characters={"Ruth": ruth})
    t.aspects.append(Aspect("Rusting Hulks"))
    with pytest.raises(RulesError) as info:
        resolve(overcome("Fight Boldly", opposition=Opposition(rating=3),
                         invokes=(Invoke("Rusting Hulks", mode=InvokeMode.OPPOSE),)), t, FixedDice("8 9 2 2 2"),
                "Ruth", D10_POOL)
    assert "invoke Rusting Hulks for +1 hit instead" in info.value.message


def test_too_many_strain_boxes_is_said_in_hits():
    """A 1-hit hit absorbed with two strain boxes is refused in the hack's words."""
    import pytest

    from pbp.errors import RulesError
    from pbp.rules import harm

    ruth = Character("Ruth", skills={"Endure": 1}, fate_points=3)
    ruth.stress = {"strain": [False] * 3}
    t = Table(system=D10_POOL.name, characters={"Ruth": ruth})
    with pytest.raises(RulesError) as info:
        harm.absorb(t, "Ruth", "strain", 1, stress=2, unit="strain", system=D10_POOL)
    assert info.value.message == "Ruth needs 1 hit absorbed and this absorbs 2: mark 1 strain box, not 2"
