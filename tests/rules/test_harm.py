"""Taking harm (Fate Condensed, "Stress", "Consequences", "Getting Taken Out";
001_0095f60d590caa10.txt), with the book's Charles-vs-ghoul sequence played through the
actions engine and the harm rules."""
import dataclasses

import pytest
from hypothesis import given, settings, strategies as st

from pbp.commands import Attack, Invoke, Payment
from pbp.errors import RulesError
from pbp.rules import harm
from pbp.rules.actions import resolve
from pbp.rules.dice import FixedDice
from pbp.rules.harm import (
    Plan, absorb, absorb_default, absorption_options, can_absorb, cheapest_absorption, hits, npc_absorb,
    npc_plan, rename_consequence,
)
from pbp.rules.results import Change
from pbp.rules.sheets import consequence_slots
from pbp.rules.state import Aspect, Character, Table
from pbp.rules.systems import FATE_CONDENSED, StressTable


def basement() -> Table:
    """Charles (Athletics Good +3, Physique Mediocre: three physical boxes) and the ghoul
    (Fight Fair +2, Hungry for Flesh)."""
    charles = Character("Charles", skills={"Athletics": 3, "Academics": 3}, fate_points=3)
    charles.stress = {"physical": [False] * 3, "mental": [False] * 3}
    charles.consequences = consequence_slots(charles, FATE_CONDENSED)
    ghoul = Character("Ghoul", kind="npc", skills={"Fight": 2, "Athletics": 2, "Physique": 3}, fate_points=1)
    table = Table(system="fate-condensed", characters={"Charles": charles, "Ghoul": ghoul})
    table.aspects.append(Aspect("Hungry for Flesh", kind="trouble", owner="Ghoul"))
    return table


def ghoul_attacks(table, dice, **kw):
    cmd = Attack(line=1, source="/as Ghoul attack Charles with Fight", skill="Fight", target="Charles",
                 actor="Ghoul", **kw)
    return resolve(cmd, table, FixedDice(dice), "Ghoul", system=FATE_CONDENSED)


def test_charles_versus_the_ghoul():
    """"Taking Harm" / "Consequences" / "Getting Taken Out", the Charles-vs-ghoul examples.

    1. Ghoul Fight Fair (+2), 00++ = Great (+4) vs Charles Athletics Good (+3), 000- = Fair
       (+2): two shifts; he marks the first two of his three physical boxes.
    2. 00++ +2 Fight +2 Hungry for Flesh = Fantastic (+6) vs --00 +3 = Average (+1): five
       shifts; a moderate Gaping Chest Wound (4) and his last box (1). The ghoul gets a free
       invoke on the consequence.
    3. A Legendary (+8) attack vs Poor (-1): nine shifts with the boxes and the moderate slot
       full; mild + severe = 8 < 9, so Charles is taken out and the ghoul decides his fate.
    """
    table = basement()
    charles = table.character("Charles")

    first = ghoul_attacks(table, "00++,000-")
    assert (first.effort.total, first.opposition.value) == (4, 2)
    assert first.opposition.effort.skill == "Athletics"
    [hit] = hits(first)
    assert (hit.target, hit.shifts, hit.attacker) == ("Charles", 2, "Ghoul")
    assert cheapest_absorption(charles, "physical", 2, system=FATE_CONDENSED) == Plan(stress=2, absorbs=2)
    one = absorb(table, "Charles", "physical", hit.shifts, stress=2, attacker="Ghoul", system=FATE_CONDENSED)
    assert charles.stress["physical"] == [True, True, False]
    assert one.stress_boxes == (0, 1) and one.absorbed == 2 and not one.taken_out
    assert one.changes == [Change("stress", "Charles (physical)", "[ ][ ][ ]", "[x][x][ ]")]

    second = ghoul_attacks(table, "00++,--00", invokes=(Invoke("Hungry for Flesh"),))
    assert (second.effort.total, second.opposition.value, second.shifts) == (6, 1, 5)
    assert table.character("Ghoul").fate_points == 0
    [hit] = hits(second)
    assert hit.shifts == 5
    assert cheapest_absorption(charles, "physical", 5, system=FATE_CONDENSED).describe() == "moderate + 1 stress box"
    two = absorb(table, "Charles", "physical", 5, stress=1,
                 consequences=[("moderate", "Gaping Chest Wound")], attacker="Ghoul", system=FATE_CONDENSED)
    assert charles.stress["physical"] == [True, True, True]
    moderate = next(c for c in charles.consequences if c.severity == "moderate")
    assert moderate.aspect == "Gaping Chest Wound" and moderate.hit_track == "physical"
    wound = table.find_aspect("Gaping Chest Wound")
    assert (wound.kind, wound.owner, wound.free_invokes) == ("consequence", "Charles", {"Ghoul": 1})
    assert two.consequences == (("moderate", "Gaping Chest Wound"),) and two.absorbed == 5
    assert Change("free_invokes", "Gaping Chest Wound (held by Ghoul)", 0, 1) in two.changes

    # A very lucky hit: 2 Fight + ++++ + the free invoke on the wound = Legendary (+8);
    # Charles's ---- on Athletics +3 = Poor (-1).
    third = ghoul_attacks(table, "++++,----", invokes=(Invoke("Gaping Chest Wound", payment=Payment.FREE),))
    assert (third.effort.total, third.opposition.value, third.shifts) == (8, -1, 9)
    assert wound.free_invokes == {}
    assert not can_absorb(charles, "physical", 9, system=FATE_CONDENSED)
    assert cheapest_absorption(charles, "physical", 9, system=FATE_CONDENSED) is None
    out = absorb(table, "Charles", "physical", 9, consequences=[("mild", "Nasty Bite"), ("severe", "Torn Open")],
                 attacker="Ghoul", system=FATE_CONDENSED)
    assert out.taken_out and charles.taken_out
    assert out.stress_boxes == () and out.consequences == ()
    assert [c.aspect for c in charles.consequences] == [None, "Gaping Chest Wound", None]
    effect = next(e for e in out.effects if e.kind == "taken_out")
    assert effect.data["attacker"] == "Ghoul" and effect.data["narrator"] == "Ghoul"
    assert Change("taken_out", "Charles", False, True) in out.changes


