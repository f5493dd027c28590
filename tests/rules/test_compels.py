"""Compels (004_c619695e1641b466.txt, "Compelling an Aspect"; 000_7ba3f797fc1d45d3.txt,
"Your Fate Points"):

* "the GM or a player offers a fate point to the player whose character is being
  compelled";
* events: "If you REFUSE the event compel, you must spend a fate point from your own
  supply ... If you don't have any fate points, you can't refuse";
* decisions "are OFFERED, not imposed, and it does not cost a fate point to refuse them";
* "ANYONE CAN OFFER A COMPEL. The player proposing the compel must spend one of their own
  fate points. The GM then takes over running the compel";
* "The GM does not lose a fate point by offering a compel";
* "Compels can be retroactive ... they can ask the GM if that counts as a self-compel. If
  the group agrees, the GM slides the player a fate point";
* "It's okay to recognize a compel as off-the-mark and withdraw it ... at no cost to the
  compelled character";
* the GM may spend pool points to "refuse compels that the players offer NPCs".
"""
from datetime import datetime, timedelta

import pytest

from pbp.errors import NotAllowedError, RulesError, UnknownNameError
from pbp.rules import compels as c
from pbp.rules.aspects import add_situation_aspect
from pbp.rules.compels import CompelKind, CompelState
from pbp.rules.fate_points import GM, FateLedger
from pbp.rules.results import Change

from .builders import make_table

NOW = datetime(2026, 11, 29, 18, 0)
LATER = NOW + timedelta(hours=1)
DEADLINE = NOW + timedelta(days=1)
TEMPER = "Hair-Trigger Temper"
JIBE = "The bouncer's jibe sets you off"


def fp(table, name):
    return table.character(name).fate_points


def gm_compel(table, kind="event", **kw):
    return c.offer(table, 1, "Ruth", TEMPER, kind, JIBE, NOW, deadline=DEADLINE, **kw).compel


def charles_compels_ruth(table, kind="event"):
    return c.offer(table, 2, "Ruth", TEMPER, kind, JIBE, NOW, proposer="Charles", deadline=DEADLINE)


# -- the GM's compel ------------------------------------------------------------------------

def test_a_gm_compel_accepted():
    table = make_table()
    opened = c.offer(table, 1, "Ruth", TEMPER, "event", JIBE, NOW, deadline=DEADLINE)
    assert opened.after is CompelState.OFFERED and opened.changes == ()
    assert opened.tell == ("Ruth", GM)
    compel = opened.compel
    assert (compel.kind, compel.proposer, compel.aspect) == (CompelKind.EVENT, GM, TEMPER)

    done = c.accept(compel, table, "Ruth", LATER)
    assert (done.before, done.after) == (CompelState.OFFERED, CompelState.ACCEPTED)
    assert done.changes == (Change("fate_points", "Ruth", 3, 4, "compel #1 accepted"),)
    assert fp(table, "Ruth") == 4
    assert [s.verb for s in compel.history] == ["offer", "accept"]


def test_an_event_compel_refused_with_the_point_paid():
    table = make_table()
    compel = gm_compel(table)
    done = c.refuse(compel, table, "Ruth", LATER)
    assert done.after is CompelState.REFUSED
    assert done.changes == (Change("fate_points", "Ruth", 3, 2, "refusing compel #1"),)


def test_an_event_compel_refused_at_zero_points_stands():
    """"If you don't have any fate points, you can't refuse": the refusal is refused with a
    message and the compel stays offered, to be accepted (or accepted at the deadline)."""
    table = make_table()
    table.character("Ruth").fate_points = 0
    compel = gm_compel(table)
    with pytest.raises(RulesError, match="cannot refuse an event compel with no fate points; it stands") as info:
        c.refuse(compel, table, "Ruth", LATER)
    assert info.value.expected.startswith("/accept") and info.value.example == "/accept #1"
    assert compel.state is CompelState.OFFERED and fp(table, "Ruth") == 0 and len(compel.history) == 1
    c.accept(compel, table, "Ruth", LATER)
    assert fp(table, "Ruth") == 1


