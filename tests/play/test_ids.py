"""One numbering for the ids a player types: rolls, compels, story details, bonus requests,
aspect changes and the reactions pbp waits for all take their ``#N`` from the campaign's one
counter (``PlayState.next_id``), so no two things of a campaign share a number; a command
given the id of something of another kind says what that id is; a campaign whose rolls were
numbered by ledger row ids before keeps them (docs/commands.md, "Ids")."""
from __future__ import annotations

import json
import re

from pbp.store import models as m
from tests.play.conftest import state_snapshot

COMPEL = '/compel Ruth "Hair-Trigger Temper" event "The bouncer\'s jibe sets you off"\n'


def _ids(text: str) -> list[int]:
    return [int(n) for n in re.findall(r"#(\d+)", text)]


def test_rolls_compels_and_reactions_never_share_a_number(mt, chicago):
    roll = mt.post("Ruth", "/overcome Athletics vs Fair\n", dice="0000")
    attack = mt.post("GM", "/as Ghoul attack Charles with Fight\n", dice="++00")
    compel = mt.post("GM", COMPEL)
    detail = mt.post("Cassandra", '/detail "The bouncer owes me money"\n')
    for step in (roll, attack, compel, detail):
        assert step.status == "applied", step.text
    numbers = [roll.outcome.results[0]["roll_id"]]
    numbers += _ids(attack.text)            # Charles's defence waited for, the attack's roll
    numbers += _ids(compel.text)[:1] + _ids(detail.text)[:1]
    # in the order made: the attack's roll (#2), then the defence it waits for (#3)
    assert "roll #1 ·" in roll.text and "roll #2 ·" in attack.text and "(#3)" in attack.text
    assert "Compel #4" in compel.text and "Story detail #5" in detail.text
    assert sorted(set(numbers)) == [1, 2, 3, 4, 5]


def test_an_id_of_another_kind_is_named_and_nothing_changes(mt, chicago):
    mt.post("Ruth", "/overcome Athletics vs Fair\n", dice="0000")        # roll #1
    mt.post("GM", COMPEL)                                                 # compel #2
    before = state_snapshot(chicago)
    wrong = mt.post("Ruth", "/accept #1\n")
    assert wrong.status == "rejected"
    assert "#1 is roll #1, not a compel, story detail or request" in wrong.text
    assert "example:" in wrong.text and "/accept #2" in wrong.text
    wrong = mt.post("Ruth", '/invoke "Hair-Trigger Temper" on #2\n')
    assert wrong.status == "rejected"
    assert "#2 is compel #2, not a roll: it is answered with /accept, /refuse, /approve or /deny" in wrong.text
    assert '/invoke "Acolyte in a Golden Mask" on #1' in wrong.text   # on the open roll, an aspect Ruth knows
    assert state_snapshot(chicago) == before
    right = mt.post("Ruth", "/accept #2\n")
    assert right.status == "applied", right.text
    assert "Ruth accepts the compel" in right.text


def test_a_campaign_numbered_before_keeps_its_roll_ids_and_counts_on_past_them(mt, chicago):
    """Rolls used to show their ledger row id (``roll #142``) while compels counted from
    ``next_id`` (``compel #1``). A play state from then: its open roll answers to the id its
    mail gave, and new ids start past every ledger row, so none repeats an old one."""
    roll = mt.post("Ruth", "/overcome Athletics vs Fair\n", dice="0000")
    assert roll.status == "applied", roll.text
    row = m.RollRecord.get()
    m.RollRecord.update(id=142).where(m.RollRecord.id == row.id).execute()
    campaign = m.Campaign.get_by_id(chicago.id)
    play = dict(campaign.play)
    del play["rolls_numbered"]
    entry = play["open_rolls"][0]
    ref = json.loads(entry[3])
    ref["id"], ref["ids"] = 142, [142]
    play["open_rolls"] = [[entry[0], [142], entry[2], json.dumps(ref)]]
    play["next_id"] = 1
    play["threads"] = {k: ["roll:142" if r.startswith("roll:") else r for r in v] for k, v in play["threads"].items()}
    m.Campaign.update(play=play).where(m.Campaign.id == chicago.id).execute()

    invoke = mt.post("Ruth", '/invoke "Hair-Trigger Temper" on #142\n')
    assert invoke.status == "applied", invoke.text
    assert "Roll #142 revised" in invoke.text
    compel = mt.post("GM", COMPEL.replace("Ruth", "Charles").replace("Hair-Trigger Temper", "Curiosity Will Be My Death"))
    assert compel.status == "applied", compel.text
    assert all(n > 142 for n in _ids(compel.text)), compel.text
    assert m.Campaign.get_by_id(chicago.id).play["rolls_numbered"] is True
