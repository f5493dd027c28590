"""Early Fate by mail, the edges of spin and of refusable concessions (docs/early-fate.md),
on the sample table (pbp/samples/early_fate), with fixed dice.

Text: 002_3a4e52a093e280aa.txt, "Spin", "Taken Out", "Conceding"."""
from __future__ import annotations

from datetime import timedelta

import pytest

from pbp.demo import create_sample_campaign
from pbp.store import models as m
from tests.play import golden
from tests.play.table import MailTable

OPEN = '/scene start "Pier 9"\n/conflict start Jet, Mara, Brute, Knifeman first Jet\n'


@pytest.fixture
def docks(db, config):
    create_sample_campaign("early-fate")
    table = MailTable(config)
    assert table.post("GM", OPEN).status == "applied"
    return table


def spin_first(t: MailTable) -> None:
    """Jet's Fists Great (+4) ++0+ = Epic (+7) against the Brute's Fists Good (+3) 0000: 4 shifts,
    spin #1 ("If a character gets 3 or more shifts on an action, he gets to spin that action")."""
    step = t.post("Jet", "/attack Brute with Fists\n/next Mara", dice="++0+,0000")
    assert "Jet's spin #1, held until" in step.text


def test_another_players_spin_adds_one(docks):
    """"spin can add +1 to either his own next action, or another player's": Mara's Guns Great
    (+4) 0000 + Jet's spin = Superb (+5) against the Knifeman's Athletics Fair (+2) 0000."""
    spin_first(docks)
    step = docks.post("Mara", "/attack Knifeman with Guns +spin #1", dice="0000,0000")
    assert step.status == "applied" and "spin   spin #1" in step.text and "effort                                      +5" in step.text
    again = docks.post("Mara", "/sheet")
    assert again.status == "applied"


def test_a_spin_is_used_once(docks):
    spin_first(docks)
    assert docks.post("Mara", "/attack Knifeman with Guns +spin #1", dice="0000,0000").status == "applied"
    docks.post("Mara", "/next Brute")
    docks.post("GM", "/as Brute attack Mara with Fists", dice="0000")
    step = docks.post("Mara", "/defend Athletics +spin #1", dice="0000")
    # Mara's own 4-shift shot earned her spin #2; #1 is gone
    assert step.status == "rejected" and "no spin #1 is held (spins held: #2 (Mara's, until" in step.text
    assert "example:  /defend Athletics +spin #2" in step.text


def test_the_rollers_own_spin_lapses_at_their_next_action(docks):
    """"his own next action": Jet defends without it, and it is gone."""
    spin_first(docks)
    docks.post("Mara", "/overcome Alertness vs Fair\n/next Brute", dice="0000")
    assert [s["roll"] for s in m.Campaign.get().play["spins"]] == [1]
    docks.post("GM", "/as Brute attack Jet with Fists", dice="0000")
    assert docks.post("Jet", "/defend Athletics", dice="0000").status == "applied"
    assert m.Campaign.get().play["spins"] == []


def test_a_spin_lapses_after_the_reaction_deadline(docks):
    spin_first(docks)
    late = docks.now + timedelta(days=3)
    step = docks.post("Mara", "/attack Knifeman with Guns +spin #1", dice="0000,0000", at=late)
    assert step.status == "rejected" and "no spin #1 is held" in step.text


def test_no_spin_held_is_refused_with_what_is_held(docks):
    step = docks.post("Jet", "/attack Brute with Fists +spin", dice="0000,0000")
    assert step.status == "rejected" and "Jet holds no spin (spins held: none)" in step.text
    assert "example:  /attack Brute with Fists" in step.text


def test_fate_condensed_refuses_spin(chicago, config):
    table = MailTable(config)
    table.post("GM", '/scene start "Warehouse"')
    step = table.post("Ruth", "/overcome Athletics vs Fair +spin", dice="0000")
    assert step.status == "rejected" and "Fate Condensed has no spin" in step.text
    assert "example:  /overcome Athletics vs Fair" in step.text


def test_an_unanswered_concession_stands_and_ends_the_conflict(docks):
    """Unanswered by the deadline, a concession stands; the conflict waited for it."""
    docks.post("GM", '/as Knifeman concede "He dives into the river"')
    step = docks.post("GM", '/as Brute concede "He runs"')
    assert "The conflict is over" not in step.text          # two concessions open: nothing ends yet
    tick = docks.tick(docks.now + timedelta(days=2))
    text = "\n".join(r.text for r in tick.replies)
    assert "Nobody refused Knifeman's concession #" in text and "The conflict is over: Jet and Mara win" in text
    assert (golden.sheet("Knifeman").carried_points, golden.sheet("Brute").carried_points) == (0, 0)


def test_only_the_other_side_refuses_a_concession(docks):
    docks.post("GM", '/as Knifeman concede "He dives into the river"')
    # the GM plays the Knifeman's own side: the Brute cannot refuse his ally's concession
    step = docks.post("GM", "/refuse #1")
    assert step.status == "rejected"


