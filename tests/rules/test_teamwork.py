"""Teamwork, combining the same skill (Fate Condensed, "Teamwork", 001_0095f60d590caa10.txt;
the same text in 000_7ba3f797fc1d45d3.txt, "TEAMWORK"): "Each other participant who has at
least Average (+1) in that skill adds a +1 to the highest person's skill level ...
Supporters face the same costs and consequences as the person making the roll. The maximum
total bonus a team may provide this way is equal to the highest person's skill level."

The rules text has no worked example with numbers for teamwork; these use Fate
Condensed's characters with fixed dice (0000, so the effort is the rating plus the team)."""
import pytest

from pbp.commands import Choice, Opposition
from pbp.errors import RulesError
from pbp.rules.actions import resolve
from pbp.rules.dice import FixedDice
from pbp.rules.results import Outcome
from pbp.rules.state import Character
from pbp.rules.systems import FATE_CONDENSED, FATE_CORE

from .builders import effects, overcome


def team(table, roller, skill, helpers, vs=2, dice="0000", system=FATE_CONDENSED, choices=()):
    cmd = overcome(skill, opposition=Opposition(rating=vs), helpers=tuple(helpers), choices=choices,
                   source=f"/overcome {skill} vs {vs}")
    return resolve(cmd, table, FixedDice(dice), roller, system=system)


def add(table, name, skill, rating):
    table.characters[name] = Character(name, skills={skill: rating}, fate_points=3)


def teamwork_terms(result):
    return [(m.label, m.value) for m in result.effort.modifiers if m.source == "teamwork"]


def rows(result):
    return [(e.data["helper"], e.data["adds"], e.data["why"]) for e in result.effects if e.kind == "teamwork"]


def test_highest_plus_three_with_helpers_at_plus_one_and_plus_two_gets_plus_two(table):
    """Ruth's Athletics Good (+3) rolls; Ethan (+1) and Mira (+2) each add +1: +2 in all,
    under the cap of +3."""
    add(table, "Mira", "Athletics", 2)
    result = team(table, "Ruth", "Athletics", ["Ethan", "Mira"], vs=4)
    assert teamwork_terms(result) == [("Ethan (teamwork)", 1), ("Mira (teamwork)", 1)]
    assert result.effort.total == 5 and result.outcome is Outcome.SUCCESS
    assert rows(result) == [("Ethan", 1, "adds"), ("Mira", 1, "adds")]


def test_a_helper_at_mediocre_adds_nothing(table):
    """"at least Average (+1)": Charles has no Athletics (Mediocre (+0)), and adds nothing."""
    result = team(table, "Ruth", "Athletics", ["Charles"])
    assert teamwork_terms(result) == []
    assert result.effort.total == 3
    assert rows(result) == [("Charles", 0, "below")]
    assert "it takes Average (+1)" in next(e.text for e in result.effects if e.kind == "teamwork")


def test_an_average_leader_with_three_average_helpers_gets_plus_one_only(table):
    """"The maximum total bonus ... is equal to the highest person's skill level": Ethan's
    Crafts Average (+1) with three Average helpers gets +1; the reply says where the cap bit."""
    for name in ("Ann", "Bea", "Cy"):
        add(table, name, "Crafts", 1)
    result = team(table, "Ethan", "Crafts", ["Ann", "Bea", "Cy"])
    assert teamwork_terms(result) == [("Ann (teamwork)", 1)]
    assert result.effort.total == 2
    assert rows(result) == [("Ann", 1, "adds"), ("Bea", 0, "cap"), ("Cy", 0, "cap")]
    capped = [e.text for e in result.effects if e.kind == "teamwork" and e.data["why"] == "cap"]
    assert capped[0] == ("Bea helps, but the cap bites: a team adds at most the roller's rating, "
                         "Ethan's Crafts Average (+1), so no +1 from Bea")


def test_a_helper_shares_a_cost(table):
    """"Supporters face the same costs": a tie is success at a minor cost, and it falls on
    the helper too; so does a failure taken as success at a serious cost."""
    add(table, "Mira", "Athletics", 2)
    tie = team(table, "Ruth", "Athletics", ["Mira"], vs=4)
    assert tie.outcome is Outcome.TIE
    assert effects(tie)[-2:] == ["cost_minor", "team_cost"]
    shared = next(e for e in tie.effects if e.kind == "team_cost")
    assert shared.data == {"shared_with": ["Mira"], "roller": "Ruth"}
    assert shared.text == "Mira helped Ruth, so the same cost falls on Mira (supporters face the roll's costs)"
    serious = team(table, "Ruth", "Athletics", ["Mira"], vs=6, choices=(Choice("fail", "cost"),))
    assert effects(serious)[-2:] == ["cost_major", "team_cost"]


def test_a_helper_who_added_nothing_shares_no_cost(table):
    """Only a helper who supported the roll (added +1) faces its cost."""
    result = team(table, "Ruth", "Athletics", ["Charles"], vs=3)
    assert result.outcome is Outcome.TIE and "team_cost" not in effects(result)


def test_no_cost_no_sharing(table):
    add(table, "Mira", "Athletics", 2)
    result = team(table, "Ruth", "Athletics", ["Mira"], vs=2)
    assert result.outcome is Outcome.SUCCESS and "team_cost" not in effects(result)


def test_the_highest_rolls(table):
    """"figure out who has the highest level in the skill": a helper with more than the
    roller is refused, with who should roll instead."""
    with pytest.raises(RulesError) as err:
        team(table, "Ethan", "Athletics", ["Ruth"])
    assert "Ruth's Athletics is Good (+3), higher than Ethan's Average (+1)" in err.value.message
    assert err.value.example == "/help Ruth"


def test_an_equal_helper_may_help(table):
    add(table, "Mira", "Athletics", 3)
    assert team(table, "Ruth", "Athletics", ["Mira"]).effort.total == 4


def test_a_mediocre_leader_gets_nothing_from_anyone(table):
    """The cap is the roller's rating: at Mediocre (+0) a team adds nothing."""
    add(table, "Mira", "Burglary", 0)
    result = team(table, "Mira", "Burglary", ["Charles"])
    assert teamwork_terms(result) == [] and rows(result) == [("Charles", 0, "below")]


def test_no_helping_yourself(table):
    with pytest.raises(RulesError):
        team(table, "Ruth", "Athletics", ["Ruth"])


def test_fate_core_plays_the_same_numbers(table):
    """Fate Core's text is the same; its system keeps Fate's teamwork."""
    add(table, "Mira", "Athletics", 2)
    assert team(table, "Ruth", "Athletics", ["Ethan", "Mira"], vs=4, system=FATE_CORE).effort.total == 5


def test_combine_is_pure():
    tw = FATE_CONDENSED.teamwork
    assert tw.combine(3, [("a", 1), ("b", 2)]).total == 2
    assert tw.combine(2, [("a", 1), ("b", 0), ("c", 4), ("d", 1)]).sharing == ("a", "c")
    assert tw.combine(0, [("a", 1)]).capped
