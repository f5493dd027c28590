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

from pbp import commands as c
from pbp.i18n import CommandLine, Joined, Msg, Msgs
from pbp.i18n.words import TO_BE_NAMED
from pbp.errors import RulesError
from pbp.play.core import CONCEDED, CONFLICT_END, GM, TAKEN_OUT, Ask, NoteResult, Post, handles, quote, resolve_action
from pbp.play.dates import when
from pbp.play.secrets import keep_secret, on_a_board, secret_throws, seen_aspects
from pbp.play.state import Pending
from pbp.rules import aspects as ra
from pbp.rules import conflict as rc
from pbp.rules import harm
from pbp.rules import turns as rt
from pbp.rules.actions import DEFENCE_LATER, existing_aspect
from pbp.rules.effort import best_skill
from pbp.rules.names import same_name, skill_list
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


def touch(post: Post) -> None:
    """Settle the turn clock and the handoff ask once the whole post has applied
    (:func:`settle_turn`, a step after the post)."""
    post.__dict__["_conflict_touched"] = True




def conflict_note(cmd_source: str, actor: str, action: str, effects: list[Effect], changes: list[Change] = (),
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


def check_standing(post: Post, conflict: rc.Conflict | None, name: str, cmd: c.Command, doing: str) -> None:
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
    check_standing(post, conflict if inside else None, actor.name, cmd, "act")
    target = _target_of(post, cmd)
    if target is not None:
        check_standing(post, conflict, target.name, cmd, "be acted upon")
    if inside:
        if target is not None and isinstance(cmd, c.Attack) and member(conflict, target.name) is None:
            raise RulesError(f"{target.name} is not in this conflict", source=cmd.source,
                             expected="a participant; the GM brings someone in with /place NAME in ZONE")
        conflict = replace(conflict, turns=rt.take_action(conflict.turns, actor.name, "action"))
        post.play.conflict = conflict
        touch(post)
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
            check_standing(post, conflict, actor.name, cmd, "act")
            post.play.conflict = replace(conflict, turns=rt.take_action(conflict.turns, actor.name, "action"))
            touch(post)
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
    post.ask(defend_ask(post, pending, target))
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


def against(sides: list[str]):
    """The sides of a conflict as its first line names them: "Ruth, Ethan against Ghoul"."""
    if len(sides) == 2:
        return Msg("{one} against {other}", one=sides[0], other=sides[1])
    return " against ".join(sides)


def defend_ask(post: Post, pending: Pending, ch: Character) -> Ask:
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
    return answer_defence(post, pending, replace(cmd, opposition=rolled_opposition(pending)), actor.name)


def rolled_opposition(pending: Pending) -> c.Opposition:
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
        touch(post)
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
        post.ask(absorb_ask(post, pending, ch))
        return [], []
    if ch.player:
        result = harm.take_out(post.table, ch, attacker=hit.attacker, track=track, shifts=hit.shifts)
    else:
        result = harm.npc_absorb(post.table, ch, track, hit.shifts, attacker=hit.attacker, system=post.system)
    effects, changes = list(result.effects), list(result.changes)
    more_effects, more_changes = _after_absorb(post, result)
    return effects + more_effects, changes + more_changes


def absorb_ask(post: Post, pending: Pending, ch: Character) -> Ask:
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
    post.ask(absorb_ask(post, pending, post.find(pending.target)))


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
    return conflict_note(cmd.source, actor.name, "absorb", result.effects + effects + told, aside + result.changes + changes)


def default_absorb(post: Post, pending: Pending) -> NoteResult:
    ch = post.find(pending.target)
    result = harm.absorb_default(post.table, ch, pending.track, pending.shifts, attacker=pending.attacker or None,
                                 system=post.system)
    _close_pending(post, pending)
    effects, changes = _after_absorb(post, result)
    text = Msg("{who} did not answer by {by}: the cheapest absorption applies.", who=ch.name, by=when(pending.deadline))
    note = conflict_note(f"(deadline: {ch.name} absorbs #{pending.id})", ch.name, "absorb",
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
        touch(post)
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
    touch(post)
    effects, changes = list(out.effects), list(out.changes)
    held = [fn(post, actor.name, cmd.terms) for fn in CONCEDED]
    for p in hits:
        if p.held_by is None:          # no concession holds it (nobody may refuse): void at once
            effects.append(void_hit(post, p, actor.name))
    if rc.is_over(out.conflict) and not any(held):
        e, ch = end(post, by_gm=False)
        effects += e
        changes += ch
    return conflict_note(cmd.source, actor.name, "concede", effects, changes)


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
