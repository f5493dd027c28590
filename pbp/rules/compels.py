"""Compels as an explicit state machine, played by post.

"To compel an aspect, the GM or a player offers a fate point to the player whose character
is being compelled." By mail nobody answers at once, so a compel is a record with an id
(given by the caller), a state, a deadline and a history, and each answer is a transition::

    GM's compel:          offered --accept--> accepted (the target gains a new point)
                                  --refuse--> refused  (event: the target pays a point;
                                                        decision: free)
    player's compel:      awaiting_gm --approve--> offered --> (as above)
    (proposer pays now,              --deny-----> denied   (the point goes back)
     the point in escrow)
    self-compel:          awaiting_gm --approve--> accepted (the player gains a point)
                                      --deny-----> denied
    any open compel:      --withdraw--> withdrawn (at no cost; escrow goes back)

Every transition checks everything first, then moves the fate points and the state
together, and returns a ``Transition``: the ``Change``\\ s and the parties to tell (character
names, and ``GM``). A transition the rules or the asker may not make raises
``RulesError`` / ``NotAllowedError`` and changes nothing.

Readings of the rules text (004, "Compelling an Aspect"; 000, "Your Fate Points"):

* The point is awarded when the compel is accepted: accepting is agreeing that the
  complication lands, and the mail that says so is the moment both happen.
* "If you don't have any fate points, you can't refuse" an event: a refusal at zero points
  is refused with a message and the compel stays offered (the player may still accept it,
  or the deadline accepts it for them). Decisions are "offered, not imposed": free to
  refuse.
* A player's compel: the proposer "must spend one of their own fate points" when
  proposing; it is held in escrow. Accepted, that point goes to the target (it is the
  point "offered to the player"). Refused, denied or withdrawn, the offer was not taken
  and the point goes back to the proposer; an event's refusal is paid by the target from
  their own supply, to nobody.
* NPC targets: the GM answers for them. An accepted player compel puts the point in the
  GM's pool; refusing an event compel costs the GM's pool a point ("refuse compels that
  the players offer NPCs ... exactly as the players do"), so refusing a decision compel is
  free for the GM too. The GM does not compel their own NPCs.
* A compel offered by an NPC is the GM's compel (free). A player's retroactive
  self-compel must be on one of their own aspects or on an aspect that is on nobody
  (the scene, a zone) - "a situation aspect that concerns them".
* Withdrawing ("off-the-mark"): the GM may withdraw any open compel; its proposer may
  withdraw a request the GM has not yet approved, and an offered one only with the GM's
  agreement (``gm_agrees``), since the group has to agree.
* Deadlines: an offered compel is accepted when its deadline passes (the complication
  happens, the target is paid); a compel awaiting the GM is denied (escrow returned).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from enum import Enum

from pbp.errors import NotAllowedError, RulesError
from pbp.i18n import Msg
from pbp.rules.aspects import compellable
from pbp.rules.bookkeeping import revealed
from pbp.rules.fate_points import GM, FateLedger, gain_fate_points, gm_gain, gm_spend, spend_fate_point
from pbp.rules.names import find_character, same_name
from pbp.rules.results import Change
from pbp.rules.state import Character, Table

DEADLINE = "deadline"
"""The ``by`` of a step taken because a deadline passed."""


class CompelKind(str, Enum):
    EVENT = "event"          # something happens to the character: refusing costs a point
    DECISION = "decision"    # the character chooses to do something: free to refuse


class CompelState(str, Enum):
    AWAITING_GM = "awaiting_gm"
    OFFERED = "offered"
    ACCEPTED = "accepted"
    REFUSED = "refused"
    DENIED = "denied"
    WITHDRAWN = "withdrawn"


OPEN = frozenset({CompelState.AWAITING_GM, CompelState.OFFERED})


@dataclass(frozen=True)
class Step:
    """One line of a compel's history."""

    at: datetime
    by: str
    verb: str
    state: CompelState
    note: str = ""


