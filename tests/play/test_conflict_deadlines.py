"""Deadlines applied by the periodic job with an injected clock: reminders, the default
defence, the default absorption with a placeholder the player renames, the default handoff;
and concession, blocked while the dice are out against you, paid when the conflict ends."""
from __future__ import annotations

from datetime import datetime

from pbp.play.state import load_play
from pbp.store import models as m
from pbp.store import repo


def play_state(campaign):
    return load_play(m.Campaign.get_by_id(campaign.id).play)


def sheet(campaign, name):
    return repo.load_table(campaign).character(name)


def start(mt, first="Ghoul"):
    step = mt.post("GM", f"/scene start Alley\n/conflict start Ruth, Cassandra, Ghoul first {first}\n",
                   at=datetime(2026, 11, 30, 12, 0))
    assert step.status == "applied", step.text


def test_a_defence_nobody_sends_is_rolled_at_the_deadline(mt, chicago):
    start(mt)
    attack = mt.post("GM", "/as Ghoul attack Ruth with Fight\n/as Ghoul next Ruth\n", dice="++++",
                     at=datetime(2026, 11, 30, 12, 0))
    assert "If you have not answered by Wed 2 Dec 12:00 UTC (in 2 days), Ruth defends with Fight, Great (+4)" in attack.text
    assert play_state(chicago).next_deadline() is not None

    early = mt.tick(datetime(2026, 12, 1, 23, 0))          # nothing due yet
    assert early.replies == []
    reminder = mt.tick(datetime(2026, 12, 2, 0, 30))       # 12 hours before: a reminder to Ruth only
    assert [r.to for r in reminder.replies] == [["ruth@pbp.localhost"]]
    assert reminder.replies[0].subject.endswith("Reminder: Ruth, defend by Wed 2 Dec 12:00 UTC (in 11 hours)")
    assert mt.tick(datetime(2026, 12, 2, 1, 0)).replies == []      # reminded once

    # At the deadline Ruth's best defence against Fight is rolled: Fight Great (+4) + [-][-][-][-] = 0
    # against Fight Fair (+2) + 4 = +6: a 6-shift hit, which waits for her /absorb.
    due = mt.tick(datetime(2026, 12, 2, 12, 0), dice="----")
    assert "gm@pbp.localhost" in due.replies[0].to and "ruth@pbp.localhost" in due.replies[0].to
    # Ruth has not taken her turn either: the GM hears that it has stalled (once)
    assert [(r.to, r.subject.split("] ")[1]) for r in due.replies[1:]] == [(["gm@pbp.localhost"], "Ruth's turn has stalled")]
    assert "Ruth did not answer by Wed 2 Dec 12:00 UTC: Ruth defends with Fight" in due.text
    assert "absorb the 6-shift physical hit" in due.text
    (pending,) = play_state(chicago).pending
    assert (pending.kind, pending.shifts) == ("absorb", 6)

    # No answer again: the cheapest absorption (fewest consequences, then the lightest):
    # Ruth has 4 boxes: a mild consequence and 4 boxes, with a placeholder name.
    done = mt.tick(datetime(2026, 12, 4, 12, 0))
    assert "Ruth did not answer by Fri 4 Dec 12:00 UTC: the cheapest absorption applies" in done.text
    ruth = sheet(chicago, "Ruth")
    assert ruth.stress["physical"] == [True] * 4
    assert [q.aspect for q in ruth.consequences if q.aspect] == ["Mild Wound (to be named)"]
    assert play_state(chicago).pending == []

    renamed = mt.post("Ruth", '/aspect rename "Mild Wound (to be named)" to "Claw Marks"\n')
    assert renamed.status == "applied", renamed.text
    assert [q.aspect for q in sheet(chicago, "Ruth").consequences if q.aspect] == ["Claw Marks"]
    assert repo.load_table(chicago).find_aspect("Claw Marks").free_invokes == {"Ghoul": 1}


