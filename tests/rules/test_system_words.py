"""The engine takes track and attack-kind names from the system (issue 9, items 1 and 3:
"Tracks, severities and dice names come from the campaign's system"): a house system whose
tracks are "body" and "mind", and whose attack kinds carry their own words."""
from __future__ import annotations

import dataclasses
from types import SimpleNamespace

import pytest

from pbp.errors import RulesError
from pbp.play.conflict import _kind_words
from pbp.play.state import Pending
from pbp.rules import harm
from pbp.rules.conflict import check_reach, start_conflict
from pbp.rules.sheets import consequence_slots
from pbp.rules.state import Character, Table
from pbp.rules.systems import FATE_CONDENSED
from pbp.rules.system import AttackKind, frozen
from pbp.rules.zones import ZoneMap
from tests.helpers import FIXED_NOW

HOUSE = dataclasses.replace(
    FATE_CONDENSED, name="house-tracks",
    stress_skills=frozen({"body": "Physique", "mind": "Will"}),
    attack_kinds=frozen({
        "brawl": AttackKind("brawl", "body", ("Athletics", "Fight"), against="against the brawl"),
        "volley": AttackKind("volley", "body", ("Athletics",), ranged=True, against="against the volley"),
        "taunt": AttackKind("taunt", "mind", ("Will",), ranged=True, against="against the taunt",
                            reach_words="a taunt with {skill}"),
    }),
    attack_skills=frozen({"Fight": "brawl", "Shoot": "volley", "Provoke": "taunt"}),
    treatment_skills=frozen({"body": "Academics", "mind": "Empathy"}),
    harm_nouns=frozen({"body": "Wound", "mind": "Trauma"}),
)


def table() -> Table:
    chars = {}
    for name, kind in (("Ruth", "pc"), ("Ghoul", "npc")):
        ch = Character(name, kind=kind, skills={"Fight": 2, "Physique": 1})
        ch.stress = {"body": [False] * 3, "mind": [False] * 3}
        ch.consequences = consequence_slots(ch, HOUSE)
        chars[name] = ch
    return Table(system="fate-condensed", characters=chars)


def test_a_free_form_skill_hits_the_systems_first_track_not_physical():
    assert HOUSE.tracks == ("body", "mind")
    assert harm.hit_track("Biting People", HOUSE) == "body"
    assert harm.hit_track("Biting People", HOUSE, default="mind") == "mind"
    assert harm.hit_track("Biting People", HOUSE, default="physical") == "body"   # not this system's
    assert harm.hit_track("Provoke", HOUSE) == "mind"


def test_a_hit_and_a_take_out_carry_no_track_of_their_own():
    assert harm.Hit("Ruth", 2).track == ""
    out = harm.take_out(table(), "Ruth", attacker="Ghoul", track="mind", shifts=3)
    assert out.taken_out and out.track == "mind"
    with pytest.raises(TypeError):
        harm.take_out(table(), "Ruth", attacker="Ghoul", shifts=3)      # the track is always named


def test_a_conflicts_kind_is_the_systems_first_track_by_default():
    t = table()
    assert start_conflict(t, ["Ruth", "Ghoul"], "Ruth", tracks=HOUSE.tracks).kind == "body"
    assert start_conflict(t, ["Ruth", "Ghoul"], "Ruth", tracks=HOUSE.tracks, kind="mind").kind == "mind"
    with pytest.raises(RulesError) as err:
        start_conflict(t, ["Ruth", "Ghoul"], "Ruth", tracks=HOUSE.tracks, kind="physical")
    assert err.value.expected == "body or mind"
    with pytest.raises(TypeError):
        start_conflict(t, ["Ruth", "Ghoul"], "Ruth")        # no hidden Fate tracks


def test_the_defence_ask_uses_the_attack_kinds_own_words():
    post = SimpleNamespace(system=HOUSE)
    pending = Pending(id=1, kind="defend", target="Ruth", attacker="Ghoul", deadline=FIXED_NOW, opened_at=FIXED_NOW,
                      attack_kind="taunt", track="mind")
    assert _kind_words(post, pending) == "against the taunt"
    assert _kind_words(post, dataclasses.replace(pending, attack_kind="melee")) == "against this attack"
    assert _kind_words(SimpleNamespace(system=FATE_CONDENSED), dataclasses.replace(pending, attack_kind="melee")) \
        == "against close combat"


def test_reach_follows_the_attack_kind_not_its_name():
    """The house taunt reaches across zones (``ranged``) and a refusal names it in its own
    words; the brawl is close combat."""
    t = table()
    zones = ZoneMap.build(["Roof", "Street", "Cellar"], [("Roof", "Street"), ("Street", "Cellar")]) \
        .place("Ruth", "Roof").place("Ghoul", "Cellar")
    conflict = start_conflict(t, ["Ruth", "Ghoul"], "Ruth", tracks=HOUSE.tracks, zones=zones)
    taunt, brawl = HOUSE.attack_kind("Provoke"), HOUSE.attack_kind("Fight")
    with pytest.raises(RulesError) as err:
        check_reach(conflict, "Ruth", "Ghoul", ranged=taunt.ranged, policy="adjacent", how=taunt.how("Provoke"))
    assert "out of reach of a taunt with Provoke" in str(err.value)
    with pytest.raises(RulesError) as err:
        check_reach(conflict, "Ruth", "Ghoul", ranged=brawl.ranged, how=brawl.how("Fight"))
    assert "out of reach of close combat" in str(err.value)