def test_a_refused_concession_the_gm_denies_moves_no_points(docks):
    docks.post("GM", '/as Knifeman concede "He dives into the river"')
    assert docks.post("Jet", '/refuse #1 "Not yet"').status == "applied"
    step = docks.post("GM", '/deny #1 "He had not lost yet"')
    assert "unreasonable" in step.text and "no fate points move" in step.text
    assert (golden.sheet("Jet").fate_points, golden.sheet("Knifeman").carried_points) == (3, 0)


def test_an_unruled_refusal_moves_no_points(docks):
    docks.post("GM", '/as Knifeman concede "He dives into the river"')
    docks.post("Jet", "/refuse #1")
    tick = docks.tick(docks.now + timedelta(days=2))
    assert any("did not rule on concession #1" in r.text and "no fate points move" in r.text for r in tick.replies)
    assert golden.sheet("Jet").fate_points == 3


def test_a_player_may_not_rule_on_a_concession(docks):
    docks.post("GM", '/as Knifeman concede "He dives into the river"')
    docks.post("Jet", "/refuse #1")
    assert docks.post("Mara", "/approve #1").status == "rejected"


def test_another_outcome_needs_a_reason(docks):
    """Mild, moderate, severe, then taken out; the player's /refuse must say what instead."""
    assert docks.post("GM", "/conflict end\n/conflict start Jet, Brute, Knifeman first Brute").status == "applied"
    hits = [("Brute", "Fists", "Knifeman"), ("Knifeman", "Weapons", "Jet"), ("Brute", "Fists", "Knifeman")]
    for (npc, skill, after), (sev, name) in zip(hits, (("mild", "A"), ("moderate", "B"), ("severe", "C"))):
        assert docks.post("GM", f"/as {npc} attack Jet with {skill}\n/as {npc} next {after}", dice="++++").status == "applied"
        assert docks.post("Jet", "/defend Athletics", dice="----").status == "applied"
        assert docks.post("Jet", f'/absorb {sev} "{name}"').status == "applied"
        if after == "Jet":
            assert docks.post("Jet", "/overcome Alertness vs Fair\n/next Brute", dice="0000").status == "applied"
    assert docks.post("GM", "/as Knifeman attack Jet with Weapons", dice="++++").status == "applied"
    step = docks.post("Jet", "/defend Athletics", dice="----")
    assert "Jet is taken out" in step.text and "/refuse #" in step.text
    ref = step.text.split("/refuse #")[1].split()[0]
    assert docks.post("Jet", f"/refuse #{ref}").status == "rejected"        # say what instead
    assert docks.post("Mara", f'/refuse #{ref} "x"').status == "rejected"   # only Jet's player
    assert docks.post("Jet", f'/refuse #{ref} "Captured"').status == "applied"
    assert golden.sheet("Jet").fate_points == 0


def test_an_invoke_after_the_dice_that_reaches_three_shifts_spins(docks):
    """Jet's Fists Great (+4) 0000 against the Brute's Good (+3) 0000: 1 shift, no spin; his
    invoke of "Two-Fisted Dock Brawler" after the dice (+2, a fate point) makes it 3: a spin."""
    step = docks.post("Jet", "/attack Brute with Fists", dice="0000,0000")
    assert "spin #" not in step.text
    step = docks.post("Jet", '/invoke "Two-Fisted Dock Brawler" on #1')
    assert step.status == "applied" and "Jet now holds spin #1" in step.text
    assert [s["roll"] for s in m.Campaign.get().play["spins"]] == [1]


def test_replies_show_values_beyond_the_ladder_as_numbers(docks):
    """"+8: Legendary ... -2: Terrible": Jet's Stealth Average (+1) ---- is -3, which early Fate's
    ladder does not name (Fate Condensed's would say Catastrophic); outside the post, the
    process names values with the ordinary ladder again."""
    from pbp.rules import ladder

    step = docks.post("Jet", "/overcome Stealth vs Poor", dice="----")
    assert step.status == "applied"
    assert "-3" in step.text and "Catastrophic" not in step.text and "Poor (-1)" in step.text
    assert ladder.describe(-3, ladder.LADDER) == "Catastrophic (-3)"


def test_a_post_is_read_in_early_fates_words(docks):
    """The pipeline parses with the campaign's system's words: "mental" and "mild2" are Fate
    Condensed's, refused with early Fate's list and an example in its words."""
    step = docks.post("GM", "/conflict end\n/conflict start Jet, Brute first Jet mental")
    assert step.status == "rejected"
    assert '"mental" is not a kind of conflict in early Fate: health or composure' in step.text
    assert "example:  /conflict start Jet, Brute first Jet composure" in step.text   # the GM's own line, fixed
    step = docks.post("Jet", '/absorb mild2 "Bruised Ribs"')
    assert '"mild2" is not a consequence in early Fate: mild, moderate or severe' in step.text
    step = docks.post("GM", '/treat Jet "Split Lip" with Endurance')
    assert step.status == "rejected"


# "Conceding" (002_3a4e52a093e280aa.txt): "Instead of taking a consequence, a character can
# concede. ... The character inflicting the stress can refuse the concession" -- early Fate
# lets a hit waiting for /absorb be answered by /concede (``concede_on_hit``).