def test_a_forgotten_handoff_is_asked_for_then_made_at_the_deadline(mt, chicago):
    start(mt, first="Ruth")
    acted = mt.post("Ruth", "/overcome Athletics vs Fair\n", dice="0000", at=datetime(2026, 11, 30, 12, 0))
    assert "Ruth, hand the turn on to one of Cassandra, Ghoul: /next NAME." in acted.text
    assert "the turn passes to Cassandra" in acted.text
    reminder = mt.tick(datetime(2026, 12, 2, 0, 0))
    assert reminder.replies[0].to == ["ruth@pbp.localhost"]
    due = mt.tick(datetime(2026, 12, 2, 12, 0))
    assert "Ruth did not hand the turn on by Wed 2 Dec 12:00 UTC: the turn passes to Cassandra." in due.text
    assert "Turn: Cassandra. Still to act this exchange: Ghoul." in due.text
    assert play_state(chicago).conflict.turns.current == "Cassandra"


def test_the_gm_can_always_hand_off(mt, chicago):
    start(mt, first="Ruth")
    step = mt.post("GM", "/next Ghoul\n")
    assert step.status == "applied", step.text
    assert "Turn: Ghoul. Still to act this exchange: Ruth, Cassandra." in step.text


def test_concession_is_blocked_while_an_attack_waits_for_you_and_paid_at_the_end(mt, chicago):
    start(mt)
    mt.post("GM", "/as Ghoul attack Cassandra with Fight\n/as Ghoul next Cassandra\n", dice="0000")
    blocked = mt.post("Cassandra", '/concede "I run for the street"\n')
    assert blocked.status == "rejected"
    assert "dice have already been rolled against Cassandra" in blocked.text
    # Fight Fair (+2) + 0 against Athletics Fair (+2) + [-][0][0][0]: a 1-shift hit, absorbed with a box.
    mt.post("Cassandra", "/defend Athletics\n", dice="-000")
    assert mt.post("Cassandra", '/concede "I run for the street"\n').status == "rejected"   # the hit waits
    mt.post("Cassandra", "/absorb stress 1\n")
    fp = sheet(chicago, "Cassandra").fate_points
    ok = mt.post("Cassandra", '/concede "I run for the street, and the ghoul keeps the ledger"\n')
    assert ok.status == "applied", ok.text
    assert "Cassandra concedes" in ok.text
    assert sheet(chicago, "Cassandra").fate_points == fp            # paid when the conflict ends
    # Ruth is hit hard and takes a consequence, then concedes too: the PCs' side is out.
    mt.post("GM", "/next Ruth\n")
    mt.post("Ruth", "/next Ghoul\n")
    mt.post("GM", "/as Ghoul attack Ruth with Fight +3\n/as Ghoul next Ruth\n", dice="++++")
    mt.post("Ruth", "/defend Fight\n", dice="----")               # 9 vs 0: 9 shifts
    mt.post("Ruth", '/absorb stress 1 mild "Torn Sleeve" severe "Broken Arm"\n')
    end = mt.post("Ruth", '/concede "We leave the Ghoul the alley"\n')
    assert end.status == "applied", end.text
    assert "The conflict is over: Ghoul wins" in end.text
    assert sheet(chicago, "Cassandra").fate_points == fp + 1
    assert sheet(chicago, "Ruth").fate_points == 3 + 3               # one, plus one per consequence
    assert play_state(chicago).conflict is None


def test_done_ends_the_last_turn_of_an_exchange_and_the_gm_opens_the_next(mt, chicago):
    start(mt, first="Ruth")
    mt.post("Ruth", "/next Cassandra\n")
    mt.post("Cassandra", "/next Ghoul\n")
    step = mt.post("GM", "/as Ghoul overcome Athletics vs Fair\n/as Ghoul done\n", dice="0000")
    assert step.status == "applied", step.text
    assert "Exchange 1 is over: the GM names who opens exchange 2." in step.text
    step = mt.post("GM", "/next Cassandra\n")
    assert "Turn: Cassandra. Still to act this exchange: Ruth, Ghoul." in step.text
