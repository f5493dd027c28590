"""Dresden Files Condensed (000_7ba3f797fc1d45d3.txt), rule by rule: creation at import,
mantles as data, conditions on the sheet, stress and its options, scale on the sheet.

Each test quotes the sentence of the text it checks; choices where the text is silent are
those of pbp/rules/systems/dresden_condensed.py and docs/dresden-files-condensed.md.
"""
import tomllib
from pathlib import Path

import pytest

from pbp.demo import sample_dir
from pbp.errors import SheetError
from pbp.rules.systems import DRESDEN_FILES_CONDENSED, FATE_CONDENSED, get_system
from pbp.rules.systems.dresden_condensed import absorbed, conditions_of
from pbp.sheetfile import load_sheet, parse_sheet

DFC = DRESDEN_FILES_CONDENSED
SAMPLES = sample_dir("dfc")
MANTLE = (SAMPLES / "mantles" / "threshold-warden.toml").read_text(encoding="utf-8")

#: The conditions table of "Conditions", as a mantle file: "Fleeting 1 Angry, 1 Frightened;
#: Sticky 2 Exhausted, 2 Hungry; Lasting 4 Broken, 4 Wounded".
TABLE_MANTLE = """
name = "Conditions Table"
[[conditions]]
name = "Angry"
kind = "fleeting"
shifts = 1
[[conditions]]
name = "Frightened"
kind = "fleeting"
shifts = 1
[[conditions]]
name = "Exhausted"
kind = "sticky"
shifts = 2
clears = "some sleep"
[[conditions]]
name = "Hungry"
kind = "sticky"
shifts = 2
clears = "a good meal"
[[conditions]]
name = "Broken"
kind = "lasting"
shifts = 4
[[conditions]]
name = "Wounded"
kind = "lasting"
shifts = 4
"""


def nora() -> dict:
    return tomllib.loads((SAMPLES / "nora.toml").read_text(encoding="utf-8"))


def sheet_in(tmp_path: Path, data: dict, mantle: str = MANTLE, system=DFC):
    """Write the mantle next to where the sheet would be and parse the sheet from there."""
    (tmp_path / "mantles").mkdir(exist_ok=True)
    (tmp_path / "mantles" / "threshold-warden.toml").write_text(mantle, encoding="utf-8")
    return parse_sheet(data, system, source="nora.toml", folder=tmp_path)


def problems(tmp_path, data, **kw) -> list[str]:
    with pytest.raises(SheetError) as caught:
        sheet_in(tmp_path, data, **kw)
    return caught.value.problems


def test_the_system_is_registered_with_its_aliases():
    assert get_system("dfc") is get_system("Dresden Files Condensed") is get_system("dresden-files-condensed") is DFC
    # "using FateCon's Skill List": the same nineteen skills.
    assert DFC.skills == FATE_CONDENSED.skills


def test_the_sample_sheets_follow_the_summary_of_character_creation():
    """"1. Choose a Mantle ... 5. Set your character's Refresh to 3 6. Mark down your mantle's
    Core Stunts, then choose one stunt for free from the Additional Stunts section 7. ...
    additional stunts ... at the cost of one Refresh per stunt"."""
    nora_ = load_sheet(SAMPLES / "nora.toml", DFC).character
    assert nora_.refresh == 3
    assert [s.name for s in nora_.stunts] == ["Salt and Iron", "Hold the Door", "Ward Knife"]
    marcus = load_sheet(SAMPLES / "marcus.toml", DFC).character
    assert marcus.refresh == 2        # Trauma Kit, his own, costs one refresh
    assert [s.name for s in marcus.stunts][-1] == "Trauma Kit"


def test_a_pc_needs_a_mantle(tmp_path):
    data = nora()
    del data["mantle"], data["mantle_stunts"]
    found = problems(tmp_path, data)
    assert any(p.startswith("mantle: Nora has no mantle; a player character chooses one first") for p in found)


def test_a_pc_needs_a_relationship_aspect_and_one_or_two_free_aspects(tmp_path):
    """"you'll give your character five aspects: a high concept, a trouble, a relationship,
    and two free aspects"; the creation steps allow the remaining free aspects "if you wish"."""
    data = nora()
    del data["aspects"]["relationship"]
    assert any(p.startswith("aspects.relationship: missing: Nora needs a relationship aspect")
               for p in problems(tmp_path, data))
    data = nora()
    data["aspects"]["other"] = ["One", "Two", "Three"]
    assert any("Nora has 3 free aspects; a player character has 1 or 2" in p for p in problems(tmp_path, data))
    data["aspects"]["other"] = ["One", "Two"]
    assert len(sheet_in(tmp_path, data).aspects) == 5


