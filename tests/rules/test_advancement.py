"""Advancement: what a milestone allows, and the column rule on raises.

Rules: 000_7ba3f797fc1d45d3.txt, "Advancement": "Minor Milestones" (one of: switch the ranks
of two skills or replace an Average skill, rewrite a stunt, buy a stunt for 1 refresh, rewrite
an aspect but the high concept), "Major Milestones" (one minor change, the high concept, a
raise of one step "even from Mediocre (+0) to Average (+1)"; the GM may offer a refresh and a
second raise) and "Improving Skill Ratings" (the column, Ruth's Lore, saved skill points).
"""
from __future__ import annotations

import pytest

from pbp.rules.advancement import MAJOR, MINOR, POWER_UP, column_options, judge, skill_changes
from pbp.rules.sheets import column_problems
from pbp.rules.systems import get_system

FC = get_system("fate-condensed")
DFC_SKILLS = FC.skills

# Ruth at the start of "Improving Skill Ratings": one Great, two Good, three Fair, four
# Average; Lore among the Average, Empathy Mediocre.
RUTH = {"Fight": 4, "Athletics": 3, "Notice": 3, "Investigate": 2, "Will": 2, "Rapport": 2,
        "Lore": 1, "Physique": 1, "Contacts": 1, "Stealth": 1}


def sheet(skills, **more):
    return {"skills": skills, **more}


def test_ruths_lore_alone_breaks_the_column_and_is_refused_with_options():
    """'she'd have four Fair (+2) skills and only three Average (+1)... that won't do.'"""
    after = dict(RUTH, Lore=2)
    assert column_problems(after, FC.ladder) == [
        "4 skills at Fair (+2) but only 3 at Average (+1): each step may not have more skills than the step below it"]
    verdict = judge(sheet(RUTH), sheet(after), MAJOR, 0, FC)
    [problem] = verdict.problems
    assert problem.startswith("the sheet must keep its column: 4 skills at Fair (+2) but only 3 at Average (+1)")
    # one point at hand: another raise instead, or saving it
    assert "raise another skill Mediocre (+0) -> Average (+1) instead (Academics" in problem
    assert "or save the skill point for a later milestone" in problem
    assert "also raise" not in problem


def test_ruth_with_a_saved_point_is_told_to_raise_a_mediocre_skill_too():
    verdict = judge(sheet(RUTH), sheet(dict(RUTH, Lore=2)), MAJOR, 1, FC)
    [problem] = verdict.problems
    assert "also raise one skill Mediocre (+0) -> Average (+1) (Academics, Burglary, Crafts, Deceive, Drive, " \
           "Empathy, ...): 2 skill points" in problem


def test_ruths_lore_and_empathy_with_a_saved_point_is_valid():
    """'she also increases her Mediocre (+0) Empathy to Average (+1). Now she has one Great (+4),
    two Good (+3), four Fair (+2), and four Average (+1) skills.'"""
    after = dict(RUTH, Lore=2, Empathy=1)
    verdict = judge(sheet(RUTH), sheet(after), MAJOR, 1, FC)
    assert verdict.problems == []
    assert verdict.points == 2
    assert [c.text for c in verdict.changes] == ["Empathy Mediocre (+0) -> Average (+1)", "Lore Average (+1) -> Fair (+2)"]
    counts = sorted((r for r in after.values()), reverse=True)
    assert counts == [4, 3, 3, 2, 2, 2, 2, 1, 1, 1, 1]
    assert column_problems(after, FC.ladder) == []


def test_two_raises_without_a_saved_point_are_one_too_many():
    verdict = judge(sheet(RUTH), sheet(dict(RUTH, Lore=2, Empathy=1)), MAJOR, 0, FC)
    assert verdict.problems == ["the raises need 2 skill points and 1 is at hand"]


def test_power_up_gives_the_second_raise():
    verdict = judge(sheet(RUTH), sheet(dict(RUTH, Lore=2, Empathy=1)), MAJOR.plus(POWER_UP), 0, FC)
    assert verdict.problems == []


def test_a_minor_milestone_switches_two_skills_but_raises_nothing():
    swap = dict(RUTH, Fight=3, Athletics=4)
    verdict = judge(sheet(RUTH), sheet(swap), MINOR, 0, FC)
    assert verdict.problems == [] and verdict.lateral == 1 and verdict.points == 0
    assert verdict.changes[0].kind == "swap"
    raised = judge(sheet(RUTH), sheet(dict(RUTH, Empathy=1)), MINOR, 0, FC)
    assert raised.problems == ["the raises need 1 skill point and 0 are at hand"]


