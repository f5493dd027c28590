"""A whole conflict by mail under the d10 dice-pool hack (tests/golden/d10_pool_conflict), on a
campaign created with ``system="d10-pool"`` and sheets imported under its rules
(004_c619695e1641b466.txt)."""
from __future__ import annotations

import pytest

from pbp.campaigns import create_campaign, import_character
from tests.play import golden

SHEETS = golden.GOLDEN / "d10_pool_conflict" / "sheets"


@pytest.fixture
def scrapyard(db):
    campaign = create_campaign("scrap", "The Scrapyard", system="d10-pool", address="table+scrap@pbp.localhost",
                               gms=["gm@pbp.localhost"])
    for sheet in sorted(SHEETS.glob("*.toml")):
        import_character(campaign, str(sheet))
    return campaign


def test_a_whole_d10_pool_conflict(scrapyard, config, update):
    table, transcript = golden.check("d10_pool_conflict", config, update)
    assert len(table.steps) >= 20
    # the hack counts in hits, revisions after the dice too ("the hits go from 0 to 1")
    assert "shift" not in transcript.lower() and "the hits go from 0 to 1" in transcript
    statuses = [s.status for s in table.steps]
    assert [n for n, s in enumerate(statuses, start=1) if s == "rejected"] == [2, 7, 15, 32]
    # "ADD the number for your SKILL and the number for your APPROACH": a skill alone is refused
    assert "the pool is skill + approach" in table.steps[1].text
    assert 'example:  /attack Captain with "Fight Boldly"' in table.steps[1].text
    # Fight 3 + Boldly 3 is six d10s; 8 and 9 are a hit each, the stunt adds one: 3 hits
    assert "Ruth attacks Raider Captain with Fight + Boldly, 6 dice" in table.steps[2].text
    assert "effort                                      3 hits" in table.steps[2].text
    assert "Raider Captain absorbs 2 hits with 2 strain boxes" in table.steps[2].text
    # the mech's stunt joins the pilot's defence while she is in the cockpit
    assert "stunt  Servo Fists                          +1" in table.steps[5].text
    # strain instead of stress
    assert 'marks stress as "strain N", not "stress 1"' in table.steps[6].text
    assert "example:  /absorb strain 1" in table.steps[6].text
    # negative hits: a catastrophic failure, then an invoke after the dice rerolls the pool
    assert "Negative hits: a catastrophic failure" in table.steps[9].text
    assert "Charles's effort goes from -2 to 2" in table.steps[10].text
    # +1 hit after the dice turns the tie into a hit; the same aspect again is refused
    assert "invokes Ace Pilot of the Ninth for +1 hit, after the dice" in table.steps[13].text
    assert "the outcome goes from a tie to success" in table.steps[13].text
    assert "already invoked with a fate point on this roll" in table.steps[14].text
    # a hostile invocation: the point goes to the captain at the end of the scene
    assert "Raider Captain gets that fate point at the end of the scene" in table.steps[15].text
    assert "Ruth accepts the compel on Reckless When Cornered" in table.steps[17].text
    # anyone may offer a compel, paying their own point; the GM approves, the NPC's side accepts
    assert "Charles offers a compel on Raider Captain's aspect" in table.steps[19].text
    assert "the GM's pool gains a fate point" in table.steps[21].text
    assert "Charles pays a fate point" in table.steps[23].text
    assert "Raider Grunt is taken out" in table.steps[24].text
    assert "The conflict is over: Charles and Ruth win" in table.steps[25].text
    # "Defining Costs": the catastrophe opened a severe cost for the GM, withdrawn when the
    # reroll left a plain failure; a tie's minor cost named by the GM's reply; another left
    # to the deadline takes the default, a boost for the opposition (here the GM's side)
    assert "Cost #10 (severe) waits for the GM to name it." in table.steps[9].text
    assert "Cost #10 is withdrawn: the revised roll owes no cost." in table.steps[10].text
    assert 'Cost #21 on Charles (minor): It starts, and every alarm on the crawler starts with it.' in table.steps[27].text
    assert "Cost #23 was not named by the deadline: the default applies, the GM's side gains a boost." in \
        table.steps[29].text
    # the mech's state changed by play: out of the cockpit, and not twice
    assert "Ruth climbs out of Dock Bravo" in table.steps[30].text
    assert "Ruth piloting Dock Bravo -> no" in table.steps[30].text
    assert "Ruth is not in the cockpit of Dock Bravo" in table.steps[31].text
    assert "mech         Dock Bravo (not piloting)" in table.steps[32].text
    assert "approaches   Boldly +3, Carefully +1, Cleverly +0, Quickly +2" in table.steps[32].text
    # a cost still unnamed when the scene ends lapses with it
    assert "cost #25 lapsed with the scene" in table.steps[34].text
    assert (golden.sheet("Ruth").fate_points, golden.sheet("Charles").fate_points) == (2, 0)


def test_the_campaign_names_its_system_by_alias(db):
    """``--system d10`` is the hack's alias; the campaign stores the system's name."""
    campaign = create_campaign("alias", "Alias", system="d10", address="table+alias@pbp.localhost",
                               gms=["gm@pbp.localhost"])
    assert campaign.system == "d10-pool"