def test_the_skill_pyramid(tmp_path):
    """"One Great (+4) skill, Two Good (+3) skills, Three Fair (+2) skills, Four Average (+1)
    skills, All other skills at Mediocre (+0)"."""
    data = nora()
    data["skills"]["Stealth"] = 0          # three Average instead of four
    found = problems(tmp_path, data)
    assert any("skills start as a pyramid" in p and "3 at +1" in p for p in found)
    data["skills"]["Stealth"] = 5
    assert any("1 at +5" in p for p in problems(tmp_path, data))


def test_skills_are_fate_condensed_s(tmp_path):
    data = nora()
    data["skills"]["Fists"] = data["skills"].pop("Fight")
    assert any('"Fists", which is not a Dresden Files Condensed skill' in p for p in problems(tmp_path, data))


def test_core_stunts_are_free_and_one_additional_stunt_is_free(tmp_path):
    """Step 6: the core stunts, "then choose one stunt for free from the Additional Stunts
    section"; step 7: more "at the cost of one Refresh per stunt"."""
    data = nora()
    data["mantle_stunts"] = ["Ward Knife", "Read the Wards"]
    found = problems(tmp_path, data)
    assert any("Nora has refresh 3 with 4 stunts; the mantle's 2 core stunts and 1 other stunt are free" in p
               and "so refresh is 2" in p for p in found)
    data["refresh"] = 2
    assert sheet_in(tmp_path, data).character.refresh == 2


def test_an_own_stunt_is_not_the_free_one_under_one_free_stunt(tmp_path):
    """The free stunt comes "from the Additional Stunts section": an own stunt instead costs."""
    data = nora()
    del data["mantle_stunts"]
    data["stunts"] = [{"name": "Card Catalogue Mind", "skill": "Academics", "action": "overcome"}]
    found = problems(tmp_path, data)
    assert any("the mantle's 2 core stunts and 0 other stunts are free" in p and "so refresh is 2" in p for p in found)


def test_three_free_stunt_slots_is_the_campaign_setting_three(tmp_path):
    """"Your character begins with three free stunt slots" ("Stunts"): free_stunts=three."""
    three = DFC.configured({"free_stunts": "three"})
    assert three is DFC.configured({"free_stunts": "three"}) and three.free_stunts == 3
    data = nora()
    data["mantle_stunts"] = ["Ward Knife", "Read the Wards"]
    data["stunts"] = [{"name": "Card Catalogue Mind", "skill": "Academics", "action": "overcome"}]
    assert sheet_in(tmp_path, data, system=three).character.refresh == 3


def test_never_below_one_refresh(tmp_path):
    """"You may purchase more stunts by spending 1 refresh each, to a minimum of 1 refresh"."""
    data = nora()
    data["stunts"] = [{"name": f"Trick {i}", "skill": "Lore", "action": "overcome"} for i in range(3)]
    data["refresh"] = 1
    assert any("which would leave refresh 0" in p and "keeps at least 1: drop 1 stunt" in p
               for p in problems(tmp_path, data))


def test_stress_by_physique_and_will_with_the_superb_mild_slot(tmp_path):
    """The table of "Stress and Consequences": Mediocre [1][1][1]; Average or Fair four boxes;
    Good or Great six; "Superb (+5) and higher ... and a second mild consequence slot
    specifically for physical or mental hits"."""
    ch = sheet_in(tmp_path, nora()).character
    assert len(ch.stress["physical"]) == 4 and len(ch.stress["mental"]) == 6   # Physique +1, Will +3
    assert DFC.stress_boxes(0) == 3 and DFC.stress_boxes(2) == 4 and DFC.stress_boxes(4) == 6
    data = {"name": "Warden", "kind": "npc", "skills": {"Physique": 5}, "aspects": {"high_concept": "Big"}}
    npc = parse_sheet(data, DFC).character
    assert [(q.severity, q.track) for q in npc.consequences] == [
        ("mild", ""), ("moderate", ""), ("severe", ""), ("mild2", "physical")]