def charles_with(boxes_free: int, *, filled=(), physique: int = 0) -> Character:
    ch = Character("Charles", skills={"Physique": physique})
    n = FATE_CONDENSED.stress_boxes(physique)
    ch.stress = {"physical": [i >= boxes_free for i in range(n)], "mental": [False] * 3}
    ch.consequences = consequence_slots(ch, FATE_CONDENSED)
    for slot in ch.consequences:
        if slot.severity in filled:
            slot.aspect = f"Old {slot.severity}"
    return ch


def test_a_plan_that_falls_short_is_refused_with_the_options():
    """"you have to absorb all the shifts of the hit to stay in the fight": a short answer is
    refused while something could absorb the hit, and the refusal lists what would."""
    ch = charles_with(3)
    table = Table(system="fate-condensed", characters={"Charles": ch})
    with pytest.raises(RulesError) as err:
        absorb(table, ch, "physical", 5, stress=3, system=FATE_CONDENSED)
    assert "must absorb 5 shifts" in err.value.message and "this absorbs 3" in err.value.message
    assert "mild + 3 stress boxes" in err.value.message and "moderate + 1 stress box" in err.value.message
    assert err.value.example.startswith("/absorb stress 3 mild")
    assert ch.stress["physical"] == [False] * 3


def test_wasteful_plans_are_refused_but_a_bigger_consequence_is_a_choice():
    """Every box and consequence in an answer must be needed; taking a severe consequence for
    a 5-shift hit is allowed (nothing smaller was chosen), a severe plus a box is not."""
    table = Table(system="fate-condensed", characters={"Charles": charles_with(3)})
    ch = table.character("Charles")
    with pytest.raises(RulesError, match="mark 1 stress box, not 2"):
        absorb(table, ch, "physical", 5, stress=2, consequences=[("moderate", "Cracked Ribs")], system=FATE_CONDENSED)
    with pytest.raises(RulesError, match="mark 0 stress boxes"):
        absorb(table, ch, "physical", 5, stress=1, consequences=[("severe", "Crushed Leg")], system=FATE_CONDENSED)
    with pytest.raises(RulesError, match="without the mild"):
        absorb(table, ch, "physical", 3, consequences=[("mild", "Bruised"), ("severe", "Crushed Leg")], system=FATE_CONDENSED)
    result = absorb(table, ch, "physical", 5, consequences=[("severe", "Crushed Leg")], system=FATE_CONDENSED)
    assert result.absorbed == 6 and not result.taken_out


