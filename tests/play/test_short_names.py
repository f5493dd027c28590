"""Names the short way: a unique start of a name, a first (or any whole) name, or an alias
from the sheet finds a character, aspect or skill; a short name that fits several gets the
candidates; hidden aspects never answer to a player's short name."""
from __future__ import annotations

import pytest

from pbp.campaigns import import_character
from pbp.errors import SheetError
from pbp.rules.systems import get_system
from pbp.sheetfile import parse_sheet
from pbp.store import models as m
from tests.play.conftest import state_snapshot

FC = get_system("fate-condensed")

MIRA = {"name": "Mira Quell", "kind": "pc", "player": "mira@pbp.localhost",
        "aspects": {"high_concept": "Dockside Fixer", "trouble": "Owes the Wrong People"},
        "skills": {"Contacts": 4, "Deceive": 3, "Rapport": 3, "Notice": 2, "Athletics": 2, "Will": 2,
                   "Fight": 1, "Stealth": 1, "Resources": 1, "Crafts": 1}}
TOB = {"name": "Tob Ash", "aliases": ["Ashcan"], "kind": "pc", "player": "tob@pbp.localhost",
       "aspects": {"high_concept": "Union Muscle", "trouble": "Can't Say No to a Fight"},
       "skills": {"Fight": 4, "Physique": 3, "Athletics": 3, "Provoke": 2, "Will": 2, "Notice": 2,
                  "Drive": 1, "Crafts": 1, "Contacts": 1, "Lore": 1}}
MIRABEL = {"name": "Mirabel Stone", "kind": "npc", "aspects": {"high_concept": "Harbour Master"},
           "skills": {"Notice": 3}}
DOCK = {"name": "Dock Bravo", "kind": "minor", "aspects": {"other": ["Hired Knife"]}, "skills": {"Fight": 2},
        "stress": {"boxes": 1}}


@pytest.fixture
def dock(chicago, mt):
    for sheet in (MIRA, TOB, MIRABEL, DOCK):
        import_character(chicago, parse_sheet(dict(sheet), FC))
    step = mt.post("GM", '/scene start "Pier" zones Stalls, Water borders Stalls-Water\n')
    assert step.status == "applied", step.text
    return mt


def test_a_first_name_places_a_character(dock):
    step = dock.post("GM", "/place Mira in Stalls\n/place Dock in Water\n")
    assert step.status == "applied", step.text
    assert "Mira Quell is in Stalls." in step.text and "Dock Bravo is in Water." in step.text


def test_a_first_name_and_an_alias_reach_the_fate_points(dock):
    step = dock.post("GM", "/fp give Tob 1\n")
    assert step.status == "applied", step.text
    assert m.Character.get(m.Character.name == "Tob Ash").fate_points == 4
    step = dock.post("GM", "/fp give Ashcan 1\n")          # aliases = ["Ashcan"] on the sheet
    assert step.status == "applied", step.text
    assert m.Character.get(m.Character.name == "Tob Ash").fate_points == 5


def test_a_whole_name_wins_over_the_start_of_a_longer_one(dock):
    """"Mira" is Mira Quell's first name and the start of "Mirabel": the whole word wins."""
    step = dock.post("GM", "/place Mira in Water\n")
    assert "Mira Quell is in Water." in step.text


def test_an_ambiguous_short_name_gets_the_candidates(dock, chicago):
    before = state_snapshot(chicago)
    step = dock.post("GM", "/place Mir in Stalls\n")
    assert step.status == "rejected"
    assert '"Mir" could be "Mira Quell" or "Mirabel Stone"' in step.text
    assert state_snapshot(chicago) == before


def test_an_unknown_name_gets_an_example_of_the_same_command(dock):
    step = dock.post("GM", "/place Zed in Stalls\n")
    assert step.status == "rejected"
    assert "/place" in step.text.split("example")[-1] and "/sheet" not in step.text


def test_a_skill_and_an_aspect_by_a_short_name(dock):
    step = dock.post("Tob", "/overcome Ath vs Fair +invoke Union\n", dice="0000")
    assert step.status == "applied", step.text
    assert "Athletics" in step.text and "Union Muscle" in step.text


def test_a_player_short_name_never_finds_a_hidden_aspect(dock):
    """The GM hides "Deep Pit" beside the visible "Deep Shadows": "Deep" is not ambiguous
    for a player, it is Deep Shadows; "Afraid" (the ghoul's hidden "Afraid of Fire") is unknown."""
    assert dock.post("GM", '/aspect add "Deep Pit" hidden\n/aspect add "Deep Shadows"\n').status == "applied"
    step = dock.post("Ruth", "/overcome Stealth vs Fair +invoke Deep\n", dice="0000")
    assert step.status == "applied", step.text
    assert "Deep Shadows" in step.text and "Deep Pit" not in step.text
    step = dock.post("Ruth", "/overcome Stealth vs Fair +invoke Afraid\n", dice="0000")
    assert step.status == "rejected" and "Afraid of Fire" not in step.text


def test_a_sheet_alias_is_checked_like_a_name():
    for alias, problem in (("GM", "cannot be a character's name"), ("Mira Quell", "is the name itself"),
                           ('Mi"ra', "quote character")):
        with pytest.raises(SheetError) as info:
            parse_sheet({**MIRA, "aliases": [alias]}, FC)
        assert any(p.startswith("aliases[1]") and problem in p for p in info.value.problems), info.value.problems
    with pytest.raises(SheetError):
        parse_sheet({**MIRA, "aliases": "Mira"}, FC)          # a list, not a string


def test_a_boost_has_a_short_name_a_player_can_type(dock):
    """Success with style on an overcome gives a boost (Fate Condensed, "Overcome"): it is
    "Tob Ash's Boost", and `+invoke Boost` spends it when it is the only one."""
    step = dock.post("Tob", "/overcome Athletics vs Fair\n", dice="++++")
    assert step.status == "applied", step.text
    assert "Tob Ash's Boost" in step.text
    step = dock.post("Tob", "/overcome Fight vs Great +invoke Boost\n", dice="0000")
    assert step.status == "applied", step.text
    assert "invoke Tob Ash's Boost (boost)" in step.text
    assert not m.Aspect.select().where((m.Aspect.name == "Tob Ash's Boost") & (m.Aspect.active == True)).exists()  # noqa: E712


def test_acting_as_someone_elses_character_suggests_the_same_command_as_your_own(dock):
    step = dock.post("Tob", '/as "Mira Quell" overcome Athletics vs Fair\n')
    assert step.status == "rejected" and "Mira Quell is not your character" in step.text
    assert "/overcome Athletics vs Fair" in step.text.split("example")[-1]
