"""Compels by post, and the other requests that wait for an answer: story details, and
the bonuses, aspect changes and costs that wait for the GM (:mod:`pbp.play.bonuses`,
:mod:`pbp.play.costs`). docs/compels.md tells it for players. In short:

* **Compels** are :class:`pbp.rules.compels.CompelRecord` state machines with an id (#N) and a
  thread. The GM's compel is offered to the target's player, who replies ``/accept`` (a
  new fate point) or ``/refuse`` (an event costs a point and cannot be refused at zero; a
  decision is free). A player's compel on another character costs the proposer a point
  now, held in escrow; a player's ``/compel me ...`` asks for a retroactive self-compel.
  Both wait for the GM's ``/approve`` or ``/deny`` (a bare "approve" in a reply to the
  mail that asked works too, see :mod:`pbp.pipeline`); only then does the target answer.
  The GM may ``/withdraw`` any open compel at no cost (an off-the-mark one); a proposer
  may withdraw a request the GM has not yet answered.
* **Deadlines**: every open compel has one (``Config.reaction_deadline_hours``), with a
  reminder ``Config.reminder_hours`` before it. Defaults: an offered compel is accepted; a
  request awaiting the GM is denied, the escrowed point returned. A story detail awaiting
  the GM is denied (nothing was paid).
* **Telling**: each change is in the table's reply (which every member gets); each party
  other than the post's author also gets a mail of their own, the one who must answer
  next with what to reply and by when (replying to it ties a bare answer to the compel).
* **Fate points move with the state**: every transition checks first, then moves the
  points and the state together, inside the post's transaction.

The GM's pool and the payout of hostile invokes are :mod:`pbp.play.economy`.
"""
from __future__ import annotations

from datetime import timedelta

from pbp import commands as c
from pbp.errors import NotAllowedError, RulesError
from pbp.i18n import N_, Joined, Msg, Sentence
from pbp.play.core import GM, Ask, NoteResult, Post, Tell, handles
from pbp.play.sequence import deadline_job, status_line
from pbp.play.dates import when
from pbp.play.economy import ensure_pool
from pbp.play.state import forget_oldest
from pbp.posts import BARE_APPROVE_HINT
from pbp.rules import compels as rc
from pbp.rules import fate_points as fp
from pbp.rules.compels import CompelRecord, CompelKind, CompelState
from pbp.rules.fate_points import DetailRequest
from pbp.rules.names import same_name
from pbp.rules.results import Effect

SETTLED_KEPT = 50
"""How many settled compels and details are remembered, as one line each, so that "#12 is
already accepted" can be said; the play state does not grow with history."""


# --------------------------------------------------------------------------- compels


def _ref(compel: CompelRecord) -> str:
    return f"compel:{compel.id}"


#: the kinds of compel, as a sentence names them (translated where said: a ``kind`` field)
KIND_WORDS = (N_("event"), N_("decision"))


def _kind_words(compel: CompelRecord) -> str:
    return compel.kind.value


def _describe(compel: CompelRecord) -> str:
    who = Msg("The GM") if compel.proposer == GM else compel.proposer
    fields = dict(who=who, target=compel.target, aspect=compel.aspect, kind=_kind_words(compel), text=compel.text)
    if compel.self_compel:
        return Msg('{who} asks for a self-compel on "{aspect}" ({kind}):\n  "{text}"', **fields)
    if compel.escrow or (compel.proposer != GM):
        return Msg('{who} offers a compel on {target}\'s aspect "{aspect}" ({kind}), paying 1 fate point:\n  "{text}"',
                   **fields)
    return Msg('{who} compels {target}\'s aspect "{aspect}" ({kind}):\n  "{text}"', **fields)


