"""The sheet view is built from the one place that names a character's fields (issue 9,
item 2: "One place names a character's fields"; pbp.rules.state.character_view and
SHEET_LAYOUT): a new field shows on ``pbp sheet --json`` and /sheet without editing
pbp.sheets_view, and the engine's bookkeeping stays off the sheet."""
from __future__ import annotations

from dataclasses import dataclass

from pbp.rules.sheets import consequence_slots
from pbp.rules.state import SHEET_LAYOUT, Aspect, Character, Consequence, Stunt, Table, character_view
from pbp.rules.systems import FATE_CONDENSED
from pbp.sheets_view import sheet_dict, table_sheet


@dataclass
class Renowned(Character):
    """A house rule's character with one more field."""

    renown: int = 0


def ruth(cls=Character, **extra) -> Character:
    ch = cls("Ruth", player="ruth@pbp.localhost", skills={"Lore": 2, "Academics": 4, "Athletics": 2},
             stunts=[Stunt("Scholar", "Academics", "overcome", 2, description="She has read everything.")],
             stress={"physical": [True, False, False], "mental": [False] * 3}, aliases=["Ru"], **extra)
    ch.consequences = consequence_slots(ch, FATE_CONDENSED)
    ch.consequences[0].aspect, ch.consequences[0].hit_track = "Sprained Ankle", "physical"
    ch.consequences[0].recovering, ch.consequences[0].recovery_scenes_left = True, 2
    return ch


def table(ch) -> Table:
    return Table(system="fate-condensed", characters={ch.name: ch},
                 aspects=[Aspect("Occult Librarian", "high_concept", owner="Ruth"),
                          Aspect("Secret Fear", "character", owner="Ruth", hidden=True),
                          Aspect("Sprained Ankle", "consequence", owner="Ruth", free_invokes={"Ghoul": 1})])


def test_the_sheets_entries_in_the_layouts_order():
    sheet = sheet_dict(ruth(), table(ruth()))
    assert list(sheet) == list(SHEET_LAYOUT)
    assert list(sheet["skills"]) == ["Academics", "Athletics", "Lore"]       # best first, then by name
    assert sheet["conditions"] == []                                       # no system conditions


def test_bookkeeping_and_parser_fields_stay_off_the_sheet():
    sheet = sheet_dict(ruth(), table(ruth()))
    assert "aliases" not in sheet and "system_state" not in sheet and "id" not in sheet
    assert sheet["stunts"] == [{"name": "Scholar", "skill": "Academics", "action": "overcome", "bonus": 2,
                                "circumstance": ""}]
    assert sheet["consequences"][0] == {"severity": "mild", "aspect": "Sprained Ankle", "shifts": 2,
                                        "recovering": True}


def test_a_consequences_track_and_condition_show_only_when_set():
    ch = ruth()
    ch.consequences.append(Consequence("mild2", 2, track="mental"))
    view = character_view(ch)
    assert view["consequences"][-1] == {"severity": "mild2", "aspect": None, "shifts": 2, "recovering": False,
                                        "track": "mental"}
    assert "track" not in view["consequences"][1] and "condition" not in view["consequences"][1]


def test_a_new_field_shows_without_editing_the_view():
    ch = ruth(Renowned, renown=3)
    sheet = sheet_dict(ch, table(ch))
    assert sheet["renown"] == 3 and list(sheet)[:len(SHEET_LAYOUT)] == list(SHEET_LAYOUT)
    assert table_sheet(ch, table(ch))["renown"] == 3
    assert "renown" not in sheet_dict(ruth(), table(ruth()))
