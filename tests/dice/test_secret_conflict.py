"""Secret rolls inside a conflict (issue 25; docs/verify.md, "Secret and blind rolls"): an
overcome or an advantage against a difficulty may be secret on the actor's turn (it takes the
turn as any action does); an attack, a defence, a plain roll and an action someone resists
actively may not, since the harm and the defender's roll are the table's to see. Probed from
the players' side."""
from __future__ import annotations

import re

import pytest

from pbp.demo import create_sample_campaign
from pbp.store import models as m
from pbp.store import repo
from tests.dice.test_secret import OUTCOMES
from tests.play.table import MailTable, address


@pytest.fixture
def table(db, config):
    create_sample_campaign()
    mt = MailTable(config, committed=True)
    assert mt.post("GM", '/scene start "The Docks"\n').status == "applied"
    assert mt.post("GM", "/conflict start Cassandra, Ghoul first Ghoul\n").status == "applied"
    return mt


def _theirs(step, who):
    return [r for r in step.replies if address(who) in r.to]


def test_a_secret_advantage_on_the_gms_turn_takes_the_turn_and_shows_nothing(table):
    step = table.post("GM", '/as Ghoul advantage Stealth "In the Rafters" vs Fair secret\n', dice="++++")
    assert step.status == "applied", step.text
    mine = _theirs(step, "Cassandra")
    assert len(mine) == 1 and re.search(r"Ghoul rolled in secret \(create an advantage with Stealth\)",
                                        mine[0].text), [r.text for r in step.replies]
    shown = mine[0].text.split("pbp-dice/2")[0]
    assert "In the Rafters" not in shown and not OUTCOMES.search(shown), shown
    assert repo.load_table(m.Campaign.get()).find_aspect("In the Rafters").hidden
    # the turn was taken: the Ghoul cannot act again before the others
    again = table.post("GM", "/as Ghoul overcome Athletics vs Fair\n")
    assert again.status == "rejected", again.text


def test_a_secret_overcome_on_a_players_turn(table):
    assert table.post("GM", "/as Ghoul overcome Athletics vs Fair\n/as Ghoul next Cassandra\n", dice="0000").status == "applied"
    step = table.post("Cassandra", "/overcome Notice vs Fair blind\n")
    assert step.status == "applied", step.text
    mine = _theirs(step, "Charles")
    assert mine and "Cassandra rolled blind (overcome with Notice)" in mine[0].text, mine[0].text
    assert not OUTCOMES.search(mine[0].text.split("pbp-dice/2")[0]), mine[0].text


@pytest.mark.parametrize("line, why", [
    ("/as Ghoul attack Cassandra with Fight secret", "expected"),
    ("/as Ghoul roll secret Notice", "cannot be made during a conflict"),
    ('/as Ghoul advantage Provoke "Shaken" on Cassandra secret', "resists"),
    ("/as Ghoul overcome Notice vs Cassandra secret", "resists"),
])
def test_no_secret_attack_roll_or_actively_resisted_action_in_a_conflict(table, line, why):
    step = table.post("GM", line + "\n")
    assert step.status == "rejected" and why in step.text, step.text