def test_escalating_stress_is_the_campaign_setting(tmp_path):
    """"replace the one-point stress boxes with escalating stress ... By default, all characters
    get a 1-point and a 2-point box"; conditions then keep their values."""
    esc = DFC.configured({"escalating_stress": "yes"})
    assert esc.harm.word == "box" and esc.stress.box_values(0) == (1, 2) and esc.stress.box_values(3) == (1, 2, 3, 4)
    ch = sheet_in(tmp_path, nora(), system=esc).character
    assert {c["name"]: c["shifts"] for c in conditions_of(ch)} == {
        "Shaken": 2, "Drained": 2, "Door-Burned": 4}


def test_one_point_stress_halves_a_condition():
    """"cut its stress value in half. Example, for the Monster Hunter's Wounded condition, it
    would only be able to absorb two shifts" (Wounded is 4 in the conditions table)."""
    assert absorbed(4, escalating=False) == 2 and absorbed(4, escalating=True) == 4
    assert absorbed(1, escalating=False) == 1      # rounded up: a 1-point condition still absorbs


def test_the_conditions_table(tmp_path):
    """"Fleeting 1 Angry, 1 Frightened; Sticky 2 Exhausted, 2 Hungry; Lasting 4 Broken,
    4 Wounded" ... "Lasting conditions have two check boxes next to them"."""
    data = nora()
    del data["mantle_stunts"]
    ch = sheet_in(tmp_path, data, mantle=TABLE_MANTLE, system=DFC.configured({"free_stunts": "three"})).character
    rows = [(c["name"], c["kind"], c["written"], len(c["boxes"]), c["clears"]) for c in conditions_of(ch)]
    assert rows == [("Angry", "fleeting", 1, 1, ""), ("Frightened", "fleeting", 1, 1, ""),
                    ("Exhausted", "sticky", 2, 1, "some sleep"), ("Hungry", "sticky", 2, 1, "a good meal"),
                    ("Broken", "lasting", 4, 2, ""), ("Wounded", "lasting", 4, 2, "")]


def test_a_mantle_file_is_checked_whole(tmp_path):
    bad = MANTLE.replace('kind = "lasting"', 'kind = "lasting"\nboxes = 3').replace(
        'clears = "a night\'s sleep"', "").replace('kind = "fleeting"', 'kind = "fleeting"\ncolour = "red"')
    found = problems(tmp_path, nora(), mantle=bad)
    where = "mantle (mantles/threshold-warden.toml).conditions"
    assert f"{where}[1].colour: unknown key; the keys here are name, kind, shifts, boxes, track, clears, replaces" in found
    assert any(p.startswith(f"{where}[2].clears: missing: a sticky condition clears on a named event") for p in found)
    assert any(p.startswith(f"{where}[3].boxes: a lasting condition has 2 boxes, not 3") for p in found)


def test_a_missing_mantle_file_or_one_outside_the_folder(tmp_path):
    data = nora()
    data["mantle"] = "mantles/nothing.toml"
    assert any(p.startswith("mantle: ") and "no such file" in p for p in problems(tmp_path, data))
    data["mantle"] = "../mantles/threshold-warden.toml"
    assert any("is not a file in the sheet's folder or below it" in p for p in problems(tmp_path, data))


def test_a_mantle_may_be_written_in_the_sheet(tmp_path):
    data = nora()
    data["mantle"] = tomllib.loads(MANTLE)
    ch = parse_sheet(data, DFC).character
    assert ch.system_state["mantle"]["name"] == "Threshold Warden"


def test_a_condition_that_replaces_a_consequence_slot(tmp_path):
    """"Conditions replacing or joining consequences as the mantle says": Door-Burned replaces
    the moderate consequence; the others join them."""
    ch = sheet_in(tmp_path, nora()).character
    assert [(q.severity, q.condition) for q in ch.consequences] == [
        ("mild", ""), ("severe", ""), ("fleeting", "Shaken"), ("sticky", "Drained"), ("lasting", "Door-Burned")]


def test_scale_on_a_sheet(tmp_path):
    """"five potential levels of scale: Mundane, Supernatural, Otherworldly, Legendary, and Godlike"."""
    assert sheet_in(tmp_path, nora()).character.system_state["scale"] == "Supernatural"
    data = nora()
    data["scale"] = "Cosmic"
    assert any(p.startswith("scale: 'Cosmic' is not a level of scale (Mundane, Supernatural, Otherworldly, "
                            "Legendary, Godlike)") for p in problems(tmp_path, data))