def test_replacing_an_average_skill_with_one_not_on_the_sheet_is_a_switch():
    """'replace one Average (+1) skill with one that isn't on your sheet'."""
    replaced = {k: v for k, v in RUTH.items() if k != "Stealth"} | {"Burglary": 1}
    changes, problems = skill_changes(RUTH, replaced, FC.ladder)
    assert problems == [] and [c.kind for c in changes] == ["swap"]
    assert judge(sheet(RUTH), sheet(replaced), MINOR, 0, FC).problems == []


def test_lowering_a_skill_is_no_advancement():
    changes, problems = skill_changes(RUTH, dict(RUTH, Fight=3), FC.ladder)
    assert changes == [] and problems == [
        "Fight would go down; a milestone lowers a skill only by switching the ranks of two skills"]


def test_a_minor_milestone_allows_one_change_from_its_list_only():
    before = sheet(RUTH, aspects={"high_concept": "Ex-Cop", "trouble": "Temper", "other": ["Ghost"]})
    after = sheet(dict(RUTH, Fight=3, Athletics=4), aspects={"high_concept": "Ex-Cop", "trouble": "Temper",
                                                             "other": ["Partner's Ghost"]})
    verdict = judge(before, after, MINOR, 0, FC)
    assert verdict.problems == [
        "this milestone allows 1 change from the minor list and these are 2: Athletics and Fight switch ranks "
        "(Athletics Good (+3) -> Great (+4), Fight Great (+4) -> Good (+3)); \"Ghost\" -> \"Partner's Ghost\""]


def test_the_high_concept_waits_for_a_major_milestone():
    before = sheet(RUTH, aspects={"high_concept": "Ex-Cop"})
    after = sheet(RUTH, aspects={"high_concept": "Occult Investigator"})
    assert judge(before, after, MINOR, 0, FC).problems == [
        "the high concept is rewritten at a major milestone, not this one"]
    assert judge(before, after, MAJOR, 0, FC).problems == []


def test_a_new_stunt_is_a_change_from_the_minor_list():
    knife = {"name": "Knife Thrower", "skill": "Shoot", "action": "attack", "bonus": 2}
    draw = {"name": "Quick Draw", "skill": "Shoot", "action": "attack", "bonus": 2}
    verdict = judge(sheet(RUTH, stunts=[knife]), sheet(RUTH, stunts=[knife, draw]), MINOR, 0, FC)
    assert verdict.problems == [] and [c.kind for c in verdict.changes] == ["stunt_bought"]
    rewrite = judge(sheet(RUTH, stunts=[knife]), sheet(RUTH, stunts=[draw]), MINOR, 0, FC)
    assert [c.kind for c in rewrite.changes] == ["stunt_rewrite"]


def test_refresh_is_gained_only_where_the_milestone_gives_it():
    assert judge(sheet(RUTH), sheet(RUTH, milestone_refresh=1), MAJOR, 0, FC).problems == [
        "this milestone gives 0 refresh, not 1"]
    assert judge(sheet(RUTH), sheet(RUTH, milestone_refresh=1), MAJOR.plus(POWER_UP), 0, FC).problems == []


def test_nothing_changed_is_not_a_request():
    assert judge(sheet(RUTH), sheet(RUTH), MAJOR, 0, FC).problems == ["nothing changes"]


@pytest.mark.parametrize("system", ["fate-condensed", "fate-core", "early-fate", "d10-pool"])
def test_every_system_has_a_minor_and_a_major_milestone(system):
    milestones = get_system(system).milestones
    assert milestones["minor"] == MINOR and milestones["major"].high_concept


def test_fate_core_has_a_significant_milestone_with_a_skill_point():
    assert get_system("fate-core").milestones["significant"].skill_points == 1
    assert "significant" not in FC.milestones


def test_column_options_when_the_column_already_fits_every_raise():
    assert column_options({"Fight": 1}, {"Fight": 2}, 2, ("Fight", "Lore"), FC.ladder)[0].startswith(
        "also raise one skill Mediocre (+0) -> Average (+1) (Lore)")
