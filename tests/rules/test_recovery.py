"""Recovering from conflicts (Fate Condensed, "Recovering from Conflicts"; 001_0095f60d590caa10.txt):
stress clears at the end of a scene; a consequence needs treatment, then time."""
import pytest

from pbp.commands import Treat
from pbp.errors import RulesError
from pbp.rules.dice import FixedDice
from pbp.rules.harm import absorb
from pbp.rules.recovery import (
    end_scene, end_session, major_milestone, roll_treatment, start_recovery, treatment_difficulty,
    treatment_skill,
)
from pbp.rules.results import Change, Outcome
from pbp.rules.sheets import consequence_slots
from pbp.rules.state import Aspect, Character, Table
from pbp.rules.systems import FATE_CONDENSED


def wounded() -> Table:
    """Charles after the ghoul: two boxes marked and a Gaping Chest Wound; Ruth, who knows
    some first aid, and a shaken Cassandra."""
    charles = Character("Charles", skills={"Academics": 3, "Athletics": 3})
    ruth = Character("Ruth", skills={"Academics": 2, "Empathy": 1})
    for ch in (charles, ruth):
        ch.stress = {"physical": [False] * 3, "mental": [False] * 3}
        ch.consequences = consequence_slots(ch, FATE_CONDENSED)
    table = Table(system="fate-condensed", characters={"Charles": charles, "Ruth": ruth})
    absorb(table, "Charles", "physical", 5, stress=1, consequences=[("moderate", "Gaping Chest Wound")],
           attacker="Ghoul", system=FATE_CONDENSED)
    absorb(table, "Charles", "physical", 3, stress=1, consequences=[("mild", "Nasty Bite")], attacker="Ghoul", system=FATE_CONDENSED)
    absorb(table, "Ruth", "mental", 6, consequences=[("severe", "Seen Too Much")], attacker="Ghoul", system=FATE_CONDENSED)
    return table


def treat_cmd(patient, consequence, rename="", skill=""):
    return Treat(line=1, source=f'/treat {patient} "{consequence}"', patient=patient, consequence=consequence,
                 rename=rename, skill=skill)


def slot(table, who, name):
    return next(c for c in table.character(who).consequences if c.aspect == name)


def test_treatment_difficulties():
    """"Fair (+2) for a mild consequence, Great (+4) for moderate, and Fantastic (+6) for severe.
    These difficulties increase by two when you're trying to treat yourself"."""
    assert [treatment_difficulty(s, system=FATE_CONDENSED) for s in ("mild", "moderate", "severe", "mild2")] == [2, 4, 6, 2]
    assert [treatment_difficulty(s, self_treatment=True, system=FATE_CONDENSED) for s in ("mild", "moderate", "severe")] == [4, 6, 8]
    with pytest.raises(RulesError):
        treatment_difficulty("grave", system=FATE_CONDENSED)


def test_the_treating_skill_follows_the_harm():
    """"Physical injuries typically are addressed using medical knowledge via Academics, while
    mental consequences are healed with Empathy"."""
    table = wounded()
    assert treatment_skill(slot(table, "Charles", "Gaping Chest Wound"), system=FATE_CONDENSED) == "Academics"
    assert treatment_skill(slot(table, "Ruth", "Seen Too Much"), system=FATE_CONDENSED) == "Empathy"


def test_ruth_treats_the_chest_wound_and_it_heals_as_stitched_up():
    """"If you succeed on this roll, rewrite the consequence to indicate that it is healing":
    Ruth's Academics Fair (+2) with 0++0 = Great (+4) against Great (+4) for a moderate: a tie,
    success at a minor cost. Gaping Chest Wound becomes Stitched Up and starts recovering."""
    table = wounded()
    result = roll_treatment(treat_cmd("Charles", "Gaping Chest Wound", rename="Stitched Up"), table,
                            FixedDice("0++0"), "Ruth", system=FATE_CONDENSED)
    assert (result.skill, result.opposition.value, result.outcome) == ("Academics", 4, Outcome.TIE)
    assert [e.kind for e in result.effects] == ["cost_minor", "treated"]
    healing = slot(table, "Charles", "Stitched Up")
    assert healing.recovering and healing.severity == "moderate"
    assert table.find_aspect("Stitched Up").free_invokes == {"Ghoul": 1}
    assert table.find_aspect("Gaping Chest Wound") is None
    assert Change("recovering", "Stitched Up (Charles)", False, True) in result.changes
    with pytest.raises(RulesError, match="already recovering"):
        roll_treatment(treat_cmd("Charles", "Stitched Up"), table, FixedDice("++++"), "Ruth", system=FATE_CONDENSED)


