"""Turn order in conflicts and contests: popcorn (handoff), as a small value.

Fate Condensed, "Turn Order": the table decides who goes first; whoever acts then names who
goes next among those who have not acted this exchange; the GM's characters are picked like
anyone else, and the GM picks among them once one has the turn; when everyone has acted, the
last to act names who opens the next exchange (themselves included). Each character takes
one action (overcome, create an advantage or attack) and one free move per exchange.
Defending is a reaction: it never needs or uses a turn.

By post, a turn has three states (``TurnOrder.phase``):

* ``"turn"``: it is ``current``'s turn and they have not acted yet;
* ``"awaiting_handoff"``: ``current`` has acted and still has to name who goes next
  (``/next NAME``); a player who forgets is reminded, and the GM may hand off for them;
* ``"gm"``: nobody holds the turn (the actor left the conflict); the GM names who goes next.

How handoffs are read:

* ``hand_off`` by the current actor who has not acted yet is a pass: their turn is spent.
* ``hand_off(..., by_gm=True)`` may happen at any time and in any phase (to skip a stalled
  player, or for an NPC). It spends the current actor's turn only if they acted, so a skipped
  player can still be handed the turn later in the exchange.
* The next actor must be someone who has not acted this exchange; once everyone has, the one
  handing off names anyone still in the conflict, and that starts the next exchange.
* Characters taken out or conceding leave the order (``remove``); reinforcements ``join``.

Every function returns a new ``TurnOrder``; refusals are ``RulesError``\\ s (out of turn:
``OutOfTurnError``, also a ``NotAllowedError``) whose message names whose turn it is.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Iterable, Mapping

from pbp.i18n import Msg
from pbp.errors import NotAllowedError, RulesError
from pbp.rules.names import quote

REACTIONS = ("defend",)


class OutOfTurnError(NotAllowedError, RulesError):
    """An action, move or handoff by someone whose turn it is not."""

    depends_on = "turn"


@dataclass(frozen=True)
class TurnOrder:
    """Who is in the exchange, who has acted, whose turn it is."""

    participants: tuple[str, ...]
    current: str | None = None
    acted: tuple[str, ...] = ()      # this exchange, in the order they acted
    exchange: int = 1
    removed: tuple[str, ...] = ()    # taken out or conceded: no longer in the order
    moved: tuple[str, ...] = ()      # who has used their free move this exchange

    @property
    def active(self) -> tuple[str, ...]:
        return tuple(p for p in self.participants if p not in self.removed)

    @property
    def phase(self) -> str:
        if self.current is None:
            return "gm"
        return "awaiting_handoff" if self.current in self.acted else "turn"


# -- building ------------------------------------------------------------------------------

def start_order(participants: Iterable[str], first: str) -> TurnOrder:
    """A new order for ``participants`` with ``first`` holding the first turn."""
    names = tuple(participants)
    keys = [n.casefold() for n in names]
    if len(names) < 2:
        raise RulesError("a conflict needs at least two participants",
                         example='/conflict start Ruth, Ghoul first Ruth')
    dupes = sorted({n for n, k in zip(names, keys) if keys.count(k) > 1})
    if dupes:
        raise RulesError(f"{', '.join(dupes)} listed more than once", expected="each participant once")
    order = TurnOrder(participants=names)
    return replace(order, current=_name(order, first))


def join(order: TurnOrder, who: str) -> TurnOrder:
    """Someone enters the conflict mid-way; they have not acted this exchange."""
    if any(p.casefold() == who.casefold() for p in order.active):
        raise RulesError(f"{who} is already in this conflict", expected="someone not in the conflict yet",
                         example=f"/place {quote(who)} in Dock")
    back = tuple(p for p in order.removed if p.casefold() != who.casefold())
    if len(back) < len(order.removed):
        return replace(order, removed=back)
    return replace(order, participants=order.participants + (who,))


def remove(order: TurnOrder, who: str) -> TurnOrder:
    """Someone leaves the conflict (taken out, conceded). If it was their turn, nobody holds
    it and the GM names who goes next."""
    name = _name(order, who)
    current = None if order.current == name else order.current
    return replace(order, removed=order.removed + (name,), current=current,
                   acted=tuple(a for a in order.acted if a != name))


# -- questions -----------------------------------------------------------------------------

def still_to_act(order: TurnOrder) -> tuple[str, ...]:
    """Those who have not acted this exchange, not counting whoever holds the turn."""
    return tuple(p for p in order.active if p not in order.acted and p != order.current)


def exchange_over(order: TurnOrder) -> bool:
    """Everyone still in the conflict has acted this exchange."""
    return all(p in order.acted for p in order.active)


def uses_turn(action: str) -> bool:
    """Overcome, create an advantage and attack take the turn; a defence is a reaction."""
    return action not in REACTIONS


def default_next(order: TurnOrder) -> str | None:
    """Who a deadline hands the turn to when nobody names anyone: the first still to act in
    the order of the participants, or, at the end of an exchange, the first participant."""
    waiting = still_to_act(order)
    if waiting:
        return waiting[0]
    return order.active[0] if order.active else None


def status_line(order: TurnOrder, labels: Mapping[str, str] | None = None) -> str:
    """One line for every mail, e.g. "Turn: Ruth. Still to act this exchange: Charles, the
    Ghoul." ``labels`` gives display names ("Ghoul" -> "the Ghoul")."""
    label = (lambda n: labels.get(n, n)) if labels else (lambda n: n)
    waiting = ", ".join(label(n) for n in still_to_act(order))
    rest = Msg("Still to act this exchange: {waiting}.", waiting=waiting) if waiting else \
        Msg("Everyone else has acted this exchange.")
    if order.phase == "gm":
        if exchange_over(order):
            return Msg("Exchange {n} is over: the GM names who opens exchange {next}.", n=order.exchange,
                       next=order.exchange + 1)
        return Msg("Turn: nobody; the GM names who goes next. {rest}", rest=rest)
    who = label(order.current)
    if order.phase == "turn":
        return Msg("Turn: {who}. {rest}", who=who, rest=rest)
    if exchange_over(order):
        return Msg("Exchange {n} is over: {who} names who opens exchange {next} (anyone, {who} included).",
                   n=order.exchange, who=who, next=order.exchange + 1)
    return Msg("Turn: {who} has acted and hands off next (/next NAME). {rest}", who=who, rest=rest)


