"""Popcorn turn order (Fate Condensed, "Turn Order"; 001_0095f60d590caa10.txt) as a pure
sequence of actions and handoffs."""
import pytest

from pbp.errors import NotAllowedError, RulesError
from pbp.rules.turns import (
    OutOfTurnError, default_next, exchange_over, hand_off, join, remove, start_order, status_line,
    still_to_act, take_action, take_move,
)

CULTISTS = ("Cassandra", "Ruth", "Masked Acolyte", "Cultist 1", "Cultist 2")


def test_cassandra_and_ruth_against_the_cultists():
    """"Turn Order", Cassandra and Ruth: the PCs go first; Cassandra creates an advantage and
    hands off to Ruth; Ruth attacks and, every PC having acted, must pick a cultist: the
    masked acolyte. The GM runs the cultists to the end of the exchange, then names the
    acolyte to open the next one."""
    order = start_order(CULTISTS, first="Cassandra")
    assert order.phase == "turn" and order.current == "Cassandra" and order.exchange == 1

    order = take_action(order, "Cassandra", "advantage")                  # Distracted
    assert order.phase == "awaiting_handoff"
    order = hand_off(order, "Cassandra", "Ruth")
    order = take_action(order, "Ruth", "attack")                          # the dagger
    assert still_to_act(order) == ("Masked Acolyte", "Cultist 1", "Cultist 2")
    with pytest.raises(RulesError, match="Cassandra has already acted this exchange"):
        hand_off(order, "Ruth", "Cassandra")
    order = hand_off(order, "Ruth", "Masked Acolyte")

    order = take_action(order, "Masked Acolyte", "attack")
    order = hand_off(order, "Masked Acolyte", "Cultist 1")                # the GM, for the acolyte
    order = take_action(order, "Cultist 1", "attack")
    order = hand_off(order, "Cultist 1", "Cultist 2")
    order = take_action(order, "Cultist 2", "attack")
    assert exchange_over(order) and still_to_act(order) == ()
    assert status_line(order) == ("Exchange 1 is over: Cultist 2 names who opens exchange 2 "
                                  "(anyone, Cultist 2 included).")

    order = hand_off(order, "Cultist 2", "Masked Acolyte")
    assert (order.exchange, order.current, order.acted) == (2, "Masked Acolyte", ())
    assert order.phase == "turn"


def test_acting_out_of_turn_is_refused_naming_whose_turn_it_is():
    """Each character acts on their own turn; the refusal says whose turn it is."""
    order = start_order(("Ruth", "Charles", "Ghoul"), "Ruth")
    with pytest.raises(OutOfTurnError, match="it is Ruth's turn, not Charles's") as err:
        take_action(order, "Charles", "attack")
    assert isinstance(err.value, RulesError) and isinstance(err.value, NotAllowedError)
    with pytest.raises(OutOfTurnError, match="Ruth's turn"):
        hand_off(order, "Charles", "Ghoul")
    with pytest.raises(OutOfTurnError):
        take_move(order, "Ghoul")


def test_defence_is_a_reaction_and_uses_no_turn():
    """"Because defending is a reaction ... characters can defend as many times as they need
    to during other characters' turns"."""
    order = start_order(("Ruth", "Charles", "Ghoul"), "Ghoul")
    assert take_action(order, "Charles", "defend") == order
    assert take_action(take_action(order, "Ruth", "defend"), "Ruth", "defend") == order


def test_one_action_per_turn_and_the_forgotten_handoff():
    """One action per exchange. A player who acts and forgets /next leaves the turn "awaiting
    handoff": a second action is refused, the status line says so, and the GM may hand off."""
    order = take_action(start_order(("Ruth", "Charles", "Ghoul"), "Ruth"), "Ruth", "attack")
    with pytest.raises(RulesError, match="Ruth has already acted this turn; hand off with /next"):
        take_action(order, "Ruth", "attack")
    assert status_line(order, {"Ghoul": "the Ghoul"}) == (
        "Turn: Ruth has acted and hands off next (/next NAME). Still to act this exchange: Charles, the Ghoul.")
    with pytest.raises(OutOfTurnError, match="it is Ruth's turn \\(who has acted and must hand off"):
        take_action(order, "Charles", "attack")
    assert default_next(order) == "Charles"
    order = hand_off(order, "GM", "Charles", by_gm=True)
    assert order.current == "Charles" and order.acted == ("Ruth",)
    assert status_line(order, {"Ghoul": "the Ghoul"}) == "Turn: Charles. Still to act this exchange: the Ghoul."