def _answer_text(compel: CompelRecord, table=None) -> str:
    who = compel.answerer
    refuse = (Msg("/refuse to avoid it by paying a fate point") if compel.kind is CompelKind.EVENT
              else Msg("/refuse to decline it at no cost (a decision)"))
    ch = table.character(compel.target) if table is not None and not compel.npc_target else None
    if ch is not None and compel.kind is CompelKind.EVENT and ch.fate_points < 1:
        refuse = Joined([refuse, Msg(" (with no fate points, {who} cannot refuse this event)", who=ch.name)])
    return Msg("{who}, reply /accept to take the complication and gain a fate point, or {refuse}.\nIf nobody "
               "answers by {by}, the compel is accepted.", who=who if who != GM else Msg("GM"), refuse=refuse,
               by=when(compel.deadline))


def _approve_text(compel: CompelRecord) -> str:
    if compel.self_compel:
        default = Msg("the self-compel is denied")
    else:
        default = Msg("the compel is denied and {who}'s point returned", who=compel.proposer)
    return Msg("Reply /approve or /deny{hint}.\nIf nobody answers by {by}, {default}.", hint=Msg(BARE_APPROVE_HINT),
               by=when(compel.deadline), default=default)


def _announce(post: Post, t: rc.Transition, *, author: str | None) -> None:
    """Ask whoever must answer next: in the table's reply, and in a mail of their own."""
    compel = t.compel
    waiting = None
    if compel.state is CompelState.AWAITING_GM:
        waiting = GM
        post.ask(Ask(ref=_ref(compel), who=GM, deadline=compel.deadline,
                     text=Msg("Compel #{id} waits for the GM. {approve}", id=compel.id, approve=_approve_text(compel))))
    elif compel.state is CompelState.OFFERED:
        waiting = compel.answerer
        post.ask(Ask(ref=_ref(compel), who=waiting, deadline=compel.deadline,
                     text=Msg("Compel #{id}: {text}", id=compel.id, text=_answer_text(compel, post.table)),
                     subject=Msg("{who}, compel #{id} by {by}", who=waiting if waiting != GM else Msg("GM"),
                                 id=compel.id, by=when(compel.deadline))))
    else:
        post.close_ref(_ref(compel))
    # Every member reads the change in the table's mail (relay or list); the one who must
    # answer next also gets a mail of their own, whose subject says what is asked by when.
    for party in t.tell:
        if party == waiting and not (author is not None and _same_party(party, author)):
            post.tell(_tell_waiting(compel, party, post.table))


def _same_party(party: str, author: str) -> bool:
    return party == author if GM in (party, author) else same_name(party, author)


def _tell_waiting(compel: CompelRecord, party: str, table=None) -> Tell:
    if compel.state is CompelState.AWAITING_GM:
        return Tell(to=(GM,), subject=Msg("Compel #{id} needs your approval", id=compel.id),
                    text=Joined([_describe(compel), "\n", _approve_text(compel), "\n"]), refs=(_ref(compel),))
    return Tell(to=(party,), subject=Msg("Compel #{id} on {aspect}: accept or refuse by {by}", id=compel.id,
                                         aspect=compel.aspect, by=when(compel.deadline)),
                text=Joined([_describe(compel), "\n", _answer_text(compel, table), "\n"]), refs=(_ref(compel),))


def _state_word(compel: CompelRecord) -> str:
    return {CompelState.AWAITING_GM: "waiting for the GM", CompelState.OFFERED: "offered",
            CompelState.ACCEPTED: "accepted", CompelState.REFUSED: "refused", CompelState.DENIED: "denied",
            CompelState.WITHDRAWN: "withdrawn"}[compel.state]


def _headline(compel_id: int, text: str) -> str:
    said = Sentence(text)
    return said if said.lower().startswith(f"compel #{compel_id}") else Msg("Compel #{id}: {text}", id=compel_id,
                                                                             text=said)


def _retire(post: Post) -> None:
    """Settled compels and details leave the play state, leaving a line behind."""
    play = post.play
    for x in play.compels:
        if not x.is_open:
            play.settled[str(x.id)] = f"compel #{x.id} is already {x.state.value}"
    for d in play.details:
        if d.state != "pending":
            play.settled[str(d.id)] = f"{d.label} #{d.id} is already {d.state}"
            if d.id in play.reminded_details:
                play.reminded_details.remove(d.id)
    play.compels = [x for x in play.compels if x.is_open]
    play.details = [d for d in play.details if d.state == "pending"]
    forget_oldest(play.settled, SETTLED_KEPT)


