"""Conflicts by post: the turn order, attacks and defences across mails, harm, concession,
and the deadlines that keep a slow table moving.

What a conflict looks like to the table (docs/conflicts.md tells it for players):

* The GM starts it (``/conflict start A, B, C first A``) and places people in the scene's
  zones (``/place A in Dock``; placing someone not in the conflict brings them in).
* Popcorn order (:mod:`pbp.rules.turns`): on their turn a character takes one overcome,
  advantage or attack and may make one free move; ``/next NAME`` hands the turn on. An
  action out of turn rejects the whole post, with a reply that says whose turn it is. A
  defence is a reaction and never needs the turn. Whoever has acted and not handed off is
  asked to, with a deadline; at the deadline the turn goes to the first still to act.
* An attack on an NPC is settled at once: the NPC defends with its best allowed skill (or
  the one the GM set with ``/npc add ... defend``) and absorbs the hit by policy.
* An attack on a PC is rolled in two halves: the attacker's effort now, the defence when
  that player answers ``/defend SKILL`` (tied by the reply to the mail that asked, or the
  oldest waiting), or at the deadline with their best allowed skill. A hit then waits for
  ``/absorb`` the same way; the default is the cheapest absorption with placeholder names.
  A hit nothing can absorb takes the character out at once.
* ``/concede`` is allowed until the dice are rolled against you: an attack waiting for
  your defence, or a hit waiting for your absorption, blocks it (where the system's
  ``concede_on_hit`` says so, early Fate's "Instead of taking a consequence, a character can
  concede", a hit waiting for your absorption may be answered by conceding: the hit is held
  with the concession, :mod:`pbp.play.concession`; void if it stands, back if it is refused,
  and void at once where nobody may refuse it). The conflict ends by
  itself when one side is all out or conceded (or by ``/conflict end``); conceders are
  paid then.

Every reply in a campaign with a conflict ends with whose turn it is and who is still to
act this exchange (the ``status_line`` below), and with what pbp waits for.
"""
from __future__ import annotations

import re

from dataclasses import replace
from datetime import timedelta

from pbp import commands as c
from pbp.i18n import CommandLine, Joined, Msg, Msgs
from pbp.i18n.words import TO_BE_NAMED
from pbp.errors import RulesError
from pbp.play.core import (
    CONCEDED, CONFLICT_END, GM, TAKEN_OUT, Ask, NoteResult, Post, Tell, after_post, deadline_job, handles, quote,
    resolve_action, status_line,
)
from pbp.play.dates import when
from pbp.play.secrets import keep_secret, on_a_board, secret_throws, seen_aspects
from pbp.play.state import Pending, TurnClock
from pbp.rules import aspects as ra
from pbp.rules import conflict as rc
from pbp.rules import harm
from pbp.rules import turns as rt
from pbp.rules.actions import DEFENCE_LATER, existing_aspect
from pbp.rules.effort import best_skill
from pbp.rules.ladder import describe
from pbp.rules.names import and_names, same_name, skill_list
from pbp.rules.reopen import ROLLER_DONE
from pbp.rules.results import ActionResult, Change, Effect
from pbp.rules.state import Character

TURN_REF = "turn"


# --------------------------------------------------------------------------- small helpers


def active(post: Post) -> rc.Conflict | None:
    conflict = post.play.conflict
    return conflict if conflict is not None and not conflict.ended else None


def require_conflict(post: Post, cmd: c.Command) -> rc.Conflict:
    conflict = active(post)
    if conflict is None:
        raise RulesError("there is no conflict going on", source=cmd.source,
                         expected="a conflict the GM has started",
                         example='/conflict start Ruth, Ghoul first Ruth', depends_on="conflict")
    return conflict


def member(conflict: rc.Conflict, name: str) -> str | None:
    return next((p for p in conflict.participants if same_name(p, name)), None)


def controller(post: Post, name: str) -> str:
    """Who answers for a character: the character (their player) or the GM."""
    ch = post.table.character(name)
    return ch.name if ch is not None and ch.player else GM


def _touch(post: Post) -> None:
    """Settle the turn clock and the handoff ask once the whole post has applied
    (:func:`settle_turn`, a step after the post)."""
    post.__dict__["_conflict_touched"] = True


@after_post
def settle_turn(post: Post) -> None:
    """After a post that touched the conflict: the turn clock and the handoff ask. (A held
    action dropped after touching it leaves the mark: harmless, as what ran it, a /next or
    the deadline's handoff, touched the conflict itself.)"""
    if post.__dict__.pop("_conflict_touched", False):
        _settle_turn(post)


def _note(cmd_source: str, actor: str, action: str, effects: list[Effect], changes: list[Change] = (),
          text: str = "") -> NoteResult:
    """A result told by its effects' texts; effects for the GM alone stay out of the table's text."""
    lines = [text] if text else []
    public = lines + [e.text for e in effects if e.text and not e.data.get("gm_only")]
    lines += [e.text for e in effects if e.text]
    return NoteResult(cmd_source, actor, action, text=_joined(lines), effects=list(effects),
                      changes=list(changes), public_text=_joined(public) if public != lines else None)


def _joined(lines: list) -> Joined:
    """Lines of a note, each said in the campaign's language (``pbp.i18n.Joined``)."""
    parts: list = []
    for line in lines:
        parts += ["\n  ", line] if parts else [line]
    return Joined(parts)


def _extend(result, effects, changes) -> None:
    result.effects.extend(effects)
    result.changes.extend(changes)


def member_names(conflict: rc.Conflict) -> list[str]:
    return list(conflict.turns.participants) if conflict.turns is not None else []


def _check_standing(post: Post, conflict: rc.Conflict | None, name: str, cmd: c.Command, doing: str) -> None:
    ch = post.table.character(name)
    out = conflict.out() if conflict is not None else ()
    if (ch is not None and ch.taken_out) or name in out:
        how = "conceded" if conflict is not None and name in conflict.conceded else "been taken out"
        still = [p for p in (member_names(conflict) if conflict is not None else ()) if p not in out and p != name]
        raise RulesError(f"{name} has {how}: {name} cannot {doing} in this conflict", source=cmd.source,
                         expected="someone still in the fight (the taken out are back in the next scene)",
                         example=f"/sheet {quote(still[0])}" if still else "/sheet", depends_on=f"out:{name}")


