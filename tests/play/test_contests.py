"""Contests by mail (Fate Condensed, "Contests", 001_0095f60d590caa10.txt; "Creating
Advantages in a Contest", 000_7ba3f797fc1d45d3.txt): one overcome per side each exchange,
victories (two for style when no one else had it), ties and twists, threats, first to
three (the GM may set up to five)."""
from __future__ import annotations

from datetime import timedelta

from pbp.play.state import load_play
from pbp.store import models as m
from pbp.store import repo
from tests.play.conftest import state_snapshot

RACE = '/contest start Race Ruth "first to the docks" vs Charles "first to the docks"'


def contest(chicago):
    return load_play(m.Campaign.get_by_id(chicago.id).play).contest


def tally(chicago):
    return [s.victories for s in contest(chicago).sides]


def test_highest_effort_marks_a_victory_and_style_two(mt, chicago):
    """Both succeed with style: only one victory (style "and no one else did")."""
    mt.post("GM", RACE)
    mt.post("Ruth", "/overcome Athletics", dice="++++")        # 7 vs Fair: style
    step = mt.post("Charles", "/overcome Athletics", dice="++00")   # 5: style too
    assert "Exchange 1: Ruth has the highest effort (Epic (+7)): one victory." in step.text
    assert tally(chicago) == [1, 0]
    mt.post("Ruth", "/overcome Athletics", dice="+++0")        # 6: style
    end = mt.post("Charles", "/overcome Athletics", dice="0000")     # 3: success
    assert "Ruth has the highest effort (Fantastic (+6)): succeeded with style, and no one else did: two victories" in end.text
    assert 'Ruth wins the contest "Race"' in end.text and "Ruth 3; Charles 0" in end.text
    assert contest(chicago) is None


def test_first_to_three_by_default_and_the_gm_may_set_up_to_five(mt, chicago):
    before = state_snapshot(chicago)
    step = mt.post("GM", RACE + " victories 6")
    assert step.status == "rejected" and "the rules recommend no more than 5" in step.text
    assert state_snapshot(chicago) == before
    mt.post("GM", RACE + " victories 5")
    assert contest(chicago).needed == 5
    mt.post("GM", "/contest end")
    mt.post("GM", RACE)
    assert contest(chicago).needed == 3


def test_one_overcome_per_side_and_advantages_before_it(mt, chicago):
    mt.post("GM", '/contest start Chase Ruth, Charles "escape" vs Ghoul "a meal"')
    mt.post("Ruth", "/overcome Athletics", dice="0000")
    before = state_snapshot(chicago)
    second = mt.post("Charles", "/overcome Athletics", dice="0000")
    assert second.status == "rejected" and "Ruth and Charles's side has rolled (Ruth) this exchange" in second.text
    late = mt.post("Charles", '/advantage Notice "Side Passage" vs Fair', dice="0000")
    assert late.status == "rejected" and "advantages come before it" in late.text
    assert state_snapshot(chicago) == before


def test_an_advantage_failed_at_a_cost_keeps_the_sides_roll(mt, chicago):
    """"you may succeed at a cost (preserving your roll or teamwork bonus) by giving the
    other side a free invoke instead": written on fail cost."""
    mt.post("GM", '/contest start Chase Ruth, Charles "escape" vs Ghoul "a meal"')
    step = mt.post("Ruth", '/advantage Athletics "Slick Stones" vs Great on fail cost', dice="0000")
    assert step.status == "applied" and "forfeit" not in step.text.split("Contest")[0]
    assert "Ghoul gets a free invoke on Slick Stones" in step.text
    assert held("Slick Stones") == {"Ghoul": 1}
    assert mt.post("Charles", "/overcome Athletics", dice="0000").status == "applied"


def held(name):
    return m.Aspect.get(m.Aspect.name == name).free_invokes


def test_in_a_race_the_other_racer_holds_the_free_invoke(mt, chicago):
    """"giving the other side a free invoke instead" (Creating Advantages in a Contest,
    000_7ba3f797fc1d45d3.txt): in a PC-vs-PC race the other side is Charles, not the GM.
    Ruth's Athletics +2 with 0000 is Fair (+2) against Great (+3): a failure."""
    mt.post("GM", RACE)
    step = mt.post("Ruth", '/advantage Athletics "Tailwind" vs Great on fail cost', dice="0000")
    assert step.status == "applied" and "Charles gets a free invoke on Tailwind" in step.text
    assert "GM's side" not in step.text.split("Contest")[0]
    assert held("Tailwind") == {"Charles": 1}
    # Charles spends it on his own overcome: 0000 + Athletics +1, +2 for the invoke
    used = mt.post("Charles", '/overcome Athletics +invoke "Tailwind"', dice="0000")
    assert used.status == "applied" and held("Tailwind") == {}


