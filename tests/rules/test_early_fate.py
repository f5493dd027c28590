"""Early Fate (002_3a4e52a093e280aa.txt), rule by rule, with fixed dice where a roll decides.

Each test quotes the sentence of the text it checks; choices where the text is silent are
those of pbp/rules/systems/early_fate.py and docs/early-fate.md.
"""
import pytest

from pbp.commands import Attack, Opposition, Overcome
from pbp.errors import RulesError
from pbp.rules import ladder
from pbp.rules.actions import resolve
from pbp.rules.dice import FixedDice
from pbp.rules.harm import absorb, absorb_default, cheapest_absorption, hits, npc_absorb
from pbp.rules.recovery import check_treatment, end_scene, gm_clear
from pbp.rules.results import Outcome
from pbp.rules.sheets import consequence_slots, stress_tracks, validate_character
from pbp.rules.state import Character, Table
from pbp.rules.systems import EARLY_FATE, FATE_CONDENSED, get_system
from pbp.rules.systems.early_fate import SKILLS, stress_boxes

EF = EARLY_FATE


def hero(name="Ruth", endurance=2, resolve_=1, **skills) -> Character:
    ch = Character(name, skills={"Endurance": endurance, "Resolve": resolve_, "Athletics": 2, "Fists": 3,
                                 "Weapons": 1, **skills}, fate_points=3)
    ch.consequences = consequence_slots(ch, EF)
    return ch


def table_of(*chars: Character) -> Table:
    return Table(system=EF.name, characters={c.name: c for c in chars})


def overcome(table, who, skill, difficulty, dice):
    cmd = Overcome(line=1, source=f"/overcome {skill} vs {difficulty}", skill=skill,
                   opposition=Opposition(rating=difficulty))
    return resolve(cmd, table, FixedDice(dice), who, EF)


def attack(table, who, target, skill, dice):
    cmd = Attack(line=1, source=f"/attack {target} with {skill}", skill=skill, target=target, actor=who)
    return resolve(cmd, table, FixedDice(dice), who, EF)


def test_the_registry_finds_early_fate_by_name_and_aliases():
    assert get_system("early-fate") is get_system("Early Fate") is get_system("early") is get_system("sotc") is EF


# -- "Playing the Game": 4dF + skill against a difficulty or the opponent's result ----------

def test_four_fate_dice_added_to_the_skill_against_a_difficulty():
    """"He totals the dice, adds them to the appropriate skill, and compares the total to ...
    the difficulty": Fists Good (+3) and 0++- (+1) = Great (+4) against Fair (+2): 2 shifts."""
    table = table_of(hero())
    result = overcome(table, "Ruth", "Fists", 2, "0++-")
    assert result.effort.total == 4 and result.shifts == 2 and result.outcome is Outcome.SUCCESS


def test_matching_a_difficulty_succeeds():
    """"If a character matches or exceeds the difficulty in a simple action ... he succeeds":
    Athletics Fair (+2) 0000 against Fair (+2) is a success with 0 shifts, not a tie."""
    result = overcome(table_of(hero()), "Ruth", "Athletics", 2, "0000")
    assert result.shifts == 0 and result.outcome is Outcome.SUCCESS
    assert FATE_CONDENSED.tiers.contest_tier(0, False) is Outcome.TIE      # Fate Condensed ties


def test_in_a_contest_only_exceeding_succeeds():
    """"... or exceeds his opponent's total in a contest": a tie in a contest is no success."""
    assert EF.tiers.contest_tier(0, True) is Outcome.TIE
    assert EF.tiers.contest_tier(1, True) is Outcome.SUCCESS and EF.tiers.contest_tier(-1, False) is Outcome.FAIL


# -- the ladder -----------------------------------------------------------------------------

@pytest.mark.parametrize("value, words", [
    (8, "Legendary (+8)"), (7, "Epic (+7)"), (6, "Fantastic (+6)"), (5, "Superb (+5)"), (4, "Great (+4)"),
    (3, "Good (+3)"), (2, "Fair (+2)"), (1, "Average (+1)"), (0, "Mediocre (+0)"), (-1, "Poor (-1)"),
    (-2, "Terrible (-2)"),
    (-3, "-3"), (-4, "-4"), (9, "+9"),         # beyond the text's ladder: numbers
])
def test_the_ladder_runs_terrible_to_legendary(value, words):
    """"+8: Legendary ... -2: Terrible"."""
    assert ladder.describe(value, EF.ladder) == words
    assert ladder.describe(-3, ladder.LADDER) == "Catastrophic (-3)"       # Fate Condensed's ladder