@dataclass
class CompelRecord:
    """One compel. ``proposer`` is ``GM`` or the proposing player's character; ``escrow``
    is the proposer's point held until the compel is settled."""

    id: int
    kind: CompelKind
    target: str
    aspect: str
    text: str
    proposer: str
    state: CompelState
    opened_at: datetime
    deadline: datetime | None = None
    escrow: int = 0
    npc_target: bool = False
    reminded_at: datetime | None = None
    history: list[Step] = field(default_factory=list)

    @property
    def self_compel(self) -> bool:
        return same_name(self.proposer, self.target)

    @property
    def is_open(self) -> bool:
        return self.state in OPEN

    @property
    def answerer(self) -> str:
        """Who answers an offered compel: the target's player, or the GM for an NPC."""
        return GM if self.npc_target else self.target

    def parties(self) -> tuple[str, ...]:
        """Everyone this compel concerns, the GM last (an NPC target is the GM)."""
        names = [self.answerer, self.proposer, GM]
        return tuple(dict.fromkeys(names))


@dataclass(frozen=True)
class Transition:
    """What one answer did: the compel after it, the state before and after, the changes
    made (fate points and escrow together) and who must be told."""

    compel: CompelRecord
    verb: str
    before: CompelState | None
    after: CompelState
    changes: tuple[Change, ...]
    tell: tuple[str, ...]
    text: str


# -- opening a compel -----------------------------------------------------------------------

def offer(table: Table, id: int, target: str, aspect: str, kind: str | CompelKind, text: str,
          now: datetime, proposer: str = GM, deadline: datetime | None = None, *, system=None) -> Transition:
    """Open a compel: the GM's is offered at once and free; a player's on another character
    costs the proposer a point now (escrow) and waits for the GM; a player's on their own
    character is a retroactive self-compel and waits for the GM."""
    kind = _kind(kind)
    victim = find_character(table, target)
    by = _proposer(table, proposer)
    if not text.strip():
        raise RulesError("a compel says what goes wrong", expected="the complication in quotes",
                         example=f'/compel {victim.name} "{aspect}" {kind.value} "The bouncer\'s jibe sets you off"')
    if by == GM and victim.kind != "pc":
        raise RulesError(f"{victim.name} is the GM's own character: an NPC's complication needs no compel",
                         expected="a player's character as the target",
                         example=f'/compel Ruth "{aspect}" {kind.value} "{text}"')
    found = compellable(table, aspect, GM if by == GM else by, system=system)
    self_compel = same_name(by, victim.name)
    if self_compel and found.owner is not None and not same_name(found.owner, victim.name):
        raise RulesError(
            f"{found.name} is {found.owner}'s aspect; a self-compel is on your own aspects or on the scene's",
            expected="one of your aspects, or a situation aspect that concerns you",
            example=f'/compel me "Hair-Trigger Temper" {kind.value} "{text}"',
        )
    compel = CompelRecord(id, kind, victim.name, found.name, text, by, CompelState.OFFERED, now, deadline,
                    npc_target=victim.kind != "pc")
    changes: list[Change] = []
    if by == GM:
        note, tell = "offered by the GM", (compel.answerer, GM)
        said = f"the GM compels {victim.name}'s {found.name} ({kind.value}): accept for a fate point, or refuse"
    elif self_compel:
        compel.state = CompelState.AWAITING_GM
        note, tell = "a retroactive self-compel", (GM, by)
        said = f"{by} asks the GM to count {found.name} as a self-compel"
    else:
        payer = find_character(table, by)
        changes.append(spend_fate_point(payer, f"offering compel #{id}"))
        compel.escrow = 1
        changes.append(Change("escrow", Msg("compel #{id}", id=id), 0, 1, Msg("held from {who}", who=by)))
        compel.state = CompelState.AWAITING_GM
        note, tell = f"{by}'s point held in escrow", (GM, by)
        said = f"{by} proposes a compel on {victim.name}'s {found.name} ({kind.value}); the GM approves or denies"
    if found.hidden:
        # The compel names it to the table: from now on everyone knows it, as after an invoke.
        changes.append(revealed(found))
    compel.history.append(Step(now, by, "offer", compel.state, note))
    return Transition(compel, "offer", None, compel.state, tuple(changes), tell, said)