# -- conditions in play ("Conditions") --------------------------------------------------------

from pbp.commands import Treat  # noqa: E402
from pbp.errors import RulesError  # noqa: E402
from pbp.rules.dice import FixedDice  # noqa: E402
from pbp.rules.harm import absorb, absorb_default  # noqa: E402
from pbp.rules.recovery import end_scene, end_session, gm_clear, roll_treatment, treatment_difficulty  # noqa: E402
from pbp.rules.results import Outcome  # noqa: E402
from pbp.rules.state import Table  # noqa: E402


def conflict_table(tmp_path, mantle: str = TABLE_MANTLE) -> Table:
    """Nora with the conditions table's six conditions (one-point stress: halved values), and
    a ghoul that hits her."""
    data = nora()
    del data["mantle_stunts"]
    ch = sheet_in(tmp_path, data, mantle=mantle, system=DFC.configured({"free_stunts": "three"})).character
    ghoul = parse_sheet({"name": "Ghoul", "kind": "npc", "skills": {"Fight": 2},
                         "aspects": {"high_concept": "Hungry for Flesh"}}, DFC).character
    return Table(system=DFC.name, characters={"Nora": ch, "Ghoul": ghoul})


def slot_of(table, name):
    return next(q for q in table.characters["Nora"].consequences if q.condition == name)


def test_a_lasting_condition_checks_both_boxes_and_absorbs_its_shifts(tmp_path):
    """"Lasting conditions have two check boxes next to them, and you check them both off when
    you take the condition"; Wounded (4, halved: 2 shifts) absorbs a 2-shift hit."""
    table = conflict_table(tmp_path)
    result = absorb(table, "Nora", "physical", 2, consequences=[("lasting", "wounded")], attacker="Ghoul",
                    system=DFC)
    assert result.consequences == (("lasting", "Wounded"),) and result.absorbed == 2
    assert [c["boxes"] for c in conditions_of(table.characters["Nora"]) if c["name"] == "Wounded"] == [[True, True]]


def test_a_condition_is_an_aspect_the_inflicter_invokes_once_for_free(tmp_path):
    """"Once you're suffering from a condition, that condition is an aspect on your character
    sheet like any other ... when you take a condition, someone else can invoke it against you
    for free once"."""
    table = conflict_table(tmp_path)
    absorb(table, "Nora", "physical", 1, consequences=[("fleeting", "Angry")], attacker="Ghoul", system=DFC)
    aspect = table.find_aspect("Angry")
    assert aspect is not None and aspect.owner == "Nora" and aspect.free_invokes == {"Ghoul": 1}


def test_a_condition_is_invoked_and_compelled_like_an_aspect(tmp_path):
    """"you can invoke them, and they can be invoked or compelled against you" ("Conditions"),
    with fixed dice: the Ghoul's free invoke of Angry on its attack (Fight Fair (+2) 0000 +2 =
    Great (+4) against Nora's Athletics Fair (+2) 0000 +1 scale, Supernatural over the Mundane
    Ghoul: 1 shift), for no fate point; Nora's own
    invoke of it, paid (Lore Great (+4) 0000 +2 = Fantastic (+6) against Superb (+5)); and the
    GM's compel of it, which Nora accepts for a fate point."""
    from datetime import datetime, timezone

    from pbp.commands import Invoke, Payment
    from pbp.rules import compels

    table = conflict_table(tmp_path)
    absorb(table, "Nora", "physical", 1, consequences=[("fleeting", "Angry")], attacker="Ghoul", system=DFC)
    nora_ = table.characters["Nora"]
    points = nora_.fate_points
    hit = Attack(line=1, source='/attack Nora with Fight +invoke "Angry" free', skill="Fight", target="Nora",
                 opposition=Opposition(character="Nora", skill="Athletics"),
                 invokes=(Invoke("Angry", payment=Payment.FREE),))
    result = resolve(hit, table, FixedDice("0000,0000"), "Ghoul", DFC)
    assert result.effort.total == 4 and result.shifts == 1
    assert table.find_aspect("Angry").free_invokes == {} and nora_.fate_points == points
    with pytest.raises(RulesError, match="Ghoul holds no free invoke on Angry"):      # "for free once"
        resolve(hit, table, FixedDice("0000,0000"), "Ghoul", DFC)
    own = Overcome(line=1, source='/overcome Lore vs Superb +invoke "Angry"', skill="Lore",
                   opposition=Opposition(rating=5), invokes=(Invoke("Angry"),))
    result = resolve(own, table, FixedDice("0000"), "Nora", DFC)
    assert result.effort.total == 6 and result.outcome is Outcome.SUCCESS and nora_.fate_points == points - 1
    now = datetime(2026, 12, 1, tzinfo=timezone.utc)
    offered = compels.offer(table, 1, "Nora", "Angry", "event", "Nora snaps at the librarian", now)
    assert offered.compel.aspect == "Angry"
    compels.accept(offered.compel, table, "Nora", now)
    assert nora_.fate_points == points