def _hit_on_jet(t: MailTable) -> str:
    """The Brute's Fists Good (+3) ++++ = Fantastic (+7) against Jet's Athletics Good (+3) 0000:
    a 4-shift hit waits for Jet's /absorb; its id."""
    assert t.post("GM", "/conflict end\n/conflict start Jet, Mara, Brute, Knifeman first Brute").status == "applied"
    assert t.post("GM", "/as Brute attack Jet with Fists", dice="++++").status == "applied"
    step = t.post("Jet", "/defend Athletics", dice="0000")
    assert "Waiting for Jet to absorb a 4-shift hit from Brute (#" in step.text
    return step.text.split("from Brute (#")[1].split(")")[0]



def _concede(t: MailTable, hit: str) -> str:
    step = t.post("Jet", '/concede "I go over the rail into the harbour"')
    assert step.status == "applied", step.text
    assert f"instead of absorbing a 4-shift hit from Brute (#{hit}), which is void if the concession stands" in step.text
    assert "Brute may /refuse #" in step.text                 # the inflicter, not the Knifeman
    assert f"Held for concession #" in step.text and f"(#{hit})" in step.text
    return step.text.split("Jet concedes (#")[1].split(")")[0]


def test_a_hit_waiting_for_absorb_may_be_answered_by_conceding_and_it_stands(docks):
    """Accepted: Jet is out on his terms and the 4-shift hit is void: no box checked, no
    consequence, and nothing waits for his /absorb."""
    hit = _hit_on_jet(docks)
    ref = _concede(docks, hit)
    assert docks.post("Jet", "/absorb stress 4").status == "rejected"    # the hit waits for the concession
    step = docks.post("GM", f"/accept #{ref}")
    assert step.status == "applied", step.text
    assert f"Brute accepts Jet's concession (#{ref}): it stands." in step.text
    assert f"Jet conceded instead of taking a 4-shift hit from Brute (#{hit}): the hit is void" in step.text
    jet = golden.sheet("Jet")
    assert not any(jet.stress["health"]) and not any(c["aspect"] for c in jet.consequences)
    assert m.Campaign.get().play["pending"] == []


def test_a_held_hit_has_no_deadline_and_is_void_when_the_concession_stands_unanswered(docks):
    hit = _hit_on_jet(docks)
    _concede(docks, hit)
    tick = docks.tick(docks.now + timedelta(days=2))
    text = "\n".join(r.text for r in tick.replies)
    assert "the cheapest absorption applies" not in text
    assert "Nobody refused Jet's concession #" in text and f"(#{hit}): the hit is void" in text
    assert not any(golden.sheet("Jet").stress["health"])


def test_a_refused_concession_puts_the_hit_back_for_absorb(docks):
    """Refused by the Brute (the GM): Jet is back, the hit waits for /absorb with a new
    deadline; the GM rules the terms reasonable: Jet +1 fate point, the Brute -1 (none to lose)."""
    hit = _hit_on_jet(docks)
    ref = _concede(docks, hit)
    step = docks.post("GM", f'/refuse #{ref} "He is not getting away that easily"')
    assert step.status == "applied", step.text
    assert "Jet is back in the conflict" in step.text
    assert f"The hit is back: a 4-shift hit from Brute (#{hit}) waits for Jet's /absorb by" in step.text
    assert f"Jet, absorb the 4-shift health hit from Brute (#{hit})" in step.text
    assert docks.post("GM", f"/approve #{ref}").status == "applied"
    assert golden.sheet("Jet").fate_points == 4
    step = docks.post("Jet", '/absorb mild "Soaked to the Bone"')
    assert step.status == "applied", step.text
    assert [c["aspect"] for c in golden.sheet("Jet").consequences if c["aspect"]] == ["Soaked to the Bone"]


def test_a_hit_back_from_a_refused_concession_takes_the_default_at_its_new_deadline(docks):
    hit = _hit_on_jet(docks)
    ref = _concede(docks, hit)
    later = docks.now + timedelta(hours=30)          # past the hit's first deadline
    docks.post("GM", f"/refuse #{ref}", at=later)
    docks.tick(later + timedelta(hours=1))
    assert any(p["id"] == int(hit) for p in m.Campaign.get().play["pending"])     # still waiting
    tick = docks.tick(later + timedelta(days=2))
    assert any("Jet did not answer by" in r.text and "the cheapest absorption applies" in r.text for r in tick.replies)


def test_an_attack_waiting_for_the_defence_still_blocks_a_concession(docks):
    """No hit yet: "Instead of taking a consequence" needs one; the attack waits for /defend."""
    assert docks.post("GM", "/conflict end\n/conflict start Jet, Mara, Brute, Knifeman first Brute").status == "applied"
    docks.post("GM", "/as Brute attack Jet with Fists", dice="++++")
    step = docks.post("Jet", '/concede "I run"')
    assert step.status == "rejected" and "cannot concede now" in step.text and "waits for your /defend" in step.text