def test_a_failed_advantage_on_an_ally_still_goes_to_the_other_side(mt, chicago):
    """The aspect on Ruth's own side-mate: the other side (the Ghoul), never the ally, gets it."""
    mt.post("GM", '/contest start Chase Ruth, Charles "escape" vs Ghoul "a meal"')
    mt.post("Ruth", '/advantage Athletics "Second Wind" on Charles vs Great on fail cost', dice="0000")
    assert held("Second Wind") == {"Ghoul": 1}


def test_three_sides_the_gm_holds_it_unless_the_next_side_is_set(mt, chicago):
    """Three sides: the rules say "the other side"; pbp's documented choice is the GM's side
    (who may /give it on), or with contest_invoke_next_side the next side in order."""
    from pbp.campaigns import set_campaign

    mt.post("GM", RACE + ' vs Ethan "first to the docks"')
    step = mt.post("Ruth", '/advantage Athletics "Tailwind" vs Great on fail cost', dice="0000")
    assert "the GM's side gets a free invoke on Tailwind" in step.text
    assert held("Tailwind") == {"GM": 1}
    given = mt.post("GM", '/give "Tailwind" Ethan')
    assert given.status == "applied" and held("Tailwind") == {"Ethan": 1}
    set_campaign(m.Campaign.get_by_id(chicago.id), "contest_invoke_next_side", "yes")
    step = mt.post("Charles", '/advantage Athletics "Crosswind" vs Epic on fail cost', dice="0000")
    assert "Ethan gets a free invoke on Crosswind" in step.text and held("Crosswind") == {"Ethan": 1}
    step = mt.post("Ethan", '/advantage Athletics "Headwind" vs Epic on fail cost', dice="0000")
    assert held("Headwind") == {"Ruth": 1}          # after the last side, the first


def test_the_difficulty_is_the_contests(mt, chicago):
    mt.post("GM", RACE + " difficulty Good")
    step = mt.post("Ruth", "/overcome Athletics vs Fair", dice="0000")
    assert step.status == "rejected" and "each side rolls against Good (+3)" in step.text
    assert "vs     Good (+3)" in mt.post("Ruth", "/overcome Athletics", dice="0000").text


def test_a_twist_not_named_in_time_has_a_default(mt, chicago):
    mt.post("GM", RACE)
    mt.post("Ruth", "/overcome Athletics", dice="0000")
    step = mt.post("Charles", "/overcome Athletics", dice="0000")
    assert "a tie for the highest effort" in step.text and tally(chicago) == [0, 0]
    assert any("Name the twist" in r.text for r in step.replies)
    tick = mt.tick(mt.now + timedelta(hours=49))
    assert any('"Unexpected Twist (to be named)" is in play' in r.text for r in tick.replies)
    assert any(a.name == "Unexpected Twist (to be named)" for a in repo.load_table(chicago).aspects)
    assert contest(chicago).twist_deadline is None


def test_a_twist_only_after_a_tie(mt, chicago):
    mt.post("GM", RACE)
    step = mt.post("GM", '/contest twist "Loose Rubble"')
    assert step.status == "rejected" and "a twist follows a tie" in step.text


def test_a_static_threat_hits_an_npc_side_at_once(mt, chicago):
    """A threat's static rating against a side whose roll is lower: the NPC absorbs by
    policy, as in a conflict."""
    mt.post("GM", '/contest start Flood Ruth "climb out" vs Ghoul "climb out" threat "Rising Water" Great')
    mt.post("Ruth", "/overcome Athletics", dice="++00")           # 5: above the water
    step = mt.post("GM", "/as Ghoul overcome Athletics", dice="0000")   # 2: below it
    assert "Rising Water (Great (+4)) beats Ghoul's Fair (+2): a hit of 2 shifts on each of them." in step.text
    assert "Ghoul absorbs" in step.text
    assert "Rising Water" not in step.text.split("beats Ghoul")[0].split("Exchange 1")[-1].replace(
        "Rising Water (Great (+4))", "")
    assert repo.load_table(chicago).character("Ghoul").stress["physical"][:2] == [True, True]


def test_a_side_that_does_not_roll_forfeits_at_the_deadline(mt, chicago):
    mt.post("GM", RACE + " hours 6")
    mt.post("Ruth", "/overcome Athletics", dice="-000")
    assert mt.tick(mt.now + timedelta(hours=2)).replies == []
    step = mt.tick(mt.now + timedelta(hours=7))
    text = step.replies[0].text
    assert "Charles did not roll by" in text and "Ruth has the highest effort (Fair (+2)): one victory" in text
    assert tally(chicago) == [1, 0] and contest(chicago).exchange == 2