def test_a_lasting_condition_cannot_be_taken_unless_both_boxes_are_empty(tmp_path):
    """"You can take a lasting condition only if both of its check boxes are empty"."""
    table = conflict_table(tmp_path)
    absorb(table, "Nora", "physical", 2, consequences=[("lasting", "Broken")], attacker="Ghoul", system=DFC)
    slot_of(table, "Broken").recovering = True          # one box erased: still not both empty
    with pytest.raises(RulesError) as caught:
        absorb(table, "Nora", "physical", 2, consequences=[("lasting", "Broken")], attacker="Ghoul", system=DFC)
    assert caught.value.message == ("Nora's Broken is already checked; a lasting condition can be taken only "
                                    "when both its boxes are empty (it is recovering)")
    assert [c["boxes"] for c in conditions_of(table.characters["Nora"]) if c["name"] == "Broken"] == [[True, False]]


def test_an_unknown_condition_is_refused_with_the_characters_own(tmp_path):
    table = conflict_table(tmp_path)
    with pytest.raises(RulesError) as caught:
        absorb(table, "Nora", "physical", 1, consequences=[("sticky", "Sleepy")], attacker="Ghoul", system=DFC)
    assert caught.value.message == 'Nora has no sticky condition "Sleepy" (sticky conditions: "Exhausted", "Hungry")'
    assert caught.value.example == '/absorb sticky "Exhausted"'


def test_the_deadline_default_takes_the_cheapest(tmp_path):
    """A 5-shift hit on Nora's four physical boxes: the cheapest way is one condition of 1
    (a fleeting one, Angry, halved from 1) and the four boxes (fewest consequences and
    conditions first, then the lightest, as for consequences)."""
    table = conflict_table(tmp_path)
    result = absorb_default(table, "Nora", "physical", 5, attacker="Ghoul", system=DFC)
    assert result.consequences == (("fleeting", "Angry"),) and result.stress_boxes == (0, 1, 2, 3)


def test_a_fleeting_condition_clears_when_you_catch_your_breath(tmp_path):
    """"A fleeting condition goes away when you get a chance to catch your breath and calm
    down": at the end of the scene (pbp's reading)."""
    table = conflict_table(tmp_path)
    absorb(table, "Nora", "physical", 1, consequences=[("fleeting", "Angry")], attacker="Ghoul", system=DFC)
    absorb(table, "Nora", "physical", 1, consequences=[("sticky", "Hungry")], attacker="Ghoul", system=DFC)
    end_scene(table, clears=DFC.scene_clears)
    assert slot_of(table, "Angry").aspect is None and table.find_aspect("Angry") is None
    assert slot_of(table, "Hungry").aspect == "Hungry"


def test_a_sticky_condition_stays_until_its_event(tmp_path):
    """"A sticky condition stays checked off until a specific event happens. If you're Hungry,
    you're Hungry until you get a good meal": the GM clears it (/aspect remove) when it does."""
    table = conflict_table(tmp_path)
    absorb(table, "Nora", "physical", 1, consequences=[("sticky", "Hungry")], attacker="Ghoul", system=DFC)
    end_session(table)
    assert slot_of(table, "Hungry").aspect == "Hungry"
    assert gm_clear(table, "Hungry", DFC.gm_clears_kinds) is not None
    assert slot_of(table, "Hungry").aspect is None