# -- "Shifts" and "Spin" -----------------------------------------------------------------------

def test_three_shifts_spin():
    """"If a character gets 3 or more shifts on an action, he gets to spin that action ... spin
    can add +1": Fists Good (+3) ++00 = Fantastic (+5) against Fair (+2): 3 shifts, a spin."""
    result = overcome(table_of(hero()), "Ruth", "Fists", 2, "++00")
    assert result.shifts == 3
    [spin] = [e for e in result.effects if e.kind == "spin"]
    assert spin.data["bonus"] == 1


def test_two_shifts_do_not_spin():
    result = overcome(table_of(hero()), "Ruth", "Fists", 2, "+000")
    assert result.shifts == 2 and not [e for e in result.effects if e.kind == "spin"]


# -- "Stress" -------------------------------------------------------------------------------

@pytest.mark.parametrize("rating, boxes", [(-2, 1), (-1, 2), (0, 2), (1, 3), (2, 3), (3, 4), (4, 4), (5, 5),
                                           (6, 5), (7, 6), (8, 6)])
def test_health_and_composure_are_two_plus_half_rounded_up(rating, boxes):
    """"Health stress track is 2, plus half the character's Endurance (rounded up) ...
    Composure ... 2, plus half the character's Resolve (rounded up)"."""
    assert stress_boxes(rating) == boxes == EF.stress_boxes(rating)
    ch = hero(endurance=rating, resolve_=max(rating - 1, -2))
    assert stress_tracks(ch, EF) == {"health": boxes, "composure": stress_boxes(max(rating - 1, -2))}


def test_each_shift_checks_one_box():
    """"Each shift that the winner gets inflicts one box of stress": Ruth's Fists Good (+3) +000
    = Great (+4) against the thug's Athletics Average (+1) 0000: 3 shifts, three Health boxes."""
    thug = Character("Thug", kind="npc", skills={"Athletics": 1, "Endurance": 2})
    thug.consequences = consequence_slots(thug, EF)
    table = table_of(hero(), thug)
    result = attack(table, "Ruth", "Thug", "Fists", "+000,0000")
    [hit] = hits(result, "health")
    assert hit.shifts == 3
    done = absorb(table, "Thug", "health", 3, stress=3, system=EF, source="/absorb stress 3")
    assert thug.stress["health"] == [True, True, True] and not done.taken_out


# -- "Consequences" --------------------------------------------------------------------------

def test_a_consequence_instead_of_boxes_takes_the_whole_hit():
    """"he may opt not to check off a box and instead take a consequence": 3 shifts, a mild."""
    ruth = hero()
    table = table_of(ruth)
    done = absorb(table, "Ruth", "health", 3, consequences=[("mild", "Split Lip")], system=EF, source="")
    assert done.consequences == (("mild", "Split Lip"),) and not any(ruth.stress.get("health", []))
    with pytest.raises(RulesError, match="takes the whole hit: leave the stress out"):
        absorb(table, "Ruth", "health", 2, stress=1, consequences=[("moderate", "Cracked Rib")], system=EF, source="")


def test_a_hit_with_no_box_for_it_must_take_a_consequence():
    """"If the character takes a hit for which he doesn't have a box, he must take a
    consequence": 4 shifts on three free Health boxes."""
    ruth = hero()                       # Endurance Fair (+2): 3 boxes
    table = table_of(ruth)
    with pytest.raises(RulesError, match="must absorb 4 shifts"):
        absorb(table, "Ruth", "health", 4, stress=3, system=EF, source="/absorb stress 3")
    assert cheapest_absorption(ruth, "health", 4, EF).consequences[0][0] == "mild"


def test_consequences_come_in_order_mild_moderate_severe():
    """"The first consequence is a mild consequence ... The second consequence is a moderate
    one ... and the third ... severe"."""
    ruth = hero()
    table = table_of(ruth)
    with pytest.raises(RulesError) as caught:
        absorb(table, "Ruth", "health", 4, consequences=[("moderate", "Broken Arm")], system=EF, source="")
    assert "consequences come in order" in caught.value.message and "next is mild" in caught.value.message
    assert caught.value.example == '/absorb mild "Nasty Bite"'
    absorb(table, "Ruth", "health", 4, consequences=[("mild", "Dropped Sword")], system=EF, source="")
    with pytest.raises(RulesError, match="next is moderate"):
        absorb(table, "Ruth", "health", 4, consequences=[("severe", "Crushed Leg")], system=EF, source="")
    absorb(table, "Ruth", "health", 4, consequences=[("moderate", "Broken Sword")], system=EF, source="")
    absorb(table, "Ruth", "composure", 5, consequences=[("severe", "Shattered Nerve")], system=EF, source="")
    assert [s.severity for s in ruth.consequences if s.aspect] == ["mild", "moderate", "severe"]


