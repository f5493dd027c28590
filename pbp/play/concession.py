"""Concessions the winner may refuse, and taken-out outcomes a player may refuse (early Fate,
002_3a4e52a093e280aa.txt; the system's ``concession == "refusable"``).

"Conceding: ... A character who concedes is taken out, but gets to declare himself what
happened. The character inflicting the stress can refuse the concession; it the GM rules that
the terms of the concession were reasonable, the conceding character gains 1 fate point, and
the refusing character loses one fate point."

"Taken Out: ... A player who does not like the manner in which he's been taken out can spend
all of his remaining fate points to demand a different outcome, which the GM should
accommodate."

By mail, each is a numbered request (``pbp.rules.fate_points.DetailRequest``, kinds
``concession`` and ``taken_out``) answered like the others, by ``/accept``, ``/refuse``,
``/approve`` or ``/deny`` with ``#ID`` or in reply to the mail that asked:

* ``/concede "TERMS"`` (when Fate Condensed allows it: before dice are rolled against you;
  and, where the system's ``concede_on_hit`` says so, "Instead of taking a consequence": when
  a hit waits for the conceder's ``/absorb``) takes the conceder out on those terms at once,
  but the conflict does not end while the concession is open. A hit it answers is held with
  the concession (no deadline of its own meanwhile), and only its inflicter may refuse it
  ("The character inflicting the stress can refuse the concession").
* **Stands** (accepted, or unanswered): a held hit is void, never absorbed. Anyone on the other side may ``/refuse`` it (or ``/accept`` it) until the
  campaign's reaction deadline; **unanswered, it stands**. A concession pays nothing by itself
  (the text names no points for it).
* **Refused**: the conceder is back in the conflict, a held hit is back and waits for their
  ``/absorb`` with a new reaction deadline (from the refusal), and the GM rules: ``/approve`` = the terms
  were reasonable (the conceder gains 1 fate point, the refuser loses 1, never below 0; an
  NPC's point is carried into its pool); ``/deny`` = not reasonable, no points move.
  **Unanswered by the deadline, no points move** (the text gives the points only "if the GM
  rules" so).
* A **player character taken out** may ``/refuse "WHAT INSTEAD"`` the manner of it until the
  deadline, spending all their fate points (at least one); the GM is asked to accommodate the
  demand. Unanswered, the manner stands.
"""
from __future__ import annotations

from pbp.errors import NotAllowedError, RulesError
from pbp.play import conflict as pc
from pbp.play.core import GM, Ask, NoteResult, Post, Tell
from pbp.play.sequence import on_conceded, on_taken_out
from pbp.play.compels import request_kind
from pbp.rules import conflict as rc
from pbp.rules.fate_points import DetailRequest
from pbp.rules.names import and_names, same_name


def _when(dt) -> str:
    return pc.when(dt)


def _open(post: Post, kind: str, who: str, text: str, data: dict) -> DetailRequest:
    request = DetailRequest(post.play.new_id(), who, text, post.now, post.deadline(), kind=kind, data=data)
    post.play.details.append(request)
    return request


# --------------------------------------------------------------------------- concessions


@on_conceded
def offer_concession(post: Post, who: str, terms: str) -> bool:
    """A refusable concession opens a request to the other side; the conflict waits for it."""
    conflict = post.play.conflict
    if post.system.concession != "refusable" or conflict is None:
        return False
    side = conflict.side_of(who)
    others = [p for p, s in conflict.sides.items() if s != side and p not in conflict.out()]
    hits = _hits(post, who)
    # "The character inflicting the stress can refuse the concession": a concession made
    # instead of absorbing a hit is the inflicter's to refuse
    inflicters = [o for o in others if any(same_name(h.attacker, o) for h in hits)]
    others = inflicters or others
    request = _open(post, "concession", who, terms, {"phase": "offer", "others": others})
    for h in hits:
        h.held_by = request.id
    by = _when(request.deadline)
    asked = [o for o in others if post.find(o).player] or [GM]
    said = f': "{terms}"' if terms else ""
    instead = "".join(f" instead of absorbing {pc.what(post, h)} (#{h.id}), which is void if the concession stands"
                      for h in hits)
    text = (f"{who} concedes (#{request.id}){said}{instead}. "
            f"{and_names(others)} may /refuse #{request.id} the concession (or /accept #{request.id} it); "
            f"if nobody refuses by {by}, it stands.")
    post.ask(Ask(ref=f"detail:{request.id}", who=asked[0], text=text, deadline=request.deadline,
                 subject=f"{who} concedes: refuse by {by}?"))
    return True