def test_the_gm_can_skip_a_stalled_player_who_keeps_their_turn():
    """The GM may hand off at any time; a skipped player has not acted and can still be named."""
    order = start_order(("Ruth", "Charles", "Ghoul"), "Charles")
    order = hand_off(order, "GM", "Ghoul", by_gm=True)
    assert order.acted == () and "Charles" in still_to_act(order)
    order = hand_off(take_action(order, "Ghoul", "attack"), "Ghoul", "Charles")
    assert order.current == "Charles"


def test_a_handoff_without_acting_is_a_pass():
    """Handing off before acting spends the turn: the passer cannot be named again this
    exchange."""
    order = hand_off(start_order(("Ruth", "Charles", "Ghoul"), "Ruth"), "Ruth", "Charles")
    assert order.acted == ("Ruth",)
    with pytest.raises(RulesError, match="Ruth has already acted this exchange; still to act: Ghoul"):
        hand_off(take_action(order, "Charles"), "Charles", "Ruth")


def test_the_last_actor_may_open_the_next_exchange_themselves():
    """"After everyone has taken a turn, the last player picks who goes next at the start of
    the next exchange" (themselves included)."""
    order = start_order(("Ruth", "Ghoul"), "Ruth")
    order = hand_off(take_action(order, "Ruth"), "Ruth", "Ghoul")
    order = hand_off(take_action(order, "Ghoul"), "Ghoul", "Ghoul")
    assert (order.exchange, order.current) == (2, "Ghoul")


def test_npcs_act_in_a_row_for_the_gm():
    """"The GM deciding who goes next after the NPCs have acted": NPC to NPC handoffs."""
    order = start_order(("Ruth", "Ghoul", "Cultist"), "Ghoul")
    order = hand_off(take_action(order, "Ghoul"), "Ghoul", "Cultist")
    order = take_action(order, "Cultist")
    assert still_to_act(order) == ("Ruth",)
    order = hand_off(order, "Cultist", "Ruth")
    assert order.current == "Ruth"


def test_participants_leaving_mid_exchange():
    """Taken out or conceded, a character leaves the order; if they held the turn the GM names
    who goes next; once the rest have acted the exchange is over without them."""
    order = start_order(("Ruth", "Charles", "Ghoul"), "Ruth")
    order = hand_off(take_action(order, "Ruth"), "Ruth", "Charles")
    order = remove(order, "Charles")                                     # concedes on his turn
    assert order.phase == "gm" and order.current is None
    assert status_line(order) == "Turn: nobody; the GM names who goes next. Still to act this exchange: Ghoul."
    with pytest.raises(OutOfTurnError):
        hand_off(order, "Ruth", "Ghoul")
    with pytest.raises(RulesError, match="out of this conflict"):
        hand_off(order, "GM", "Charles", by_gm=True)
    order = hand_off(order, "GM", "Ghoul", by_gm=True)
    order = take_action(order, "Ghoul")
    assert exchange_over(order)
    order = remove(order, "Ruth")                                        # taken out, already acted
    assert order.acted == ("Ghoul",) and exchange_over(order)
    order = hand_off(order, "Ghoul", "Ghoul")
    assert order.exchange == 2 and order.active == ("Ghoul",)


def test_reinforcements_join_and_have_not_acted():
    order = take_action(start_order(("Ruth", "Ghoul"), "Ruth"), "Ruth")
    order = join(order, "Cultist")
    assert still_to_act(order) == ("Ghoul", "Cultist")
    with pytest.raises(RulesError, match="already in this conflict"):
        join(order, "ruth")


def test_one_free_move_per_exchange_on_your_turn():
    """"In an exchange, each involved character can ... move once"."""
    order = start_order(("Ruth", "Ghoul"), "Ruth")
    order = take_move(order, "Ruth")
    with pytest.raises(RulesError, match="already moved this exchange"):
        take_move(order, "Ruth")
    order = hand_off(take_action(order, "Ruth"), "Ruth", "Ghoul")
    order = hand_off(take_action(order, "Ghoul"), "Ghoul", "Ruth")
    assert order.exchange == 2 and order.moved == ()
    assert take_move(order, "Ruth").moved == ("Ruth",)


def test_names_are_checked():
    with pytest.raises(RulesError, match="not in this conflict"):
        start_order(("Ruth", "Ghoul"), "Cthulhu")
    with pytest.raises(RulesError, match="more than once"):
        start_order(("Ruth", "ruth", "Ghoul"), "Ruth")
    order = start_order(("Ruth", "Ghoul"), "ruth")
    assert order.current == "Ruth"
