"""Fate Condensed, "Stress" / "Consequences" / "Getting Taken Out": Charles and the ghoul in
the basement, three attacks in a row, played entirely by mail with fixed dice."""
from __future__ import annotations

from pbp.store import repo
from tests.play.table import MailTable


def sheet(campaign, name):
    return repo.load_table(campaign).character(name)


def test_charles_against_the_ghoul_by_mail(chicago, config):
    t = MailTable(config)
    setup = t.post("GM", """\
        A series of regrettable decisions has put Charles in a dank basement.
        /scene start "Dank Basement"
        /conflict start Charles, Ghoul first Ghoul
        """)
    assert setup.status == "applied", setup.outcome.errors

    # 1. The ghoul lunges: Fight Fair (+2), [0][0][+][+] = Great (+4); the attack waits for Charles.
    first = t.post("GM", "The ghoul lunges with its sharp claws.\n/as Ghoul attack Charles with Fight\n"
                   "/as Ghoul next Charles\n",
                   dice="00++")
    assert first.status == "applied", first.outcome.errors
    attack = first.outcome.results[0]
    assert attack["effort"] == 4 and attack["opposition"] is None
    # the table's thread keeps its subject; the deadline is in the body
    assert first.replies[0].subject == "Re: [Chicago Nights] The conflict"
    assert "If you have not answered by Tue 1 Dec" in first.text
    assert "/defend Athletics" in first.text and "Athletics, Good (+3)" in first.text
    assert sheet(chicago, "Charles").stress["physical"] == [False, False, False]

    # Charles answers the mail that asked with a bare /defend: [0][0][0][-] + Good (+3) = Fair (+2).
    d1 = t.post("Charles", "Charles leaps out of the way.\n/defend Athletics\n", dice="000-", reply_to=first)
    assert d1.status == "applied", d1.outcome.errors
    (defence,) = d1.outcome.results
    assert (defence["effort"], defence["opposition"]["value"], defence["shifts"]) == (2, 4, -2)
    assert "absorb the 2-shift physical hit" in d1.text
    a1 = t.post("Charles", "/absorb stress 2\n", reply_to=d1)
    assert a1.status == "applied", a1.outcome.errors
    assert sheet(chicago, "Charles").stress["physical"] == [True, True, False]

    # Charles passes his turn; the ghoul opens the next exchange.
    assert t.post("Charles", "/next Ghoul\n").status == "applied"

    # 2. [0][0][+][+] + Fair (+2) + Hungry for Flesh (+2) = Fantastic (+6) against [-][-][0][0] + 3 = +1.
    second = t.post("GM", '/as Ghoul attack Charles with Fight +invoke "Hungry for Flesh"\n/as Ghoul next Charles\n',
                    dice="00++")
    assert second.status == "applied", second.outcome.errors
    assert second.outcome.results[0]["effort"] == 6
    d2 = t.post("Charles", "/defend Athletics\n", dice="--00", reply_to=second)
    assert d2.outcome.results[0]["effort"] == 1 and d2.outcome.results[0]["shifts"] == -5
    a2 = t.post("Charles", '/absorb moderate "Gaping Chest Wound" stress 1\n', reply_to=d2)
    assert a2.status == "applied", a2.outcome.errors
    charles = sheet(chicago, "Charles")
    assert charles.stress["physical"] == [True, True, True]
    assert [q.aspect for q in charles.consequences if q.aspect] == ["Gaping Chest Wound"]
    wound = repo.load_table(chicago).find_aspect("Gaping Chest Wound")
    assert wound.free_invokes == {"Ghoul": 1}           # the attacker's free invoke on the consequence
    assert t.post("Charles", "/next Ghoul\n").status == "applied"

    # 3. A very lucky hit: [+][+][+][+] + 2 + the free invoke on the wound = Legendary (+8),
    #    against [-][-][-][-] + 3 = Poor (-1): 9 shifts, more than mild + severe (8) can take.
    third = t.post("GM", '/as Ghoul attack Charles with Fight +invoke "Gaping Chest Wound" free\n', dice="++++")
    assert third.outcome.results[0]["effort"] == 8
    d3 = t.post("Charles", "/defend Athletics\n", dice="----", reply_to=third)
    assert d3.status == "applied", d3.outcome.errors
    assert d3.outcome.results[0]["effort"] == -1 and d3.outcome.results[0]["shifts"] == -9
    assert sheet(chicago, "Charles").taken_out
    assert "Charles is taken out" in d3.text
    assert "The conflict is over: Ghoul wins" in d3.text
    assert "absorb" not in d3.replies[0].subject
    from pbp.play.state import load_play
    from pbp.store import models as m
    play = load_play(m.Campaign.get_by_id(chicago.id).play)
    assert play.conflict is None and play.pending == []