def test_filled_slots_and_full_boxes_are_refused():
    """"The boxes are binary—either they're empty and can be used or they're full and can't",
    and a consequence needs an empty slot."""
    table = Table(system="fate-condensed", characters={"Charles": charles_with(1, filled=("moderate",))})
    ch = table.character("Charles")
    with pytest.raises(RulesError, match="1 free physical stress box, not 2"):
        absorb(table, ch, "physical", 2, stress=2, system=FATE_CONDENSED)
    with pytest.raises(RulesError, match=r"moderate consequence slot is already filled \(Old moderate\)"):
        absorb(table, ch, "physical", 4, consequences=[("moderate", "Gut Shot")], system=FATE_CONDENSED)
    with pytest.raises(RulesError, match="not a consequence"):
        absorb(table, ch, "physical", 4, consequences=[("grave", "Gut Shot")], system=FATE_CONDENSED)
    with pytest.raises(RulesError, match="needs a name"):
        absorb(table, ch, "physical", 2, consequences=[("mild", "")], system=FATE_CONDENSED)
    with pytest.raises(RulesError, match="already has an aspect"):
        absorb(table, ch, "physical", 2, consequences=[("mild", "old MODERATE")], system=FATE_CONDENSED)


def test_the_extra_mild_slot_serves_only_its_track():
    """Stress table: at Superb (+5) Physique, "a second mild consequence slot specifically for
    physical hits" (000_7ba3f797fc1d45d3.txt): a second mild works for a physical hit, not a
    mental one."""
    ch = charles_with(0, physique=5)
    table = Table(system="fate-condensed", characters={"Charles": ch})
    assert [c.severity for c in ch.consequences] == ["mild", "moderate", "severe", "mild2"]
    result = absorb(table, ch, "physical", 4, consequences=[("mild", "Bruised Hip"), ("mild", "Split Lip")], system=FATE_CONDENSED)
    assert result.consequences == (("mild", "Bruised Hip"), ("mild2", "Split Lip"))
    assert [c.aspect for c in ch.consequences] == ["Bruised Hip", None, None, "Split Lip"]

    mind = charles_with(0, physique=5)
    mind.stress["mental"] = [True] * 3
    table = Table(system="fate-condensed", characters={"Charles": mind})
    with pytest.raises(RulesError, match="mild consequence slot is already filled"):
        absorb(table, mind, "mental", 4, consequences=[("mild", "Shaken"), ("mild", "Rattled")], system=FATE_CONDENSED)
    with pytest.raises(RulesError, match="extra mild slot is for physical hits only, not mental"):
        absorb(table, mind, "mental", 2, consequences=[("mild2", "Shaken")], system=FATE_CONDENSED)
    assert all(p.severities.count("mild2") == 0 for p in absorption_options(mind, "mental", 4, system=FATE_CONDENSED))
    assert any("mild2" in p.severities for p in absorption_options(mind, "physical", 4, system=FATE_CONDENSED))


def test_cheapest_absorption_harms_the_least():
    """The deadline default (product.md, "Pending reactions with deadlines": cheapest
    absorption): fewest consequences, then the lightest, then fewest boxes. The book's
    "a single stress box and a moderate consequence" for five shifts is what it picks when one
    box is free (Charles's second hit); with three free boxes a mild consequence and three
    boxes absorb it with lighter harm (a mild clears a scene after treatment, a moderate a
    session after)."""
    assert cheapest_absorption(charles_with(3), "physical", 2, system=FATE_CONDENSED).describe() == "2 stress boxes"
    assert cheapest_absorption(charles_with(1), "physical", 5, system=FATE_CONDENSED).describe() == "moderate + 1 stress box"
    assert cheapest_absorption(charles_with(3), "physical", 5, system=FATE_CONDENSED).describe() == "mild + 3 stress boxes"
    assert cheapest_absorption(charles_with(3), "physical", 6, system=FATE_CONDENSED).describe() == "moderate + 2 stress boxes"
    assert cheapest_absorption(charles_with(0), "physical", 3, system=FATE_CONDENSED).describe() == "moderate"
    assert cheapest_absorption(charles_with(1), "physical", 7, system=FATE_CONDENSED).describe() == "severe + 1 stress box"
    assert cheapest_absorption(charles_with(0, filled=("severe",)), "physical", 6, system=FATE_CONDENSED).describe() == "mild + moderate"