def test_a_lasting_condition_recovers_after_an_overcome_against_great_and_a_full_session(tmp_path):
    """"require someone to overcome an obstacle with a passive opposition of at least Great
    (+4) before you can start to recover from them ... When recovery begins, erase one check
    box. Erase the second one (and recover from it fully) after one more full session."
    Marcus-like healer: Academics Fair (+2) with ++00 = Great (+4) against Great (+4): a tie,
    which treats (as Fate Condensed's treatment)."""
    table = conflict_table(tmp_path)
    table.characters["Ghoul"].skills["Academics"] = 2
    absorb(table, "Nora", "physical", 2, consequences=[("lasting", "Wounded")], attacker="Ghoul", system=DFC)
    assert treatment_difficulty(slot_of(table, "Wounded"), system=DFC) == 4
    cmd = Treat(line=1, source='/treat Nora "Wounded"', patient="Nora", consequence="Wounded", rename="", skill="")
    result = roll_treatment(cmd, table, FixedDice("++00"), "Ghoul", DFC)
    assert (result.opposition.value, result.outcome) == (4, Outcome.TIE)
    assert [c["boxes"] for c in conditions_of(table.characters["Nora"]) if c["name"] == "Wounded"] == [[True, False]]
    end_session(table)             # the session the treatment happened in
    assert slot_of(table, "Wounded").aspect == "Wounded"
    end_session(table)             # one more full session
    assert slot_of(table, "Wounded").aspect is None


def test_fleeting_and_sticky_conditions_need_no_treatment(tmp_path):
    table = conflict_table(tmp_path)
    absorb(table, "Nora", "physical", 1, consequences=[("sticky", "Hungry")], attacker="Ghoul", system=DFC)
    cmd = Treat(line=1, source='/treat Nora "Hungry"', patient="Nora", consequence="Hungry", rename="", skill="")
    with pytest.raises(RulesError) as caught:
        roll_treatment(cmd, table, FixedDice("0000"), "Nora", DFC)
    assert caught.value.message == ("Hungry is a sticky condition: it needs no treatment and clears when the GM "
                                    "says its event has come (/aspect remove)")


def test_a_condition_for_one_track_only(tmp_path):
    """Shaken (the sample mantle's) is for mental hits only."""
    table = conflict_table(tmp_path, mantle=MANTLE)
    with pytest.raises(RulesError) as caught:
        absorb(table, "Nora", "physical", 1, consequences=[("fleeting", "Shaken")], attacker="Ghoul", system=DFC)
    assert caught.value.message == "Nora's Shaken is for mental hits only, not physical"


def test_the_gm_fate_point_pool():
    """"Your Fate Points: At the start of each scene, begin with a pool of fate points equal to
    the number of PCs. If the scene includes a major NPC or monster that conceded a previous
    conflict ... those fate points are added to your pool": "the GM gets four fate points for
    the PCs and two more that Alice is bringing along" (Alice Westforth conceded after a
    moderate consequence: 1 + 1). Dresden Files Condensed plays Fate Condensed's pool."""
    from pbp.rules.fate_points import FateLedger, open_scene
    from pbp.rules.state import Character

    alice = Character("Alice Westforth", kind="npc", carried_points=2)
    ledger = FateLedger(gm_pool=1)          # what was left of the last scene's pool is gone
    open_scene(ledger, 4, [alice])
    assert ledger.gm_pool == 6 and alice.carried_points == 0


# -- scale ("Scale") ----------------------------------------------------------------------------

from pbp.commands import Advantage, Attack, Defend, Opposition, Overcome, ScaleUse  # noqa: E402
from pbp.rules.actions import resolve  # noqa: E402


def scaled_table(mine: str, theirs: str) -> Table:
    nora_ = parse_sheet({"name": "Nora", "kind": "npc", "skills": {"Fight": 3, "Lore": 3, "Athletics": 2},
                         "scale": mine, "aspects": {"high_concept": "Warden"}}, DFC).character
    thing = parse_sheet({"name": "Thing", "kind": "npc", "skills": {"Fight": 2, "Athletics": 1, "Will": 1},
                         "scale": theirs, "aspects": {"high_concept": "Lake Thing"}}, DFC).character
    return Table(system=DFC.name, characters={"Nora": nora_, "Thing": thing})


def scale_terms(effort) -> list[tuple[str, int]]:
    return [(m.label, m.value) for m in effort.modifiers if m.source == "scale"]


@pytest.mark.parametrize("mine, theirs, levels", [
    ("Supernatural", "Mundane", 1), ("Otherworldly", "Mundane", 2), ("Legendary", "Supernatural", 2),
    ("Godlike", "Mundane", 4), ("Mundane", "Mundane", 0)])