def test_a_decision_compel_is_free_to_refuse():
    table = make_table()
    table.character("Ruth").fate_points = 0
    compel = gm_compel(table, kind="decision")
    done = c.refuse(compel, table, "Ruth", LATER)
    assert done.after is CompelState.REFUSED and done.changes == () and fp(table, "Ruth") == 0


# -- a player's compel ----------------------------------------------------------------------

def test_a_player_compel_waits_for_the_gm_then_is_approved_and_accepted():
    """Charles pays his point at once (escrow); the GM approves; Ruth accepts and gets
    Charles's point."""
    table = make_table()
    opened = charles_compels_ruth(table)
    compel = opened.compel
    assert opened.after is CompelState.AWAITING_GM and compel.escrow == 1
    assert opened.changes == (Change("fate_points", "Charles", 3, 2, "offering compel #2"),
                              Change("escrow", "compel #2", 0, 1, "held from Charles"))
    assert opened.tell == (GM, "Charles")

    approved = c.approve(compel, table, GM, LATER, deadline=LATER + timedelta(days=1))
    assert approved.after is CompelState.OFFERED and approved.changes == ()
    assert approved.tell == ("Ruth", "Charles", GM) and compel.deadline == LATER + timedelta(days=1)

    done = c.accept(compel, table, "Ruth", LATER)
    assert done.changes == (Change("escrow", "compel #2", 1, 0, "to Ruth"),
                            Change("fate_points", "Ruth", 3, 4, "compel #2 accepted"))
    assert (fp(table, "Charles"), fp(table, "Ruth"), compel.escrow) == (2, 4, 0)


def test_a_denied_player_compel_returns_the_proposers_point():
    table = make_table()
    compel = charles_compels_ruth(table).compel
    done = c.deny(compel, table, GM, LATER, reason="Ruth isn't there")
    assert done.after is CompelState.DENIED and fp(table, "Charles") == 3 and compel.escrow == 0
    assert done.changes[-1] == Change("fate_points", "Charles", 2, 3, "compel #2 not taken: escrow returned")
    assert done.tell == ("Charles", GM)


def test_a_refused_player_compel_costs_the_target_and_returns_the_escrow():
    table = make_table()
    compel = charles_compels_ruth(table).compel
    c.approve(compel, table, GM, LATER)
    done = c.refuse(compel, table, "Ruth", LATER)
    assert (fp(table, "Ruth"), fp(table, "Charles")) == (2, 3)
    assert [ch.what for ch in done.changes] == ["fate_points", "escrow", "fate_points"]


def test_a_player_needs_a_point_to_offer_a_compel():
    table = make_table()
    table.character("Charles").fate_points = 0
    with pytest.raises(RulesError, match="^Charles has 0 fate points"):
        charles_compels_ruth(table)


def test_a_retroactive_self_compel():
    table = make_table()
    opened = c.offer(table, 3, "Ruth", TEMPER, "decision", "I punched the bouncer", NOW, proposer="Ruth")
    compel = opened.compel
    assert compel.self_compel and opened.after is CompelState.AWAITING_GM and opened.changes == ()
    done = c.approve(compel, table, GM, LATER)
    assert done.after is CompelState.ACCEPTED
    assert done.changes == (Change("fate_points", "Ruth", 3, 4, "self-compel #3 approved"),)


def test_a_denied_self_compel_costs_nothing():
    table = make_table()
    compel = c.offer(table, 3, "Ruth", TEMPER, "decision", "I punched the bouncer", NOW, proposer="Ruth").compel
    done = c.deny(compel, table, GM, LATER)
    assert done.after is CompelState.DENIED and done.changes == () and fp(table, "Ruth") == 3


def test_a_self_compel_is_on_your_own_or_the_scene_s_aspects():
    table = make_table()
    c.offer(table, 3, "Ruth", "Deep Shadows", "event", "I tripped in the dark", NOW, proposer="Ruth")
    with pytest.raises(RulesError, match="Hungry is Ghoul's aspect"):
        c.offer(table, 4, "Ruth", "Hungry", "event", "...", NOW, proposer="Ruth")


# -- withdrawal -----------------------------------------------------------------------------