@handles(c.Compel)
def compel(post: Post, cmd: c.Compel):
    """``/compel WHO ASPECT [event|decision] "TEXT"`` (``WHO`` may be ``me``)."""
    if post.author.is_gm:
        proposer = GM
        if cmd.target.lower() == "me":
            raise RulesError("the GM compels a player's character: name them", source=cmd.source,
                             expected="the character to compel instead of me",
                             example=f'/compel Ruth "{cmd.aspect}" {cmd.kind} "{cmd.text or "..."}"')
        target = post.full_name(cmd.target)
    else:
        proposer = post.character(cmd.actor, cmd).name
        target = proposer if cmd.target.lower() == "me" else post.full_name(cmd.target)
    compel_id = post.play.next_id
    t = rc.offer(post.table, compel_id, target, cmd.aspect, cmd.kind, cmd.text, post.now, proposer,
                 deadline=post.deadline(), system=post.system)
    post.play.new_id()
    post.play.compels.append(t.compel)
    _retire(post)
    _announce(post, t, author=GM if post.author.is_gm else proposer)
    return NoteResult(cmd.source, proposer, "compel", text=Msg("Compel #{id}: {text}", id=compel_id,
                                                                text=_describe(t.compel)),
                      changes=list(t.changes),
                      effects=[Effect("compel", Msg("Compel #{id}: {text}", id=compel_id, text=_describe(t.compel)),
                                      {"compel": compel_id, "state": t.compel.state.value})])


# --------------------------------------------------------------------------- story details


@handles(c.Detail)
def detail(post: Post, cmd: c.Detail):
    """``/detail "TEXT"``: a story detail for a fate point, once the GM approves it."""
    who = post.character(cmd.actor, cmd)
    if who.kind != "pc":
        raise NotAllowedError("the GM's side declares details by narrating them: no fate point needed",
                              source=cmd.source, expected="a detail from a player's character",
                              example='/detail "The guard is my cousin"')
    request = fp.declare_detail(post.table, post.play.next_id, who.name, cmd.text, post.now, post.deadline())
    post.play.new_id()
    open_request(post, request, f"Story detail #{request.id} waits for the GM.",
                 f'{who.name} declares a story detail, for 1 fate point when you approve it:\n  "{request.text}"',
                 unanswered="the detail is denied and nothing is paid")
    return NoteResult(cmd.source, who.name, "detail",
                      text=f'Story detail #{request.id}: {who.name} declares "{request.text}" '
                           f"(1 fate point once the GM approves)")


#: the subject of the GM's mail about a request, by its label (the others: "{what} #{id} ...")
APPROVAL_SUBJECTS = {"advancement": N_("Advancement #{id} needs your approval"),
                     "story detail": N_("Story detail #{id} needs your approval")}


def open_request(post: Post, request: DetailRequest, ask: str, tell: str, *, unanswered: str = Msg("it is denied")) -> None:
    """Number a request that waits for the GM (a story detail, a bonus, an aspect change), ask
    the GM in the table's reply, and tell the GM apart unless the GM wrote it; ``unanswered``
    says what the deadline does."""
    post.play.details.append(request)
    ref = f"detail:{request.id}"
    approve = Msg("Reply /approve or /deny{hint}. If nobody answers by {by}, {unanswered}.",
                  hint=Msg(BARE_APPROVE_HINT), by=when(request.deadline), unanswered=unanswered)
    post.ask(Ask(ref=ref, who=GM, deadline=request.deadline, text=Joined([ask, " ", approve])))
    if not post.author.is_gm:
        subject = (Msg(APPROVAL_SUBJECTS[request.label], id=request.id) if request.label in APPROVAL_SUBJECTS else
                   Msg("{what} #{id} needs your approval", what=request.label.capitalize(), id=request.id))
        post.tell(Tell(to=(GM,), subject=subject,
                       text=Joined([tell, "\n", approve, "\n"]), refs=(ref,)))


