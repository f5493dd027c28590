"""Costs the GM names by reply (a system's ``costs_by_reply``: the d10 dice-pool hack).

004_c619695e1641b466.txt, "Defining Costs": "Many failures or ties come with COSTS, which can
be either minor or severe"; a severe cost comes only from "a catastrophic failure [which]
gives the GM the option to escalate to a severe cost, or the player can accept an offer from
the GM to turn a failure into a success with a guaranteed severe cost". At a table the GM
names the cost at once; by post it is a **cost** #N that waits for the GM, numbered and
answered like a story detail (:class:`pbp.rules.fate_points.DetailRequest` of kind
``cost``, :mod:`pbp.play.compels`):

* a roll whose result says a cost is due (a tie taken at a minor cost, a failure turned
  into success at a severe cost, a catastrophic failure) opens one, for the roller;
* ``/approve #N "the crawler's alarm goes off"`` names it (the text is told to the table);
  ``/deny #N`` lets it go, at no cost;
* unanswered at the deadline, the default applies, taken from the text's lists of costs:
  a minor cost is "Offering a boost to someone opposing the character" (the opposing
  character, or the GM's side); a severe one is "Creating an advantage with a free invoke
  for someone who opposes the PCs": a situation aspect "Severe Cost (to be named)" with a
  free invoke for the opposition, which the GM renames. A catastrophic failure's cost is
  the GM's option to escalate: unanswered, the minor default applies;
* an invoke or veto after the dice that changes the outcome so that no cost is due any
  more withdraws it (a tie become a success costs nothing);
* a cost still unnamed when its scene ends lapses with it: both defaults are of the scene
  (a boost, a situation aspect) and would end with it anyway.
"""
from __future__ import annotations

from pbp.play.core import GM, NoteResult, Post, after_action, on_scene_end, roll_revised
from pbp.play.compels import GmRequest, _retire, open_request, request_kind
from pbp.play.invoking import roll_ref_of
from pbp.rules.bookkeeping import Report, add_boost, create_aspect, grant_free_invokes
from pbp.rules import fate_points as fp
from pbp.rules.fate_points import DetailRequest
from pbp.rules.results import ActionResult

#: The effects that make a cost due: (its severity, the deadline's default). A catastrophic
#: failure gives the GM "the option to escalate to a severe cost": unanswered, the GM has not
#: taken it, and the failure's ordinary minor cost stands.
DUE = {"cost_minor": ("minor", "minor"), "cost_major": ("severe", "severe"), "catastrophic": ("severe", "minor")}
SEVERE_ASPECT = "Severe Cost (to be named)"


def _due(result: ActionResult) -> tuple[str, str] | None:
    due = [DUE[e.kind] for e in result.effects if e.kind in DUE]
    return max(due, key=lambda d: (d[0] == "severe", d[1] == "severe")) if due else None


def _default_words(severity: str, opposer: str | None) -> str:
    side = opposer or "the GM's side"
    if severity == "minor":
        return f"{side} gains a boost"
    return f'"{SEVERE_ASPECT}" comes into play with a free invoke for {side}'


@after_action
def cost_due(post: Post, cmd, actor: str, result: ActionResult) -> None:
    """Open a cost for the GM to name when the system has costs named by reply."""
    if not post.system.costs_by_reply or not isinstance(result, ActionResult):
        return
    due = _due(result)
    if due is None:
        return
    severity, default = due
    ref = roll_ref_of(post, result)
    what = ref.summary if ref is not None else f"{actor}'s roll"
    opposer = result.opposition.character if result.opposition is not None else None
    request = DetailRequest(post.play.new_id(), actor, f"a {severity} cost on {what}", post.now, post.deadline(),
                            kind="cost", data={"severity": severity, "default": default, "roll": result.roll_id,
                                               "opposer": opposer})
    example = "the alarm goes off" if severity == "minor" else "reinforcements arrive at once"
    open_request(post, request,
                 f'Cost #{request.id}: {what} comes at a {severity} cost. GM, name it: /approve #{request.id} '
                 f'"{example}" (or /deny #{request.id}: no cost).',
                 f"{what} comes at a {severity} cost. Name it: /approve #{request.id} \"{example}\" "
                 f"(or /deny #{request.id}: no cost).",
                 unanswered=f"the default applies: {_default_words(default, opposer)}")
    result.effects.append(_note(f"Cost #{request.id} ({severity}) waits for the GM to name it.",
                                request=request.id, severity=severity))


def _note(text: str, **data):
    from pbp.rules.results import Effect
    return Effect("cost_request", text, data)


def approve_cost(post: Post, request: DetailRequest) -> NoteResult:
    """The GM names the cost (the quoted reason of ``/approve``)."""
    named = request.reason or "as the GM tells it"
    return NoteResult(f"/approve #{request.id}", GM, "approve",
                      text=f"Cost #{request.id} on {request.character} ({request.data.get('severity')}): {named}.")


def default_cost(post: Post, request: DetailRequest) -> NoteResult:
    """The deadline's default (see the module doc)."""
    severity, opposer = request.data.get("default", "minor"), request.data.get("opposer")
    holder = opposer or GM
    report = Report()
    if severity == "minor":
        add_boost(post.table, report, holder, "cost", f"{request.character}'s minor cost")
    else:
        aspect = create_aspect(post.table, report, SEVERE_ASPECT, None)
        grant_free_invokes(report, aspect, holder, 1)
    text = (f"Cost #{request.id} was not named by the deadline: the default applies, "
            f"{_default_words(severity, opposer)}.")
    return NoteResult(f"(deadline: cost #{request.id})", GM, "cost", text=text, changes=report.changes,
                      effects=report.effects)


@request_kind("cost")
class CostRequest(GmRequest):
    """A cost the GM names (``/approve #ID "THE COST"``); unnamed by the deadline, the default."""

    denied = "no cost is taken"
    reminder_then = "the default applies"

    def approve(self, post: Post, request: DetailRequest):
        return approve_cost(post, request)

    def expire(self, post: Post, request: DetailRequest) -> list:
        return [default_cost(post, request)] if fp.expire_detail(request, post.now) else []


@roll_revised
def cost_after_revision(post: Post, ref, old: ActionResult, new: ActionResult) -> list[str]:
    """A re-run that leaves no cost due withdraws the cost (a re-run that newly makes one
    due, a success vetoed down to a tie, is the GM's to name with the veto's reply)."""
    notes = []
    ids = set(ref.ids) | ({ref.id} if ref.id is not None else set())
    for request in [d for d in post.play.details if d.kind == "cost" and d.state == "pending"
                    and d.data.get("roll") in ids]:
        if _due(new) is None:
            request.state, request.reason = "withdrawn", "the revised roll owes no cost"
            post.close_ref(f"detail:{request.id}")
            notes.append(f"Cost #{request.id} is withdrawn: the revised roll owes no cost.")
    if notes:
        _retire(post)
    return notes


@on_scene_end
def costs_lapse(post: Post) -> list:
    """Unnamed costs end with the scene (see the module doc)."""
    from pbp.rules.results import Change
    changes = []
    for request in [d for d in post.play.details if d.kind == "cost" and d.state == "pending"]:
        request.state, request.reason = "expired", "the scene ended"
        post.close_ref(f"detail:{request.id}")
        changes.append(Change("request", f"cost #{request.id}", "waiting", "lapsed with the scene"))
    if changes:
        _retire(post)
    return changes
