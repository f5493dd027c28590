"""Sheet validation and what a sheet implies (000_7ba3f797fc1d45d3.txt: "Skills" pyramid,
"Refresh", "Stress and Consequences", and "Improving Skill Ratings", the column rule)."""
import pytest

from pbp.rules.sheets import (
    aspect_problems, column_problems, consequence_slots, matches_pyramid, name_problems, refresh_problems,
    stress_tracks, validate_character,
)
from pbp.rules.state import Aspect, Character, Consequence, Stunt
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
    assert column_problems(skills, FC.ladder) == [
        "2 skills at Great (+4) but only 1 at Good (+3): each step may not have more skills than the step below it",
    ]
    assert any("Great (+4)" in p for p in validate_character(pc(skills=skills), FC))


def test_superb_is_allowed_only_on_a_column():
    """A skill above Great is fine when every step below it holds at least as many."""
    assert column_problems(dict(PYRAMID, Fight=5), FC.ladder) != []      # Superb with nothing at Great
    assert column_problems(dict(PYRAMID, Shoot=5), FC.ladder) == []      # one Superb over one Great
    grown = {"Shoot": 5, "Fight": 4, "Lore": 4, "Athletics": 3, "Will": 3, "Notice": 3, "Physique": 2,
             "Rapport": 2, "Drive": 2, "Investigate": 2, "Stealth": 1, "Empathy": 1, "Provoke": 1, "Crafts": 1}
    assert column_problems(grown, FC.ladder) == []


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


# Fate Condensed (000_7ba3f797fc1d45d3.txt, "Refresh" and "Stunts"): "Your character begins
# with a refresh of 3." ... "Your character begins with three free stunt slots. You don't
# have to define them all right away ... You may purchase more stunts by spending 1 refresh
# each, to a minimum of 1 refresh."

def stunts(n: int) -> list[Stunt]:
    return [Stunt(f"Stunt {i}", skill="Fight", action="attack") for i in range(n)]


@pytest.mark.parametrize("count, refresh", [(0, 3), (1, 3), (3, 3), (4, 2), (5, 1)])
def test_three_stunts_are_free_and_each_further_one_costs_a_refresh(count, refresh):
    assert refresh_problems(pc(stunts=stunts(count), refresh=refresh), FC) == []
    assert validate_character(pc(stunts=stunts(count), refresh=refresh), FC) == []


@pytest.mark.parametrize("count, refresh, expected", [(4, 3, 2), (5, 3, 1), (0, 2, 3), (3, 5, 3), (5, 2, 1)])
def test_refresh_that_does_not_match_the_stunts_is_refused(count, refresh, expected):
    (problem,) = refresh_problems(pc(stunts=stunts(count), refresh=refresh), FC)
    assert f"Ruth has refresh {refresh} with {count} stunts" in problem
    assert problem.endswith(f"so refresh is {expected}" + (
        ", or count refresh gained at major milestones with milestone_refresh" if refresh > expected else "")
        + f"; e.g. refresh = {expected}")


def test_refresh_never_goes_below_one():
    """Six stunts would cost three refresh, leaving 0: "to a minimum of 1 refresh"."""
    (problem,) = refresh_problems(pc(stunts=stunts(6), refresh=1), FC)
    assert problem.startswith("Ruth has 6 stunts, which would leave refresh 0;")
    assert problem.endswith("a player character keeps at least 1: drop 1 stunt")
    (problem,) = refresh_problems(pc(stunts=stunts(8), refresh=1), FC)
    assert problem.endswith("drop 3 stunts")
    assert refresh_problems(pc(stunts=stunts(5), refresh=1), FC) == []


def test_refresh_gained_at_milestones_pays_for_more_stunts():
    """A major milestone may "Gain a point of refresh, which you can immediately spend to buy
    a new stunt": four stunts at refresh 3 is right after one such milestone."""
    ruth = pc(stunts=stunts(4), refresh=3)
    assert refresh_problems(ruth, FC) != []
    assert refresh_problems(ruth, FC, milestone_refresh=1) == []
    assert validate_character(ruth, FC, milestone_refresh=1) == []
    assert refresh_problems(pc(stunts=stunts(7), refresh=1), FC, milestone_refresh=2) == []


def test_npcs_are_not_held_to_the_stunt_rule():
    assert validate_character(Character("Ghoul", kind="npc", refresh=0, stunts=stunts(6)), FC) == []


def test_minor_npcs_have_one_or_two_aspects():
    """"Most minor NPCs will have a single aspect ... If necessary, give them another" (000,
    "Minor NPCs"); pbp holds them to one or two, as /npc add does."""
    thug = Character("Thug", kind="minor")
    for count, ok in [(0, False), (1, True), (2, True), (3, False)]:
        aspects = [Aspect(f"Aspect {i}", kind="character", owner="Thug") for i in range(count)]
        found = aspect_problems(thug, aspects, FC)
        assert (found == []) is ok, (count, found)
        if not ok:
            assert found == [f"aspects: minor NPC Thug has {count} aspects; a minor NPC has 1 to 2; "
                             'e.g. aspects.other = ["Acolyte in a Golden Mask"]']


def test_aspects_and_stunts_that_differ_only_in_case_are_one_name_twice():
    aspects = [Aspect("Tough", owner="Ruth"), Aspect("TOUGH", owner="Ruth"), Aspect("Quick", owner="Ruth"),
               Aspect("Quick", owner="Ruth"), Aspect("quick", owner="Ruth")]
    assert aspect_problems(pc(), aspects, FC) == [
        'aspects: Ruth has the aspect "Tough" as "Tough" and as "TOUGH" (names are matched case-insensitively)',
        'aspects: Ruth has the aspect "Quick" more than once',
    ]
    twins = [Stunt("Knife Thrower", skill="Shoot"), Stunt("knife thrower", skill="Shoot")]
    assert ('stunts: Ruth has the stunt "Knife Thrower" as "Knife Thrower" and as "knife thrower" '
            "(names are matched case-insensitively)") in validate_character(pc(stunts=twins), FC)


def test_reserved_names():
    """GM and me stand for the GM and the author; ladder words after "vs" are difficulties."""
    assert name_problems("Ruth") == [] and name_problems("Good Cop") == []
    assert name_problems("GM") == ['"GM" cannot be a character\'s name: it stands for the GM in commands '
                                   '(/give "Boost" GM)']
    assert validate_character(Character("Fair", kind="npc"), FC) == [
        'name: "Fair" cannot be a character\'s name: it is a difficulty after "vs" (/overcome Athletics vs Fair)']


def test_an_unknown_pc_skill_suggests_the_close_one():
    (problem,) = validate_character(pc(skills=dict(PYRAMID, Atheltics=0)), FC)
    assert problem == 'skills: Ruth has "Atheltics", which is not a Fate Condensed skill (did you mean "Athletics"?)'
