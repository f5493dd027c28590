"""Sheets under the d10 dice-pool hack: its own character state (approaches and a mech) read
and checked at import, stored, shown on sheets and in ``pbp sheet --json``; and its skill
list and strain (docs/systems.md, the choices where 004_c619695e1641b466.txt points to
chapters it does not contain)."""
from __future__ import annotations

import tomllib

import pytest

from pbp.errors import SheetError
from pbp.rules.state import Table
from pbp.rules.systems.d10_pool import D10_POOL
from pbp.sheetfile import parse_sheet
from pbp.sheets_view import sheet_dict, table_sheet
from tests.play import golden

SHEETS = golden.GOLDEN / "d10_pool_conflict" / "sheets"


def load(name: str) -> dict:
    return tomllib.loads((SHEETS / f"{name}.toml").read_text())


def problems(data: dict) -> list[str]:
    with pytest.raises(SheetError) as info:
        parse_sheet(data, D10_POOL)
    return info.value.problems


def test_the_golden_sheets_import():
    ruth = parse_sheet(load("ruth"), D10_POOL).character
    assert ruth.system_state["approaches"] == {"Boldly": 3, "Carefully": 1, "Cleverly": 0, "Quickly": 2}
    assert ruth.system_state["mech"]["name"] == "Dock Bravo" and ruth.system_state["mech"]["piloting"] is True
    assert ruth.system_state["mech"]["stunts"][0]["name"] == "Servo Fists"
    assert ruth.stress == {"strain": [False, False, False]}        # Endure +1: three boxes
    grunt = parse_sheet(load("grunt"), D10_POOL).character
    assert grunt.stress == {"strain": [False, False]}


def test_a_pc_rates_every_approach_once_with_the_spread():
    data = load("ruth")
    data["approaches"] = {"Boldly": 3, "Quickly": 3, "Carefully": 1}
    found = problems(data)
    assert any(p.startswith("approaches: Ruth rates Boldly, Carefully, Cleverly, Quickly with +3, +2, +1, +0")
               and "missing Cleverly" in p and "e.g. [approaches] Boldly = 3" in p for p in found), found


def test_an_unknown_approach_is_named_with_a_suggestion():
    data = load("ruth")
    data["approaches"]["Boldy"] = data["approaches"].pop("Boldly")
    assert any('approaches.Boldy: unknown key; did you mean "Boldly"?' in p for p in problems(data))


def test_an_approach_out_of_range():
    data = load("captain")
    data["approaches"]["Boldly"] = 9
    assert any(p.startswith("approaches.Boldly: 9 is out of range; expected 0 to 6") for p in problems(data))


def test_skills_are_the_hacks():
    """A Fate Condensed skill is not a d10-pool skill, and the problem lists the hack's."""
    data = load("ruth")
    data["skills"]["Athletics"] = data["skills"].pop("Move")
    assert any('"Athletics", which is not a skill of the d10 dice-pool hack' in p and "Endure, Fight, Move" in p
               for p in problems(data))


def test_the_mechs_keys_and_stunts_are_checked():
    data = load("ruth")
    data["mech"]["pilotting"] = True
    found = problems(data)
    assert any('mech.pilotting: unknown key; did you mean "piloting"?' in p for p in found), found
    data = load("ruth")
    data["mech"]["stunts"][0]["skill"] = "Punch"
    found = problems(data)
    assert any(p.startswith('mech.stunts[1]: stunt "Servo Fists" names "Punch"') for p in found), found


def test_a_mech_is_a_pcs():
    data = load("captain")
    data["mech"] = {"name": "Crawler", "aspects": ["Rusted Treads"]}
    assert any(p.startswith("mech: a mech is a player character's") for p in problems(data))


def test_approaches_are_not_a_fate_condensed_key():
    """Fate Condensed keeps no approaches: the key is unknown there."""
    from pbp.rules.systems import FATE_CONDENSED
    data = {"name": "Ruth", "kind": "npc", "approaches": {"Boldly": 2}}
    with pytest.raises(SheetError) as info:
        parse_sheet(data, FATE_CONDENSED)
    assert any(p.startswith("approaches: unknown key") for p in info.value.problems)


def test_the_sheet_shows_the_state_and_json_carries_it():
    ruth = parse_sheet(load("ruth"), D10_POOL).character
    table = Table(system=D10_POOL.name, characters={"Ruth": ruth})
    sheet = sheet_dict(ruth, table)
    assert sheet["approaches"] == {"Boldly": 3, "Carefully": 1, "Cleverly": 0, "Quickly": 2}
    assert sheet["mech"]["aspects"] == ["Patched Armour Plates"]
    assert ["approaches", "Boldly +3, Carefully +1, Cleverly +0, Quickly +2"] in sheet["shown"]
    assert ["mech", "Dock Bravo (in the cockpit)"] in sheet["shown"]


def test_an_npcs_approaches_stay_with_the_gm():
    """An NPC's numbers are the GM's unless the campaign shows them: the table's view of the
    captain has neither skills nor approaches."""
    captain = parse_sheet(load("captain"), D10_POOL).character
    table = Table(system=D10_POOL.name, characters={captain.name: captain})
    assert sheet_dict(captain, table)["approaches"] == {"Boldly": 2, "Quickly": 1}
    public = table_sheet(captain, table)
    assert "approaches" not in public and not any(label == "approaches" for label, _ in public.get("shown", []))
    assert table_sheet(captain, table, npc_skills=True)["approaches"] == {"Boldly": 2, "Quickly": 1}


def test_a_fate_condensed_sheet_has_no_system_entries():
    from pbp.rules.state import Character
    ch = Character("Ruth")
    assert "shown" not in sheet_dict(ch, Table(system="fate-condensed", characters={"Ruth": ch}))


