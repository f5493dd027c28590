"""Advancement by mail at its edges (pbp.play.advance; 000_7ba3f797fc1d45d3.txt, "Advancement")."""
from __future__ import annotations

from pbp.play.state import load_play
from pbp.store import models as m
from pbp.store import repo
from tests.play.conftest import state_snapshot


def ruth(campaign):
    return repo.load_table(m.Campaign.get_by_id(campaign.id)).character("Ruth")


def test_no_milestone_no_advance_and_nothing_changes(mt, chicago):
    before = state_snapshot(chicago)
    step = mt.post("Ruth", "/advance skills.Fight=Good skills.Athletics=Great\n")
    assert step.status == "rejected"
    assert "Ruth has no milestone to spend now" in step.text
    assert "expected: a milestone the GM has marked (/milestone minor or /milestone major)" in step.text
    assert state_snapshot(chicago) == before


def test_fate_condensed_has_no_significant_milestone(mt, chicago):
    step = mt.post("GM", "/milestone significant\n")
    assert step.status == "rejected"
    assert 'Fate Condensed has no significant milestone' in step.text and '"minor" or "major"' in step.text


def test_power_is_for_a_major_milestone(mt, chicago):
    step = mt.post("GM", "/milestone minor power\n")
    assert step.status == "rejected" and '"power" is for a major milestone' in step.text


def test_a_minor_milestone_refuses_a_raise_and_two_changes(mt, chicago):
    assert mt.post("GM", "/milestone minor\n").status == "applied"
    raised = mt.post("Ruth", "/advance skills.Lore=Average\n")
    assert raised.status == "rejected" and "the raises need 1 skill point and 0 are at hand" in raised.text
    two = mt.post("Ruth", '/advance skills.Fight=Good skills.Athletics=Great aspects.trouble="Short Fuse"\n')
    assert two.status == "rejected"
    assert "this milestone allows 1 change from the minor list and these are 2" in two.text


def test_a_new_trouble_by_mail_keeps_the_play_state(mt, chicago):
    mt.post("GM", "/milestone minor\n")
    asked = mt.post("Ruth", '/advance aspects.trouble="Short Fuse"\n')
    assert asked.status == "applied", asked.text
    assert 'trouble "Hair-Trigger Temper" -> "Short Fuse"' in asked.text
    done = mt.post("GM", "/approve\n")
    assert done.status == "applied", done.text
    sheet = mt.post("Ruth", "/sheet\n").text
    assert "trouble      Short Fuse" in sheet
    again = mt.post("Ruth", "/advance skills.Fight=Good skills.Athletics=Great\n")
    assert again.status == "rejected" and "Ruth has no milestone to spend now" in again.text


def test_a_new_stunt_and_the_power_up_refresh(mt, chicago):
    mt.post("GM", "/milestone major power\n")
    asked = mt.post("Ruth", '/advance stunts."Quick Draw"="Shoot attack +2 when drawing first"\n')
    assert asked.status == "applied", asked.text
    assert mt.post("GM", "/approve\n").status == "applied"
    assert [s.name for s in ruth(chicago).stunts] == ["Knife Thrower", "Quick Draw"]
    # the power-up's refresh is apart from the minor list's one change, spent on the stunt
    assert mt.post("Ruth", "/advance refresh=4\n").status == "applied"
    spent = mt.post("Ruth", '/advance aspects.trouble="Short Fuse"\n')
    assert spent.status == "rejected" and "advancement #" in spent.text


def test_the_power_up_refresh_alone(mt, chicago):
    mt.post("GM", "/milestone major power\n")
    asked = mt.post("Ruth", "/advance refresh=4\n")
    assert asked.status == "applied", asked.text
    assert mt.post("GM", "/approve\n").status == "applied"
    assert ruth(chicago).refresh == 4
    have = load_play(m.Campaign.get_by_id(chicago.id).play).advances["Ruth"]
    assert have["refresh"] == 0 and have["skill_points"] == 2


def test_a_second_request_waits_for_the_first(mt, chicago):
    mt.post("GM", "/milestone major\n")
    assert mt.post("Ruth", "/advance skills.Lore=Average\n").status == "applied"
    second = mt.post("Ruth", "/advance skills.Fight=Good skills.Athletics=Great\n")
    assert second.status == "rejected" and "advancement #1 still waits for the GM" in second.text


def test_an_approval_that_no_longer_fits_changes_nothing(mt, chicago):
    mt.post("GM", "/milestone major\n")
    assert mt.post("Ruth", "/advance skills.Lore=Average\n").status == "applied"
    assert mt.post("GM", "/sheet set Ruth skills.Lore=Fair\n").status == "applied"
    late = mt.post("GM", "/approve\n")
    assert late.status == "applied" and "no longer fits Ruth's sheet" in late.text
    assert ruth(chicago).skills["Lore"] == 2