# -- moves ---------------------------------------------------------------------------------

def take_action(order: TurnOrder, who: str, action: str = "action") -> TurnOrder:
    """``who`` takes their action. Refused out of turn or a second time; a defence (a
    reaction) is always allowed and changes nothing."""
    if not uses_turn(action):
        return order
    name = _name(order, who)
    _check_turn(order, name, "act")
    if name in order.acted:
        raise RulesError(f"{name} has already acted this turn; hand off with /next NAME",
                         expected="/next and the name of who goes next",
                         example=f"/next {_example_next(order)}")
    return replace(order, acted=order.acted + (name,))


def take_move(order: TurnOrder, who: str) -> TurnOrder:
    """``who`` uses the free move of their turn (once per exchange, on their turn)."""
    name = _name(order, who)
    _check_turn(order, name, "move")
    if name in order.moved:
        raise RulesError(f"{name} has already moved this exchange; moving again takes an action "
                         "(an overcome the GM sets)", example="/overcome Athletics vs Fair")
    return replace(order, moved=order.moved + (name,))


def hand_off(order: TurnOrder, by: str, to: str, *, by_gm: bool = False) -> TurnOrder:
    """``by`` names ``to`` as the next to act (see the module doc for the rules)."""
    target = _name(order, to)
    acted = order.acted
    if not by_gm:
        if order.current is None:
            raise OutOfTurnError("nobody holds the turn: the GM names who goes next",
                                 expected="the GM to name who goes next", example="/next Ruth")
        name = _name(order, by)
        _check_turn(order, name, "hand off")
        if name not in acted:
            acted = acted + (name,)          # a pass spends the turn
    if all(p in acted for p in order.active):
        return replace(order, current=target, acted=(), moved=(), exchange=order.exchange + 1)
    if target in acted:
        waiting = [p for p in order.active if p not in acted]
        raise RulesError(
            f"{target} has already acted this exchange; still to act: {', '.join(waiting)}",
            expected=f"one of {', '.join(waiting)}", example=f"/next {waiting[0]}",
        )
    if target == order.current:
        raise RulesError(f"it is already {target}'s turn", expected="someone else to hand the turn to",
                         example="/done")
    return replace(order, current=target, acted=acted)


# -- helpers -------------------------------------------------------------------------------

def _name(order: TurnOrder, who: str) -> str:
    key = who.casefold()
    for p in order.participants:
        if p.casefold() == key:
            if p in order.removed:
                raise RulesError(f"{p} is out of this conflict (taken out or conceded)",
                                 expected="someone still in the fight", example="/sheet", depends_on=f"out:{p}")
            return p
    raise RulesError(
        f"{who} is not in this conflict (participants: {', '.join(order.active)})",
        expected=f"one of {', '.join(order.active)}",
        example=f"/next {order.active[0]}" if order.active else "",
    )


def _check_turn(order: TurnOrder, name: str, doing: str) -> None:
    if order.current == name:
        return
    if order.current is None:
        raise OutOfTurnError(f"it is not {name}'s turn: nobody holds the turn, the GM names who goes next",
                             expected=f"the GM to hand the turn to {name}", example=f"/next {quote(name)}",
                             hint="a defence is a reaction and needs no turn")
    state = " (who has acted and must hand off with /next)" if order.phase == "awaiting_handoff" else ""
    raise OutOfTurnError(
        f"it is {order.current}'s turn{state}, not {name}'s: {name} cannot {doing} now",
        expected=f"wait for {order.current} to hand off to {name}", example=f"/next {quote(name)}",
        hint="a defence is a reaction and needs no turn",
    )


def _example_next(order: TurnOrder) -> str:
    waiting = still_to_act(order)
    return waiting[0] if waiting else (order.active[0] if order.active else "NAME")