@request_kind("concession")
class ConcessionRules:
    """A concession: offered to the other side, then (refused) ruled by the GM."""

    @staticmethod
    def answerable(post: Post, verb: str, request: DetailRequest) -> bool:
        if request.data.get("phase") == "offer":
            return verb in ("accept", "refuse") and any(post.controls(o) for o in request.data.get("others", ()))
        return verb in ("approve", "deny") and post.author.is_gm

    @staticmethod
    def settle(post: Post, request: DetailRequest, verb: str, reason: str):
        who, phase = request.character, request.data.get("phase")
        if phase == "offer":
            others = request.data.get("others", ())
            mine = [o for o in others if post.controls(o)]
            if verb not in ("accept", "refuse"):
                raise RulesError(f"concession #{request.id} is accepted or refused by {and_names(others)} first",
                                 expected="/accept or /refuse", example=f"/refuse #{request.id}")
            if not mine:
                raise NotAllowedError(f"only {and_names(others)} can {verb} {who}'s concession",
                                      expected="an answer from the other side", example=f"/{verb} #{request.id}")
            if verb == "accept":
                request.state = "approved"
                void = _void_text(post, request)
                more, changes = _end_text(post)
                more = void + more
                return f"{mine[0]} accepts {who}'s concession (#{request.id}): it stands.{more}", changes, True
            return _refuse(post, request, mine[0], reason)
        if not post.author.is_gm:
            raise NotAllowedError(f"only the GM rules on concession #{request.id}", expected="a reply from the GM",
                                  example=f"/approve #{request.id}")
        if verb not in ("approve", "deny"):
            raise RulesError(f"the GM rules on concession #{request.id} with /approve (the terms were reasonable) "
                             "or /deny (they were not)", expected="/approve or /deny",
                             example=f"/approve #{request.id}")
        refuser = request.data.get("refuser", "")
        if verb == "deny":
            request.state, request.reason = "denied", reason
            return (f"The GM rules {who}'s terms unreasonable (#{request.id}){': ' + reason if reason else ''}; "
                    "no fate points move.", [], True)
        request.state = "approved"
        changes = rc.give_points(post.table, who, 1, f"concession #{request.id}: the terms were reasonable")
        changes += rc.give_points(post.table, refuser, -1, f"refused concession #{request.id}")
        return (f"The GM rules {who}'s terms reasonable (#{request.id}): {who} gains a fate point and "
                f"{refuser} loses one.", changes, True)

    @staticmethod
    def expire(post: Post, request: DetailRequest) -> list:
        label = f"concession #{request.id}"
        if request.data.get("phase") == "offer":
            request.state = "approved"
            void = _void_text(post, request)
            more, changes = _end_text(post)
            more = void + more
            note = NoteResult(f"(deadline: {label})", GM, "concession", changes=changes,
                              text=f"Nobody refused {request.character}'s {label} by {_when(request.deadline)}: "
                                   f"it stands.{more}")
            return [note]
        request.state, request.reason = "expired", "the GM did not rule in time"
        return [NoteResult(f"(deadline: {label})", GM, "concession",
                           text=f"The GM did not rule on {label} by {_when(request.deadline)}: no fate points move.")]

    @staticmethod
    def remind(post: Post, request: DetailRequest, lead) -> None:
        """No reminder: the default at the deadline is the answer nobody had to give."""

    @staticmethod
    def waiting(post: Post, request: DetailRequest) -> str:
        if request.data.get("phase") == "offer":
            return (f"Waiting for {and_names(request.data.get('others', ()))} to accept or refuse "
                    f"{request.character}'s concession #{request.id} by {_when(request.deadline)}.")
        return f"Waiting for the GM to rule on concession #{request.id} by {_when(request.deadline)}."


def _refuse(post: Post, request: DetailRequest, refuser: str, reason: str):
    who = request.character
    conflict = post.play.conflict
    changes = []
    if conflict is not None and not conflict.ended and who in conflict.conceded:
        post.play.conflict = rc.withdraw_concession(conflict, who)
    request.data = {**request.data, "phase": "ruling", "refuser": refuser}
    request.deadline = post.deadline()
    back = ""
    for h in _held(post, request):
        # the hit is back and waits for the conceder's /absorb, with a deadline from now
        h.held_by, h.deadline, h.reminded = None, post.deadline(), False
        pc.ask_absorb(post, h)
        back += f" The hit is back: {pc.what(post, h)} (#{h.id}) waits for {who}'s /absorb by {_when(h.deadline)}."
    by = _when(request.deadline)
    terms = f' ("{request.text}")' if request.text else ""
    ask = (f"GM: were {who}'s terms{terms} reasonable? /approve #{request.id}: {who} gains a fate point and "
           f"{refuser} loses one; /deny #{request.id}: no points move. If you have not ruled by {by}, no "
           "points move.")
    post.ask(Ask(ref=f"detail:{request.id}", who=GM, text=ask, deadline=request.deadline,
                 subject=f"Rule on concession #{request.id} by {by}"))
    if not post.author.is_gm:
        post.tell(Tell(to=(GM,), subject=f"Concession #{request.id} needs your ruling", text=ask + "\n",
                       refs=(f"detail:{request.id}",)))
    why = f": {reason}" if reason else ""
    return (f"{refuser} refuses {who}'s concession (#{request.id}){why}. {who} is back in the conflict; the GM "
            f"rules whether the terms were reasonable.{back}", changes, False)