def _kind(kind: str | CompelKind) -> CompelKind:
    try:
        return CompelKind(kind)
    except ValueError:
        raise RulesError(f'"{kind}" is not a kind of compel', expected="event or decision",
                         example='/compel Ruth "Hair-Trigger Temper" event "The bouncer\'s jibe sets you off"') from None


def _proposer(table: Table, proposer: str) -> str:
    """``GM``, or the proposing PC's name; an NPC proposing is the GM proposing."""
    if proposer == GM:
        return GM
    who = find_character(table, proposer)
    return who.name if who.kind == "pc" else GM


# -- the GM's answers -----------------------------------------------------------------------

def approve(compel: CompelRecord, table: Table, by: str, now: datetime,
            deadline: datetime | None = None) -> Transition:
    """The GM approves a request: a player's compel is offered to its target (``deadline``
    for their answer); a self-compel is settled, the player gaining a point."""
    _gm_only(compel, by, "approve")
    _expect(compel, CompelState.AWAITING_GM, "approved")
    if compel.self_compel:
        target = find_character(table, compel.target)
        change = gain_fate_points(target, 1, f"self-compel #{compel.id} approved")
        return _move(compel, now, GM, "approve", CompelState.ACCEPTED, [change], (compel.target, GM),
                     Msg("the GM counts it as a compel: {who} gains a fate point", who=compel.target))
    if deadline is not None:
        compel.deadline = deadline
    return _move(compel, now, GM, "approve", CompelState.OFFERED, [], compel.parties(),
                 Msg("the GM approves {proposer}'s compel on {target}'s {aspect}: {who} accepts or refuses",
                     proposer=compel.proposer, target=compel.target, aspect=compel.aspect,
                     who=Msg("the GM") if compel.npc_target else compel.target))


def deny(compel: CompelRecord, table: Table, by: str, now: datetime, reason: str = "") -> Transition:
    """The GM denies a request; a proposer's escrowed point goes back to them."""
    _gm_only(compel, by, "deny")
    _expect(compel, CompelState.AWAITING_GM, "denied")
    return _close_returning(compel, table, now, by, "deny", CompelState.DENIED, reason,
                            Msg("the GM denies compel #{id}: {reason}", id=compel.id, reason=reason) if reason else
                            Msg("the GM denies compel #{id}", id=compel.id))


# -- the target's answers -------------------------------------------------------------------

def accept(compel: CompelRecord, table: Table, by: str, now: datetime,
           ledger: FateLedger | None = None) -> Transition:
    """The target accepts: the complication happens and they gain the point (a player's
    escrowed point, or a new one from the GM). An NPC's point goes to the GM's pool."""
    _answerer_only(compel, by, "accept")
    _expect(compel, CompelState.OFFERED, "accepted")
    return _accepted(compel, table, now, by, ledger, "accept")


def refuse(compel: CompelRecord, table: Table, by: str, now: datetime,
           ledger: FateLedger | None = None) -> Transition:
    """The target refuses: an event costs them a point (refused, and the compel stands, at
    zero points); a decision is free. A proposer's escrowed point goes back to them."""
    _answerer_only(compel, by, "refuse")
    _expect(compel, CompelState.OFFERED, "refused")
    if compel.kind is CompelKind.DECISION:
        return _close_returning(compel, table, now, by, "refuse", CompelState.REFUSED, "a decision, free to refuse",
                                Msg("{who} refuses the compel on {aspect}", who=compel.target, aspect=compel.aspect))
    proposer = _escrow_owner(compel, table)
    cost = _refusal_cost(compel, table, ledger)   # raises, changing nothing, at zero points
    changes = [cost, *_return_escrow(compel, proposer)]
    return _move(compel, now, by, "refuse", CompelState.REFUSED, changes, compel.parties(),
                 Msg("{who} refuses the compel on {aspect} and pays a fate point", who=compel.target,
                     aspect=compel.aspect),
                 "an event: the refusal costs a point")