def test_the_gm_withdraws_an_off_the_mark_compel_at_no_cost():
    table = make_table()
    compel = charles_compels_ruth(table).compel
    c.approve(compel, table, GM, LATER)
    done = c.withdraw(compel, table, GM, LATER, reason="off the mark")
    assert done.after is CompelState.WITHDRAWN
    assert (fp(table, "Ruth"), fp(table, "Charles")) == (3, 3)
    assert done.tell == ("Ruth", "Charles", GM)


def test_the_proposer_withdraws_with_the_gm_s_agreement():
    table = make_table()
    compel = charles_compels_ruth(table).compel
    c.approve(compel, table, GM, LATER)
    with pytest.raises(NotAllowedError, match="needs the GM's agreement"):
        c.withdraw(compel, table, "Charles", LATER)
    c.withdraw(compel, table, "Charles", LATER, gm_agrees=True)
    assert compel.state is CompelState.WITHDRAWN and fp(table, "Charles") == 3


def test_the_proposer_may_take_back_an_unapproved_request():
    table = make_table()
    compel = charles_compels_ruth(table).compel
    c.withdraw(compel, table, "Charles", LATER)
    assert compel.state is CompelState.WITHDRAWN and fp(table, "Charles") == 3


def test_nobody_else_withdraws():
    table = make_table()
    compel = charles_compels_ruth(table).compel
    with pytest.raises(NotAllowedError, match="only the GM or Charles"):
        c.withdraw(compel, table, "Ruth", LATER)


# -- deadlines and reminders ----------------------------------------------------------------

def test_an_offered_compel_is_accepted_at_the_deadline():
    table = make_table()
    compel = gm_compel(table)
    assert c.expire(compel, table, DEADLINE - timedelta(seconds=1)) is None
    done = c.expire(compel, table, DEADLINE)
    assert done.after is CompelState.ACCEPTED and fp(table, "Ruth") == 4
    assert compel.history[-1].by == c.DEADLINE and "default" in compel.history[-1].note
    assert c.expire(compel, table, DEADLINE + timedelta(days=3)) is None


def test_a_request_awaiting_the_gm_is_denied_at_the_deadline():
    table = make_table()
    compel = charles_compels_ruth(table).compel
    done = c.expire(compel, table, DEADLINE)
    assert done.after is CompelState.DENIED and fp(table, "Charles") == 3 and compel.escrow == 0


def test_a_reminder_once_within_the_lead():
    table = make_table()
    compel = gm_compel(table)
    lead = timedelta(hours=6)
    assert not c.reminder_due(compel, DEADLINE - timedelta(hours=7), lead)
    assert c.reminder_due(compel, DEADLINE - timedelta(hours=5), lead)
    assert c.mark_reminded(compel, DEADLINE - timedelta(hours=5)) == ("Ruth",)
    assert not c.reminder_due(compel, DEADLINE - timedelta(hours=4), lead)
    assert not c.reminder_due(gm_compel(make_table()), DEADLINE, lead)


# -- NPC targets ----------------------------------------------------------------------------

def test_a_player_compel_on_an_npc_accepted_puts_the_point_in_the_gm_s_pool():
    table, ledger = make_table(), FateLedger(gm_pool=2)
    compel = c.offer(table, 5, "Ghoul", "Hungry", "decision", "It stops to feed", NOW, proposer="Ruth").compel
    assert compel.npc_target and compel.answerer == GM
    c.approve(compel, table, GM, LATER)
    with pytest.raises(NotAllowedError, match="for the GM to answer"):
        c.accept(compel, table, "Ruth", LATER, ledger)
    done = c.accept(compel, table, GM, LATER, ledger)
    assert ledger.gm_pool == 3 and fp(table, "Ruth") == 2
    assert done.tell == (GM, "Ruth")


def test_refusing_an_event_compel_on_an_npc_costs_the_gm_s_pool():
    table, ledger = make_table(), FateLedger(gm_pool=1)
    compel = c.offer(table, 5, "Ghoul", "Hungry", "event", "It smells Ruth's lunch", NOW, proposer="Ruth").compel
    c.approve(compel, table, GM, LATER)
    c.refuse(compel, table, GM, LATER, ledger)
    assert ledger.gm_pool == 0 and fp(table, "Ruth") == 3