# --------------------------------------------------------------------------- actions


@handles(c.Roll, c.Overcome, c.Advantage, c.Attack, c.Defend)
def act(post: Post, cmd):
    """Every roll and action: in a conflict, on the actor's turn; attacks and defences
    across mails as the module doc says."""
    if isinstance(cmd, c.Roll) and not cmd.skill and cmd.actor is None and post.author.is_gm \
            and not post.own_characters():
        return resolve_action(post, cmd, GM)     # the GM's own dice (the weather): no character rolls
    actor = post.character(getattr(cmd, "actor", None), cmd)
    cmd = _by_default_secret(post, cmd, actor.name)
    if getattr(cmd, "secrecy", ""):
        return _secret(post, cmd, actor)
    if isinstance(cmd, c.Roll):
        return resolve_action(post, cmd, actor.name)
    if isinstance(cmd, c.Defend):
        return defend(post, cmd, actor)
    conflict = active(post)
    inside = conflict is not None and member(conflict, actor.name) is not None
    _check_standing(post, conflict if inside else None, actor.name, cmd, "act")
    target = _target_of(post, cmd)
    if target is not None:
        _check_standing(post, conflict, target.name, cmd, "be acted upon")
    if inside:
        if target is not None and isinstance(cmd, c.Attack) and member(conflict, target.name) is None:
            raise RulesError(f"{target.name} is not in this conflict", source=cmd.source,
                             expected="a participant; the GM brings someone in with /place NAME in ZONE")
        conflict = replace(conflict, turns=rt.take_action(conflict.turns, actor.name, "action"))
        post.play.conflict = conflict
        _touch(post)
    elif conflict is not None and isinstance(cmd, c.Attack) and target is not None \
            and member(conflict, target.name) is not None:
        raise RulesError(f"{actor.name} is not in this conflict, so cannot attack {target.name}", source=cmd.source,
                         expected="a participant; the GM brings someone in with /place NAME in ZONE",
                         example=f"/place {quote(actor.name)} in Dock")
    if isinstance(cmd, c.Attack):
        return attack(post, cmd, actor, target, conflict if inside else None)
    if isinstance(cmd, c.Advantage) and target is not None and cmd.opposition is None:
        cmd = replace(cmd, opposition=c.Opposition(character=target.name))   # the target resists actively
    return resolve_action(post, cmd, actor.name)


def _by_default_secret(post: Post, cmd, actor: str):
    """A roll of one of the campaign's ``secret_skills`` (``pbp campaign set``) outside a
    conflict, written without ``secret`` or ``blind``: secret when the GM rolls it, blind when
    a player does (the player is told it was rolled, the GM the result). In a conflict it is
    rolled in the open, as every conflict roll is, and so are one written ``open`` and one
    that counts on a challenge's or a contest's board, which shows it (docs/verify.md)."""
    if getattr(cmd, "secrecy", "") == "open":       # written "open": in the open all the same
        return replace(cmd, secrecy="")
    if not isinstance(cmd, (c.Roll, c.Overcome)) or cmd.secrecy or not cmd.skill or active(post) is not None:
        return cmd
    chosen = (getattr(post.campaign, "settings", None) or {}).get("secret_skills") or ()
    skill = post.system.skill_named(cmd.skill) or cmd.skill
    if skill not in chosen:
        return cmd
    if on_a_board(post, cmd, actor):        # a challenge's task, a contest's roll: their boards are public
        return cmd
    return replace(cmd, secrecy="secret" if post.author.is_gm else "blind")


def _fighting(post: Post, name: str) -> bool:
    conflict = active(post)
    return conflict is not None and member(conflict, name) is not None


def _secret(post: Post, cmd, actor: Character):
    """A secret or blind roll (:mod:`pbp.play.secrets`). In a conflict only an overcome or an
    advantage against a difficulty may be secret, and it takes the actor's turn as any action
    does; a plain roll is refused there, and so is an action someone resists actively (their
    roll is theirs to see); attacks and defences have no secret form, since the harm they
    change is the table's to see (docs/verify.md)."""
    conflict = active(post)
    if conflict is not None:
        open_form = cmd.source.rsplit(" ", 1)[0]
        if isinstance(cmd, c.Roll):
            raise RulesError(f"a {cmd.secrecy} roll cannot be made during a conflict: everyone sees a conflict's "
                             "dice, but for an overcome or an advantage against a difficulty",
                             source=cmd.source, expected="the roll without the word " + cmd.secrecy,
                             example="/as Ghoul overcome Notice vs Fair secret" if post.author.is_gm
                             else "/overcome Notice vs Fair blind")
        target = _target_of(post, cmd)
        resisting = cmd.opposition.character if cmd.opposition is not None and cmd.opposition.character \
            else target.name if target is not None and cmd.opposition is None else None
        if resisting:
            raise RulesError(f"{resisting} resists this actively: in a conflict a {cmd.secrecy} roll may only be "
                             "against a difficulty, since the resisting roll is the table's to see",
                             source=cmd.source, expected=f"a difficulty (vs Fair), or the roll without {cmd.secrecy}",
                             example=open_form)
        if member(conflict, actor.name) is not None:
            _check_standing(post, conflict, actor.name, cmd, "act")
            post.play.conflict = replace(conflict, turns=rt.take_action(conflict.turns, actor.name, "action"))
            _touch(post)
    board = on_a_board(post, cmd, actor.name, _fighting(post, actor.name))
    if board:
        raise RulesError(f"a {cmd.secrecy} roll cannot be made here: {board}", source=cmd.source,
                         expected=f"the roll without the word {cmd.secrecy}",
                         example=re.sub(rf"\s+{cmd.secrecy}\b", "", cmd.source, count=1, flags=re.I))
    if isinstance(cmd, c.Advantage):
        cmd = _secret_advantage(post, cmd, actor)
    seen = seen_aspects(post)
    with secret_throws(post, cmd):
        result = resolve_action(post, cmd, actor.name)
    keep_secret(post, cmd, result, seen)
    return result