def _refusal_cost(compel: CompelRecord, table: Table, ledger: FateLedger | None) -> Change:
    why = f"refusing compel #{compel.id}"
    if compel.npc_target:
        pool = _ledger(ledger, compel).gm_pool
        if pool < 1:
            raise _stands(compel, "the GM's pool has no fate points", by=GM)
        return gm_spend(ledger, f"{why} ({compel.target})")
    target = find_character(table, compel.target)
    if target.fate_points < 1:
        raise _stands(compel, f"{target.name} has 0 fate points", by=target.name)
    return spend_fate_point(target, why)


def _stands(compel: CompelRecord, why: str, by: str) -> RulesError:
    return RulesError(
        f"{why}: cannot refuse an event compel with no fate points; it stands",
        expected="/accept (the compel stays offered until accepted or its deadline passes)",
        example=f"/accept #{compel.id}",
        hint=f"{by} may still accept and gain a fate point",
    )


# -- withdrawal and deadlines ---------------------------------------------------------------

def withdraw(compel: CompelRecord, table: Table, by: str, now: datetime, gm_agrees: bool = False,
             reason: str = "") -> Transition:
    """An off-the-mark compel is withdrawn at no cost; a proposer's escrow goes back."""
    if not compel.is_open:
        raise _settled(compel, "withdrawn")
    if by != GM:
        if not same_name(by, compel.proposer):
            raise NotAllowedError(f"only the GM or {compel.proposer} can withdraw compel #{compel.id}",
                                  expected="a reply from the GM", example=f"/withdraw #{compel.id}")
        if compel.state is CompelState.OFFERED and not gm_agrees:
            raise NotAllowedError(
                f"compel #{compel.id} has been offered to {compel.target}; withdrawing it needs the GM's agreement",
                expected="the GM's /withdraw", example=f"/withdraw #{compel.id}",
            )
    return _close_returning(compel, table, now, by, "withdraw", CompelState.WITHDRAWN, reason,
                            Msg("compel #{id} is withdrawn at no cost: {reason}", id=compel.id, reason=reason) if reason
                            else Msg("compel #{id} is withdrawn at no cost", id=compel.id))


def expire(compel: CompelRecord, table: Table, now: datetime, ledger: FateLedger | None = None) -> Transition | None:
    """Apply the default when the deadline has passed: an offered compel is accepted, a
    request awaiting the GM is denied. None when nothing is due."""
    if not compel.is_open or compel.deadline is None or now < compel.deadline:
        return None
    if compel.state is CompelState.OFFERED:
        return _accepted(compel, table, now, DEADLINE, ledger, "expire")
    return _close_returning(compel, table, now, DEADLINE, "expire", CompelState.DENIED,
                            "the GM did not answer in time",
                            Msg("compel #{id} was not approved in time and lapses", id=compel.id))


def reminder_due(compel: CompelRecord, now: datetime, lead: timedelta) -> bool:
    """Whether to remind whoever must answer: within ``lead`` of the deadline, once."""
    if not compel.is_open or compel.deadline is None or compel.reminded_at is not None:
        return False
    return compel.deadline - lead <= now < compel.deadline


def mark_reminded(compel: CompelRecord, now: datetime) -> tuple[str, ...]:
    """Record the reminder; returns who to remind."""
    compel.reminded_at = now
    compel.history.append(Step(now, DEADLINE, "remind", compel.state))
    return (GM,) if compel.state is CompelState.AWAITING_GM else (compel.answerer,)


# -- the moves ------------------------------------------------------------------------------

def _accepted(compel: CompelRecord, table: Table, now: datetime, by: str, ledger: FateLedger | None,
              verb: str) -> Transition:
    why = f"compel #{compel.id} accepted"
    if compel.npc_target:
        pool = _ledger(ledger, compel)
        changes = []
        if compel.escrow:
            changes = [Change("escrow", Msg("compel #{id}", id=compel.id), compel.escrow, 0, Msg("to the GM's pool")),
                       gm_gain(pool, f"{why} ({compel.target})", compel.escrow)]
            pool.compel_point = True      # carried to the next scene if it ends this one
        gained = Msg("the GM's pool")
    else:
        target = find_character(table, compel.target)
        changes = []
        if compel.escrow:
            changes.append(Change("escrow", Msg("compel #{id}", id=compel.id), compel.escrow, 0, Msg("to {who}", who=target.name)))
        changes.append(gain_fate_points(target, compel.escrow or 1, why))
        gained = target.name
    compel.escrow = 0
    note = "the deadline passed: accepted by default" if by == DEADLINE else ""
    return _move(compel, now, by, verb, CompelState.ACCEPTED, changes, compel.parties(),
                 Msg("{who} accepts the compel on {aspect}; {gained} gains a fate point", who=compel.target,
                     aspect=compel.aspect, gained=gained), note)