def _hits(post: Post, who: str) -> list:
    """The hits waiting for ``who``'s /absorb that a concession now answers (the system's
    ``concede_on_hit``; ``pbp.play.conflict.concede`` let it through)."""
    if not post.system.concede_on_hit:
        return []
    return [p for p in post.play.pending
            if p.kind == "absorb" and p.held_by is None and same_name(p.target, who)]


def _held(post: Post, request: DetailRequest) -> list:
    return [p for p in post.play.pending if p.held_by == request.id]


def _void_text(post: Post, request: DetailRequest) -> str:
    """The concession stands: the hits it answered are void."""
    return "".join(f" {pc.void_hit(post, h, request.character).text}." for h in _held(post, request))


def _end_lists(post: Post) -> tuple[list, list]:
    conflict = post.play.conflict
    if conflict is not None and not conflict.ended and rc.is_over(conflict) and not _open_concession(post):
        return pc.end(post, by_gm=False)
    return [], []


def _end_text(post: Post) -> tuple[str, list]:
    effects, changes = _end_lists(post)
    return "".join(f" {e.text}." for e in effects), changes


def _open_concession(post: Post) -> bool:
    return any(d.kind == "concession" and d.state == "pending" and d.data.get("phase") == "offer"
               for d in post.play.details)


# --------------------------------------------------------------------------- taken out


@on_taken_out
def offer_other_outcome(post: Post, result) -> None:
    """A player character taken out may refuse the manner of it, for all their fate points."""
    if post.system.concession != "refusable":
        return
    ch = post.find(result.character)
    if ch.kind != "pc" or ch.fate_points < 1:
        return
    request = _open(post, "taken_out", ch.name, "", {"points": ch.fate_points})
    by = _when(request.deadline)
    text = (f"{ch.name} is taken out (#{request.id}). If you do not like the manner of it, /refuse #{request.id} "
            f"\"WHAT HAPPENS INSTEAD\" by {by}: {ch.name} spends all {ch.fate_points} fate point"
            f"{'s' if ch.fate_points != 1 else ''} and the GM accommodates the demand.")
    post.ask(Ask(ref=f"detail:{request.id}", who=ch.name, text=text, deadline=request.deadline,
                 subject=f"{ch.name} is taken out: another outcome by {by}?"))


@request_kind("taken_out")
class TakenOutRules:
    """The taken-out player's one answer: /refuse "what instead", for all their fate points."""

    @staticmethod
    def answerable(post: Post, verb: str, request: DetailRequest) -> bool:
        return verb in ("refuse", "accept") and post.controls(request.character)

    @staticmethod
    def settle(post: Post, request: DetailRequest, verb: str, reason: str):
        ch = post.find(request.character)
        if not post.controls(ch.name):
            raise NotAllowedError(f"only {ch.name}'s player can refuse how {ch.name} is taken out",
                                  expected="an answer from that player", example=f'/refuse #{request.id} "..."')
        if verb == "accept":
            request.state = "approved"
            return f"{ch.name} accepts how they are taken out (#{request.id}).", [], True
        if verb != "refuse":
            raise RulesError(f"#{request.id} is {ch.name}'s to /refuse (or /accept)", expected="/refuse",
                             example=f'/refuse #{request.id} "Captured, not killed"')
        if not reason:
            raise RulesError(f"say what happens to {ch.name} instead, in quotes", expected="the outcome you demand",
                             example=f'/refuse #{request.id} "Captured, not killed"')
        if ch.fate_points < 1:
            raise RulesError(f"{ch.name} has no fate points left to spend on another outcome",
                             expected="at least one fate point", example="/fp")
        spent = ch.fate_points
        changes = rc.give_points(post.table, ch.name, -spent, f"demands another outcome (#{request.id})")
        request.state, request.reason = "approved", reason
        post.tell(Tell(to=(GM,), subject=f"{ch.name} demands another outcome (#{request.id})",
                       text=f'{ch.name} spent all {spent} fate points to demand: "{reason}". The GM should '
                            "accommodate it.\n", refs=()))
        return (f'{ch.name} spends all {spent} fate point{"s" if spent != 1 else ""} to demand another outcome: '
                f'"{reason}". The GM should accommodate it.', changes, True)

    @staticmethod
    def expire(post: Post, request: DetailRequest) -> list:
        request.state = "expired"
        return []

    @staticmethod
    def remind(post: Post, request: DetailRequest, lead) -> None:
        """No reminder: the default at the deadline is the answer nobody had to give."""

    @staticmethod
    def waiting(post: Post, request: DetailRequest) -> str:
        return (f"{request.character} may refuse how they are taken out (#{request.id}) until "
                f"{_when(request.deadline)}.")