def test_one_consequence_per_hit():
    ruth = hero()
    with pytest.raises(RulesError, match="one per hit"):
        absorb(table_of(ruth), "Ruth", "health", 9, consequences=[("mild", "A"), ("moderate", "B")], system=EF,
               source="")


def test_beyond_severe_the_character_is_taken_out():
    """"A character who takes a consequence beyond severe is taken out": with mild, moderate and
    severe taken, a hit the boxes cannot hold takes Ruth out."""
    ruth = hero()
    table = table_of(ruth)
    for sev, name in (("mild", "A"), ("moderate", "B"), ("severe", "C")):
        absorb(table, "Ruth", "health", 4, consequences=[(sev, name)], system=EF, source="")
    done = absorb(table, "Ruth", "health", 4, stress=3, system=EF, source="")
    assert done.taken_out and ruth.taken_out
    assert cheapest_absorption(hero(), "health", 3, EF).stress == 3       # boxes hold what they can


def test_the_deadline_default_and_npcs_take_the_next_consequence():
    """The cheapest absorption: boxes when they hold the hit, else the next consequence."""
    ruth = hero()
    table = table_of(ruth)
    done = absorb_default(table, "Ruth", "health", 5, system=EF)
    assert done.consequences == (("mild", "Mild Wound (to be named)"),)
    ghoul = Character("Ghoul", kind="npc", skills={"Endurance": 0})
    ghoul.consequences = consequence_slots(ghoul, EF)
    table.characters["Ghoul"] = ghoul
    assert npc_absorb(table, "Ghoul", "health", 2, system=EF).stress_boxes == (0, 1)
    assert npc_absorb(table, "Ghoul", "health", 3, system=EF).consequences[0][0] == "mild"
    assert npc_absorb(table, "Ghoul", "composure", 3, system=EF).consequences[0][0] == "moderate"


# -- "Clearing Stress and Consequences" --------------------------------------------------------

def test_stress_and_mild_consequences_clear_at_the_end_of_the_scene():
    """"Stress tracks clear automatically at the end of the stress scene ... Mild consequences
    usually clear at the end of the current scene"; moderate and severe stay."""
    ruth = hero()
    table = table_of(ruth)
    absorb(table, "Ruth", "health", 2, stress=2, system=EF, source="")
    absorb(table, "Ruth", "health", 4, consequences=[("mild", "Dropped Sword")], system=EF, source="")
    absorb(table, "Ruth", "health", 4, consequences=[("moderate", "Broken Sword")], system=EF, source="")
    end_scene(table, clears=EF.scene_clears)
    assert not any(ruth.stress["health"])
    assert [(s.severity, s.aspect) for s in ruth.consequences] == [("mild", None), ("moderate", "Broken Sword"),
                                                                    ("severe", None)]
    assert "Dropped Sword" not in {a.name for a in table.aspects}


def test_moderate_and_severe_clear_when_the_gm_says():
    """"Moderate consequences usually take several hours of rest ... Severe ... several days":
    the GM clears them (``/aspect remove``); treatment is not a rule of this text."""
    ruth = hero()
    table = table_of(ruth)
    absorb(table, "Ruth", "health", 4, consequences=[("mild", "Dropped Sword")], system=EF, source="")
    with pytest.raises(RulesError, match="has no treatment") as caught:
        check_treatment(table, "Ruth", "Ruth", "Dropped Sword", EF)
    assert caught.value.example == '/aspect remove "Dropped Sword"'
    report = gm_clear(table, "dropped sword")
    assert report is not None and ruth.consequences[0].aspect is None
    assert gm_clear(table, "Nothing Such") is None


# -- sheets -----------------------------------------------------------------------------------

def test_the_skill_list_has_endurance_and_resolve():
    """The text names no list (a documented choice: Spirit of the Century's), but its stress
    needs Endurance and Resolve, and its example contest Athletics."""
    assert {"Endurance", "Resolve", "Athletics"} <= set(SKILLS) == set(EF.skills)
    sheet = Character("Ruth", skills={"Fists": 4, "Endurance": 3, "Athletics": 3, "Resolve": 2, "Alertness": 2,
                                      "Weapons": 2, "Stealth": 1, "Guns": 1, "Rapport": 1, "Drive": 1},
                      refresh=3)
    assert validate_character(sheet, EF) == []
    sheet.skills["Physique"] = 1
    assert any('"Physique", which is not an early Fate skill' in p for p in validate_character(sheet, EF))