def test_scale_adds_one_per_level_before_the_roll(mine, theirs, levels):
    """"+1 per level of difference to their action before the roll" (the default benefit):
    Nora's Fight Good (+3) with 0000 against the Thing's best melee defence, Fight Fair (+2),
    with 0000."""
    table = scaled_table(mine, theirs)
    cmd = Attack(line=1, source="/attack Thing with Fight", skill="Fight", target="Thing",
                 opposition=Opposition(character="Thing"))
    result = resolve(cmd, table, FixedDice("0000,0000"), "Nora", DFC)
    assert scale_terms(result.effort) == ([(f"{mine} over {theirs}", levels)] if levels else [])
    assert result.effort.total == 3 + levels and result.shifts == 1 + levels


@pytest.mark.parametrize("mine, theirs, levels", [("Supernatural", "Mundane", 1), ("Legendary", "Mundane", 3)])
def test_scale_adds_two_per_level_after_a_successful_roll(mine, theirs, levels):
    """"+2 per level of difference to the result after the roll, if the roll succeeds":
    an overcome with Lore Good (+3), 0000, against the Thing's Will Average (+1), 0000:
    success by 2, then +2 per level."""
    table = scaled_table(mine, theirs)
    cmd = Overcome(line=1, source="/overcome Lore vs Thing +scale after", skill="Lore",
                   opposition=Opposition(character="Thing", skill="Will"), scale=ScaleUse("after"))
    result = resolve(cmd, table, FixedDice("0000,0000"), "Nora", DFC)
    assert scale_terms(result.effort) == [(f"{mine} over {theirs}", 2 * levels)]
    assert result.shifts == 2 + 2 * levels


def test_scale_after_a_failed_roll_adds_nothing():
    """"... if the roll succeeds": Lore +3 with ---- (-1) against Will +1 with 0000 fails."""
    table = scaled_table("Otherworldly", "Mundane")
    cmd = Overcome(line=1, source="/overcome Lore vs Thing +scale after", skill="Lore",
                   opposition=Opposition(character="Thing", skill="Will"), scale=ScaleUse("after"))
    result = resolve(cmd, table, FixedDice("----,0000"), "Nora", DFC)
    assert scale_terms(result.effort) == [] and result.outcome is Outcome.FAIL


@pytest.mark.parametrize("defence, shifts", [("0000", 6), ("+000", 5), ("++00", 0), ("+++0", None)])
def test_scale_after_on_an_attack_defended_later_is_settled_by_the_defence(defence, shifts):
    """"+2 per level of difference to the result after the roll, if the roll succeeds", the
    attack rolled before its defence (by mail): Nora (Otherworldly) attacks the Mundane Thing
    with Fight Good (+3) 0000 and ``+scale after``: nothing before the roll, the bonus (+4, two
    levels) goes with the attack. Against the Thing's Athletics Average (+1) with 0000 (+1) or
    +000 (+2) the attack succeeds and takes it (a 6- or 5-shift hit); ++00 (+3) is a tie, no
    success; +++0 (+4) holds: it takes nothing."""
    from pbp.rules.actions import DEFENCE_LATER

    table = scaled_table("Otherworldly", "Mundane")
    first = Attack(line=1, source="/attack Thing with Fight +scale after", skill="Fight", target="Thing",
                   opposition=DEFENCE_LATER, scale=ScaleUse("after"))
    rolled = resolve(first, table, FixedDice("0000"), "Nora", DFC)
    assert scale_terms(rolled.effort) == [] and rolled.effort.total == 3
    data = next(e.data for e in rolled.effects if e.kind == "attack_rolled")
    assert (data["scale_after"], data["scale_label"]) == (4, "Otherworldly over Mundane")
    answer = Defend(line=1, source="/defend Athletics", skill="Athletics",
                    opposition=Opposition(rating=3, character="Nora", skill="Fight", scale_after=4,
                                          scale_label="Otherworldly over Mundane"))
    result = resolve(answer, table, FixedDice(defence), "Thing", DFC)
    said = next(e.text for e in result.effects if e.kind == "scale_after")
    if shifts:
        assert result.opposition.value == 7 and -result.shifts == shifts and result.outcome is Outcome.FAIL
        assert "Nora's attack beats Thing's defence, so it takes +4 (2 per level)" in said
    else:
        assert result.opposition.value == 3
        assert result.outcome is (Outcome.TIE if shifts == 0 else Outcome.SUCCESS)
        assert "does not beat Thing's defence, so it takes nothing" in said


