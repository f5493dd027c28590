"""The fate point economy outside a single roll: refresh, spending, the GM's pool, hostile
invokes paid after the scene, concessions, and story details.

Where points come from and where they go (the property tests keep this list honest):

* **sources**: refresh at the start of a session (up to the refresh), the GM's compels
  (accepted ones pay a new point; the GM's supply for compels is unlimited), an approved
  self-compel, a concession (one point plus one per consequence taken in the conflict),
  the GM's pool at the start of a scene (one per PC in the scene).
* **sinks**: invokes paid with a point, refusing an event compel, an approved story
  detail, a stunt that costs a point, the GM spending from the pool, and whatever is left
  in the GM's pool when a new scene opens.
* **moves** (the total is unchanged): a player's compel holds its proposer's point in
  escrow until it is accepted (the point goes to the target) or denied, refused or
  withdrawn (the point goes back); a hostile invoke's point waits in ``owed`` until the
  scene ends, then goes to the aspect's owner (a PC's sheet, or an NPC's
  ``carried_points``); NPCs' carried points move into the GM's pool when they appear in a
  later scene.

Rulings where the text leaves room:

* Refresh (Fate Condensed, "Refresh"): at the start of each session a character has at
  least their refresh; more carries over.
* The GM's pool ("Your Fate Points"): one point per PC in the scene, plus the points
  carried by NPCs in the scene who conceded earlier or received hostile invokes, plus a
  point from a compel on an NPC that ended the previous scene (``FateLedger.compel_point``:
  accepted, and then neither an NPC's action nor a point spent from the pool before the
  scene ended; ``pbp.play.economy``). The pool does not carry
  from scene to scene: opening a scene replaces it. NPCs' own ``fate_points`` are not
  used: an NPC's paid invokes are paid by :class:`GMPool`, the payer
  ``resolve`` is given in play.
* Hostile invokes: the invoker pays as usual, but the point is owed to the aspect's owner,
  "who can't use it until after the scene": ``owe_from_result`` records it, ``pay_owed``
  hands it over when the scene (or conflict) ends.
* Story details: the point is spent when the GM approves, not when the detail is
  declared; a denied or expired (default: denied) detail costs nothing.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Iterable

from pbp.errors import NotAllowedError, RulesError
from pbp.rules.bookkeeping import FatePoints, Report
from pbp.rules.names import GM, find_character
from pbp.rules.results import ActionResult, Change
from pbp.rules.state import Character, Table


def _points(n: int) -> str:
    return f"{n} fate point{'s' if n != 1 else ''}"


# -- a character's own points --------------------------------------------------------------

def spend_fate_point(ch: Character, reason: str = "") -> Change:
    """Spend one point; refused (RulesError) at zero, never below."""
    if ch.fate_points <= 0:
        why = f" for {reason}" if reason else ""
        raise RulesError(
            f"{ch.name} has {_points(ch.fate_points)}; there are no fate points to spend{why}",
            expected="a fate point in hand",
            example="/fp", hint="earn fate points by accepting compels (/accept)",
        )
    before = ch.fate_points
    ch.fate_points -= 1
    return Change("fate_points", ch.name, before, ch.fate_points, reason or "spent")


def adjust_fate_points(ch: Character, delta: int, reason: str = "") -> Change:
    """The GM gives (delta > 0) or takes (delta < 0) points; a sheet never goes below zero."""
    before = ch.fate_points
    if before + delta < 0:
        raise RulesError(
            f"{ch.name} has {_points(before)}; cannot take {-delta}",
            expected=f"at most {before}",
            example=f'/fp take "{ch.name}" {max(before, 1)}',
        )
    ch.fate_points = before + delta
    return Change("fate_points", ch.name, before, ch.fate_points, reason)


def gain_fate_points(ch: Character, n: int, reason: str) -> Change:
    """``n`` points come to a character (a compel, a concession, a hostile invoke's payout)."""
    if n < 0:
        raise ValueError(f"gain_fate_points takes a count of at least 0, not {n}")
    before = ch.fate_points
    ch.fate_points = before + n
    return Change("fate_points", ch.name, before, ch.fate_points, reason)


def start_session(character: Character) -> list[Change]:
    """Refresh: "each session, you start with fate points at least equal to your refresh";
    a character who ended the last session with more keeps them."""
    if character.fate_points >= character.refresh:
        return []
    before = character.fate_points
    character.fate_points = character.refresh
    return [Change("fate_points", character.name, before, character.refresh, "refresh at the start of the session")]


def concede(character: Character, consequences_taken: int) -> list[Change]:
    """A concession pays "a fate point plus an extra one for each consequence they took in
    the current conflict". A PC gets them on the sheet; an NPC carries them into a later
    scene, where they join the GM's pool."""
    if consequences_taken < 0:
        raise ValueError(f"a character cannot have taken {consequences_taken} consequences")
    n = 1 + consequences_taken
    why = f"conceded ({n - 1} consequence{'s' if n != 2 else ''} taken)"
    if character.kind == "pc":
        return [gain_fate_points(character, n, why)]
    return [_carry(character, n, why)]


def _carry(npc: Character, n: int, why: str) -> Change:
    before = npc.carried_points
    npc.carried_points = before + n
    return Change("carried_points", npc.name, before, npc.carried_points, why)


# -- the GM's pool and what is owed ---------------------------------------------------------

@dataclass(frozen=True)
class Owed:
    """A hostile invoke's point, waiting for the end of the scene to reach the aspect's owner."""

    to: str
    points: int
    aspect: str
    invoker: str
    scene: str = ""


@dataclass
class FateLedger:
    """The campaign's fate points that are on no sheet: the GM's pool for the current scene
    and the points owed by hostile invokes until the scene ends."""

    gm_pool: int = 0
    owed: list[Owed] = field(default_factory=list)
    # "If you received a compel in the prior scene that ended that scene, giving you no
    # opportunity to spend the earned fate point, you may add that point to your pool as
    # well": True while the pool's last gain is a compel on an NPC and the GM's side has
    # neither acted nor spent since; the next scene's pool then opens with that point more.
    compel_point: bool = False

    @property
    def owed_total(self) -> int:
        return sum(o.points for o in self.owed)


def gm_pool_for_scene(pcs_count: int, npc_carry: int = 0, compel_carry: int = 0) -> int:
    """"At the start of each scene, begin with a pool of fate points equal to the number of
    PCs", plus the points NPCs in the scene carry (conceded earlier, or received hostile
    invokes), plus a point from a compel that ended the previous scene."""
    if min(pcs_count, npc_carry, compel_carry) < 0:
        raise ValueError("counts of PCs and carried points cannot be negative")
    return pcs_count + npc_carry + compel_carry


def open_scene(ledger: FateLedger, pcs_count: int, npcs: Iterable[Character] = (),
               compel_carry: int = 0) -> list[Change]:
    """Start a scene's pool: the NPCs present bring their carried points into it (their
    ``carried_points`` go to zero); whatever was left in the last scene's pool is gone."""
    changes: list[Change] = []
    carried = 0
    for npc in npcs:
        if npc.carried_points:
            carried += npc.carried_points
            changes.append(Change("carried_points", npc.name, npc.carried_points, 0, "brought into the GM's pool"))
            npc.carried_points = 0
    before = ledger.gm_pool
    ledger.gm_pool = gm_pool_for_scene(pcs_count, carried, compel_carry)
    changes.append(Change("gm_pool", GM, before, ledger.gm_pool, "a new scene" + (
        ", with the point of a compel that ended the last scene" if compel_carry else "")))
    return changes


def gm_spend(ledger: FateLedger, reason: str, n: int = 1) -> Change:
    """The GM spends from the pool (an NPC's invoke or stunt, refusing an event compel on
    an NPC). Compels offered by the GM never cost anything."""
    if n < 1:
        raise ValueError(f"the GM spends at least 1 point, not {n}")
    if ledger.gm_pool < n:
        raise RulesError(
            f"the GM's pool has {_points(ledger.gm_pool)}; {reason} needs {n}",
            expected="a point left in the GM's pool for this scene",
            example="/as Ghoul attack Ruth with Fight (without the paid invoke)",
        )
    before = ledger.gm_pool
    ledger.gm_pool -= n
    ledger.compel_point = False
    return Change("gm_pool", GM, before, ledger.gm_pool, reason)


def gm_gain(ledger: FateLedger, reason: str, n: int = 1) -> Change:
    before = ledger.gm_pool
    ledger.gm_pool = before + n
    return Change("gm_pool", GM, before, ledger.gm_pool, reason)


class GMPool(FatePoints):
    """The GM's pool pays for the NPCs (rules 000, "Your Fate Points": the GM spends from
    the pool for every NPC; NPCs' own ``fate_points`` are not used), the players'
    characters from their sheets. ``ledger`` is whatever holds the balance
    (:class:`FateLedger`, or a scratch one for a re-run): each spend
    takes one point from ``ledger.gm_pool`` and is reported as a ``gm_pool`` change that
    names the NPC."""

    def __init__(self, ledger: FateLedger) -> None:
        self.ledger = ledger

    def spend(self, report: Report, character: Character, why: str) -> None:
        if character.kind == "pc":
            return super().spend(report, character, why)
        before = self.ledger.gm_pool
        if before < 1:
            raise RulesError(
                f"the GM's pool has {_points(before)}; {why} needs one",
                expected="a free invoke, or a point left in the GM's pool for this scene",
                example="/fp",
                hint="use a free invoke (add 'free') or drop the invoke",
            )
        self.ledger.gm_pool = before - 1
        report.change("gm_pool", GM, before, before - 1, f"{why} ({character.name})")


def owe_from_result(ledger: FateLedger, result: ActionResult, scene: str = "") -> list[Change]:
    """Record the points of the hostile invokes in ``result`` (effects of kind
    ``hostile_invoke``): each is owed to the aspect's owner until the scene ends."""
    changes = []
    for effect in result.effects:
        if effect.kind != "hostile_invoke":
            continue
        data = effect.data
        changes.append(owe(ledger, data["owner"], data.get("fate_points", 1), data["aspect"], data["invoker"], scene))
    return changes


def owe(ledger: FateLedger, to: str, points: int, aspect: str, invoker: str, scene: str = "") -> Change:
    before = ledger.owed_total
    ledger.owed.append(Owed(to, points, aspect, invoker, scene))
    return Change("owed", to, before, ledger.owed_total, f"hostile invoke of {aspect} by {invoker}")


def pay_owed(ledger: FateLedger, table: Table, scene: str | None = None) -> list[Change]:
    """The scene (or conflict) is over: owed points go to the aspects' owners. A PC gets
    them on the sheet; an NPC carries them to a later scene's GM pool. ``scene`` limits the
    payout to that scene's debts; an owner not on ``table`` stays owed."""
    changes: list[Change] = []
    keep: list[Owed] = []
    for owed in ledger.owed:
        who = table.character(owed.to)
        if who is None or (scene is not None and owed.scene != scene):
            keep.append(owed)
            continue
        why = f"hostile invoke of {owed.aspect} by {owed.invoker}, paid after the scene"
        if who.kind == "pc":
            changes.append(gain_fate_points(who, owed.points, why))
        else:
            changes.append(_carry(who, owed.points, why))
    if len(keep) != len(ledger.owed):
        before = ledger.owed_total
        ledger.owed[:] = keep
        changes.append(Change("owed", GM, before, ledger.owed_total, "paid out"))
    return changes


# -- story details --------------------------------------------------------------------------

@dataclass
class DetailRequest:
    """Something a player declares that waits for the GM ("the GM has veto power").

    ``kind`` says what is asked: a story ``detail`` (a fate point when approved), a
    ``bonus`` (a plain +N on an open roll, re-run with it when approved) or an ``aspect``
    change (a sheet aspect renamed when approved). The table asks, approves and denies
    every kind the same way, with one numbering and one reply thread.

    ``state``: pending -> approved (a detail's point is spent then) | denied | expired
    (denied by default at the deadline, at no cost).
    """

    id: int
    character: str
    text: str
    opened_at: datetime
    deadline: datetime | None = None
    state: str = "pending"
    reason: str = ""
    kind: str = "detail"            # detail | bonus | aspect | cost (pbp.play.costs)
    data: dict = field(default_factory=dict)   # bonus: {"bonus", "roll"}; aspect: {"aspect", "owner", "to"}

    @property
    def label(self) -> str:
        """How replies name it: "story detail", "bonus request", "aspect change"."""
        return REQUEST_LABELS.get(self.kind, "request")


REQUEST_LABELS = {"detail": "story detail", "bonus": "bonus request", "aspect": "aspect change",
                  "concession": "concession", "taken_out": "taken-out outcome", "cost": "cost",
                  "advance": "advancement"}


def declare_detail(table: Table, id: int, character: str, text: str, now: datetime,
                   deadline: datetime | None = None) -> DetailRequest:
    """A player declares a detail. Nothing is paid yet, but a character with no point to
    pay is told at once rather than after the GM has read it."""
    ch = _character(table, character)
    if ch.fate_points < 1:
        raise RulesError(
            f"{ch.name} has {_points(ch.fate_points)}; declaring a story detail costs one",
            expected="a fate point in hand", example=f'/detail "{text or "The guard is my cousin"}"',
        )
    if not text.strip():
        raise RulesError("a story detail needs its text", expected="the detail in quotes",
                         example='/detail "The guard is my cousin"')
    return DetailRequest(id, ch.name, text, now, deadline)


def approve_detail(request: DetailRequest, table: Table, by: str) -> list[Change]:
    _gm_answers(request, by, "approve")
    change = spend_fate_point(_character(table, request.character), f"story detail #{request.id}")
    request.state = "approved"
    return [change]


def approve_request(request: DetailRequest, by: str) -> None:
    """The GM approves a request that costs nothing (a bonus, an aspect change); the caller
    carries it out."""
    _gm_answers(request, by, "approve")
    request.state = "approved"


def deny_detail(request: DetailRequest, by: str, reason: str = "") -> list[Change]:
    _gm_answers(request, by, "deny")
    request.state, request.reason = "denied", reason
    return []


def expire_detail(request: DetailRequest, now: datetime) -> bool:
    """At the deadline an unanswered detail is denied (nothing spent). True if it expired."""
    if request.state != "pending" or request.deadline is None or now < request.deadline:
        return False
    request.state, request.reason = "expired", "the GM did not answer in time"
    return True


def _gm_answers(request: DetailRequest, by: str, verb: str) -> None:
    if by != GM:
        raise NotAllowedError(f"only the GM can {verb} a {request.label}", expected="a reply from the GM",
                              example=f"/{verb} #{request.id}")
    if request.state != "pending":
        raise RulesError(f"{request.label} #{request.id} is already {request.state}",
                         expected=f"a pending {request.label}", example='/detail "The guard is my cousin"')


def _character(table: Table, name: str) -> Character:
    return find_character(table, name)
