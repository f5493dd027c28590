"""A campaign's own levels of scale (issue 10, "Scale": "levels Mundane, Supernatural,
Otherworldly, Legendary, Godlike (a campaign may rename or reorder them)";
000_7ba3f797fc1d45d3.txt, "Scale": "five potential levels of scale").

``pbp campaign set scale_levels="Mortal, Touched, Fae, Legendary, Godlike"`` on the sample
table of ``pbp demo --system dfc`` (Marcus Mundane, Nora Supernatural, the Lake Thing
Otherworldly): the levels in play are renamed by their place, and every place a level is
read (a sheet's ``scale``, ``/aspect add ... scale``, ``+scale``, the reply's term, ``/table``
and ``pbp table --json``) reads the campaign's names. docs/dresden-files-condensed.md,
"Campaign settings".
"""
from __future__ import annotations

import shutil

import pytest

from pbp.campaigns import import_sheets, set_campaign
from pbp.demo import create_sample_campaign, sample_dir
from pbp.errors import ConfigError, SheetError
from pbp.flow.commit import read_post
from pbp.flow.context import Context
from pbp.play.overview import overview, to_json
from pbp.rules.dice import FixedDice
from pbp.rules.systems import campaign_system
from pbp.store import models as m
from pbp.store import repo
from tests.play.conftest import state_snapshot
from tests.play.table import MailTable

RENAMED = "Mortal, Touched, Fae, Legendary, Godlike"


@pytest.fixture
def lakeshore(db):
    return create_sample_campaign("dfc")


def _campaign(c) -> m.Campaign:
    return m.Campaign.get_by_id(c.id)


def _levels(c) -> dict:
    table = repo.load_table(_campaign(c))
    return {**{ch.name: ch.system_state.get("scale") for ch in table.characters.values()},
            **{a.name: a.system_state["scale"] for a in table.aspects if a.system_state.get("scale")}}


def test_renaming_the_levels_renames_those_in_play_and_every_command_reads_them(lakeshore, config, tmp_path):
    mt = MailTable(config)
    assert mt.post("GM", '/scene start "The Stacks" with "Lake Thing"\n'
                         '/aspect add "Warded Stacks" scale Supernatural\n').status == "applied"
    lines = set_campaign(_campaign(lakeshore), "scale_levels", " Mortal,Touched , Fae,Legendary,Godlike")
    assert _campaign(lakeshore).settings["scale_levels"] == RENAMED
    assert sorted(lines) == ["Lake Thing: Otherworldly scale is now Fae (level 3)", "Marcus: Mundane scale is now Mortal (level 1)", "Nora: Supernatural scale is now Touched (level 2)",
                     "the aspect Warded Stacks: Supernatural scale is now Touched (level 2)"]
    assert _levels(lakeshore) == {"Marcus": "Mortal", "Nora": "Touched", "Lake Thing": "Fae",
                                  "Warded Stacks": "Touched"}
    assert campaign_system(_campaign(lakeshore)).character_state.scale == tuple(RENAMED.split(", "))
    # the sheet history has the rename (pbp character history)
    [row] = m.SheetChange.select().where((m.SheetChange.character == "Nora")
                                         & (m.SheetChange.who == "pbp campaign set scale_levels"))
    assert row.before["system_state"]["scale"] == "Supernatural" and row.after["system_state"]["scale"] == "Touched"
    # /aspect add and /aspect set: the campaign's names; an old one is refused with them
    old = mt.post("GM", '/aspect add "Lake Fog" scale Otherworldly\n')
    assert old.status == "rejected"
    assert '"Otherworldly" is not a level of scale (Mortal, Touched, Fae, Legendary, Godlike)' in old.text
    assert 'example:  /aspect add "Lake Fog" scale Touched' in old.text
    wrong = mt.post("GM", '/aspect set "Warded Stacks" scale=Supernatural\n')
    assert wrong.status == "rejected" and 'example:  /aspect set "Warded Stacks" scale=Touched' in wrong.text
    fog = mt.post("GM", '/aspect add "Lake Fog" scale fae\n')
    assert fog.status == "applied" and "carrying Fae scale" in fog.text, fog.text
    # +scale and the reply's term: Nora (Touched) over Marcus (Mortal), +1 before the roll.
    # Lore +4, 0000; Marcus's Notice +2 (the best against Lore of Athletics, Notice, Will), 0000.
    roll = mt.post("Nora", "/overcome Lore vs Marcus +scale\n", dice="0000,0000")
    assert roll.status == "applied", roll.text
    assert "Touched over Mortal" in roll.text, roll.text
    # /table and pbp table --json
    seen = mt.post("Marcus", "/table\n").text
    assert '"Warded Stacks" on the scene, Touched scale' in seen and '"Lake Fog" on the scene, Fae scale' in seen
    view = to_json(overview(read_post(_campaign(lakeshore), Context(config=config, dice=FixedDice(""))), gm=True))
    assert {a["name"]: a.get("scale") for a in view["aspects"] if a["kind"] == "situation"} == {
        "Warded Stacks": "Touched", "Lake Fog": "Fae"}
    # a sheet file still under the old names is refused at import, with the campaign's levels
    shutil.copytree(sample_dir("dfc"), tmp_path / "lake")
    nora = tmp_path / "lake" / "nora.toml"
    [(_, refused)] = import_sheets(_campaign(lakeshore), [str(nora)], replace=True)
    assert isinstance(refused, SheetError)
    assert refused.problems == ["scale: 'Supernatural' is not a level of scale (Mortal, Touched, Fae, Legendary, "
                                'Godlike); e.g. scale = "Touched"']
    nora.write_text(nora.read_text().replace('scale = "Supernatural"', 'scale = "touched"'))
    [(_, imported)] = import_sheets(_campaign(lakeshore), [str(nora)], replace=True)
    assert not isinstance(imported, SheetError), imported
    assert _levels(lakeshore)["Nora"] == "Touched"