def test_a_conflict_under_the_hack_has_no_kind_to_name():
    """One track (strain): ``/conflict start`` takes no kind; one written is refused, with the
    form that works (docs/commands.md, "Each system's words")."""
    from pbp.errors import CommandSyntaxError
    from pbp.parser import parse_command
    words = D10_POOL.words
    assert words.tracks == () and words.units == ("strain",)
    assert parse_command("/conflict start Ruth, Grunt first Ruth", words=words).kind == ""   # the only track
    with pytest.raises(CommandSyntaxError) as info:
        parse_command("/conflict start Ruth, Grunt first Ruth physical", words=words)
    assert "has no kind to name" in info.value.message and info.value.example == "/conflict start Ruth, Grunt first Ruth"


def test_mech_in_is_refused_where_the_system_has_no_mechs():
    """``/mech`` is the hack's: Fate Condensed refuses it with a working line, and a pilot
    boarding twice is told where they are."""
    from pbp.errors import RulesError
    from pbp.rules.state import Character
    from pbp.rules.systems import FATE_CONDENSED
    with pytest.raises(RulesError, match="Fate Condensed has no mechs"):
        FATE_CONDENSED.character_state.board(Character("Ruth"), True, title="Fate Condensed")
    ruth = parse_sheet(load("ruth"), D10_POOL).character
    with pytest.raises(RulesError, match="Ruth is already in the cockpit of Dock Bravo"):
        D10_POOL.character_state.board(ruth, True, title="the d10 dice-pool hack")
    change = D10_POOL.character_state.board(ruth, False, title="the d10 dice-pool hack")
    assert (change.before, change.after, ruth.system_state["mech"]["piloting"]) == ("Dock Bravo", "no", False)
    with pytest.raises(RulesError, match="Charles has no mech"):
        D10_POOL.character_state.board(parse_sheet(load("charles"), D10_POOL).character, True, title="x")


# -- what a stunt adds (004_c619695e1641b466.txt, "The Core Mechanic": "two ways to gain bonus
# hits: ASPECTS ... and STUNTS, which can grant automatic bonuses to your rolls"; how many is
# in "3 Skills, Approaches, & Stunts", which the text does not contain: +1 hit, as an invoke,
# "ADD 1 HIT", and at most 2; docs/systems.md) ---------------------------------------------

def _without_bonus(data: dict) -> dict:
    for stunt in data["stunts"] + data["mech"]["stunts"]:
        stunt.pop("bonus", None)
    return data


def test_a_stunt_without_a_bonus_adds_one_hit():
    ruth = parse_sheet(_without_bonus(load("ruth")), D10_POOL).character
    assert [s.bonus for s in ruth.stunts] == [1]
    assert [s["bonus"] for s in ruth.system_state["mech"]["stunts"]] == [1]
    assert (D10_POOL.stunt_bonus, D10_POOL.stunt_bonus_max) == (1, 2)


def test_fate_keeps_its_plus_two_stunt():
    """Fate Condensed ("Stunts": "+2 to a skill roll"): a stunt without a bonus adds +2, up to 8."""
    from pbp.rules.systems import FATE_CONDENSED
    data = {"name": "Old Tom", "kind": "npc", "skills": {"Fight": 2},
            "stunts": [{"name": "Brawler", "skill": "Fight", "action": "attack"}]}
    assert parse_sheet(data, FATE_CONDENSED).character.stunts[0].bonus == 2
    data["stunts"][0]["bonus"] = 8
    assert parse_sheet(data, FATE_CONDENSED).character.stunts[0].bonus == 8


def test_the_sheet_words_a_stunt_in_hits():
    """The sheet line of a stunt (the pilot's and the mech's) says "+1 hit", the hack's count
    (``System.explain.worth``); Fate's says "+2"."""
    from pbp.render import Renderer
    from pbp.rules.systems import FATE_CONDENSED
    ruth = parse_sheet(_without_bonus(load("ruth")), D10_POOL).character
    table = Table(system=D10_POOL.name, characters={"Ruth": ruth})
    text = Renderer().sheet(sheet_dict(ruth, table), D10_POOL)
    assert "stunt        Knife Fighter: +1 hit to Fight when you attack" in text
    assert "mech stunt   Servo Fists: +1 hit to Fight when you defend" in text
    fc = parse_sheet({"name": "Tom", "kind": "npc", "skills": {"Fight": 2},
                      "stunts": [{"name": "Brawler", "skill": "Fight", "action": "attack"}]}, FATE_CONDENSED).character
    text = Renderer().sheet(sheet_dict(fc, Table(system=FATE_CONDENSED.name, characters={"Tom": fc})), FATE_CONDENSED)
    assert "stunt        Brawler: +2 to Fight when you attack" in text


@pytest.mark.parametrize("where", ["stunts", "mech"])
def test_a_stunt_above_the_most_is_refused(where):
    data = load("ruth")
    stunt = data["stunts"][0] if where == "stunts" else data["mech"]["stunts"][0]
    stunt["bonus"] = 3
    key = "stunts[1].bonus" if where == "stunts" else "mech.stunts[1].bonus"
    found = problems(data)
    assert (f"{key}: 3 is out of range; expected 0 to 2 (a stunt of the d10 dice-pool hack adds at most "
            "+2 hits; without a bonus it adds +1 hit); e.g. bonus = 1") in found, found


def test_a_stunt_bonus_of_two_hits_is_the_most():
    data = load("ruth")
    data["stunts"][0]["bonus"] = 2
    assert parse_sheet(data, D10_POOL).character.stunts[0].bonus == 2