@pytest.mark.parametrize("levels, theirs", [(1, "Supernatural"), (2, "Mundane")])
def test_scale_adds_free_invokes_to_a_successful_advantage(levels, theirs):
    """"1 additional free invoke per level of difference to the results of a successful
    create advantage action": Lore +3, 0000, against the Thing's Will +1, 0000: success, one
    free invoke, and one more per level."""
    table = scaled_table("Otherworldly", theirs)
    cmd = Advantage(line=1, source='/advantage Lore "Warded Circle" vs Thing +scale invokes', skill="Lore",
                    aspect="Warded Circle", opposition=Opposition(character="Thing", skill="Will"),
                    scale=ScaleUse("invokes"))
    result = resolve(cmd, table, FixedDice("0000,0000"), "Nora", DFC)
    assert result.outcome is Outcome.SUCCESS and scale_terms(result.effort) == []
    assert table.find_aspect("Warded Circle").free_invokes == {"Nora": 1 + levels}


def test_the_higher_opponent_takes_the_default_when_the_engine_rolls_for_it():
    """The Thing, Otherworldly, defends against Mundane Nora's attack: +2 before its roll."""
    table = scaled_table("Mundane", "Otherworldly")
    cmd = Attack(line=1, source="/attack Thing with Fight", skill="Fight", target="Thing",
                 opposition=Opposition(character="Thing"))
    result = resolve(cmd, table, FixedDice("0000,0000"), "Nora", DFC)
    assert scale_terms(result.opposition.effort) == [("Otherworldly over Mundane", 2)]
    assert result.opposition.value == 2 + 2 and result.shifts == -1


def test_a_defence_takes_scale_against_a_lesser_attacker():
    """A defence is a rolled action too: Nora (Supernatural) defends against the Thing's
    Mundane attack of Fair (+2) with Athletics +2, 0000, +1: success."""
    table = scaled_table("Supernatural", "Mundane")
    cmd = Defend(line=1, source="/defend Athletics vs Thing", skill="Athletics",
                 opposition=Opposition(rating=2, character="Thing", skill="Fight"))
    result = resolve(cmd, table, FixedDice("0000"), "Nora", DFC)
    assert scale_terms(result.effort) == [("Supernatural over Mundane", 1)] and result.shifts == 1


def test_scale_is_refused_where_it_does_not_fit():
    table = scaled_table("Supernatural", "Mundane")
    cmd = Overcome(line=1, source="/overcome Lore vs Thing +scale invokes", skill="Lore",
                   opposition=Opposition(character="Thing"), scale=ScaleUse("invokes"))
    with pytest.raises(RulesError) as caught:
        resolve(cmd, table, FixedDice("0000,0000"), "Nora", DFC)
    assert caught.value.message == "+scale invokes is for create an advantage (a free invoke per level on a success)"
    fc = Table(system=FATE_CONDENSED.name, characters={"Nora": parse_sheet(
        {"name": "Nora", "kind": "npc", "skills": {"Lore": 3}, "aspects": {"high_concept": "W"}}, FATE_CONDENSED).character})
    cmd = Overcome(line=1, source="/overcome Lore vs Fair +scale", skill="Lore", opposition=Opposition(rating=2),
                   scale=ScaleUse())
    with pytest.raises(RulesError) as caught:
        resolve(cmd, fc, FixedDice("0000"), "Nora", FATE_CONDENSED)
    assert caught.value.message == "Fate Condensed has no scale"


def test_scale_named_by_the_lower_side_or_against_a_difficulty_is_refused():
    table = scaled_table("Mundane", "Supernatural")
    cmd = Overcome(line=1, source="/overcome Lore vs Thing +scale", skill="Lore",
                   opposition=Opposition(character="Thing", skill="Will"), scale=ScaleUse())
    with pytest.raises(RulesError) as caught:
        resolve(cmd, table, FixedDice("0000,0000"), "Nora", DFC)
    assert caught.value.message == ("Nora (Mundane) is not above Thing (Supernatural) in scale; the higher side "
                                    "takes its benefit")
    assert caught.value.example == "/overcome Lore vs Thing"
    cmd = Overcome(line=1, source="/overcome Lore vs Fair +scale", skill="Lore", opposition=Opposition(rating=2),
                   scale=ScaleUse())
    with pytest.raises(RulesError) as caught:
        resolve(cmd, table, FixedDice("0000"), "Nora", DFC)
    assert caught.value.message == "scale compares two sides: against a difficulty there is none to take"