def test_the_deadline_default_names_placeholders_to_rename():
    """A player who does not answer takes the cheapest absorption; consequences get
    placeholder names flagged for renaming, and the attacker still holds the free invoke."""
    table = Table(system="fate-condensed", characters={"Charles": charles_with(1)})
    result = absorb_default(table, "Charles", "physical", 5, attacker="Ghoul", system=FATE_CONDENSED)
    assert result.consequences == (("moderate", "Moderate Wound (to be named)"),)
    effect = next(e for e in result.effects if e.kind == "consequence")
    assert effect.data["rename"] is True and effect.data["holder"] == "Ghoul"
    assert table.find_aspect("Moderate Wound (to be named)").free_invokes == {"Ghoul": 1}
    changes = rename_consequence(table, "Charles", "Moderate Wound (to be named)", "Gaping Chest Wound")
    assert changes == [Change("consequence", "Charles", "Moderate Wound (to be named)", "Gaping Chest Wound",
                              "moderate renamed")]
    assert table.find_aspect("Gaping Chest Wound").free_invokes == {"Ghoul": 1}


def test_minor_npcs_mark_boxes_or_are_taken_out():
    """Minor NPCs: "zero to three stress boxes ... no consequence slots; if they take a hit with
    more shifts than they can absorb with stress, they are simply taken out"."""
    cultist = Character("Cultist", kind="minor", skills={"Fight": 1})
    cultist.stress = {"physical": [False, False]}
    table = Table(system="fate-condensed", characters={"Cultist": cultist})
    assert npc_plan(cultist, "mental", 2, system=FATE_CONDENSED) == Plan(stress=2, absorbs=2)   # its boxes serve any hit
    result = npc_absorb(table, cultist, "physical", 1, attacker="Ruth", system=FATE_CONDENSED)
    assert cultist.stress["physical"] == [True, False] and not result.taken_out
    with pytest.raises(RulesError, match="minor NPC"):
        absorb(table, cultist, "physical", 1, consequences=[("mild", "Bleeding")], system=FATE_CONDENSED)
    result = npc_absorb(table, cultist, "physical", 2, attacker="Ruth", system=FATE_CONDENSED)
    assert result.taken_out and cultist.taken_out
    assert cultist.stress["physical"] == [True, False]


def test_major_npcs_take_stress_first_then_the_smallest_consequence():
    """Major NPCs absorb by policy: stress first, then the smallest single consequence that
    covers the rest, else they are taken out."""
    ghoul = Character("Ghoul", kind="npc", skills={"Physique": 0})
    table = Table(system="fate-condensed", characters={"Ghoul": ghoul})
    assert npc_plan(ghoul, "physical", 3, system=FATE_CONDENSED) == Plan(stress=3, absorbs=3)
    assert npc_plan(ghoul, "physical", 4, system=FATE_CONDENSED).describe() == "mild + 2 stress boxes"
    assert npc_plan(ghoul, "physical", 9, system=FATE_CONDENSED).describe() == "severe + 3 stress boxes"
    assert npc_plan(ghoul, "physical", 10, system=FATE_CONDENSED) is None
    result = npc_absorb(table, ghoul, "physical", 5, attacker="Ruth", system=FATE_CONDENSED)
    assert result.consequences == (("mild", "Mild Wound (to be named)"),) and result.stress_boxes == (0, 1, 2)
    assert ghoul.consequences[0].aspect == "Mild Wound (to be named)"   # slots made from the sheet
    assert npc_absorb(table, ghoul, "physical", 6, attacker="Ruth", system=FATE_CONDENSED).consequences[0][0] == "severe"
    assert npc_absorb(table, ghoul, "physical", 5, attacker="Ruth", system=FATE_CONDENSED).taken_out


def test_hits_on_the_wrong_track_or_after_being_taken_out_are_refused():
    table = Table(system="fate-condensed", characters={"Charles": charles_with(3)})
    with pytest.raises(RulesError, match="not a stress track"):
        absorb(table, "Charles", "spiritual", 1, stress=1, system=FATE_CONDENSED)
    table.character("Charles").taken_out = True
    with pytest.raises(RulesError, match="already taken out"):
        absorb(table, "Charles", "physical", 1, stress=1, system=FATE_CONDENSED)


def test_mental_attacks_hit_the_mental_track():
    """"Quais habilidades podem ser usadas para atacar": Provoke attacks mentally; a free-form
    NPC skill hits the conflict's own kind."""
    assert harm.hit_track("Provoke", system=FATE_CONDENSED) == "mental"
    assert harm.hit_track("Fight", system=FATE_CONDENSED) == "physical"
    assert harm.hit_track("Biting People", default="mental", system=FATE_CONDENSED) == "mental"