def test_reordering_keeps_the_names_and_moves_their_levels(lakeshore, config):
    """A level still in the list keeps its name and takes its new place: with Otherworldly
    first and Mundane third, the Lake Thing (Otherworldly) is now below Marcus (Mundane)."""
    set_campaign(_campaign(lakeshore), "scale_levels", "Otherworldly, Supernatural, Mundane, Legendary, Godlike")
    assert _levels(lakeshore) == {"Marcus": "Mundane", "Nora": "Supernatural", "Lake Thing": "Otherworldly"}
    state = campaign_system(_campaign(lakeshore)).character_state
    table = repo.load_table(_campaign(lakeshore))
    assert state.scale_of(table.characters["Lake Thing"]) == (0, "Otherworldly")
    assert state.scale_of(table.characters["Marcus"]) == (2, "Mundane")
    mt = MailTable(config)
    mt.post("GM", '/scene start "The Stacks" with "Lake Thing"\n')
    # Marcus's Fight +1, 0000, +2 for two levels over the Lake Thing; its Fight +3, 0000
    mt.post("GM", '/conflict start Nora, Marcus, "Lake Thing" first Marcus\n')
    hit = mt.post("Marcus", '/attack "Lake Thing" with Fight\n', dice="0000,0000")
    assert hit.status == "applied", hit.text
    assert "Mundane over Otherworldly" in hit.text and "+2" in hit.text, hit.text


@pytest.mark.parametrize("value, says", [
    ("Mortal", "names one level (Mortal): scale compares two levels at least"),
    ("Mortal, Touched, mortal", '"mortal" is named twice (levels 1 and 3)'),
    ("Mortal,,Touched", "level 2 is empty"),
    ("Mortal, Faerie Court", '"Faerie Court" (level 2) is not one word'),
    ("", "is empty: name the levels"),
])
def test_a_bad_list_is_refused_with_a_working_example_and_nothing_changes(lakeshore, value, says):
    before = state_snapshot(lakeshore), _levels(lakeshore)
    with pytest.raises(ConfigError) as refused:
        set_campaign(_campaign(lakeshore), "scale_levels", value)
    assert says in str(refused.value), str(refused.value)
    assert 'e.g. pbp campaign set scale_levels="Mortal, Touched, Fae, Legendary, Godlike"' in refused.value.hint
    assert "scale_levels" not in (_campaign(lakeshore).settings or {})
    assert (state_snapshot(lakeshore), _levels(lakeshore)) == before


def test_a_shorter_list_that_leaves_a_level_in_play_without_a_place_is_refused(lakeshore):
    before = state_snapshot(lakeshore), _levels(lakeshore)
    with pytest.raises(ConfigError) as refused:
        set_campaign(_campaign(lakeshore), "scale_levels", "Mortal, Touched")
    assert ("Lake Thing carries Otherworldly scale, level 3, which the new list (Mortal, Touched) has no place "
            "for: keep Otherworldly in it, or give it 3 levels") in str(refused.value), str(refused.value)
    assert "scale_levels" not in (_campaign(lakeshore).settings or {})
    assert (state_snapshot(lakeshore), _levels(lakeshore)) == before
    # keeping the name: Otherworldly stays, at the second place
    set_campaign(_campaign(lakeshore), "scale_levels", "Mortal, Otherworldly")
    assert _levels(lakeshore) == {"Marcus": "Mortal", "Nora": "Otherworldly", "Lake Thing": "Otherworldly"}


def test_the_default_list_is_the_system_itself(lakeshore):
    set_campaign(_campaign(lakeshore), "scale_levels", "Mundane, Supernatural, Otherworldly, Legendary, Godlike")
    from pbp.rules.systems import get_system
    assert campaign_system(_campaign(lakeshore)) is get_system("dfc")


def test_a_setting_from_a_stale_copy_keeps_what_play_saved_since(lakeshore):
    """``pbp campaign set`` reads the campaign, the daemon applies a post, then the setting
    is saved: only the setting's own field is written, so the post's play state stays."""
    stale = _campaign(lakeshore)
    fresh = _campaign(lakeshore)
    fresh.play = {**(fresh.play or {}), "probe": 1}
    fresh.save()
    set_campaign(stale, "scale_levels", RENAMED)
    after = _campaign(lakeshore)
    assert after.play.get("probe") == 1
    assert (after.settings or {}).get("scale_levels")