def _secret_advantage(post: Post, cmd: c.Advantage, actor: Character) -> c.Advantage:
    """A secret create-an-advantage makes a new aspect, discovers or guesses a hidden one
    (the table sees none of them until the reveal); on an aspect the table already sees,
    its new free invokes would tell the outcome, so that one is rolled in the open."""
    target = _target_of(post, cmd)
    if cmd.aspect:
        existing = existing_aspect(post.table, cmd.aspect, target, actor.name)
        if existing is not None and not existing.hidden:
            raise RulesError(f'"{existing.name}" is in plain sight: a {cmd.secrecy} advantage on it would show '
                             "its outcome in its free invokes", source=cmd.source,
                             expected=f"a new aspect, or the advantage without the word {cmd.secrecy}",
                             example=cmd.source.rsplit(" ", 1)[0])
    if target is not None and cmd.opposition is None:
        cmd = replace(cmd, opposition=c.Opposition(character=target.name))   # the target resists actively
    return cmd


def _target_of(post: Post, cmd) -> Character | None:
    if isinstance(cmd, c.Attack):
        return post.find(cmd.target) if cmd.target else None
    if isinstance(cmd, c.Advantage) and cmd.target:
        return post.find(cmd.target)
    if cmd.opposition is not None and cmd.opposition.character:
        return post.find(cmd.opposition.character)
    return None


def _attack_kind(post: Post, skill: str):
    return post.system.attack_kind(post.system.skill_named(skill) or skill) if skill else None


def _track(post: Post, skill: str, conflict: rc.Conflict | None) -> str:
    return harm.hit_track(skill, post.system, default=conflict.kind if conflict is not None else post.system.tracks[0])


def attack(post: Post, cmd: c.Attack, actor: Character, target: Character, conflict: rc.Conflict | None):
    kind = _attack_kind(post, cmd.skill)
    if conflict is not None:
        reach = post.play.scene.ranged_reach if post.play.scene is not None else "adjacent"
        try:
            rc.check_reach(conflict, actor.name, target.name, ranged=kind is not None and kind.ranged,
                           policy=reach, how=kind.how(cmd.skill) if kind is not None else "")
        except RulesError as exc:
            exc.source = exc.source or cmd.source
            raise
    if target.player and cmd.opposition is None:
        return _attack_on_pc(post, cmd, actor, target, conflict, kind)
    opposition = cmd.opposition if cmd.opposition is not None else _npc_defence(post, target, kind)
    result = resolve_action(post, cmd if opposition is cmd.opposition else replace(cmd, opposition=opposition),
                            actor.name)
    for hit in harm.hits(result, _track(post, result.skill, conflict)):
        _extend(result, *land_hit(post, hit, result.skill, source=result))
    return result


def _npc_defence(post: Post, target: Character, kind) -> c.Opposition | None:
    """The GM's choice of defence skills for this NPC (``/npc add ... defend``), among those
    the rules allow (an NPC's own free-form skill always counts), else None: the best allowed."""
    chosen = post.play.npc_defences.get(target.name, ())
    if not chosen:
        return None
    allowed = post.system.defences_against(kind)
    usable = [s for s in chosen if any(same_name(s, a) for a in allowed) or post.system.skill_named(s) is None]
    if not usable:
        return None
    skill, _ = best_skill(target, usable, skill_list(post.table, post.system))
    return c.Opposition(character=target.name, skill=skill)


def _attack_on_pc(post: Post, cmd: c.Attack, actor: Character, target: Character, conflict, kind):
    """The first half of an attack on a player's character: roll the attacker's effort and
    ask the player for their defence."""
    result = resolve_action(post, replace(cmd, opposition=DEFENCE_LATER), actor.name)
    pending = Pending(
        id=post.play.new_id(), kind="defend", target=target.name, attacker=actor.name, deadline=post.deadline(),
        opened_at=post.now, attack_effort=result.effort.total, attack_skill=result.skill or "", roll_id=result.roll_id,
        attack_kind=kind.name if kind is not None else "any", track=_track(post, result.skill, conflict),
        summary=f"{actor.name}'s attack with {result.skill}, {post.system.explain.passive(result.effort.total)}",
    )
    keep_attack_scale(pending, result)
    post.play.pending.append(pending)
    post.ask(_defend_ask(post, pending, target))
    return result


def default_defence(post: Post, ch: Character, pending: Pending) -> tuple[str, int]:
    kind = _attack_kind(post, pending.attack_skill)
    return best_skill(ch, post.system.defences_against(kind), skill_list(post.table, post.system))


def _kind_words(post: Post, pending: Pending) -> str:
    """What a defence is against, in the attack kind's own words (``AttackKind.against``)."""
    kind = post.system.attack_kinds.get(pending.attack_kind)
    return kind.against if kind is not None else "against this attack"


def _example_aspect(post: Post, ch: Character) -> str:
    own = [a for a in post.table.aspects if same_name(a.owner, ch.name) and not a.hidden
           and a.kind in ("character", "high_concept")]
    own.sort(key=lambda a: a.kind != "character")
    return own[0].name if own else "Aspect"


def _defence_words(post: Post, ch: Character, skill: str, rating: int) -> tuple[str, str]:
    """The defence as an example writes it and as the default names it: the skill and its
    rating; in a system whose pool adds an approach (the d10 hack), the skill with the
    character's best approach, quoted (``"Fight Boldly"``), and the pool it makes."""
    term = post.system.character_state.approach(ch, None, chosen=False)
    if term is None:
        return skill, f"{skill}, {post.system.explain.rated(skill, rating)}"
    size = max(rating, 0) + term.value
    return f'"{skill} {term.label}"', f"{skill} {term.label}, {size} {'die' if size == 1 else 'dice'}"


def _against(sides: list[str]):
    """The sides of a conflict as its first line names them: "Ruth, Ethan against Ghoul"."""
    if len(sides) == 2:
        return Msg("{one} against {other}", one=sides[0], other=sides[1])
    return " against ".join(sides)


def _defend_ask(post: Post, pending: Pending, ch: Character) -> Ask:
    skill, rating = default_defence(post, ch, pending)
    by = when(pending.deadline)
    written, words = _defence_words(post, ch, skill, rating)
    text = Msg("{who}, {attacker}'s attack ({skill}, {effort}) waits for your defence (#{id}). Reply with how you "
               "defend, for example:\n  /defend {written}\n  /defend {written} +invoke \"{aspect}\"\nIf you have not "
               "answered by {by}, {who} defends with {words}, the best defence {kind}, with no invokes.",
               who=ch.name, attacker=pending.attacker, skill=pending.attack_skill,
               effort=post.system.explain.passive(pending.attack_effort), id=pending.id, written=written,
               aspect=_example_aspect(post, ch), by=by, words=words, kind=_kind_words(post, pending))
    return Ask(ref=f"pending:{pending.id}", who=ch.name, text=text, deadline=pending.deadline,
               subject=Msg("{who}, defend by {by}", who=ch.name, by=by))


