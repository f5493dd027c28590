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

from dataclasses import replace

from pbp import commands as c
from pbp.errors import RulesError
from pbp.play.core import GM, NoteResult, Post, handles
from pbp.play.sequence import after_action, on_scene_end, roll_revised
from pbp.play.compels import GmRequest, _retire, open_request, request_kind, request_rules
from pbp.play.invoking import find_roll, roll_ref_of
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
    request = _open_cost(post, actor, what, severity, default, result.roll_id, opposer)
    result.effects.append(_note(f"Cost #{request.id} ({severity}) waits for the GM to name it.",
                                request=request.id, severity=severity))


def _cost_request(post: Post, actor: str, what: str, severity: str, default: str, roll: int | None,
                  opposer: str | None) -> DetailRequest:
    return DetailRequest(post.play.new_id(), actor, f"a {severity} cost on {what}", post.now, post.deadline(),
                         kind="cost", data={"severity": severity, "default": default, "roll": roll,
                                            "opposer": opposer})


def _open_cost(post: Post, actor: str, what: str, severity: str, default: str, roll: int | None,
               opposer: str | None) -> DetailRequest:
    """Number a cost on ``what`` and ask the GM to name it (the deadline's default after)."""
    request = _cost_request(post, actor, what, severity, default, roll, opposer)
    example = "the alarm goes off" if severity == "minor" else "reinforcements arrive at once"
    open_request(post, request,
                 f'Cost #{request.id}: {what} comes at a {severity} cost. GM, name it: /approve #{request.id} '
                 f'"{example}" (or /deny #{request.id}: no cost).',
                 f"{what} comes at a {severity} cost. Name it: /approve #{request.id} \"{example}\" "
                 f"(or /deny #{request.id}: no cost).",
                 unanswered=f"the default applies: {_default_words(default, opposer)}")
    return request


# -- the GM's /cost: a cost on a failure or a tie the result did not owe -----------------------

#: What "/cost #ID SEVERITY" may be put on, by the roll's outcome ("Overcome" and "Attack":
#: "FAILURE: You fail, sometimes with an additional cost", "there may be an additional cost";
#: "Defining Costs": "Many failures or ties come with COSTS ... Most costs in the game are
#: minor, and they typically occur on failures or ties"; a severe cost has "only two ways to
#: trigger this": a catastrophic failure, or a failure the player turns into a success).
COSTED = {"fail": ("minor",), "tie": ("minor",), "catastrophic": ("minor", "severe")}
OUTCOME_WORDS = {"fail": "a failure", "tie": "a tie", "success": "a success", "style": "a success with style",
                 "catastrophic": "a catastrophic failure"}
EXAMPLE = '/cost #142 minor "the alarm goes off"'


@handles(c.Cost)
def gm_cost(post: Post, cmd: c.Cost):
    """``/cost #ROLL minor|severe ["what happens"]``: the GM attaches a cost to an open roll
    that failed or tied. With the text it is named at once (a cost request approved as it
    opens); without it, it waits for ``/approve #ID "..."`` with the deadline's default."""
    post.require_gm("/cost", EXAMPLE)
    system = post.system
    if not system.costs_by_reply:
        raise RulesError(f"{system.title or system.name} leaves costs to the GM's narration: /cost is for a system "
                         "whose costs the GM names by reply (the d10 dice-pool hack)", source=cmd.source,
                         expected="the cost told in your reply, or an aspect for it",
                         example='/aspect add "Alarm Blaring"')
    why = post.play.closed_rolls.get(str(cmd.ref))
    if why:
        raise RulesError(f"roll #{cmd.ref} is closed: {why}; a cost is put on a roll while it is open",
                         source=cmd.source, expected="the id of an open roll that failed or tied",
                         example=EXAMPLE.replace("142", str(cmd.ref)),
                         hint="a roll closes when the next action starts, at /done, or when the invoke window passes")
    ref = find_roll(post, cmd.ref, None, verb="cost")
    label = f"roll #{cmd.ref} ({ref.summary})"
    allowed = COSTED.get(ref.outcome)
    if allowed is None:
        what = OUTCOME_WORDS.get(ref.outcome, "a roll whose outcome pbp did not keep")
        raise RulesError(f"{label} is {what}: a cost comes with a failure or a tie", source=cmd.source,
                         expected="the id of an open roll that failed or tied", example=EXAMPLE)
    if cmd.severity not in allowed:
        raise RulesError(f"{label} is {OUTCOME_WORDS[ref.outcome]}: a severe cost comes only from a catastrophic "
                         "failure, or from a failure turned into a success (on fail cost)", source=cmd.source,
                         expected="minor", example=f"/cost #{cmd.ref} minor" + (f' "{cmd.text}"' if cmd.text else ""))
    ids = set(ref.ids) | ({ref.id} if ref.id is not None else set())
    waiting = next((d for d in post.play.details if d.kind == "cost" and d.state == "pending"
                    and d.data.get("roll") in ids), None)
    if waiting is not None:
        raise RulesError(f"cost #{waiting.id} already waits on {label}: name it", source=cmd.source,
                         expected=f"/approve #{waiting.id} and the cost in quotes",
                         example=f'/approve #{waiting.id} "{cmd.text or "the alarm goes off"}"')
    opposition = getattr(ref.cmd, "opposition", None)
    opposer = (opposition.character if opposition is not None else None) or getattr(ref.cmd, "target", None)
    if not cmd.text:
        request = _open_cost(post, ref.actor, ref.summary, cmd.severity, cmd.severity, ref.id, opposer)
        return NoteResult(cmd.source, GM, "cost", text=f"Cost #{request.id} ({cmd.severity}) on {ref.summary} "
                          f"waits for the GM to name it.")
    request = _cost_request(post, ref.actor, ref.summary, cmd.severity, cmd.severity, ref.id, opposer)
    post.play.details.append(request)
    named = request_rules(request).settle(post, request, "approve", cmd.text)   # named as it opens
    _retire(post)
    # the result is the /cost's own: its JSON names the command the GM wrote, not an /approve
    return replace(named, command=cmd.source, action="cost") if isinstance(named, NoteResult) else named


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
    """A re-run that leaves no cost due withdraws the cost; one that newly makes a cost due
    (a failure invoked up to a tie after the dice, a success vetoed down to one) opens it as
    the direct roll would have (004_c619695e1641b466.txt, "Interpreting Results": "TIE:
    Partial success, or success with a minor cost", however the tie was reached)."""
    notes = []
    ids = set(ref.ids) | ({ref.id} if ref.id is not None else set())
    costs = [d for d in post.play.details if d.kind == "cost" and d.data.get("roll") in ids]
    for request in [d for d in costs if d.state == "pending"]:
        if _due(new) is None:
            request.state, request.reason = "withdrawn", "the revised roll owes no cost"
            post.close_ref(f"detail:{request.id}")
            notes.append(f"Cost #{request.id} is withdrawn: the revised roll owes no cost.")
    if notes:
        _retire(post)
    due = _due(new) if post.system.costs_by_reply else None
    if due is not None and not any(d.state in ("pending", "approved") for d in costs):
        severity, default = due
        opposer = new.opposition.character if new.opposition is not None else None
        request = _open_cost(post, ref.actor, ref.summary, severity, default, new.roll_id or ref.id, opposer)
        notes.append(f"Cost #{request.id} ({severity}) waits for the GM to name it.")
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