def test_escalating_stress_is_a_box_model_of_the_system():
    """Fate Core's escalating boxes (000_7ba3f797fc1d45d3.txt, "Escalating Stress Boxes") are the
    system's box model: a variant with an escalating stress table absorbs a 2-shift hit with
    its 2-point box, where Fate Condensed marks two one-point boxes (tests/rules/test_fate_core.py
    plays every row)."""
    core = dataclasses.replace(FATE_CONDENSED, name="house-core",
                               stress=StressTable(((-99, 2), (1, 3), (3, 4)), 5, escalating=True))
    assert cheapest_absorption(charles_with(3), "physical", 2, system=core).describe() == "the 2-point stress box"
    assert cheapest_absorption(charles_with(3), "physical", 2, system=FATE_CONDENSED).describe() == "2 stress boxes"


# -- properties ----------------------------------------------------------------------------

@st.composite
def situations(draw):
    """A sheet with some boxes and slots already used, and an answer drawn mostly from what is
    still free, against a hit near what that answer absorbs (so many answers are accepted)."""
    physique = draw(st.sampled_from([0, 1, 3, 5]))
    ch = Character("Charles", skills={"Physique": physique})
    n = FATE_CONDENSED.stress_boxes(physique)
    ch.stress = {"physical": draw(st.lists(st.booleans(), min_size=n, max_size=n)), "mental": [False] * 3}
    ch.consequences = consequence_slots(ch, FATE_CONDENSED)
    for i, slot in enumerate(ch.consequences):
        if draw(st.booleans()):
            slot.aspect = f"Old {i}"
    free = [c for c in ch.consequences if c.aspect is None]
    chosen = draw(st.lists(st.sampled_from(free), unique_by=id, max_size=len(free))) if free else []
    sevs = [c.severity for c in chosen] + draw(st.lists(st.sampled_from(["mild", "moderate", "severe"]), max_size=1))
    stress = draw(st.integers(0, ch.stress["physical"].count(False) + 1))
    total = stress + sum(c.shifts for c in chosen)
    return ch, draw(st.integers(max(1, total - 3), total + 3)), stress, sevs


@settings(max_examples=500, deadline=None)
@given(situations())
def test_any_accepted_absorption_covers_the_hit_and_marks_no_box_twice(case):
    """Invariant of "Stress"/"Consequences": an accepted answer absorbs at least the shifts,
    marks exactly the boxes it names, each a box that was empty, and fills only empty slots."""
    ch, shifts, stress, sevs = case
    table = Table(system="fate-condensed", characters={"Charles": ch})
    before = list(ch.stress["physical"])
    filled = [c.aspect for c in ch.consequences]
    plan = [(s, f"Harm {i}") for i, s in enumerate(sevs)]
    try:
        result = absorb(table, ch, "physical", shifts, stress=stress, consequences=plan, system=FATE_CONDENSED)
    except RulesError:
        assert ch.stress["physical"] == before
        return
    if result.taken_out:
        assert cheapest_absorption(ch, "physical", shifts, system=FATE_CONDENSED) is None
        assert ch.stress["physical"] == before
        return
    after = ch.stress["physical"]
    assert result.absorbed >= shifts
    assert all(not before[i] and after[i] for i in result.stress_boxes)
    assert len(set(result.stress_boxes)) == len(result.stress_boxes) == stress
    assert sum(after) - sum(before) == stress
    for old, slot in zip(filled, ch.consequences):
        assert old is None or slot.aspect == old


@settings(max_examples=300, deadline=None)
@given(situations())
def test_the_cheapest_plan_is_always_an_accepted_answer(case):
    ch, shifts, _, _ = case
    table = Table(system="fate-condensed", characters={"Charles": ch})
    plan = cheapest_absorption(ch, "physical", shifts, system=FATE_CONDENSED)
    if plan is None:
        assert absorb(table, ch, "physical", shifts, system=FATE_CONDENSED).taken_out
        return
    assert plan.absorbs >= shifts
    result = absorb(table, ch, "physical", shifts, stress=plan.stress,
                    consequences=[("mild" if s == "mild2" else s, n) for s, n in plan.consequences], system=FATE_CONDENSED)
    assert result.absorbed == plan.absorbs and not result.taken_out