# --------------------------------------------------------------------------- defence


def what(post: Post, pending: Pending) -> str:
    """What a reaction answers, as it stands now (an invoke after the dice may change it), in
    the campaign system's words."""
    if pending.kind == "defend":
        after = (f" (+{pending.attack_scale_after} scale after the roll if it beats the defence)"
                 if pending.attack_scale_after else "")
        if not after:
            return Msg("{attacker}'s attack with {skill}, {effort}", attacker=pending.attacker,
                       skill=pending.attack_skill, effort=post.system.explain.passive(pending.attack_effort))
        return (f"{pending.attacker}'s attack with {pending.attack_skill}, "
                f"{post.system.explain.passive(pending.attack_effort)}{after}")
    return Msg("{hit} from {attacker}", hit=post.system.explain.hit(pending.shifts),
               attacker=pending.attacker or Msg("the GM"))


def _pending_for(post: Post, name: str, kind: str) -> Pending | None:
    """The reaction ``name`` answers: the one the replied-to mail asked for, else the oldest
    (a hit held by a concession waits for it, not for an answer)."""
    mine = [p for p in post.play.pending if p.kind == kind and same_name(p.target, name) and p.held_by is None]
    refs = post.thread_refs()
    for p in mine:
        if f"pending:{p.id}" in refs:
            return p
    return min(mine, key=lambda p: (p.opened_at, p.id)) if mine else None


def _close_pending(post: Post, pending: Pending) -> None:
    post.play.pending = [p for p in post.play.pending if p.id != pending.id]
    post.close_ref(f"pending:{pending.id}")


def defend(post: Post, cmd: c.Defend, actor: Character):
    pending = _pending_for(post, actor.name, "defend")
    if pending is None:
        if cmd.opposition is not None:
            return resolve_action(post, cmd, actor.name)
        raise RulesError(f"no attack is waiting for {actor.name}'s defence", source=cmd.source,
                         expected="/defend when an attack on you asks for it, or /defend SKILL vs EFFORT",
                         example="/defend Athletics vs Great")
    if cmd.opposition is not None:
        raise RulesError(f"{what(post, pending)} is waiting for {actor.name}'s defence: leave out the vs",
                         source=cmd.source, example=f"/defend {cmd.skill or 'Athletics'}")
    return answer_defence(post, pending, replace(cmd, opposition=_rolled(pending)), actor.name)


def _rolled(pending: Pending) -> c.Opposition:
    return c.Opposition(rating=pending.attack_effort, character=pending.attacker, skill=pending.attack_skill or None,
                        scale_aspect=pending.attack_scale_aspect or None, scale_after=pending.attack_scale_after,
                        scale_label=pending.attack_scale_label or None)


def keep_attack_scale(pending: Pending, result: ActionResult) -> None:
    """What an attack's first half says of its scale, kept for the defence: the aspect with
    scale its attacker invoked (the defence answers the attacker's side at its level,
    ``Opposition.scale_aspect``), and a ``+scale after``'s bonus and levels, added to the
    attack if it beats the defence (``Opposition.scale_after``)."""
    data = next((e.data for e in result.effects if e.kind == "attack_rolled"), {})
    pending.attack_scale_aspect = data.get("scale_aspect") or ""
    pending.attack_scale_after = int(data.get("scale_after") or 0)
    pending.attack_scale_label = data.get("scale_label") or ""


def answer_defence(post: Post, pending: Pending, cmd: c.Defend, who: str) -> ActionResult:
    result = resolve_action(post, cmd, who)
    _close_pending(post, pending)
    for hit in harm.hits(result, pending.track):
        _extend(result, *land_hit(post, hit, pending.attack_skill, track=pending.track, source=result))
    if active(post) is not None:
        _touch(post)
    return result


# --------------------------------------------------------------------------- harm


def land_hit(post: Post, hit: harm.Hit, skill: str, *, track: str | None = None,
             source: ActionResult | None = None) -> tuple[list, list]:
    """A hit lands on its target: an NPC absorbs at once by policy; a PC is asked (or is
    taken out at once when nothing could absorb it). Returns (effects, changes) to add to
    the result that dealt it."""
    conflict = active(post)
    track = track or _track(post, skill, conflict)
    ch = post.find(hit.target)
    if ch.player and harm.can_absorb(ch, track, hit.shifts, post.system):
        pending = Pending(id=post.play.new_id(), kind="absorb", target=ch.name, attacker=hit.attacker or "",
                          deadline=post.deadline(), opened_at=post.now, attack_skill=skill or "",
                          shifts=hit.shifts, track=track, roll_id=source.roll_id if source is not None else None,
                          summary=Msg("{hit} from {attacker}", hit=post.system.explain.hit(hit.shifts),
                                      attacker=hit.attacker or Msg("the GM")))
        post.play.pending.append(pending)
        post.ask(_absorb_ask(post, pending, ch))
        return [], []
    if ch.player:
        result = harm.take_out(post.table, ch, attacker=hit.attacker, track=track, shifts=hit.shifts)
    else:
        result = harm.npc_absorb(post.table, ch, track, hit.shifts, attacker=hit.attacker, system=post.system)
    effects, changes = list(result.effects), list(result.changes)
    more_effects, more_changes = _after_absorb(post, result)
    return effects + more_effects, changes + more_changes