def test_treating_yourself_is_two_harder_and_a_failure_starts_nothing():
    """Charles treats his own Nasty Bite (mild): Fair (+2) + 2 = Great (+4); Academics Good (+3)
    with 0-00 = Fair (+2) fails, and the bite keeps its name and does not recover."""
    table = wounded()
    result = roll_treatment(treat_cmd("Charles", "nasty bite", rename="Bandaged Bite"), table,
                            FixedDice("0-00"), "Charles", system=FATE_CONDENSED)
    assert (result.opposition.value, result.outcome) == (4, Outcome.FAIL)
    assert "not_treated" in [e.kind for e in result.effects]
    assert not slot(table, "Charles", "Nasty Bite").recovering


def test_end_of_scene_clears_stress_and_boosts_but_not_consequences():
    """"At the end of each scene, every character clears their stress boxes. Consequences take
    more time and effort to clear." Boosts and situation aspects go with the scene."""
    table = wounded()
    table.aspects += [Aspect("Ruth's Boost", kind="boost", free_invokes={"Ruth": 1}),
                      Aspect("Deep Shadows"), Aspect("Distracted", owner="Ghoul"),
                      Aspect("Caustic Slime", kind="zone", owner="Cellar"),
                      Aspect("Pursued by the Police"), Aspect("Monster Hunter", kind="high_concept", owner="Ruth")]
    table.character("Charles").taken_out = True
    report = end_scene(table, keep=["Pursued by the Police"])
    charles = table.character("Charles")
    assert charles.stress["physical"] == [False] * 3 and not charles.taken_out
    assert Change("stress", "Charles (physical)", "[x][x][ ]", "[ ][ ][ ]", "the scene ended") in report.changes
    assert [c.aspect for c in charles.consequences] == ["Nasty Bite", "Gaping Chest Wound", None]
    assert sorted(a.name for a in table.aspects) == ["Gaping Chest Wound", "Monster Hunter", "Nasty Bite",
                                                     "Pursued by the Police", "Seen Too Much"]


def test_a_mild_consequence_clears_after_a_full_scene_after_treatment():
    """"Mild consequences take one full scene after treatment to clear": treated during a
    scene, it survives that scene's end and clears at the end of the next one."""
    table = wounded()
    roll_treatment(treat_cmd("Charles", "Nasty Bite", rename="Bandaged Bite"), table, FixedDice("0+00"), "Ruth", system=FATE_CONDENSED)
    end_scene(table)
    assert slot(table, "Charles", "Bandaged Bite").recovering
    report = end_scene(table)
    assert [c.aspect for c in table.character("Charles").consequences] == [None, "Gaping Chest Wound", None]
    assert table.find_aspect("Bandaged Bite") is None
    assert Change("consequence", "Charles", "Bandaged Bite", None, "recovered for a full scene") in report.changes


def test_treated_between_scenes_the_next_scene_is_the_full_one():
    table = wounded()
    start_recovery(table, "Charles", "Nasty Bite", rename="Bandaged Bite", scene_in_progress=False, system=FATE_CONDENSED)
    end_scene(table)
    assert table.character("Charles").consequences[0].aspect is None


def test_a_moderate_consequence_clears_after_a_full_session():
    """"Moderate consequences ... taking a full session after treatment to clear"; scenes do
    not clear it."""
    table = wounded()
    start_recovery(table, "Charles", "Gaping Chest Wound", rename="Stitched Up", system=FATE_CONDENSED)
    for _ in range(3):
        end_scene(table)
    end_session(table)
    assert slot(table, "Charles", "Stitched Up").recovering
    end_session(table)
    assert table.character("Charles").consequences[1].aspect is None


def test_a_severe_consequence_clears_at_a_major_milestone_after_treatment():
    """"Severe consequences only clear when you reach a [major milestone] after treatment";
    an untreated one stays, and the milestone offers to start its recovery."""
    table = wounded()
    for _ in range(2):
        end_scene(table)
        end_session(table)
    report = major_milestone(table, FATE_CONDENSED)
    assert slot(table, "Ruth", "Seen Too Much")
    assert [e.kind for e in report.effects] == ["may_recover", "may_recover"]
    start_recovery(table, "Ruth", "Seen Too Much", rename="Nightmares Fading", system=FATE_CONDENSED)
    end_session(table)
    assert slot(table, "Ruth", "Nightmares Fading").recovering
    major_milestone(table, FATE_CONDENSED)
    assert table.character("Ruth").consequences[2].aspect is None
    assert table.find_aspect("Nightmares Fading") is None


