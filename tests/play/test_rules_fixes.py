"""Rules fixes found in play, each through whole posts, citing the rule text
(001_0095f60d590caa10.txt, Fate Condensed; docs/rules-texts.md) where one applies."""
from __future__ import annotations

import pytest

from pbp.store import models as m
from tests.play.conftest import state_snapshot


def sheet(name):
    return m.Character.get(m.Character.name == name)


def pool(chicago):
    return (m.Campaign.get_by_id(chicago.id).play.get("ledger") or {}).get("gm_pool")


# --------------------------------------------------------------------------- the GM's pool

def _ghoul_concedes(mt):
    """Scene 1: the ghoul concedes with no consequence taken: "you gain a fate point plus an
    extra one for each consequence" (Fate Condensed, "Conceding"), carried to a later scene."""
    assert mt.post("GM", '/scene start "Cellar" with Ghoul\n/conflict start Ruth, Ghoul first Ghoul\n'
                         "/as Ghoul concede\n").status == "applied"
    assert sheet("Ghoul").carried_points == 1
    assert mt.post("GM", "/scene end\n").status == "applied"


def test_a_scene_with_an_npc_that_conceded_before_has_its_points_in_the_pool(mt, chicago):
    """"At the start of each scene, begin with a pool of fate points equal to the number of
    PCs. If the scene includes a major NPC or monster that conceded a previous conflict ...
    those fate points are added to your pool" (Fate Condensed, "Your Fate Points")."""
    _ghoul_concedes(mt)
    step = mt.post("GM", '/scene start "The Alley" with Ghoul, "Masked Acolyte"\n')
    assert step.status == "applied", step.text
    assert pool(chicago) == 4 + 1                      # four PCs, and the ghoul's point
    assert sheet("Ghoul").carried_points == 0
    assert 'In it: Ghoul, Masked Acolyte.' in step.text


def test_the_gms_fp_of_an_npc_says_what_a_concession_will_add(mt, chicago):
    """The conceder's point is paid when the conflict ends (Fate Condensed, "Conceding"):
    while the fight goes on, the GM's /fp of the NPC says so besides what it carries now."""
    step = mt.post("GM", '/scene start "Cellar" with Ghoul\n'
                         '/conflict start Ruth, Ghoul, "Masked Acolyte" first Ghoul\n/as Ghoul concede\n')
    assert step.status == "applied", step.text
    step = mt.post("GM", "/fp Ghoul\n")
    told = step.replies[-1]
    assert told.to == ["gm@pbp.localhost"]
    assert "carries 0 points into a later scene's GM pool, and 1 more when the conflict ends" in told.text


def test_a_scene_without_that_npc_leaves_its_points_with_it(mt, chicago):
    _ghoul_concedes(mt)
    assert mt.post("GM", '/scene start "The Alley"\n').status == "applied"
    assert pool(chicago) == 4 and sheet("Ghoul").carried_points == 1
    step = mt.post("GM", "/npc join Ghoul\n")           # it turns up later in the scene
    assert step.status == "applied", step.text
    assert pool(chicago) == 5 and sheet("Ghoul").carried_points == 0
    assert "GM's pool 4 -> 5" in step.text
    again = mt.post("GM", "/npc join Ghoul\n")          # already here: nothing twice
    assert again.status == "applied" and pool(chicago) == 5


def test_only_npcs_join_a_scene(mt, chicago):
    assert mt.post("GM", '/scene start "The Alley"\n').status == "applied"
    before = state_snapshot(chicago)
    step = mt.post("GM", "/npc join Ruth\n")
    assert step.status == "rejected" and "player's character" in step.text
    assert state_snapshot(chicago) == before


# --------------------------------------------------------------------------- /treat me, /absorb

def _ruth_hit(mt, shifts_dice="----"):
    assert mt.post("GM", '/scene start "Cellar"\n/conflict start Ruth, Ghoul first Ghoul\n'
                         "/as Ghoul attack Ruth with Fight +3\n", dice="0000").status == "applied"
    step = mt.post("Ruth", "/defend Athletics\n", dice=shifts_dice)     # Superb (+5) against Poor (-1): 6 shifts
    assert "absorb the 6-shift physical hit" in step.text


def test_one_absorb_with_two_consequences_shows_both(mt):
    """"you can absorb the whole thing with a single stress box and a moderate consequence"
    (Fate Condensed, "Consequences"): an absorption may take several parts, here a mild and
    a moderate consequence, and both are in the reply's Changed line."""
    _ruth_hit(mt)
    step = mt.post("Ruth", '/absorb mild "Bitten" moderate "Torn Coat"\n')
    assert step.status == "applied", step.text
    changed = next(line for line in step.text.splitlines() if line.startswith("\u2503 Changed:"))  # pbp's mark
    assert 'Ruth takes the mild consequence "Bitten"' in changed
    assert 'Ruth takes the moderate consequence "Torn Coat"' in changed