def _absorb_ask(post: Post, pending: Pending, ch: Character) -> Ask:
    options = harm.absorption_options(ch, pending.track, pending.shifts, post.system)
    by = when(pending.deadline)
    examples = CommandLine("\n".join(f"  {_named(plan.command())}" for plan in options[:3]))
    cheapest = options[0]
    named = " (you or the GM can rename it with /aspect rename)" if cheapest.consequences else ""
    hit = post.system.explain.hit(pending.shifts, pending.track, definite=True)
    attacker = pending.attacker or Msg("the GM")
    if named:
        text = Msg("{who}, absorb {hit} from {attacker} (#{id}): mark {noun} boxes and/or take consequences, naming "
                   "each consequence. For example:\n{examples}\nIf you have not answered by {by}, {who} takes the "
                   "cheapest: {cheapest} (you or the GM can rename it with /aspect rename).", who=ch.name, hit=hit,
                   attacker=attacker, id=pending.id, noun=post.system.harm.noun, examples=examples, by=by,
                   cheapest=cheapest.describe())
    else:
        text = Msg("{who}, absorb {hit} from {attacker} (#{id}): mark {noun} boxes and/or take consequences, naming "
                   "each consequence. For example:\n{examples}\nIf you have not answered by {by}, {who} takes the "
                   "cheapest: {cheapest}.", who=ch.name, hit=hit, attacker=attacker, id=pending.id,
                   noun=post.system.harm.noun, examples=examples, by=by, cheapest=cheapest.describe())
    return Ask(ref=f"pending:{pending.id}", who=ch.name, text=text, deadline=pending.deadline,
               subject=Msg("{who}, absorb by {by}", who=ch.name, by=by))


def ask_absorb(post: Post, pending: Pending) -> None:
    """Ask the target again for a hit waiting for their /absorb (a held hit back in play)."""
    post.ask(_absorb_ask(post, pending, post.find(pending.target)))


def _named(command: str) -> str:
    for mark in TO_BE_NAMED:
        command = command.replace(f" {mark}", "")
    return command


@handles(c.Absorb)
def absorb(post: Post, cmd: c.Absorb):
    actor = post.character(cmd.actor, cmd)
    pending = _pending_for(post, actor.name, "absorb")
    if pending is None:
        held = [p for p in post.play.pending if p.kind == "absorb" and same_name(p.target, actor.name)]
        if held:
            raise RulesError(f"{actor.name} conceded instead of absorbing {what(post, held[0])} (#{held[0].id}): the hit "
                             f"waits for concession #{held[0].held_by}, void if it stands, back for your /absorb "
                             "if it is refused", source=cmd.source, expected="an answer to the concession first",
                             example="/sheet")
        raise RulesError(f"no hit is waiting for {actor.name} to absorb", source=cmd.source,
                         expected="/absorb when pbp asks you to absorb a hit", example="/sheet",
                         hint="/sheet shows your stress and consequences")
    aside, told = [], []
    if not post.author.is_gm:      # a consequence named as a hidden aspect of theirs is, unknowingly
        for _, name in cmd.consequences:
            changes, effects = ra.step_aside(post.table, name, actor.name, actor.name)
            aside, told = aside + changes, told + effects
    result = harm.absorb(post.table, actor, pending.track, pending.shifts, stress=cmd.stress,
                         consequences=cmd.consequences, attacker=pending.attacker or None, system=post.system,
                         source=cmd.source, unit=cmd.unit)
    _close_pending(post, pending)
    effects, changes = _after_absorb(post, result)
    return _note(cmd.source, actor.name, "absorb", result.effects + effects + told, aside + result.changes + changes)


def default_absorb(post: Post, pending: Pending) -> NoteResult:
    ch = post.find(pending.target)
    result = harm.absorb_default(post.table, ch, pending.track, pending.shifts, attacker=pending.attacker or None,
                                 system=post.system)
    _close_pending(post, pending)
    effects, changes = _after_absorb(post, result)
    text = Msg("{who} did not answer by {by}: the cheapest absorption applies.", who=ch.name, by=when(pending.deadline))
    note = _note(f"(deadline: {ch.name} absorbs #{pending.id})", ch.name, "absorb",
                 result.effects + effects, result.changes + changes, text=text)
    if any(e.data.get("rename") for e in result.effects):
        note.text = Joined([note.text, Msg("\n  Rename a placeholder with: {command}",
                                           command=CommandLine('/aspect rename "OLD NAME" to "NEW NAME"'))])
    return note


def _after_absorb(post: Post, result: harm.AbsorbResult) -> tuple[list, list]:
    """Record an absorption in the conflict; a character taken out leaves it, the winning
    side is asked to narrate, and a conflict with a side all out ends."""
    effects: list[Effect] = []
    changes: list[Change] = []
    conflict = active(post)
    if conflict is not None and member(conflict, result.character) is not None:
        post.play.conflict = rc.record_absorb(conflict, result)
        _touch(post)
    if result.taken_out:
        narrator = result.attacker or GM
        who = controller(post, narrator) if narrator != GM else GM
        teller = Msg("GM") if who == GM else Msg("{who}'s player", who=narrator)
        post.ask(Ask(ref=f"narrate:{result.character}", who=who,
                     text=Msg("{teller}: tell the table in your next post how {who} is taken out and what becomes "
                              "of them.", teller=teller, who=result.character)))
        # the player of someone taken out cannot still owe reactions in this conflict
        for p in [p for p in post.play.pending if same_name(p.target, result.character)]:
            _close_pending(post, p)
        for fn in TAKEN_OUT:
            fn(post, result)
    if active(post) is not None and rc.is_over(post.play.conflict):
        e, ch = end(post, by_gm=False)
        effects += e
        changes += ch
    return effects, changes


# --------------------------------------------------------------------------- concession and the end


@handles(c.Concede)
def concede(post: Post, cmd: c.Concede):
    actor = post.character(cmd.actor, cmd)
    conflict = require_conflict(post, cmd)
    if member(conflict, actor.name) is None:
        raise RulesError(f"{actor.name} is not in this conflict", source=cmd.source,
                         expected="a participant of the conflict", example=f"/place {quote(actor.name)} in Dock")
    waiting = [p for p in post.play.pending if same_name(p.target, actor.name)]
    # early Fate: "Instead of taking a consequence, a character can concede" (a hit waiting
    # for /absorb); an attack waiting for the defence has no hit yet and still blocks it
    hits = [p for p in waiting if p.kind == "absorb" and post.system.concede_on_hit]
    waiting = [p for p in waiting if p not in hits]
    try:
        out = rc.concede(conflict, actor.name, bool(waiting), cmd.terms)
    except RulesError as exc:
        if waiting:
            exc.message = (f"{exc.message} ({what(post, waiting[0])} waits for your "
                           f"/{waiting[0].kind}, #{waiting[0].id})")
            exc.args = (exc.message,)
        exc.source = exc.source or cmd.source
        raise
    post.play.conflict = out.conflict
    _touch(post)
    effects, changes = list(out.effects), list(out.changes)
    held = [fn(post, actor.name, cmd.terms) for fn in CONCEDED]
    for p in hits:
        if p.held_by is None:          # no concession holds it (nobody may refuse): void at once
            effects.append(void_hit(post, p, actor.name))
    if rc.is_over(out.conflict) and not any(held):
        e, ch = end(post, by_gm=False)
        effects += e
        changes += ch
    return _note(cmd.source, actor.name, "concede", effects, changes)