REQUEST_KINDS: dict = {}
"""Every kind of request (``DetailRequest.kind``) -> its rules, registered once by the module
that opens it with :func:`request_kind`. The rules answer ``answerable(post, verb, request)``,
``settle(post, request, verb, reason)`` (``(text, changes, done)``, or the finished result of
an approval that re-runs a roll or changes a sheet), ``expire(post, request) -> results`` at
the deadline, ``remind(post, request, lead)`` before it and ``waiting(post, request) -> str |
None`` for the status line. Most kinds are a :class:`GmRequest` (the GM approves or denies):
story details (here), bonuses and aspect changes (:mod:`pbp.play.bonuses`), costs
(:mod:`pbp.play.costs`), advancements (:mod:`pbp.play.advance`); early Fate's concessions and
taken-out outcomes (:mod:`pbp.play.concession`) have rules of their own."""


def request_kind(kind: str):
    """Register the rules of a request kind (a class is registered as one instance of it);
    a kind registered twice is an error."""
    def register(rules):
        if kind in REQUEST_KINDS:
            raise ValueError(f"request kind {kind!r} is registered twice")
        REQUEST_KINDS[kind] = rules() if isinstance(rules, type) else rules
        return rules
    return register


def request_rules(request: DetailRequest):
    """The registered rules of ``request``'s kind."""
    try:
        return REQUEST_KINDS[request.kind]
    except KeyError:
        raise RuntimeError(f"request kind {request.kind!r} has no rules: register them with "
                           "pbp.play.compels.request_kind") from None


def check_request_kinds() -> None:
    """Every kind a reply can name (``pbp.rules.fate_points.REQUEST_LABELS``) has its rules
    (run once all of ``pbp.play`` is imported)."""
    missing = sorted(set(fp.REQUEST_LABELS) - set(REQUEST_KINDS))
    if missing:
        raise RuntimeError("request kinds with no rules registered: " + ", ".join(missing))


class GmRequest:
    """A request the GM answers with ``/approve`` or ``/deny``, which its declarer (or the GM)
    may ``/withdraw`` while it waits; unanswered at the deadline it is denied. A kind gives
    :meth:`approve` and the words of what a denial leaves (``denied``) and what the deadline
    leaves (``expired``)."""

    denied = "nothing changes"
    expired = "nothing changes"
    reminder_then = "it is denied"

    def answerable(self, post: Post, verb: str, request: DetailRequest) -> bool:
        if verb in ("approve", "deny"):
            return post.author.is_gm
        return verb == "withdraw" and (post.author.is_gm or post.controls(request.character))

    def approve(self, post: Post, request: DetailRequest):
        """Carry out an approved request (the GM's reason is ``request.reason``): a result."""
        raise NotImplementedError

    def settle(self, post: Post, request: DetailRequest, verb: str, reason: str):
        by = GM if post.author.is_gm else post.speaker()
        label = f"{request.label} #{request.id}"
        if verb == "approve":
            fp.approve_request(request, by)
            request.reason = reason
            return self.approve(post, request)
        if verb == "deny":
            changes = fp.deny_detail(request, by, reason)
            text = f"The GM denies {label}" + (f": {reason}" if reason else "") + f"; {self.denied}"
            return text, changes, True
        if verb == "withdraw":
            if request.state != "pending":
                raise RulesError(f"{label} is already {request.state}", expected=_open_items(post, verb),
                                 example=_answer_example(post, "withdraw"))
            if not (post.author.is_gm or same_name(by, request.character)):
                raise NotAllowedError(f"only {request.character} or the GM can withdraw {label}",
                                      expected="a request of your own", example=_answer_example(post, "withdraw"))
            request.state = "withdrawn"
            return f"{label.capitalize()} is withdrawn; nothing changes", [], True
        raise RulesError(f"a {request.label} is approved or denied by the GM, not {verb}ed",
                         expected="/approve or /deny", example=f"/approve #{request.id}")

    def expire(self, post: Post, request: DetailRequest) -> list:
        if not fp.expire_detail(request, post.now):
            return []
        label = f"{request.label} #{request.id}"
        text = f"{label.capitalize()} was not approved by {when(request.deadline)}: it is denied; {self.expired}"
        return [NoteResult(f"(deadline: {label})", GM, request.kind, text=text)]

    def asked(self, request: DetailRequest) -> str:
        return f"{request.character} asked for {request.label} #{request.id}: {request.text}"

    def remind(self, post: Post, request: DetailRequest, lead: timedelta) -> None:
        if request.deadline is None or request.id in post.play.reminded_details or request.deadline - lead > post.now \
                or post.quiet(GM):
            return
        post.play.reminded_details.append(request.id)
        post.tell(Tell(to=(GM,), subject=f"Reminder: {request.label} #{request.id} needs your approval",
                       text=f"Reminder: {self.asked(request)}.\n"
                            f"Reply /approve or /deny by {when(request.deadline)}; then {self.reminder_then}.\n",
                       refs=(f"detail:{request.id}",)))

    def waiting(self, post: Post, request: DetailRequest) -> str | None:
        return f"Waiting for the GM to approve or deny {request.label} #{request.id} by {when(request.deadline)}."


