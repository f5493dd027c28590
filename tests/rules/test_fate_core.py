"""Fate Core's harm, row by row, with fixed dice where a roll deals the hit.

The rule is the one 000_7ba3f797fc1d45d3.txt quotes from Fate Core, "Escalating Stress Boxes":

    "By default, all characters get a 1-point and a 2-point box. You may get additional,
    higher-value stress boxes depending on some of your skills (usually Physique and Will).
    When you take stress, check off a stress box with a value equal to the shift value of the
    hit. If that box is already checked, check off a higher value box. If there is no higher
    available box, and you can't take any consequences, you're taken out of the conflict.
    You can only check off one stress box per hit."

The higher boxes follow Fate Core's table: Average or Fair Physique/Will a 3-point box, Good
or Great a 3- and a 4-point box, Superb and above also an extra mild consequence.
"""
import pytest

from pbp.commands import Attack
from pbp.errors import RulesError
from pbp.rules.actions import resolve
from pbp.rules.dice import FixedDice
from pbp.rules.harm import (Plan, absorb, absorb_default, absorption_options, cheapest_absorption, hits,
                            npc_absorb, npc_plan)
from pbp.rules.results import Change
from pbp.rules.sheets import consequence_slots, stress_tracks, validate_character
from pbp.rules.state import Character, Table
from pbp.rules.systems import FATE_CONDENSED, FATE_CORE, get_system

CORE = FATE_CORE


def charles(physique: int = 0, will: int = 0, checked: tuple[int, ...] = ()) -> Character:
    ch = Character("Charles", skills={"Athletics": 3, "Physique": physique, "Will": will})
    ch.consequences = consequence_slots(ch, CORE)
    if checked:
        boxes = [False] * stress_tracks(ch, CORE)["physical"]
        for n in checked:
            boxes[n - 1] = True
        ch.stress["physical"] = boxes
    return ch


def table_of(*chars: Character) -> Table:
    return Table(system=CORE.name, characters={c.name: c for c in chars})


def test_the_registry_finds_fate_core_by_name_and_alias():
    assert get_system("fate-core") is get_system("Fate Core") is get_system("core") is CORE
    assert CORE.harm.word == "box" and FATE_CONDENSED.harm.word == "stress"


@pytest.mark.parametrize("rating, values, extra", [
    (0, (1, 2), False),            # "By default, all characters get a 1-point and a 2-point box"
    (1, (1, 2, 3), False),         # Average: a 3-point box
    (2, (1, 2, 3), False),         # Fair
    (3, (1, 2, 3, 4), False),      # Good: 3- and 4-point boxes
    (4, (1, 2, 3, 4), False),      # Great
    (5, (1, 2, 3, 4), True),       # Superb: also an extra mild consequence
    (6, (1, 2, 3, 4), True),
])
def test_boxes_by_physique_and_will(rating, values, extra):
    assert CORE.stress.box_values(rating) == values
    assert CORE.extra_mild(rating) is extra
    ch = charles(physique=rating, will=rating)
    assert stress_tracks(ch, CORE) == {"physical": len(values), "mental": len(values)}
    assert [c.severity for c in ch.consequences] == ["mild", "moderate", "severe"] + (["mild2"] * 2 if extra else [])


def ghoul_attacks(table, dice):
    cmd = Attack(line=1, source="/as Ghoul attack Charles with Fight", skill="Fight", target="Charles", actor="Ghoul")
    return resolve(cmd, table, FixedDice(dice), "Ghoul", CORE)


def test_a_hit_checks_the_box_of_its_value():
    """"check off a stress box with a value equal to the shift value of the hit": the ghoul's
    Fight Fair (+2) 00++ = Great (+4) against Charles's Athletics Good (+3) 000- = Fair (+2) is
    a 2-shift hit, and Charles checks his 2-point box, not two boxes."""
    ghoul = Character("Ghoul", kind="npc", skills={"Fight": 2})
    ch = charles()
    table = table_of(ch, ghoul)
    [hit] = hits(ghoul_attacks(table, "00++,000-"))
    assert hit.shifts == 2
    assert cheapest_absorption(ch, "physical", 2, system=CORE) == Plan(stress=2, absorbs=2)
    assert cheapest_absorption(ch, "physical", 2, system=CORE).command() == "/absorb box 2"
    result = absorb(table, "Charles", "physical", 2, stress=2, unit="box", attacker="Ghoul", system=CORE)
    assert ch.stress["physical"] == [False, True]
    assert result.stress_boxes == (1,) and result.absorbed == 2
    assert result.changes == [Change("stress", "Charles (physical)", "[1][2]", "[1][x]")]


def test_a_checked_box_moves_the_hit_to_a_higher_one():
    """"If that box is already checked, check off a higher value box": box 2 checked, a
    2-shift hit takes box 3 (Fair Physique); box 3 or 4 both will do when 2 is gone."""
    ch = charles(physique=3, checked=(2,))
    table = table_of(ch)
    assert cheapest_absorption(ch, "physical", 2, system=CORE).describe() == "the 3-point stress box"
    with pytest.raises(RulesError, match="box 2 is already checked; free boxes: 1, 3, 4"):
        absorb(table, "Charles", "physical", 2, stress=2, unit="box", system=CORE)
    result = absorb(table, "Charles", "physical", 2, stress=4, unit="box", system=CORE)
    assert result.stress_boxes == (3,) and ch.stress["physical"] == [False, True, False, True]