def test_three_sides(mt, chicago):
    mt.post("GM", RACE + ' vs Ethan "first to the docks"')
    mt.post("Ruth", "/overcome Athletics", dice="0000")
    mt.post("Charles", "/overcome Athletics", dice="0+00")
    step = mt.post("Ethan", "/overcome Athletics", dice="0000")
    assert "Charles has the highest effort (Great (+4))" in step.text
    assert tally(chicago) == [0, 1, 0]


def test_an_invoke_after_the_dice_counts_while_the_exchange_is_open(mt, chicago):
    mt.post("GM", RACE)
    mt.post("Ruth", "/overcome Athletics", dice="0000")
    step = mt.post("Ruth", '/invoke "Knife Up My Sleeve"')
    assert "Ruth's side now stands at Superb (+5) this exchange." in step.text
    assert contest(chicago).rolls[0].effort == 5


def test_refusals_change_nothing(mt, chicago):
    before = state_snapshot(chicago)
    assert mt.post("Ruth", RACE).status == "rejected"                   # GM only
    assert mt.post("GM", '/contest start Race Ruth "a" vs Ruth "b"').status == "rejected"
    assert mt.post("GM", '/contest start Race Ruth "a" vs Nobody "b"').status == "rejected"
    assert mt.post("GM", '/contest start Race Ruth "a" vs Ghoul "b" threat Ghoul with Swimming').status == "rejected"
    assert mt.post("GM", "/contest end").status == "rejected"
    assert state_snapshot(chicago) == before


def test_only_allies_help(mt, chicago):
    mt.post("GM", RACE)
    mt.post("Ruth", "/help Charles")
    step = mt.post("Charles", "/overcome Athletics", dice="0000")
    assert step.status == "rejected" and "Ruth is not on Charles's side" in step.text


def test_an_invoke_after_the_other_sides_roll_settles_the_exchange_again(mt, chicago):
    """"At the end of each exchange, compare the efforts" (001_0095f60d590caa10.txt,
    "Contests"), and Fate lets a player invoke after seeing the dice: Ruth rolls first,
    Charles rolls last and wins the exchange, then Ruth invokes on her own roll and the
    victory changes hands."""
    mt.post("GM", RACE + " difficulty Good")
    first = mt.post("Ruth", "/overcome Athletics", dice="0000")
    rid = contest(chicago).rolls[0].roll
    last = mt.post("Charles", "/overcome Athletics", dice="+000")     # Great (+4) against Ruth's Good (+3)
    assert "Exchange 1: Charles has the highest effort" in last.text and tally(chicago) == [0, 1]
    step = mt.post("Ruth", f'/invoke "Knife Up My Sleeve" on #{rid}')
    assert step.status == "applied", step.text
    assert "Exchange 1 is settled again: Ruth has the highest effort" in step.text
    assert tally(chicago) == [1, 0] and contest(chicago).exchange == 2
    assert "Ruth (\"first to the docks\"): 1 victory" in step.text          # the board says so
    assert "Charles (\"first to the docks\"): 0 victories" in step.text
    assert first.status == "applied"


def test_an_invoke_can_turn_the_exchange_into_a_tie(mt, chicago):
    mt.post("GM", RACE + " difficulty Good")
    mt.post("Ruth", "/overcome Athletics", dice="0000")
    rid = contest(chicago).rolls[0].roll
    mt.post("Charles", "/overcome Athletics", dice="++00")            # Superb (+5)
    assert tally(chicago) == [0, 1]
    step = mt.post("Ruth", f'/invoke "Knife Up My Sleeve" on #{rid}')
    assert "Exchange 1 is settled again: a tie for the highest effort" in step.text, step.text
    assert tally(chicago) == [0, 0] and contest(chicago).twist_deadline is not None
    assert any("Name the twist" in r.text for r in step.replies)


def test_the_invoke_is_refused_once_the_next_exchange_has_begun(mt, chicago):
    mt.post("GM", RACE + " difficulty Good")
    mt.post("Ruth", "/overcome Athletics", dice="0000")
    rid = contest(chicago).rolls[0].roll
    mt.post("Charles", "/overcome Athletics", dice="+000")
    mt.post("Charles", "/overcome Athletics", dice="0000")       # exchange 2's first roll
    before = state_snapshot(chicago)
    step = mt.post("Ruth", f'/invoke "Knife Up My Sleeve" on #{rid}')
    assert step.status == "rejected"
    assert f"roll #{rid} is closed to invokes: exchange 2 of \"Race\" has begun" in step.text
    assert state_snapshot(chicago) == before and tally(chicago) == [0, 1]