@request_kind("detail")
class StoryDetail(GmRequest):
    """A story detail: approved, its declarer pays the fate point (docs/compels.md)."""

    denied = expired = "nothing is paid"

    def settle(self, post: Post, request: DetailRequest, verb: str, reason: str):
        if verb != "approve":
            return super().settle(post, request, verb, reason)
        changes = fp.approve_detail(request, post.table, GM if post.author.is_gm else post.speaker())
        text = f'The GM approves story detail #{request.id}: "{request.text}". {request.character} pays a fate point'
        return text, changes, True

    def asked(self, request: DetailRequest) -> str:
        return f'{request.character} declared "{request.text}"'


def _settle_detail(post: Post, request: DetailRequest, verb: str, reason: str):
    """Answer a request by its kind's rules. Returns (text, changes), or the finished result
    of an approval (a bonus's re-run roll, an aspect change made)."""
    settled = request_rules(request).settle(post, request, verb, reason)
    if not isinstance(settled, tuple):
        _closed(post, request)
        return settled
    text, changes, done = settled
    if done:
        _closed(post, request)
    return text, changes  # the table's mail tells everyone, the declarer included


def _closed(post: Post, request: DetailRequest) -> None:
    post.close_ref(f"detail:{request.id}")
    if request.id in post.play.reminded_details:
        post.play.reminded_details.remove(request.id)


# --------------------------------------------------------------------------- answers


def _answerable(post: Post, verb: str, item) -> bool:
    """Whether this post's author may give ``verb`` to ``item`` now."""
    gm = post.author.is_gm
    if isinstance(item, CompelRecord):
        if not item.is_open:
            return False
        if verb in ("accept", "refuse"):
            return item.state is CompelState.OFFERED and (gm if item.answerer == GM else post.controls(item.answerer))
        if verb in ("approve", "deny"):
            return gm and item.state is CompelState.AWAITING_GM
        if verb == "withdraw":
            return gm or (item.proposer != GM and post.controls(item.proposer))
        return False
    if item.state != "pending":
        return False
    return request_rules(item).answerable(post, verb, item)