def test_a_higher_box_is_refused_while_the_hits_own_box_is_free():
    """The hit's own box first: with box 2 free, box 3 for a 2-shift hit is refused, naming box 2."""
    ch = charles(physique=1)
    with pytest.raises(RulesError, match="box 2, not box 3") as info:
        absorb(table_of(ch), "Charles", "physical", 2, stress=3, unit="box", system=CORE)
    assert info.value.expected and ch.stress == {}


def test_one_box_per_hit():
    """"You can only check off one stress box per hit": a 3-shift hit on a Mediocre sheet
    (boxes 1 and 2) cannot be boxes 1 + 2; it needs a consequence, and the refusal lists the
    ways that work."""
    ch = charles()
    table = table_of(ch)
    with pytest.raises(RulesError, match="must absorb 3 shifts") as info:
        absorb(table, "Charles", "physical", 3, stress=2, unit="box", system=CORE)
    assert "mild + the 1-point stress box" in str(info.value)
    assert [p.describe() for p in absorption_options(ch, "physical", 3, system=CORE)][:2] == \
        ["mild + the 1-point stress box", "moderate"]


def test_a_box_with_consequences_covers_what_they_leave():
    """Stress and consequences mix: a 5-shift hit is the 1-point box and a moderate (4); the
    deadline default is the cheapest (fewest consequences, the lightest, the lowest box)."""
    ch = charles(physique=3)
    table = table_of(ch)
    assert cheapest_absorption(ch, "physical", 5, system=CORE).describe() == "mild + the 3-point stress box"
    result = absorb(table, "Charles", "physical", 5, stress=1, unit="box",
                    consequences=[("moderate", "Gaping Chest Wound")], attacker="Ghoul", system=CORE)
    assert result.stress_boxes == (0,) and result.absorbed == 5
    with pytest.raises(RulesError, match="leave the box out"):
        absorb(table, "Charles", "physical", 2, stress=2, unit="box", consequences=[("mild", "Bruised")], system=CORE)


def test_the_words_of_another_box_model_are_refused_with_this_ones():
    """``/absorb stress 2`` is Fate Condensed's "two boxes"; under escalating boxes it is refused
    with the form this system reads, and an example that parses."""
    from pbp.parser import parse_command
    ch = charles()
    with pytest.raises(RulesError, match='marks stress as "box N", not "stress 2"') as info:
        absorb(table_of(ch), "Charles", "physical", 2, stress=2, unit="stress", system=CORE)
    assert info.value.example == "/absorb box 2"
    assert parse_command(info.value.example).stress == 2
    assert ch.stress == {}
    with pytest.raises(RulesError, match='marks stress as "stress N", not "box 2"'):
        absorb(table_of(charles()), "Charles", "physical", 2, stress=2, unit="box", system=FATE_CONDENSED)


def test_no_box_high_enough_and_no_consequence_takes_you_out():
    """"If there is no higher available box, and you can't take any consequences, you're taken
    out": boxes 1 and 2 checked, every slot filled, a 1-shift hit takes Charles out."""
    ch = charles(checked=(1, 2))
    for slot in ch.consequences:
        slot.aspect = f"Old {slot.severity}"
    table = table_of(ch)
    assert cheapest_absorption(ch, "physical", 1, system=CORE) is None
    assert absorb(table, "Charles", "physical", 1, stress=1, unit="box", attacker="Ghoul", system=CORE).taken_out
    assert ch.taken_out


def test_the_deadline_default_is_the_cheapest_absorption():
    ch = charles(physique=1)
    table = table_of(ch)
    result = absorb_default(table, "Charles", "physical", 3, attacker="Ghoul", system=CORE)
    assert result.stress_boxes == (2,) and result.consequences == ()
    result = absorb_default(table, "Charles", "physical", 3, attacker="Ghoul", system=CORE)
    assert result.stress_boxes == (0,) and result.consequences == (("mild", "Mild Wound (to be named)"),)


def test_npcs_absorb_with_one_box():
    """Minor NPCs check one box of the hit's value or higher, else are taken out; major NPCs
    take the box first, then the smallest consequence with a box for the rest."""
    cultist = Character("Cultist", kind="minor", skills={"Fight": 1})
    cultist.stress = {"physical": [False, False]}
    ghoul = Character("Ghoul", kind="npc", skills={"Physique": 0})
    table = table_of(cultist, ghoul)
    assert npc_plan(cultist, "physical", 1, system=CORE) == Plan(stress=1, absorbs=1)
    assert npc_absorb(table, cultist, "physical", 2, system=CORE).stress_boxes == (1,)
    assert npc_absorb(table, cultist, "physical", 2, system=CORE).taken_out
    assert npc_plan(ghoul, "physical", 3, system=CORE).describe() == "mild + the 1-point stress box"
    assert npc_plan(ghoul, "physical", 8, system=CORE).describe() == "severe + the 2-point stress box"
    assert npc_plan(ghoul, "physical", 9, system=CORE) is None


def test_fate_core_skills_have_no_academics():
    """Fate Core's skill list: Fate Condensed's without Academics (Lore covers it), and Lore
    treats physical consequences."""
    assert "Academics" not in CORE.skills and "Lore" in CORE.skills and len(CORE.skills) == 18
    assert CORE.treatment_skills == {"physical": "Lore", "mental": "Empathy"}
    pc = Character("Cassandra", skills={"Academics": 4, "Lore": 3, "Will": 3, "Empathy": 2, "Rapport": 2,
                                        "Notice": 2, "Athletics": 1, "Fight": 1, "Physique": 1, "Contacts": 1},
                   refresh=3)
    [problem] = validate_character(pc, CORE)
    assert problem.startswith('skills: Cassandra has "Academics", which is not a Fate Core skill')
    assert validate_character(pc, FATE_CONDENSED) == []
