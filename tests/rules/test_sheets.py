"""Sheet validation and what a sheet implies (000_7ba3f797fc1d45d3.txt: "Skills" pyramid,
"Refresh", "Stress and Consequences", and "Improving Skill Ratings", the column rule)."""
import pytest

from pbp.rules.sheets import (
    column_problems, consequence_slots, matches_pyramid, stress_tracks, validate_character,
)
from pbp.rules.state import Character, Consequence, Stunt
from pbp.rules.systems import FATE_CONDENSED as FC

from .builders import PYRAMID


def pc(**kw) -> Character:
    kw.setdefault("skills", dict(PYRAMID))
    return Character("Ruth", **kw)


def test_the_starting_pyramid_is_valid():
    """One Great, two Good, three Fair, four Average."""
    ruth = pc()
    assert matches_pyramid(ruth.skills, FC)
    assert validate_character(ruth, FC) == []


def test_ruths_grown_column_is_valid():
    """Ruth's milestone example: Lore to Fair and Empathy to Average gives one Great, two
    Good, four Fair and four Average, a valid column."""
    skills = dict(PYRAMID, Investigate=2, Rapport=1)
    assert validate_character(pc(skills=skills), FC) == []
    assert not matches_pyramid(skills, FC)


def test_ruths_lore_alone_breaks_the_column():
    """"...she'd have four Fair (+2) skills and only three Average (+1)... that won't do.\""""
    skills = dict(PYRAMID, Investigate=2)
    problems = validate_character(pc(skills=skills), FC)
    assert len(problems) == 1 and "4 skills at Fair (+2) but only 3 at Average (+1)" in problems[0]


def test_a_bad_pyramid_is_refused():
    """Two Great skills and one Good: more skills at +4 than at +3."""
    skills = {"Fight": 4, "Shoot": 4, "Athletics": 3, "Will": 2, "Notice": 2, "Lore": 1, "Stealth": 1}
    assert column_problems(skills) == [
        "2 skills at Great (+4) but only 1 at Good (+3): each step may not have more skills than the step below it",
    ]
    assert any("Great (+4)" in p for p in validate_character(pc(skills=skills), FC))


def test_superb_is_allowed_only_on_a_column():
    """A skill above Great is fine when every step below it holds at least as many."""
    assert column_problems(dict(PYRAMID, Fight=5)) != []      # Superb with nothing at Great
    assert column_problems(dict(PYRAMID, Shoot=5)) == []      # one Superb over one Great
    grown = {"Shoot": 5, "Fight": 4, "Lore": 4, "Athletics": 3, "Will": 3, "Notice": 3, "Physique": 2,
             "Rapport": 2, "Drive": 2, "Investigate": 2, "Stealth": 1, "Empathy": 1, "Provoke": 1, "Crafts": 1}
    assert column_problems(grown) == []


def test_unknown_skill_for_a_pc_but_not_for_an_npc():
    """PCs use the system's list; NPCs may have free-form skills like "Biting People"."""
    problems = validate_character(pc(skills={"Biting People": 1}), FC)
    assert any('"Biting People"' in p for p in problems)
    assert validate_character(Character("Ghoul", kind="npc", skills={"Biting People": 3}), FC) == []


def test_refresh_zero_is_refused_and_fate_points_cannot_be_negative():
    """"...spending 1 refresh each, to a minimum of 1 refresh."""
    problems = validate_character(pc(refresh=0, fate_points=-1), FC)
    assert any("refresh 0" in p for p in problems)
    assert any("-1 fate points" in p for p in problems)


def test_negative_pc_skills_duplicate_names_and_bad_stunts():
    ruth = pc(skills=dict(PYRAMID, Drive=-1, fight=1),
              stunts=[Stunt("Kung Fu", skill="Kung Fu"), Stunt("Dodgy", skill="Athletics", action="dodge")])
    problems = " | ".join(validate_character(ruth, FC))
    assert "Poor (-1)" in problems and 'lists the skill "Fight" more than once' in problems
    assert 'names "Kung Fu"' in problems and 'is for "dodge"' in problems


@pytest.mark.parametrize("physique, will, tracks", [(0, 0, (3, 3)), (1, 2, (4, 4)), (3, 4, (6, 6)), (5, 0, (6, 3))])
def test_stress_tracks_follow_physique_and_will(physique, will, tracks):
    """Physique sizes the physical track, Will the mental one."""
    ch = Character("X", kind="npc", skills={"Physique": physique, "Will": will})
    assert stress_tracks(ch, FC) == {"physical": tracks[0], "mental": tracks[1]}


def test_superb_physique_adds_a_physical_mild_slot():
    """Superb (+5) and higher: "a second mild consequence slot specifically for physical or
    mental hits"."""
    slots = consequence_slots(Character("Shoggoth", kind="npc", skills={"Physique": 5, "Will": 6}), FC)
    assert slots == [Consequence("mild", 2), Consequence("moderate", 4), Consequence("severe", 6),
                     Consequence("mild2", 2, track="physical"), Consequence("mild2", 2, track="mental")]
    assert len(consequence_slots(pc(), FC)) == 3


def test_minor_npcs_have_written_boxes_and_no_consequences():
    """Minor NPCs: 0 to 3 stress boxes, no consequence slots."""
    thug = Character("Thug", kind="minor", stress={"physical": [False, False]})
    assert stress_tracks(thug, FC) == {"physical": 2, "mental": 0}
    assert consequence_slots(thug, FC) == []
    assert validate_character(thug, FC) == []
    brute = Character("Brute", kind="minor", stress={"physical": [False] * 4})
    assert validate_character(brute, FC) == ["stress: minor NPC Brute has 4 physical stress boxes; minor NPCs have 0 to 3"]