def _find_item(post: Post, cmd: c.Answer):
    play = post.play
    items = {("compel", x.id): x for x in play.compels}
    items.update({("detail", x.id): x for x in play.details})
    if cmd.ref is not None:
        found = items.get(("compel", cmd.ref)) or items.get(("detail", cmd.ref))
        if found is None and str(cmd.ref) in play.settled:
            raise RulesError(play.settled[str(cmd.ref)], source=cmd.source, expected=_open_items(post, cmd.verb),
                             example=_answer_example(post, cmd.verb))
        other = play.named(cmd.ref) if found is None else None
        if other is not None and other.startswith("roll #"):
            raise RulesError(f"#{cmd.ref} is {other}, not a compel, story detail or request: a roll takes "
                             f"invokes (/invoke ASPECT on #{cmd.ref}), not /{cmd.verb}", source=cmd.source,
                             expected=_open_items(post, cmd.verb), example=_answer_example(post, cmd.verb))
        if other is not None:
            raise RulesError(f"#{cmd.ref} is {other}, which is answered with its own command, not /{cmd.verb}",
                             source=cmd.source, expected=_open_items(post, cmd.verb),
                             example=_answer_example(post, cmd.verb))
        if found is None:
            raise RulesError(f"there is no compel, story detail or request #{cmd.ref}", source=cmd.source,
                             expected=_open_items(post, cmd.verb), example=_answer_example(post, cmd.verb))
        return found
    threaded, gone = [], []
    for ref in post.thread_refs():
        kind, _, n = ref.partition(":")
        if kind in ("compel", "detail") and n.isdigit() and (kind, int(n)) in items:
            threaded.append(items[(kind, int(n))])
        elif kind in ("compel", "detail") and n in play.settled:
            gone.append(play.settled[n])
    if gone and not threaded:
        raise RulesError(gone[-1], source=cmd.source, expected=_open_items(post, cmd.verb),
                         example=_answer_example(post, cmd.verb))
    mine = [x for x in threaded if _answerable(post, cmd.verb, x)]
    if len(mine) == 1:
        return mine[0]
    if not mine:
        if len(threaded) == 1:
            return threaded[0]          # the rules module says why it cannot be answered
        mine = [x for x in items.values() if _answerable(post, cmd.verb, x)]
        if len(mine) == 1:
            return mine[0]
    if not mine:
        raise RulesError(f"there is no compel, story detail or request for you to {cmd.verb} now", source=cmd.source,
                         expected=_open_items(post, None), hint="answers name one with #ID, e.g. /accept #12",
                         example=_answer_example(post, cmd.verb))
    raise RulesError("several compels or story details could be meant; say which with #ID", source=cmd.source,
                     expected=", ".join(f"#{x.id}" for x in mine), example=f"/{cmd.verb} #{mine[-1].id}")


def _open_items(post: Post, verb: str | None) -> str:
    open_ = [f"compel #{x.id} ({_state_word(x)})" for x in post.play.compels if x.is_open]
    open_ += [f"{x.label} #{x.id}" for x in post.play.details if x.state == "pending"]
    return "one of " + ", ".join(open_) if open_ else "an open compel, story detail or request (there is none now)"


def _first_open(post: Post) -> int | None:
    ids = [x.id for x in post.play.compels if x.is_open] + [x.id for x in post.play.details if x.state == "pending"]
    return ids[0] if ids else None


def _answer_example(post: Post, verb: str) -> str:
    """``/accept #N`` for the first open compel, story detail or request; with none open,
    ``/table``, which shows what the table waits for (an example that works now)."""
    first = _first_open(post)
    return f"/{verb} #{first}" if first is not None else "/table"


@handles(c.Accept, c.Refuse, c.Approve, c.Deny, c.Withdraw)
def answer(post: Post, cmd: c.Answer):
    """``/accept``, ``/refuse``, ``/approve``, ``/deny``, ``/withdraw`` [#ID] ["REASON"]
    (the GM's ``/veto #ROLL ASPECT`` is :func:`pbp.play.invoking.veto`)."""
    item = _find_item(post, cmd)
    by = GM if post.author.is_gm else post.speaker()
    if isinstance(item, DetailRequest):
        settled = _settle_detail(post, item, cmd.verb, cmd.reason)
        _retire(post)
        if not isinstance(settled, tuple):
            return settled          # an approved bonus re-runs its roll; an aspect change is made
        text, changes = settled
        return NoteResult(cmd.source, by, cmd.verb, text=text, changes=changes)
    try:
        t = _transition(post, item, cmd.verb, by, cmd.reason)
    except RulesError as exc:
        exc.source = exc.source or cmd.source
        raise
    _announce(post, t, author=by)
    _retire(post)
    text = _headline(item.id, t.text)
    return NoteResult(cmd.source, by, cmd.verb, text=text, changes=list(t.changes),
                      effects=[Effect("compel", text, {"compel": item.id, "state": t.after.value, "verb": cmd.verb})])