def void_hit(post: Post, pending: Pending, who: str) -> Effect:
    """A hit answered by a concession that stands: it is never absorbed."""
    _close_pending(post, pending)
    return Effect("hit_void", Msg("{who} conceded instead of taking {what} (#{id}): the hit is void", who=who,
                                  what=what(post, pending), id=pending.id), {"pending": pending.id})


def end(post: Post, *, by_gm: bool) -> tuple[list[Effect], list[Change]]:
    """Close the conflict: pay conceders and what else is due at its end, drop reactions
    still waiting, put everyone back on the scene's map."""
    conflict = post.play.conflict
    out = rc.end_conflict(conflict, post.table, by_gm=by_gm)
    hook_changes = [ch for hook in CONFLICT_END for ch in hook(post)]
    effects = list(out.effects)
    for p in list(post.play.pending):
        effects.append(Effect("dropped", Msg("{what} on {who} is dropped: the conflict is over", what=what(post, p),
                                             who=p.target), {"pending": p.id}))
        _close_pending(post, p)
    for who in out.conflict.conceded:
        points = rc.concession_points(out.conflict, who)
        effects.append(Effect("concession_paid", Msgs("{who} gains {n} fate point for conceding",
                                                      "{who} gains {n} fate points for conceding", points, who=who),
                              {"character": who, "fate_points": points}))
    if post.play.scene is not None and conflict.zones is not None:
        post.play.scene.zones = conflict.zones
    post.play.conflict = None
    post.play.turn_clock = None
    for ref in [TURN_REF, *(f"narrate:{who}" for who in out.conflict.taken_out)]:
        post.play.forget_thread_refs(ref)
    return effects, list(out.changes) + hook_changes


# --------------------------------------------------------------------------- the GM's conflict commands


@handles(c.ConflictEnd)
def conflict_end(post: Post, cmd: c.ConflictEnd):
    post.require_gm("/conflict end", "/concede \"I slip away into the crowd\"")
    require_conflict(post, cmd)
    effects, changes = end(post, by_gm=True)
    return _note(cmd.source, GM, "conflict_end", effects, changes)


@handles(c.ConflictStart)
def conflict_start(post: Post, cmd: c.ConflictStart):
    post.require_gm("/conflict start", "/sheet")
    if active(post) is not None:
        raise RulesError("a conflict is already going on", source=cmd.source,
                         expected="end it first with /conflict end", example="/conflict end")
    if not cmd.first:
        raise RulesError("say who acts first", source=cmd.source, expected="first NAME at the end",
                         example=f"{cmd.source} first {cmd.participants[0] if cmd.participants else 'Ruth'}")
    names = [post.find(p).name for p in cmd.participants]
    out = [n for n in names if post.table.character(n).taken_out]
    if out:
        raise RulesError(f"{', '.join(out)} {'is' if len(out) == 1 else 'are'} taken out until the scene ends",
                         source=cmd.source, expected="characters not taken out this scene",
                         example="/scene end")
    zones = post.play.scene.zones if post.play.scene is not None else None
    sides = None
    if cmd.against:                 # two sides as written, each named by its members
        second = names[len(names) - len(cmd.against):]
        first_side = [n for n in names if n not in second]
        sides = {**{n: and_names(first_side) for n in first_side}, **{n: and_names(second) for n in second}}
    kind = post.system.track_named(cmd.kind) if cmd.kind else post.system.tracks[0]
    conflict = rc.start_conflict(post.table, names, post.full_name(cmd.first), kind=kind or cmd.kind,
                                 tracks=post.system.tracks, zones=zones, sides=sides,
                                 concession_paid=post.system.concession == "paid")
    post.play.conflict = conflict
    post.play.turn_clock = None
    _touch(post)
    sides = {}
    for who, side in conflict.sides.items():
        sides.setdefault(side, []).append(who)
    text = Msg("{begins}: {sides}. {first} acts first.", begins=post.system.explain.conflict_begins(conflict.kind, post.system.tracks),
               sides=_against([", ".join(v) for v in sides.values()]), first=conflict.turns.current)
    return NoteResult(cmd.source, GM, "conflict_start", text=text)


@handles(c.Place)
def place(post: Post, cmd: c.Place):
    """``/place NAME in ZONE [with ALLY]``: the GM positions someone; in a conflict, someone
    not in it joins it and acts later in this exchange, on ALLY's side, or without ``with``
    on the one side of their kind (:func:`pbp.rules.conflict.joining_side`)."""
    post.require_gm("/place", "/table")
    ch = post.find(cmd.character)
    conflict = active(post)
    if cmd.beside is not None and (conflict is None or member(conflict, ch.name) is not None):
        why = (f"{ch.name} is already in the conflict" if conflict is not None
               else "there is no conflict going on")
        raise RulesError(f'"with" names the side of someone who joins a conflict, and {why}', source=cmd.source,
                         expected=f"/place {quote(ch.name)} in {quote(cmd.zone)}, without \"with\"",
                         example=f"/place {quote(ch.name)} in {quote(cmd.zone)}")
    scene = post.play.scene
    zones = conflict.zones if conflict is not None and conflict.zones is not None else (scene.zones if scene else None)
    if zones is None:
        raise RulesError("this scene has no zone map", source=cmd.source, expected="a scene started with zones",
                         example='/scene start "Warehouse" zones "Dock", "Floor" borders "Dock"-"Floor"')
    if not any(z.casefold() == cmd.zone.strip().casefold() for z in zones.zones):
        listed = ", ".join(f'"{z}"' for z in zones.zones)
        raise RulesError(f'there is no zone "{cmd.zone}" in this scene (zones: {listed})', source=cmd.source,
                         expected=f"one of {listed}", example=f'/place {quote(ch.name)} in "{zones.zones[0]}"')
    zones = zones.place(ch.name, cmd.zone)
    text = Msg("{who} is in {zone}.", who=ch.name, zone=zones.zone_of(ch.name))
    if conflict is not None:
        if member(conflict, ch.name) is None:
            if ch.taken_out:
                raise RulesError(f"{ch.name} is taken out until the scene ends", source=cmd.source,
                                 expected="a character not taken out this scene", example="/scene end")
            beside = post.find(cmd.beside).name if cmd.beside is not None else None
            example = f"/place {quote(ch.name)} in {quote(cmd.zone)} with {quote(next(iter(conflict.sides)))}"
            side = rc.joining_side(post.table, conflict, ch.name, beside, example=example)
            allies = rc.members(conflict, side)
            sides = dict(conflict.sides)
            sides[ch.name] = side
            conflict = replace(conflict, sides=sides, turns=rt.join(conflict.turns, ch.name))
            text += (f" {ch.name} joins the conflict on the side of {and_names(allies)} and has not acted"
                     " this exchange.")
        post.play.conflict = replace(conflict, zones=zones)
        _touch(post)
    if scene is not None:
        scene.zones = zones
    return NoteResult(cmd.source, GM, "place", text=text)


