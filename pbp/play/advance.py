"""Advancement by mail: the GM marks a milestone, players ask for their changes, the GM
approves.

* ``/milestone minor|major`` (``significant`` where the system has it, ``major power`` for
  the GM's extra refresh and raise) gives every player character what the milestone allows
  (``System.milestones``, :mod:`pbp.rules.advancement`), kept in ``PlayState.advances``:
  the changes from the minor list, the high concept, refresh, and skill points. Skill
  points not spent are saved for later milestones; the rest lapses when the next
  milestone is marked.
* ``/advance KEY=VALUE...`` (the keys of ``/sheet set``: ``skills.Lore=Fair``,
  ``aspects.trouble="..."``, ``stunts.NAME="Shoot attack +2 when..."``, ``refresh=4``) asks
  for changes to the author's own sheet. The changed sheet is checked with the import's
  rules (the system's creation rules: skill list, column, refresh never below the minimum)
  and against what the milestone allows; a raise that breaks the column is refused with
  the raises that would work. A request that passes is an **advancement** #N, a
  :class:`DetailRequest` the GM answers like a story detail (``/approve``, ``/deny``, a
  bare "approve" in reply); no answer by the deadline denies it.
* On approval the request is checked again against the sheet as it is then, and applied
  with :func:`pbp.sheetedit.apply_to_table` (play state kept; the post's change goes into
  the sheet history, so ``pbp character undo`` takes it back).
"""
from __future__ import annotations

import copy
from dataclasses import asdict

from pbp import commands as c
from pbp.errors import ConfigError, NotAllowedError, RulesError, SheetError
from pbp.i18n import Joined, Msg, Msgs
from pbp.play.core import GM, NoteResult, Post, handles, quote
from pbp.rules.ladder import describe
from pbp.play.compels import GmRequest, open_request, request_kind
from pbp.rules.advancement import POWER_UP, Allowance, judge
from pbp.rules.fate_points import DetailRequest
from pbp.sheetedit import apply_to_table, set_key, sheet_data
from pbp.sheetplay import PLAY_KEYS
from pbp.sheetfile import parse_sheet

EXAMPLE = "/advance skills.Fight=Good skills.Athletics=Great"


def grant(post: Post, level: str, power: bool) -> list[str]:
    """Every PC's allowance for a milestone just marked; returns a line per PC."""
    allowance = post.system.milestones[level]
    if power:
        allowance = allowance.plus(POWER_UP)
    lines = []
    for ch in sorted(post.table.characters.values(), key=lambda x: x.name):
        if ch.kind != "pc":
            continue
        saved = int(post.play.advances.get(ch.name, {}).get("skill_points", 0))
        now = asdict(allowance)
        now["skill_points"] = saved + allowance.skill_points
        now["level"] = level
        # a new dict: the play state read from the campaign row may share its dicts with
        # the row, and a change made in place would not be seen as a change and not saved
        post.play.advances = {**post.play.advances, ch.name: now}
        lines.append(Msg("{who}: {allowance}", who=ch.name, allowance=_allowance_text(now)))
    return lines


def _allowance_text(a: dict) -> str:
    parts = []
    if a.get("lateral"):
        parts.append(Msgs("{n} change from the minor list", "{n} changes from the minor list", a["lateral"]))
    if a.get("high_concept"):
        parts.append(Msg("a new high concept"))
    if a.get("skill_points"):
        parts.append(Msgs("{n} skill point", "{n} skill points", a["skill_points"]))
    if a.get("refresh"):
        parts.append(Msg("{n} refresh", n=a["refresh"]))
    if not parts:
        return Msg("nothing left")
    return Joined([part for n, p in enumerate(parts) for part in ((p,) if not n else (", ", p))])


def _allowance(a: dict) -> Allowance:
    return Allowance(int(a.get("lateral", 0)), bool(a.get("high_concept")), 0, int(a.get("refresh", 0)))