def _transition(post: Post, compel: CompelRecord, verb: str, by: str, reason: str) -> rc.Transition:
    table, now, ledger = post.table, post.now, post.play.ledger
    if compel.npc_target:
        ensure_pool(post)
    if verb == "accept":
        return rc.accept(compel, table, by, now, ledger)
    if verb == "refuse":
        return rc.refuse(compel, table, by, now, ledger)
    if verb == "approve":
        return rc.approve(compel, table, by, now, deadline=post.deadline())
    if verb == "deny":
        return rc.deny(compel, table, by, now, reason)
    if verb == "withdraw":
        return rc.withdraw(compel, table, by, now, gm_agrees=by == GM, reason=reason)
    raise RulesError(f"/{verb} is not an answer to a compel", expected="/accept, /refuse, /approve, /deny or /withdraw",
                     example=f"/accept #{compel.id}")


# --------------------------------------------------------------------------- deadlines and status


@deadline_job
def compel_deadlines(post: Post) -> list:
    """Defaults at the deadlines (offered -> accepted, awaiting the GM -> denied, a story
    detail -> denied) and reminders before them."""
    results = []
    lead = timedelta(hours=post.hours("reminder_hours"))
    for compel in [x for x in post.play.compels if x.is_open]:
        if compel.npc_target:
            ensure_pool(post)
        t = rc.expire(compel, post.table, post.now, post.play.ledger)
        if t is not None:
            by = when(compel.deadline)
            if t.after is CompelState.ACCEPTED:
                how = Msg("nobody answered by {by}, so it is accepted: {who} gains the fate point", by=by,
                          who=compel.target)
                if compel.npc_target:
                    how = Msg("nobody answered by {by}, so it is accepted: the GM's pool gains the point", by=by)
            elif compel.self_compel:
                how = Msg("the GM did not answer by {by}, so the self-compel is denied", by=by)
            else:
                how = Msg("the GM did not answer by {by}, so it is denied and {who}'s point returned", by=by,
                          who=compel.proposer)
            text = Msg("Compel #{id} on {target}'s {aspect}: {how}.", id=compel.id, target=compel.target,
                       aspect=compel.aspect, how=how)
            _announce(post, t, author=None)
            results.append(NoteResult(f"(deadline: compel #{compel.id})", GM, "compel", text=text,
                                      changes=list(t.changes)))
        elif rc.reminder_due(compel, post.now, lead) and not post.quiet(
                GM if compel.state is rc.CompelState.AWAITING_GM else compel.answerer):
            for who in rc.mark_reminded(compel, post.now):
                tell = _tell_waiting(compel, who, post.table)
                post.tell(Tell(to=tell.to, subject=Msg("Reminder: {subject}", subject=tell.subject),
                               text=Msg("Reminder:\n{text}", text=tell.text),
                               refs=tell.refs))
    for request in [d for d in post.play.details if d.state == "pending"]:
        rules = request_rules(request)
        if request.deadline is not None and request.deadline <= post.now:
            results += rules.expire(post, request)
            if request.state != "pending":
                post.close_ref(f"detail:{request.id}")
        else:
            rules.remind(post, request, lead)
    _retire(post)
    return results


@status_line
def compel_status(post: Post) -> list[str]:
    lines = []
    for x in post.play.compels:
        if x.state is CompelState.AWAITING_GM:
            lines.append(Msg("Waiting for the GM to approve or deny compel #{id} by {by}.", id=x.id, by=when(x.deadline)))
        elif x.state is CompelState.OFFERED:
            who = Msg("the GM") if x.answerer == GM else x.answerer
            lines.append(Msg("Waiting for {who} to accept or refuse compel #{id} by {by}.", who=who, id=x.id,
                             by=when(x.deadline)))
    for d in post.play.details:
        line = request_rules(d).waiting(post, d) if d.state == "pending" else None
        if line:
            lines.append(line)
    return lines