# --------------------------------------------------------------------------- turns and moves


@handles(c.Next)
def next_turn(post: Post, cmd: c.Next):
    conflict = require_conflict(post, cmd)
    order = conflict.turns
    if cmd.actor:
        by = post.character(cmd.actor, cmd).name
    elif post.author.is_gm and not any(ch.player == post.author.email for ch in post.table.characters.values()):
        by = None
    else:
        by = post.character(None, cmd).name
    by_gm = by is None or (post.author.is_gm and not same_name(order.current, by))
    before = order.exchange
    order = rt.hand_off(order, by or GM, post.full_name(cmd.character), by_gm=by_gm)
    post.play.conflict = replace(conflict, turns=order)
    _touch(post)
    who = by or "The GM"
    if order.exchange != before:
        text = Msg("{who} hands the turn to {next}, who opens exchange {n}.", who=who, next=order.current, n=order.exchange)
    else:
        text = Msg("{who} hands the turn to {next}.", who=who, next=order.current)
    return NoteResult(cmd.source, by or GM, "next", text=text)


@handles(c.Done)
def done(post: Post, cmd: c.Done):
    """``/done``: close your open rolls to further invokes; then, in a conflict, the last to
    act in an exchange may end their turn without naming anyone, and the GM names who opens
    the next exchange. Otherwise it only says what is still owed."""
    who = post.character(cmd.actor, cmd).name
    closed = post.play.close_rolls(lambda r: same_name(r.actor, who), ROLLER_DONE)
    ids = [f"#{r.ids[0]}" for r in closed if r.ids]
    said = Msgs("Roll {ids} closed to further invokes.", "Rolls {ids} closed to further invokes.", len(ids),
                ids=", ".join(ids)) if ids else ""
    result = _turn_done(post, cmd, who)
    if said:
        result.text = Joined([result.text, " ", said])
    return result


def _turn_done(post: Post, cmd: c.Done, who: str) -> NoteResult:
    conflict = active(post)
    order = conflict.turns if conflict is not None else None
    if order is None or order.current != who:
        return NoteResult(cmd.source, who, "done", text=Msg("{who} is done.", who=who))
    if order.phase == "awaiting_handoff" and rt.exchange_over(order):
        post.play.conflict = replace(conflict, turns=replace(order, current=None))
        _touch(post)
        return NoteResult(cmd.source, who, "done",
                          text=Msg("{who} is done; exchange {n} is over and the GM names who opens the next.", who=who,
                                   n=order.exchange))
    if order.phase == "awaiting_handoff":
        return NoteResult(cmd.source, who, "done",
                          text=Msg("{who} is done, and still has to hand the turn on with /next NAME.", who=who))
    return NoteResult(cmd.source, who, "done",
                      text=Msg("{who} is done, and still has to take their turn or pass it with /next NAME.", who=who))


@handles(c.Move)
def move(post: Post, cmd: c.Move):
    actor = post.character(cmd.actor, cmd)
    conflict = active(post)
    if conflict is not None and member(conflict, actor.name) is not None:
        _check_standing(post, conflict, actor.name, cmd, "move")
        here = conflict.zones.zone_of(actor.name) if conflict.zones is not None else None
        try:
            conflict = rc.move(conflict, actor.name, cmd.zone)
        except RulesError as exc:
            exc.source = exc.source or cmd.source
            raise
        post.play.conflict = conflict
        if post.play.scene is not None:
            post.play.scene.zones = conflict.zones
        _touch(post)
        there = conflict.zones.zone_of(actor.name)
    else:
        scene = post.play.scene
        if scene is None or scene.zones is None:
            raise RulesError("this scene has no zone map to move on", source=cmd.source,
                             expected="a scene started with zones",
                             example='/scene start "Warehouse" zones Dock, Office borders Dock-Office')
        here = scene.zones.zone_of(actor.name)
        scene.zones = scene.zones.move(actor.name, cmd.zone)
        there = scene.zones.zone_of(actor.name)
    return NoteResult(cmd.source, actor.name, "move", text=Msg("{who} moves from {here} to {there}.", who=actor.name, here=here,
                                                                           there=there))


def _settle_turn(post: Post) -> None:
    """After a post: restart the turn clock when the turn moved, and ask whoever has acted
    to hand off."""
    conflict = active(post)
    if conflict is None or conflict.turns.phase == "gm":
        post.play.turn_clock = None
        return
    order = conflict.turns
    clock = post.play.turn_clock
    if clock is not None and (clock.who, clock.phase, clock.exchange) == (order.current, order.phase, order.exchange):
        return
    post.play.turn_clock = TurnClock(who=order.current, phase=order.phase, exchange=order.exchange,
                                     deadline=post.deadline())
    if order.phase == "awaiting_handoff":
        post.play.forget_thread_refs(TURN_REF)
        post.ask(Ask(ref=TURN_REF, who=controller(post, order.current), text=_handoff_text(post, order),
                     deadline=post.play.turn_clock.deadline))