def test_treat_me_treats_your_own_character(mt):
    """"These difficulties increase by two when you're trying to treat yourself" (Fate
    Condensed, "Recovery"), and docs/commands.md documents `/treat me`."""
    _ruth_hit(mt)
    assert mt.post("Ruth", '/absorb mild "Bitten" moderate "Torn Coat"\n').status == "applied"
    assert mt.post("GM", "/conflict end\n/scene end\n").status == "applied"
    step = mt.post("Ruth", '/treat me "Bitten" with Academics\n', dice="++++")
    assert step.status == "applied", step.text
    assert "Bitten on Ruth is recovering" in step.text


# --------------------------------------------------------------------------- NPC defences

def test_an_npc_defends_only_with_skills_it_has(mt):
    """Minor NPCs: "Give them one or two skills to describe what they're good at" (Fate
    Condensed, "Minor NPCs"); the thug has Fight only, so against Notice it resists at
    Mediocre (+0) with no skill, not with a Stealth it lacks."""
    assert mt.post("GM", '/scene start "Cellar"\n/npc add Thug minor "Big" skills Fight Fair stress 1\n'
                   ).status == "applied"
    step = mt.post("Ruth", '/advantage Notice "Spotted" on Thug\n', dice="0000,0000")
    assert step.status == "applied", step.text
    assert "Thug: (no skill) Mediocre (+0)" in step.text and "Stealth" not in step.text


def test_a_major_npcs_defence_skill_can_be_set(mt, chicago):
    """The ghoul's best defence against close combat is Athletics or Fight (both +2, Athletics
    listed first); the GM sets Fight, and it defends with Fight. The table is not told the
    NPC's choice (its stats), the GM is."""
    step = mt.post("GM", "/npc defend Ghoul with Fight\n")
    assert step.status == "applied", step.text
    assert [r.to for r in step.replies] == [["gm@pbp.localhost"]]
    assert m.Campaign.get_by_id(chicago.id).play["npc_defences"]["Ghoul"] == ["Fight"]
    hit = mt.post("Ruth", "/attack Ghoul with Fight\n", dice="0000,0000")
    assert hit.outcome.results[0]["opposition"]["label"] == "Ghoul: Fight"
    bad = mt.post("GM", "/npc defend Ruth with Athletics\n")
    assert bad.status == "rejected" and "player chooses" in bad.text


# --------------------------------------------------------------------------- names for NPCs

@pytest.mark.parametrize("name, why", [("GM", "stands for the GM"), ("me", "the author's own character"),
                                        ("Fair", "is a difficulty")])
def test_npc_add_refuses_reserved_names_like_sheets_do(mt, chicago, name, why):
    before = state_snapshot(chicago)
    step = mt.post("GM", f'/npc add "{name}" minor "Big" skills Fight Fair stress 1\n')
    assert step.status == "rejected" and why in step.text, step.text
    assert state_snapshot(chicago) == before


# --------------------------------------------------------------------------- PCs against PCs

def test_a_duel_between_pcs(mt, chicago):
    """"If there are multiple PCs involved, they can be on the same or different sides"
    (Fate Condensed, "Contests"; conflicts likewise end "when everyone on one side has
    either conceded or been taken out"): Ruth and Cassandra fight each other."""
    step = mt.post("GM", '/scene start "Rooftop"\n/conflict start Ruth vs Cassandra first Ruth\n')
    assert step.status == "applied", step.text
    assert "conflict begins: Ruth against Cassandra. Ruth acts first." in step.text
    attack = mt.post("Ruth", "/attack Cassandra with Fight\n", dice="0000")
    assert attack.status == "applied", attack.text
    assert "Cassandra, Ruth's attack" in attack.text and "waits for your defence" in attack.text
    defence = mt.post("Cassandra", "/defend Athletics\n", dice="0000")     # Great (+4) against Fair (+2)
    assert defence.status == "applied", defence.text
    assert "absorb the 2-shift physical hit from Ruth" in defence.text
    assert mt.post("Cassandra", "/absorb stress 2\n").status == "applied"
    assert mt.post("Ruth", "/next Cassandra\n").status == "applied"
    step = mt.post("Cassandra", '/concede "I yield the roof"\n')
    assert step.status == "applied", step.text
    assert "The conflict is over: Ruth wins" in step.text
    assert "Cassandra gains 1 fate point for conceding" in step.text


def test_a_conflict_with_everyone_on_one_side_is_still_refused(mt, chicago):
    before = state_snapshot(chicago)
    step = mt.post("GM", "/conflict start Ruth, Cassandra first Ruth\n")
    assert step.status == "rejected" and "two sides" in step.text
    assert state_snapshot(chicago) == before