def _build(post: Post, ch, values, example: str):
    """The sheet data before and after the changes, the parsed sheet and the verdict; a
    RulesError names what is wrong."""
    before = sheet_data(post.campaign, post.table, ch)
    data = copy.deepcopy(before)
    for pair in values:
        key, _, value = pair.partition("=")
        if key in ("description", "player", "kind", "fate_points", "aliases", "milestone_refresh",
                   "milestone_skills") or key.split(".")[0] in PLAY_KEYS:
            raise RulesError(f"{key} is not changed at a milestone", expected="skills, aspects, stunts or refresh",
                             example=example)
        try:
            set_key(data, key, value)
        except ConfigError as exc:
            raise RulesError(str(exc), expected=exc.hint or "a sheet key and its value", example=example) from None
    state = post.system.character_state
    free = state.granted_stunts(ch) + state.free_stunts(ch, post.system)
    extra = max(0, len(data.get("stunts", [])) - free)
    base = post.system.starting_refresh - extra
    if any(v.startswith("refresh=") for v in values):
        data["milestone_refresh"] = int(data["refresh"]) - base
    else:
        data["refresh"] = base + int(data.get("milestone_refresh", 0) or 0)
    if not data.get("milestone_refresh"):
        data.pop("milestone_refresh", None)
    _refresh_floor(post, ch, before, data, example)
    have = post.play.advances.get(ch.name) or {}
    verdict = judge(before, data, _allowance(have), int(have.get("skill_points", 0)), post.system)
    if verdict.problems:        # first: a broken column is told with the raises that would work
        return None, verdict
    post.system.character_state.record_raises(data, verdict.points)
    try:
        sheet = parse_sheet(data, post.system, source=f"{ch.name}'s sheet")
    except SheetError as exc:
        raise RulesError(f"{exc}: " + "; ".join(exc.problems), expected="a sheet the rules allow",
                         example=example) from None
    return sheet, verdict


def _refresh_floor(post: Post, ch, before: dict, data: dict, example: str) -> None:
    """A stunt bought past the free slots costs 1 refresh, never below the system's minimum
    ("Remember, you can't go below 1 refresh"): refused with what would work instead."""
    least = post.system.min_refresh
    if int(data.get("refresh", least)) >= least:
        return
    old = {s["name"].casefold() for s in before.get("stunts", [])}
    came = [s for s in data.get("stunts", []) if s["name"].casefold() not in old]
    if not came:
        return
    have = [s["name"] for s in before.get("stunts", [])]
    new = came[0]
    rewrite = (f'/advance stunts.{quote(have[0])}= stunts.{quote(new["name"])}="{new.get("description", "")}"'
               if have else example)
    short = least - int(data.get("refresh", least))
    raise RulesError(f"{ch.name} has refresh {before.get('refresh')} and no free stunt slot left: buying "
                     f"{new['name']} costs 1 refresh, which would leave refresh {data.get('refresh')}; a player "
                     f"character keeps at least {least}: drop {short} stunt{'s' if short != 1 else ''}",
                     expected="what would work: rewrite one of the stunts as the new one instead (drop one as you "
                              "add it, one change from the minor list), or, at a major milestone with the GM's "
                              "power-up, take its point of refresh (refresh=N) and spend it on the stunt",
                     example=rewrite)


def own_example(ch) -> str:
    """A minor milestone's change on ``ch``'s own sheet, in numbers every system reads: two
    of its skills of different ratings swapped (``/advance skills.Fight=2 skills.Move=3``);
    the documented example when the sheet has no two such skills."""
    skills = sorted(ch.skills.items(), key=lambda kv: -kv[1])
    pair = next(((a, b) for a in skills for b in skills if a[1] > b[1]), None)
    if pair is None:
        return EXAMPLE
    (hi, r_hi), (lo, r_lo) = pair
    return f"/advance skills.{quote(hi)}={r_lo} skills.{quote(lo)}={r_hi}"


