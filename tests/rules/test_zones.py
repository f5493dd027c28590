"""Zones and movement (Fate Condensed, "Zones", "Movement"; 001_0095f60d590caa10.txt): a
farmhouse of four zones, the book's own example."""
import pytest

from pbp.errors import RulesError
from pbp.rules.state import Aspect, Table
from pbp.rules.zones import ZoneMap, zone_aspects

FARMHOUSE = ("First Floor", "Second Floor", "Front Yard", "Back Woods")


def farmhouse() -> ZoneMap:
    """"A conflict in a remote farmhouse might have four zones: the first floor, second floor,
    front yard, and back woods." The first floor borders the other three."""
    return ZoneMap.build(FARMHOUSE, [("First Floor", "Second Floor"), ("First Floor", "Front Yard"),
                                     ("Back Woods", "First Floor")])


def test_borders_are_undirected_and_named_case_insensitively():
    m = farmhouse()
    assert m.borders("first floor", "Second Floor") and m.borders("Second Floor", "First Floor")
    assert not m.borders("Second Floor", "Front Yard")
    assert not m.borders("First Floor", "First Floor")
    assert m.neighbours("First Floor") == ("Second Floor", "Front Yard", "Back Woods")


def test_one_free_move_reaches_a_bordering_zone_only():
    """"You can move to an adjacent zone in addition to your action ... You can also use your
    action to move anywhere on the map" (an overcome the GM sets)."""
    m = farmhouse()
    assert m.can_move("Front Yard", "First Floor")
    assert not m.can_move("Front Yard", "Second Floor")
    with pytest.raises(RulesError) as err:
        m.check_move("Front Yard", "Second Floor")
    assert '"Second Floor" does not border "Front Yard"' in err.value.message
    assert '"First Floor"' in err.value.expected and err.value.example == '/move "First Floor"'
    assert "takes your action" in err.value.hint


def test_melee_reaches_the_own_zone_and_shots_follow_the_gm_policy():
    """"Anyone in a zone can interact with everyone ... in that zone"; "Ranged attacks can
    target enemies in adjacent zones or maybe further, if the zones are clear enough"."""
    m = farmhouse()
    assert m.in_melee_range("Back Woods", "Back Woods") and not m.in_melee_range("Back Woods", "First Floor")
    assert m.in_ranged_range("Back Woods", "First Floor")
    assert not m.in_ranged_range("Back Woods", "Second Floor")
    assert m.in_ranged_range("Back Woods", "Second Floor", "any")
    assert not m.in_ranged_range("Back Woods", "First Floor", "same")
    assert m.in_ranged_range("Back Woods", "Back Woods", "same")
    with pytest.raises(RulesError, match="unknown range policy"):
        m.in_ranged_range("Back Woods", "Back Woods", "far")


def test_positions_and_moves():
    m = farmhouse().place("Ruth", "front yard")
    assert m.zone_of("ruth") == "Front Yard"
    m2 = m.move("Ruth", "First Floor")
    assert m2.zone_of("Ruth") == "First Floor" and m.zone_of("Ruth") == "Front Yard"
    with pytest.raises(RulesError, match="does not border"):
        m2.move("Ruth", "Front Yard").move("Ruth", "Back Woods")
    with pytest.raises(RulesError, match="not been placed"):
        m.move("Charles", "First Floor")


def test_bad_maps_and_unknown_zones_name_the_zones():
    with pytest.raises(RulesError) as err:
        farmhouse().zone("Attic")
    assert '"Attic"' in err.value.message and '"First Floor", "Second Floor"' in err.value.message
    assert err.value.example
    with pytest.raises(RulesError, match="listed twice"):
        ZoneMap.build(["Dock", "dock"])
    with pytest.raises(RulesError, match="cannot border itself"):
        ZoneMap.build(["Dock", "Floor"], [("Dock", "DOCK")])
    with pytest.raises(RulesError, match='no zone "Office"'):
        ZoneMap.build(["Dock", "Floor"], [("Dock", "Office")])
    with pytest.raises(RulesError, match="at least one"):
        ZoneMap.build([])


def test_zone_aspects_live_on_the_table():
    """Zone aspects are aspects of kind "zone" owned by the zone ("Caustic Slime Covering
    Everything" in the cellar)."""
    table = Table(system="fate-condensed", aspects=[Aspect("Caustic Slime", kind="zone", owner="Back Woods"),
                           Aspect("Deep Shadows", kind="situation")])
    assert [a.name for a in zone_aspects(table, "back woods")] == ["Caustic Slime"]