def test_an_untreated_consequence_never_clears_by_time():
    table = wounded()
    for _ in range(5):
        end_scene(table)
        end_session(table)
    assert [c.aspect for c in table.character("Charles").consequences] == ["Nasty Bite", "Gaping Chest Wound", None]


# -- recovery is the system's (System.recovery) ---------------------------------------------

def _house_system():
    """A house system whose severities have other names and other clocks: a scratch heals a
    full session after treatment, a wound and a scar wait for a major milestone, and a scar
    is treated against Epic (+7) whatever it absorbed."""
    from dataclasses import replace

    from pbp.rules.system import Recovery
    return replace(FATE_CONDENSED, name="house-recovery",
                   consequence_slots=(("scratch", 2), ("wound", 4), ("scar", 6)),
                   recovery={"scratch": Recovery("session"),
                             "wound": Recovery("milestone", major_milestone=True),
                             "scar": Recovery("milestone", difficulty=7, major_milestone=True)})


def _house_table(system):
    charles = Character("Charles", skills={"Academics": 3})
    ruth = Character("Ruth", skills={"Academics": 4})
    for ch in (charles, ruth):
        ch.stress = {"physical": [False] * 3, "mental": [False] * 3}
        ch.consequences = consequence_slots(ch, system)
    table = Table(system="fate-condensed", characters={"Charles": charles, "Ruth": ruth})
    absorb(table, "Charles", "physical", 2, consequences=[("scratch", "Grazed")], attacker="Ghoul", system=system)
    absorb(table, "Charles", "physical", 6, consequences=[("scar", "Clawed Face")], attacker="Ghoul", system=system)
    return table


def test_the_systems_recovery_table_names_the_severities_and_their_difficulties():
    house = _house_system()
    assert [treatment_difficulty(s, system=house) for s in ("scratch", "wound", "scar")] == [2, 4, 7]
    assert treatment_difficulty(slot(_house_table(house), "Charles", "Clawed Face"), self_treatment=True,
                                system=house) == 9
    with pytest.raises(RulesError) as err:
        treatment_difficulty("mild", system=house)
    assert "scratch, wound or scar" in str(err.value.expected)


def test_a_session_clock_from_the_system_not_from_the_word_mild():
    """The house scratch is absorbed like a mild one but waits a full session: scene ends do
    not clear it, the second session end does (treated during the session)."""
    house = _house_system()
    table = _house_table(house)
    report = roll_treatment(treat_cmd("Charles", "Grazed", rename="Plastered"), table, FixedDice("0+00"), "Ruth",
                            system=house)
    assert "it clears after one full session" in [e.text for e in report.effects if e.kind == "treated"][0]
    for _ in range(3):
        end_scene(table)
    assert slot(table, "Charles", "Plastered").recovering
    end_session(table)
    assert slot(table, "Charles", "Plastered").recovering
    end_session(table)
    assert table.character("Charles").consequences[0].aspect is None


def test_a_major_milestone_clears_what_the_system_says():
    """The house scar is treated against its own Epic (+7) and clears at the major milestone;
    Fate Condensed's words (moderate, severe) play no part."""
    house = _house_system()
    table = _house_table(house)
    with pytest.raises(RulesError):       # an overcome vs Fantastic is not enough for the scar
        from pbp.rules.recovery import treat
        from pbp.rules.actions import resolve
        from pbp.commands import Opposition, Overcome
        weak = resolve(Overcome(line=1, source="/overcome", skill="Academics", opposition=Opposition(rating=6),
                                actor="Ruth"), table, FixedDice("++++"), "Ruth", house)
        treat(table, "Ruth", "Charles", "Clawed Face", weak, system=house)
    report = roll_treatment(treat_cmd("Charles", "Clawed Face", rename="Healing Scar"), table, FixedDice("++++"),
                            "Ruth", system=house)
    assert report.opposition.value == 7 and report.outcome is Outcome.SUCCESS
    for _ in range(2):
        end_scene(table)
        end_session(table)
    assert slot(table, "Charles", "Healing Scar").recovering
    assert FATE_CONDENSED.milestone_clears == ("moderate", "severe") and house.milestone_clears == ("wound", "scar")
    major_milestone(table, house)
    assert [c.aspect for c in table.character("Charles").consequences] == ["Grazed", None, None]