@handles(c.Advance)
def advance(post: Post, cmd: c.Advance):
    ch = post.character(None, cmd)
    if ch.kind != "pc":
        raise NotAllowedError("advancement is for player characters", expected="a player's own character",
                              example=EXAMPLE)
    have = post.play.advances.get(ch.name)
    if not have or _allowance_text(have) == "nothing left":
        raise RulesError(f"{ch.name} has no milestone to spend now", expected="a milestone the GM has marked "
                         "(/milestone minor or /milestone major)", example="/sheet")
    pending = next((d for d in post.play.details if d.kind == "advance" and d.state == "pending"
                    and d.character == ch.name), None)
    if pending is not None:
        raise RulesError(f"{ch.name}'s advancement #{pending.id} still waits for the GM",
                         expected=f"the GM's answer first, or /withdraw #{pending.id}", example=f"/withdraw #{pending.id}")
    _, verdict = _build(post, ch, cmd.values, own_example(ch))
    if verdict.problems:
        example = own_example(ch)
        if verdict.fix:
            example = "/advance " + " ".join(f"skills.{quote(k) if ' ' in k else k}={describe(v, post.system.ladder).split()[0]}"
                                             for k, v in verdict.fix.items())
        raise RulesError(f"{ch.name}'s changes do not fit the milestone: " + "; ".join(verdict.problems),
                         expected=f"changes this milestone allows ({_allowance_text(have)})", example=example)
    said = "; ".join(c.text for c in verdict.changes)
    request = DetailRequest(post.play.new_id(), ch.name, said, post.now, post.deadline(), kind="advance",
                            data={"values": list(cmd.values), "level": have.get("level", "")})
    # the table's reply says the request once, in the note below; the ask only says who answers
    open_request(post, request, Msg("Advancement #{id} waits for the GM.", id=request.id),
                 Msg("{who} asks, at the {kind} milestone:\n  {source}\nThat is: {said}.", who=ch.name,
                     kind=have.get("level", ""), source=cmd.source, said=said),
                 unanswered=Msg("it is denied and the sheet stays as it is"))
    return NoteResult(cmd.source, ch.name, "advance",
                      text=Msg("Advancement #{id}: {who} asks for {said} (once the GM approves).", id=request.id,
                               who=ch.name, said=said))


def approve_advance(post: Post, request: DetailRequest) -> NoteResult:
    """Apply an approved advancement (checked again against the sheet as it is now)."""
    ch = post.find(request.character)
    source = f"/approve #{request.id}"
    try:
        sheet, verdict = _build(post, ch, request.data.get("values", ()), source)
    except RulesError as exc:
        verdict, why = None, exc.args[0] if exc.args else str(exc)
    else:
        why = "; ".join(verdict.problems)
    if verdict is None or verdict.problems:
        request.state, request.reason = "expired", why
        return NoteResult(source, GM, "approve", text=Msg("Advancement #{id} no longer fits {who}'s sheet ({why}); "
                                                          "nothing changes.", id=request.id, who=ch.name, why=why))
    notes = apply_to_table(post.system, post.table, ch, sheet)
    have = dict(post.play.advances.get(ch.name) or {})
    post.play.advances = {**post.play.advances, ch.name: have}
    have["lateral"] = max(0, int(have.get("lateral", 0)) - verdict.lateral)
    have["skill_points"] = max(0, int(have.get("skill_points", 0)) - verdict.points)
    if any(c.kind == "high_concept" for c in verdict.changes):
        have["high_concept"] = False
    gained = sum(1 for c in verdict.changes if c.kind == "refresh")
    if gained:
        have["refresh"] = 0
    left = _allowance_text(have)
    text = (Msg("The GM approves advancement #{id}: {said}. {who} has nothing left from the milestone.",
                id=request.id, said=request.text, who=ch.name) if left == "nothing left" else
            Msg("The GM approves advancement #{id}: {said}. {who} may still take from the milestone: {left}.",
                id=request.id, said=request.text, who=ch.name, left=left))
    if notes:
        text = Joined([text, " " + "; ".join(notes) + "."])
    return NoteResult(source, GM, "approve", text=text)


@request_kind("advance")
class AdvanceRequest(GmRequest):
    """A milestone's advancement: approved, the sheet changes (checked again then)."""

    denied = "the sheet stays as it is"

    def approve(self, post: Post, request: DetailRequest):
        return approve_advance(post, request)