def _handoff_text(post: Post, order: rt.TurnOrder) -> str:
    who = order.current
    by = when(post.play.turn_clock.deadline)
    default = rt.default_next(order)
    command = CommandLine((f"/as {quote(who)} " if controller(post, who) == GM else "/") + "next NAME")
    if rt.exchange_over(order):
        return Msg("{who}, name who opens exchange {n} (anyone, {who} included): {command}. If nobody has by {by}, "
                   "{default} opens it.", who=who, n=order.exchange + 1, command=command, by=by, default=default)
    waiting = ", ".join(rt.still_to_act(order))
    return Msg("{who}, hand the turn on to one of {waiting}: {command}. If nobody has by {by}, the turn passes to "
               "{default}.", who=who, waiting=waiting, command=command, by=by, default=default)


@status_line
def conflict_status(post: Post) -> list[str]:
    lines = []
    conflict = active(post)
    # whose turn it is, unless this post asks the actor to hand it on (issue 27: the ask says
    # who names whom, with the command and its deadline; the line said it a second time)
    if conflict is not None and not any(a.ref == TURN_REF for a in post.asks):
        lines.append(rt.status_line(conflict.turns))
    for p in post.play.pending:
        if p.held_by is not None:
            lines.append(Msg("Held for concession #{n}: {what} on {who} (#{id}).", n=p.held_by, what=what(post, p),
                             who=p.target, id=p.id))
            continue
        if p.kind == "defend":
            lines.append(Msg("Waiting for {who} to defend against {what} (#{id}) by {by}.", who=p.target,
                             what=what(post, p), id=p.id, by=when(p.deadline)))
        else:
            lines.append(Msg("Waiting for {who} to absorb {what} (#{id}) by {by}.", who=p.target, what=what(post, p),
                             id=p.id, by=when(p.deadline)))
    return lines


# --------------------------------------------------------------------------- deadlines


@deadline_job
def conflict_deadlines(post: Post) -> list:
    """Reminders before, and defaults at, the deadlines of defences, absorptions and turns."""
    results = []
    lead = timedelta(hours=post.hours("reminder_hours"))
    reminders: dict[str, list[tuple[str, str, tuple[str, ...]]]] = {}   # who -> (subject, text, refs)
    for pending in sorted(post.play.pending, key=lambda p: (p.deadline, p.id)):
        if not any(p.id == pending.id for p in post.play.pending):
            continue                                   # closed by an earlier default this round
        if pending.held_by is not None:
            continue                                   # a concession answers it (pbp.play.concession)
        if pending.deadline <= post.now:
            results.append(_default(post, pending))
        elif not pending.reminded and pending.deadline - lead <= post.now and not post.quiet(pending.target):
            pending.reminded = True
            subject = (Msg("Reminder: {who}, defend by {by}", who=pending.target, by=when(pending.deadline))
                       if pending.kind == "defend" else
                       Msg("Reminder: {who}, absorb by {by}", who=pending.target, by=when(pending.deadline)))
            reminders.setdefault(pending.target, []).append((subject, _reminder_text(post, pending),
                                                             (f"pending:{pending.id}",)))
    results += _turn_deadline(post, lead, reminders)
    for who, items in reminders.items():       # one mail per person, however much is due
        post.tell(Tell(to=(who,), subject=items[0][0], text=Joined([part for n, (_, text, _) in enumerate(items)
                                                                    for part in ((text,) if not n else ("\n", text))]),
                       refs=tuple(ref for _, _, refs in items for ref in refs)))
    return results


def _reminder_text(post: Post, pending: Pending) -> str:
    ch = post.find(pending.target)
    ask = _defend_ask(post, pending, ch) if pending.kind == "defend" else _absorb_ask(post, pending, ch)
    return Msg("Reminder: {what} is still waiting for you.\n\n{ask}\n", what=what(post, pending), ask=ask.text)


def _default(post: Post, pending: Pending):
    if pending.kind == "absorb":
        return default_absorb(post, pending)
    ch = post.find(pending.target)
    skill, _ = default_defence(post, ch, pending)
    cmd = c.Defend(line=0, source=f"/defend {skill}", skill=skill, opposition=_rolled(pending), actor=ch.name)
    result = answer_defence(post, pending, cmd, ch.name)
    result.effects.insert(0, Effect("deadline", Msg("{who} did not answer by {by}: {who} defends with {skill}, with "
                                                    "no invokes", who=ch.name, by=when(pending.deadline), skill=skill),
                                    {"pending": pending.id}))
    return result


def _turn_deadline(post: Post, lead: timedelta, reminders: dict) -> list:
    conflict = active(post)
    clock = post.play.turn_clock
    if conflict is None or clock is None or clock.expired:
        return []
    order = conflict.turns
    if clock.deadline <= post.now:
        if order.phase == "awaiting_handoff" and order.current == clock.who:
            to = rt.default_next(order)
            post.play.conflict = replace(conflict, turns=rt.hand_off(order, clock.who, to, by_gm=True))
            _touch(post)
            return [NoteResult(f"(deadline: {clock.who} hands off)", clock.who, "next",
                               text=Msg("{who} did not hand the turn on by {by}: the turn passes to {to}.",
                                        who=clock.who, by=when(clock.deadline), to=to))]
        clock.expired = True
        post.tell(Tell(to=(GM,), subject=Msg("{who}'s turn has stalled", who=clock.who),
                       text=Msg("{who} has not acted since the turn came to them; the deadline was {by}. You can hand "
                                "the turn on for them: {command}\n", who=clock.who, by=when(clock.deadline),
                                command=CommandLine("/next NAME"))))
        return []
    if not clock.reminded and clock.deadline - lead <= post.now and not post.quiet(controller(post, clock.who)):
        clock.reminded = True
        if clock.phase == "awaiting_handoff":
            text = Msg("Reminder: {who}, please hand the turn on ({command}) by {by}.\n{handoff}\n", who=clock.who,
                       command=CommandLine("/next NAME"), by=when(clock.deadline), handoff=_handoff_text(post, order))
        else:
            text = Msg("Reminder: {who}, please take your turn by {by}.\n", who=clock.who, by=when(clock.deadline))
        reminders.setdefault(controller(post, clock.who), []).append(
            (Msg("Reminder: {who}, your turn", who=clock.who), text, ()))
    return []