def _close_returning(compel: CompelRecord, table: Table, now: datetime, by: str, verb: str,
                     state: CompelState, note: str, text: str) -> Transition:
    proposer = _escrow_owner(compel, table)
    changes = _return_escrow(compel, proposer)
    tell = compel.parties() if compel.state is CompelState.OFFERED else tuple(dict.fromkeys((compel.proposer, GM)))
    return _move(compel, now, by, verb, state, changes, tell, text, note)


def _escrow_owner(compel: CompelRecord, table: Table) -> Character | None:
    """The proposer holding a point in escrow (looked up before anything moves)."""
    return find_character(table, compel.proposer) if compel.escrow else None


def _return_escrow(compel: CompelRecord, proposer: Character | None) -> list[Change]:
    if not compel.escrow or proposer is None:
        return []
    n, compel.escrow = compel.escrow, 0
    return [Change("escrow", Msg("compel #{id}", id=compel.id), n, 0, Msg("back to {who}", who=proposer.name)),
            gain_fate_points(proposer, n, f"compel #{compel.id} not taken: escrow returned")]


def _move(compel: CompelRecord, now: datetime, by: str, verb: str, state: CompelState, changes: list[Change],
          tell: tuple[str, ...], text: str, note: str = "") -> Transition:
    before = compel.state
    compel.state = state
    compel.history.append(Step(now, by, verb, state, note))
    return Transition(compel, verb, before, state, tuple(changes), tuple(dict.fromkeys(tell)), text)


# -- who may do what ------------------------------------------------------------------------

def _gm_only(compel: CompelRecord, by: str, verb: str) -> None:
    if by != GM:
        raise NotAllowedError(f"only the GM can {verb} compel #{compel.id}", expected="a reply from the GM",
                              example=f"/{verb} #{compel.id}")


def _answerer_only(compel: CompelRecord, by: str, verb: str) -> None:
    if not same_name(by, compel.answerer):
        who = "the GM" if compel.npc_target else f"{compel.target}'s player"
        raise NotAllowedError(
            f"compel #{compel.id} is for {who} to answer",
            expected=f"/accept or /refuse from {who}", example=f"/{verb} #{compel.id}",
            hint="an unanswered compel is accepted when its deadline passes",
        )


def _expect(compel: CompelRecord, state: CompelState, done: str) -> None:
    if compel.state is state:
        return
    if compel.is_open:
        waiting = "the GM's approval" if compel.state is CompelState.AWAITING_GM else f"{compel.answerer}'s answer"
        verbs = "/approve or /deny" if compel.state is CompelState.AWAITING_GM else "/accept or /refuse"
        raise RulesError(f"compel #{compel.id} cannot be {done} yet: it is waiting for {waiting}",
                         expected=verbs, example=f"{verbs.split()[0]} #{compel.id}")
    raise _settled(compel, done)


def _settled(compel: CompelRecord, done: str) -> RulesError:
    return RulesError(
        f"compel #{compel.id} is already {compel.state.value}; it cannot be {done}",
        expected="an open compel (offered, or awaiting the GM)",
        example=f'/compel {compel.target} "{compel.aspect}" {compel.kind.value} "..." (a new compel)',
    )


def _ledger(ledger: FateLedger | None, compel: CompelRecord) -> FateLedger:
    if ledger is None:
        raise ValueError(f"compel #{compel.id} is on an NPC: pass the FateLedger holding the GM's pool")
    return ledger