def test_an_empty_pool_cannot_refuse_an_event_compel():
    table, ledger = make_table(), FateLedger(gm_pool=0)
    compel = c.offer(table, 5, "Ghoul", "Hungry", "event", "It smells Ruth's lunch", NOW, proposer="Ruth").compel
    c.approve(compel, table, GM, LATER)
    with pytest.raises(RulesError, match="the GM's pool has no fate points: cannot refuse"):
        c.refuse(compel, table, GM, LATER, ledger)
    assert compel.state is CompelState.OFFERED and fp(table, "Ruth") == 2


def test_the_gm_does_not_compel_their_own_npcs():
    with pytest.raises(RulesError, match="the GM's own character"):
        c.offer(make_table(), 6, "Ghoul", "Hungry", "event", "...", NOW)


def test_an_npc_s_compel_is_the_gm_s_and_free():
    table = make_table()
    compel = c.offer(table, 7, "Ruth", TEMPER, "event", JIBE, NOW, proposer="Ghoul").compel
    assert compel.proposer == GM and compel.state is CompelState.OFFERED and fp(table, "Ghoul") == 1


# -- invalid transitions --------------------------------------------------------------------

def test_an_already_refused_compel_cannot_be_accepted():
    table = make_table()
    compel = gm_compel(table)
    c.refuse(compel, table, "Ruth", LATER)
    with pytest.raises(RulesError, match="compel #1 is already refused; it cannot be accepted") as info:
        c.accept(compel, table, "Ruth", LATER)
    assert info.value.expected and info.value.example
    assert fp(table, "Ruth") == 2


def test_only_the_gm_approves():
    table = make_table()
    compel = charles_compels_ruth(table).compel
    with pytest.raises(NotAllowedError, match="only the GM can approve compel #2") as info:
        c.approve(compel, table, "Charles", LATER)
    assert info.value.example == "/approve #2" and compel.state is CompelState.AWAITING_GM


def test_only_the_target_answers():
    table = make_table()
    compel = gm_compel(table)
    with pytest.raises(NotAllowedError, match="Ruth's player"):
        c.accept(compel, table, "Charles", LATER)
    with pytest.raises(NotAllowedError):
        c.refuse(compel, table, GM, LATER)


def test_a_request_cannot_be_accepted_before_the_gm_approves():
    table = make_table()
    compel = charles_compels_ruth(table).compel
    with pytest.raises(RulesError, match="waiting for the GM's approval") as info:
        c.accept(compel, table, "Ruth", LATER)
    assert info.value.example == "/approve #2"


def test_boosts_cannot_be_compelled():
    table = make_table()
    add_situation_aspect(table, "Off Balance", kind="boost", free=1, holder="Ruth")
    with pytest.raises(RulesError, match="a boost cannot be compelled"):
        c.offer(table, 8, "Ruth", "Off Balance", "event", "...", NOW)


def test_unknown_kind_aspect_and_target():
    table = make_table()
    with pytest.raises(RulesError, match='"whim" is not a kind of compel'):
        c.offer(table, 9, "Ruth", TEMPER, "whim", JIBE, NOW)
    with pytest.raises(UnknownNameError):
        c.offer(table, 9, "Ruht", TEMPER, "event", JIBE, NOW)
    with pytest.raises(UnknownNameError):
        c.offer(table, 9, "Ruth", "Hair Trigger", "event", JIBE, NOW)
    with pytest.raises(RulesError, match="says what goes wrong"):
        c.offer(table, 9, "Ruth", TEMPER, "event", " ", NOW)


def test_a_gm_compel_on_a_hidden_aspect_reveals_it():
    """The compel names it to the table: from then on everyone knows it (as after an invoke)."""
    table = make_table()
    secret, _ = add_situation_aspect(table, "Cursed Blood", owner="Ruth", hidden=True)
    opened = c.offer(table, 1, "Ruth", "Cursed Blood", "event", "The moon rises", NOW, deadline=DEADLINE)
    assert not secret.hidden
    assert opened.changes == (Change("aspect", "Cursed Blood", "hidden", "revealed", "on Ruth"),)
