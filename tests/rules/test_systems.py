"""Systems are data plus small strategies (style.md, habit 3)."""
import dataclasses

import pytest

from pbp.commands import Opposition
from pbp.errors import ConfigError
from pbp.rules.actions import resolve
from pbp.rules.dice import FixedDice
from pbp.rules.systems import FATE_CONDENSED, SYSTEMS, StressTable, get_system

from .builders import overcome


def test_fate_condensed_skill_list():
    """The 19 skills of Fate Condensed (000_7ba3f797fc1d45d3.txt, "Skill List")."""
    assert len(FATE_CONDENSED.skills) == 19
    assert {"Academics", "Athletics", "Burglary", "Contacts", "Crafts", "Deceive", "Drive", "Empathy",
            "Fight", "Investigate", "Lore", "Notice", "Physique", "Provoke", "Rapport", "Resources",
            "Shoot", "Stealth", "Will"} == set(FATE_CONDENSED.skills)
    assert FATE_CONDENSED.skill_named("physique") == "Physique"


@pytest.mark.parametrize("rating, boxes, extra", [(0, 3, False), (1, 4, False), (2, 4, False),
                                                  (3, 6, False), (4, 6, False), (5, 6, True), (7, 6, True)])
def test_stress_table(rating, boxes, extra):
    """Stress table: Mediocre 3 boxes, Average/Fair 4, Good/Great 6, Superb+ 6 and a
    second mild consequence slot."""
    assert FATE_CONDENSED.stress_boxes(rating) == boxes
    assert FATE_CONDENSED.extra_mild(rating) is extra


def test_who_attacks_and_who_defends():
    """"Quais habilidades podem ser usadas para atacar e defender?": Fight and Shoot attack
    physically, Provoke mentally; Athletics defends any physical attack, Fight melee ones,
    Will mental ones."""
    s = FATE_CONDENSED
    assert s.attack_kind("Fight").defences == ("Athletics", "Fight")
    assert s.attack_kind("Shoot").defences == ("Athletics",)
    assert s.attack_kind("Provoke").track == "mental" and s.attack_kind("Provoke").defences == ("Will",)
    assert s.attack_kind("Lore") is None
    assert s.consequence_slots == (("mild", 2), ("moderate", 4), ("severe", 6))
    assert s.invoke_bonus == 2


def test_registry():
    assert get_system("Fate-Condensed") is FATE_CONDENSED is SYSTEMS["fate-condensed"]
    with pytest.raises(ConfigError) as info:
        get_system("gurps")
    assert isinstance(info.value, KeyError) and "fate-condensed" in info.value.hint


def test_a_variant_is_a_replace_not_a_copy(table):
    """A system that differs only in data (here a +3 invoke and Fate Core-style escalating
    boxes) is one ``dataclasses.replace`` away, and the engine follows it."""
    variant = dataclasses.replace(FATE_CONDENSED, name="house", invoke_bonus=3,
                                  stress=StressTable(((-99, 2), (1, 3), (3, 4)), 5, escalating=True))
    assert variant.stress.box_values(3) == (1, 2, 3, 4)
    from pbp.commands import Invoke
    cmd = overcome("Fight", opposition=Opposition(rating=4), invokes=(Invoke("Monster Hunter"),))
    result = resolve(cmd, table, FixedDice("0000"), "Ruth", variant)
    assert result.effort.total == 4 + 3


def test_severities_and_harm_names_come_from_the_system():
    """The system names its consequence severities and the nouns of placeholder consequences:
    a variant without severe consequences refuses "severe" listing its own."""
    from pbp.errors import RulesError
    from pbp.rules.harm import absorb, cheapest_absorption
    from pbp.rules.sheets import consequence_slots
    from pbp.rules.state import Character, Table
    light = dataclasses.replace(FATE_CONDENSED, name="light", consequence_slots=(("mild", 2), ("moderate", 4)),
                                harm_nouns={"physical": "Scrape", "mental": "Worry"})
    ch = Character("Charles", skills={"Physique": 0})
    ch.consequences = consequence_slots(ch, light)
    with pytest.raises(RulesError, match=r'"severe" is not a consequence \(mild, moderate\)') as info:
        absorb(Table(system="light", characters={"Charles": ch}), ch, "physical", 6, consequences=[("severe", "Torn")], system=light)
    assert info.value.expected == "mild or moderate"
    assert cheapest_absorption(ch, "physical", 4, system=light).command() == '/absorb stress 2 mild "Mild Scrape (to be named)"'