def test_a_stunt_bought_below_refresh_1_is_refused(mt, chicago):
    """"Purchase a new stunt by spending 1 refresh. (Remember, you can't go below 1 refresh.)\""""
    fix = mt.post("GM", '/sheet set Ruth stunts.Brawler="Fight attack +2" stunts.Sprinter="Athletics overcome +2" '
                        'stunts.Watchful="Notice defend +2" stunts.Hunch="Investigate advantage +2" refresh=1\n')
    assert fix.status == "applied", fix.text
    mt.post("GM", "/milestone minor\n")
    before = state_snapshot(chicago)
    asked = mt.post("Ruth", '/advance stunts."Quick Draw"="Shoot attack +2 when drawing first"\n')
    assert asked.status == "rejected"
    assert "which would leave refresh 0" in asked.text and "keeps at least 1: drop 1 stunt" in asked.text
    assert state_snapshot(chicago) == before


def test_a_stunt_bought_past_the_free_slots_costs_1_refresh(mt, chicago):
    """"Purchase a new stunt by spending 1 refresh" (000_7ba3f797fc1d45d3.txt, "Minor
    Milestones"), read with the creation rules' "three free stunt slots ... you may fill
    them in as you play": Ruth has Knife Thrower and two free slots; with three stunts the
    fourth costs 1 refresh, and the reply says so."""
    fix = mt.post("GM", '/sheet set Ruth stunts.Brawler="Fight attack +2" stunts.Sprinter="Athletics overcome +2"\n')
    assert fix.status == "applied", fix.text
    assert ruth(chicago).refresh == 3 and len(ruth(chicago).stunts) == 3
    mt.post("GM", "/milestone minor\n")
    asked = mt.post("Ruth", '/advance stunts."Quick Draw"="Shoot attack +2 when drawing first"\n')
    assert asked.status == "applied", asked.text
    assert 'new stunt "Quick Draw" for 1 refresh (refresh 3 -> 2)' in asked.text
    done = mt.post("GM", "/approve\n")
    assert done.status == "applied", done.text
    after = ruth(chicago)
    assert after.refresh == 2 and [s.name for s in after.stunts][-1] == "Quick Draw"
    assert "(refresh 2)" in mt.post("Ruth", "/sheet\n").text


def test_a_stunt_in_a_free_slot_costs_no_refresh_and_says_so(mt, chicago):
    """A free stunt slot left (Ruth has one stunt of three free): the new stunt fills it."""
    mt.post("GM", "/milestone minor\n")
    asked = mt.post("Ruth", '/advance stunts."Quick Draw"="Shoot attack +2 when drawing first"\n')
    assert 'new stunt "Quick Draw" in a free stunt slot (refresh stays 3)' in asked.text
    assert "for 1 refresh" not in asked.text
    assert mt.post("GM", "/approve\n").status == "applied"
    assert ruth(chicago).refresh == 3


def test_a_stunt_below_refresh_1_names_what_would_work(mt, chicago):
    mt.post("GM", '/sheet set Ruth stunts.Brawler="Fight attack +2" stunts.Sprinter="Athletics overcome +2" '
                  'stunts.Watchful="Notice defend +2" stunts.Hunch="Investigate advantage +2" refresh=1\n')
    mt.post("GM", "/milestone minor\n")
    asked = mt.post("Ruth", '/advance stunts."Quick Draw"="Shoot attack +2 when drawing first"\n')
    assert asked.status == "rejected"
    assert "rewrite one of the stunts as the new one instead" in asked.text
    example = '/advance stunts."Knife Thrower"= stunts."Quick Draw"="Shoot attack +2 when drawing first"'
    assert example in asked.text
    rewrite = mt.post("Ruth", example + "\n")
    assert rewrite.status == "applied", rewrite.text
    assert 'stunt "Knife Thrower" rewritten as "Quick Draw"' in rewrite.text


def test_the_approval_says_what_is_left_in_plain_words(mt, chicago):
    """A major milestone's high concept is something Ruth may still take, not something she
    has; after a minor milestone's one change nothing is left (not "nothing left left")."""
    mt.post("GM", "/milestone major\n")
    mt.post("Ruth", "/advance skills.Fight=Good skills.Athletics=Great\n")
    done = mt.post("GM", "/approve\n")
    assert "Ruth may still take from the milestone: a new high concept, 1 skill point." in done.text
    mt.post("Ruth", "/advance skills.Lore=Average\n")          # the skill point, now
    done = mt.post("GM", "/approve\n")
    assert "Ruth may still take from the milestone: a new high concept." in done.text
    mt.post("GM", "/milestone minor\n")
    mt.post("Ruth", '/advance aspects.trouble="Short Fuse"\n')
    done = mt.post("GM", "/approve\n")
    assert "Ruth has nothing left from the milestone." in done.text and "left left" not in done.text


def test_a_renamed_other_aspect_keeps_its_free_invokes_like_the_trouble(mt, chicago):
    t = repo.load_table(chicago)
    snap = repo.snapshot(t)
    next(a for a in t.aspects if a.name == "Knife Up My Sleeve").free_invokes = {"Charles": 1}
    repo.save_table(chicago, snap, t)
    mt.post("GM", "/milestone minor\n")
    asked = mt.post("Ruth", '/advance aspects.other="Partner\'s Ghost Still Talks to Me, Blade in My Boot"\n')
    assert asked.status == "applied", asked.text
    done = mt.post("GM", "/approve\n")
    assert done.status == "applied" and "is gone" not in done.text
    blade = next(a for a in repo.load_table(chicago).aspects if a.name == "Blade in My Boot")
    assert (blade.kind, blade.free_invokes) == ("character", {"Charles": 1})
