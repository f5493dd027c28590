"""Each action's outcome table, as a system's strategy (``System.tables``).

What a fail, a tie, a success or a success with style gives (a boost, an aspect, free
invokes, a hit, a cost) is the system's: ``FateTables`` is Fate Condensed's tables
(003_eba7e658178fc706.txt, "Superar", "Criar uma vantagem", "Atacar", "Defender"), the
ordinary case; a system overrides only the rows, words or rewards where its text differs:

* ``choices``: the branches a player may choose ahead of the roll ("on tie boost");
* ``amount``: how a margin is counted in the effects' words ("2 shifts"; the d10 hack's
  "2 hits");
* ``style_boost``: the added benefit of an overcome or a defence with style (Fate: a boost;
  early Fate: its spin stands for it, ``EarlyTables`` in ``pbp.rules.systems.early_fate``);
* ``hit_text``, ``taken_text``: how a hit is said.

Every method reads an ``Action`` (``pbp.rules.actions``) and writes effects and changes
through its ``Report``; nothing here rolls dice.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from pbp.i18n import Msg, Msgs
from pbp.rules.bookkeeping import add_boost, create_aspect, grant_free_invokes, reveal
from pbp.rules.naming import GM
from pbp.rules.outcomes import shifts_text
from pbp.rules.results import Outcome
from pbp.rules.state import Aspect

if TYPE_CHECKING:  # pragma: no cover
    from pbp.rules.actions import Action, RollNumbers
    from pbp.rules.state import Character


class FateTables:
    """Fate Condensed's four actions' outcome tables: the ordinary case."""

    # Branches of the outcome tables a player may choose ahead of the roll ("on tie boost").
    # Pairs that merely restate the default are accepted so a habit never costs an error.
    choices = {
        "overcome": frozenset({("fail", "cost"), ("tie", "boost")}),
        "advantage": frozenset({("fail", "cost"), ("tie", "boost")}),
        "attack": frozenset({("style", "boost"), ("tie", "boost")}),
        "defend": frozenset(),
    }

    # -- words --------------------------------------------------------------------------------
    def amount(self, n: int) -> str:
        """A margin as the effects count it: "1 shift", "3 shifts"."""
        return shifts_text(n)

    def hit_text(self, who: str, target: str, n: int) -> str:
        return Msg("{who} hits {target} for {amount}", who=who, target=target, amount=self.amount(n))

    def taken_text(self, who: str, n: int) -> str:
        return Msg("{who} takes a hit of {amount}", who=who, amount=self.amount(n))

    # -- what style adds ----------------------------------------------------------------------
    def style_boost(self, act: "Action", holder: str, action: str, why: str) -> None:
        """The added benefit of an overcome or a defence with style: a boost."""
        add_boost(act.table, act.report, holder, action, why)

    # -- overcome -----------------------------------------------------------------------------
    def overcome(self, act: "Action", outcome: Outcome) -> None:
        """"Superar": fail = fail or (GM's call, here the player's "on fail cost") success at a
        serious cost; tie = success at a minor cost, or ("on tie boost") fail with a boost;
        success = the goal; style = the goal and a boost."""
        who, r = act.actor.name, act.report
        if outcome is Outcome.FAIL:
            if act.chose("fail", "cost"):
                r.effect("cost_major", Msg("{who} succeeds at a serious cost; the GM says what it costs", who=who), gm_decides=True)
            else:
                r.effect("fail", Msg("{who} does not overcome the obstacle", who=who))
        elif outcome is Outcome.TIE:
            if act.chose("tie", "boost"):
                r.effect("fail", Msg("{who} does not overcome the obstacle, but gains a boost", who=who))
                add_boost(act.table, r, who, "overcome", "a tie taken as a boost")
            else:
                r.effect("cost_minor", f"{who} succeeds at a minor cost; the GM names it "
                         "(a complication, a boost for the opposition, or a hit)", gm_decides=True)
        else:
            r.effect("success", Msg("{who} overcomes the obstacle", who=who))
            if outcome is Outcome.STYLE:
                self.style_boost(act, who, "overcome", "success with style")

    # -- create an advantage ------------------------------------------------------------------
    def new_aspect(self, act: "Action", outcome: Outcome, name: str, owner: str | None, enemy: str | None) -> None:
        """"Criar uma vantagem", new aspect: fail = nothing, or ("on fail cost") the aspect
        exists but the enemy holds its free invoke; tie = a boost instead; success = the aspect
        with one free invoke; style = two."""
        who, r = act.actor.name, act.report
        if outcome is Outcome.FAIL:
            if not act.chose("fail", "cost"):
                r.effect("fail", Msg("{who} fails to create {name}", who=who, name=name), aspect=name)
                return
            aspect = create_aspect(act.table, r, name, owner)
            r.effect("aspect_created", Msg("{name} is in play, but it works against {who}; the GM may reword it", name=name, who=who),
                     aspect=name, owner=owner, rename=True)
            self.enemy_free_invoke(act, aspect, enemy)
        elif outcome is Outcome.TIE:
            r.effect("fail", Msg("{who} does not create {name}", who=who, name=name), aspect=name)
            add_boost(act.table, r, who, "advantage", "a tie")
        else:
            aspect = create_aspect(act.table, r, name, owner)
            r.effect("aspect_created", (Msg("{name} is now in play on {owner}", name=name, owner=owner) if owner
                                       else Msg("{name} is now in play", name=name)),
                     aspect=name, owner=owner)
            self.free_invokes(act, aspect, who, 2 if outcome is Outcome.STYLE else 1)

    def known_aspect(self, act: "Action", outcome: Outcome, aspect: Aspect, enemy: str | None) -> None:
        """Existing known aspect: fail = the enemy gets a free invoke on it; tie and success =
        one free invoke for the actor; style = two."""
        if outcome is Outcome.FAIL:
            self.enemy_free_invoke(act, aspect, enemy)
        else:
            self.free_invokes(act, aspect, act.actor.name, 2 if outcome is Outcome.STYLE else 1)

    def discover(self, act: "Action", outcome: Outcome, hidden: Aspect | None, owner: str | None,
                 enemy: str | None) -> None:
        """Existing unknown aspect: fail = its owner may reveal it to gain a free invoke; tie = a
        boost and it stays hidden; success = revealed with one free invoke; style = two.

        What the table reads of a failure is the same whether or not anything is hidden there;
        the GM's chance to reveal it is an effect marked ``gm_only``, which replies show the GM
        alone (:mod:`pbp.views`).
        """
        who, r = act.actor.name, act.report
        where = owner or "the scene"
        if outcome is Outcome.FAIL:
            r.effect("fail", Msg("{who} finds nothing on {where}", who=who, where=where))
            self.may_reveal(act, hidden, owner, enemy)
        elif outcome is Outcome.TIE:
            add_boost(act.table, r, who, "advantage", "a tie; whatever is hidden stays hidden")
        elif hidden is None:
            r.effect("nothing_found", Msg("{who} looks carefully: {where} has no hidden aspect to find", who=who, where=where), owner=owner)
        else:
            self.discovered(act, outcome, hidden, owner)

    def guess(self, act: "Action", outcome: Outcome, hidden: Aspect, named: str, enemy: str | None) -> None:
        """An advantage that names a hidden aspect exactly: a guess. Success uncovers it, as a
        discover would. Short of that the effects read word for word as they would had the name
        matched nothing (:meth:`new_aspect`), so a guess cannot be used to test names: a
        failure creates nothing (the GM alone is told they may reveal it for a free invoke); a
        tie is a boost and it stays hidden; a failure taken at a cost brings it into play with
        the enemy's free invoke, which here means revealing it (its change reads "revealed"
        where a new aspect's reads "created": it is known from then on anyway)."""
        who, r = act.actor.name, act.report
        if outcome is Outcome.FAIL:
            if not act.chose("fail", "cost"):
                r.effect("fail", Msg("{who} fails to create {named}", who=who, named=named), aspect=named)
                self.may_reveal(act, hidden, hidden.owner, enemy)
                return
            reveal(r, hidden)
            r.effect("aspect_created", Msg("{named} is in play, but it works against {who}; the GM may reword it", named=named, who=who),
                     aspect=named, owner=hidden.owner, rename=True)
            self.enemy_free_invoke(act, hidden, enemy)
        elif outcome is Outcome.TIE:
            r.effect("fail", Msg("{who} does not create {named}", who=who, named=named), aspect=named)
            add_boost(act.table, r, who, "advantage", "a tie")
        else:
            self.discovered(act, outcome, hidden, hidden.owner)

    def may_reveal(self, act: "Action", hidden: Aspect | None, owner: str | None, enemy: str | None) -> None:
        if hidden is None:
            return
        where = owner or "the scene"
        gains = enemy or "the GM's side"
        act.report.effect("may_reveal", f"For the GM: {act.actor.name} did not find {hidden.name} on {where}; you "
                          f"may reveal it, and {gains} gets a free invoke on it", aspect=hidden.name, owner=owner,
                          holder=enemy, gm_only=True)

    def discovered(self, act: "Action", outcome: Outcome, hidden: Aspect, owner: str | None) -> None:
        who, r = act.actor.name, act.report
        reveal(r, hidden)
        r.effect("revealed", f"{who} discovers {hidden.name} on {owner or 'the scene'}", aspect=hidden.name,
                 owner=owner)
        self.free_invokes(act, hidden, who, 2 if outcome is Outcome.STYLE else 1)

    def free_invokes(self, act: "Action", aspect: Aspect, holder: str, n: int) -> None:
        grant_free_invokes(act.report, aspect, holder, n)
        act.report.effect("free_invoke", Msgs("{holder} gets {n} free invoke on {aspect}",
                                              "{holder} gets {n} free invokes on {aspect}", n, holder=holder,
                                              aspect=aspect.name),
                          aspect=aspect.name, holder=holder, count=n)

    def enemy_free_invoke(self, act: "Action", aspect: Aspect, enemy: str | None) -> None:
        """The other side's free invoke: ``enemy`` holds it; with no one named (against a
        difficulty, on the scene or the actor's own sheet) the GM's side does, as after
        ``/aspect add ... free 1``, so the GM can spend it (``/invoke``) or pass it on
        (``/give``)."""
        holder = enemy or GM
        grant_free_invokes(act.report, aspect, holder, 1)
        text = (Msg("{enemy} gets a free invoke on {aspect}", enemy=enemy, aspect=aspect.name) if enemy and enemy != GM
                else Msg("the GM's side gets a free invoke on {aspect}", aspect=aspect.name))
        act.report.effect("enemy_free_invoke", text, aspect=aspect.name, holder=holder, count=1)

    # -- attack -------------------------------------------------------------------------------
    def attack(self, act: "Action", contest: "RollNumbers", target: "Character") -> None:
        """"Atacar": fail = nothing; tie = a boost; success = a hit of the shifts; style = the
        hit, or ("on style boost") a hit one shift smaller and a boost."""
        who, r, shifts = act.actor.name, act.report, contest.shifts
        if contest.outcome is Outcome.FAIL:
            r.effect("miss", Msg("{target} avoids {who}'s attack", target=target.name, who=who), target=target.name)
        elif contest.outcome is Outcome.TIE:
            add_boost(act.table, r, who, "attack", "a tie")
        else:
            trade = contest.outcome is Outcome.STYLE and act.chose("style", "boost")
            hit = shifts - 1 if trade else shifts
            r.effect("hit", self.hit_text(who, target.name, hit), target=target.name, shifts=hit, attacker=who)
            if trade:
                add_boost(act.table, r, who, "attack", f"{self.amount(1).replace('1 ', 'one ', 1)} of a stylish "
                          "hit traded for it")

    # -- defend -------------------------------------------------------------------------------
    def defend(self, act: "Action", contest: "RollNumbers") -> None:
        """"Defender" against an attack: fail = a hit of the missing shifts; tie = as the
        attacker's tie, a boost for the attacker; success = no hit; style = no hit and a boost."""
        who, r = act.actor.name, act.report
        attacker = contest.opposition.character
        if contest.outcome is Outcome.FAIL:
            hit = -contest.shifts
            r.effect("hit", self.taken_text(who, hit), target=who, shifts=hit, attacker=attacker)
        elif contest.outcome is Outcome.TIE:
            if attacker:
                add_boost(act.table, r, attacker, "attack", f"a tie against {who}'s defence")
            else:
                r.effect("gm_boost", Msg("the attack ties {who}'s defence: the GM's side gains a boost", who=who), target=who)
        else:
            r.effect("defended", Msg("{who} is not hit", who=who), target=who)
            if contest.outcome is Outcome.STYLE:
                self.style_boost(act, who, "defence", "a defence with style")


FATE_TABLES = FateTables()
