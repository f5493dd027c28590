"""How a result is explained in replies, one renderer per part of it (avrae/d20's
``d20/stringifiers.py`` shape: one method per node of a result): the dice, the effort, the
opposition, the outcome and the harm. Each system carries one (``System.explain``):
``FateExplainer`` is Fate's (4dF faces, efforts on the ladder, margins in shifts), the ordinary
case; the d10 hack's ``PoolExplainer`` (``pbp.rules.systems.d10_pool``) shows d10 faces and
counts hits.

An explainer speaks its system's ladder (``ladder``: a ``System`` binds its explainer to its
own ``System.ladder`` when it is made, :meth:`FateExplainer.speaking`), and it is always passed:
the renderer (``pbp.render``) takes the campaign's system for each reply, as d20's
``stringify`` takes its stringifier; nothing in the rules core holds a current system.
"""
from __future__ import annotations

import copy
from typing import Mapping

from pbp.i18n import Msg, Msgs, N_
from pbp.rules.ladder import LADDER, adjective, describe, signed

FACE = {1: "[+]", 0: "[0]", -1: "[-]"}
OUTCOME_WORDS = {"fail": N_("fail"), "tie": N_("tie"), "success": N_("success"), "style": N_("success with style")}


class FateExplainer:
    """Fate's explanation of a roll: 4dF faces ``[+] [0] [-]``, the dice and efforts on the
    ladder (``+4 Great``), a skill with its ladder word (``Fight, Good (+3)``), margins in
    shifts (``success, 2 shifts``), stress boxes of a track (``physical stress``)."""

    unit = "shift"              # what a margin and a hit are counted in
    ladder: Mapping[int, str] = LADDER      # the words of its system's ladder (``speaking``)
    #: (skill, value) -> "Ótima (+4)": a language whose ladder words agree with the skill
    #: they rate (``pbp.rules.systems.speaking``); None: the ladder's word as it is
    agree = None

    def rated(self, skill: str, value: int) -> str:
        """A skill's rating in words: "Good (+3)"; Portuguese "Luta": "Ótima (+4)"."""
        return self.agree(skill, value) if self.agree else describe(value, self.ladder)

    def speaking(self, ladder: Mapping[int, str]) -> "FateExplainer":
        """This explainer naming values with ``ladder`` (itself when it already does): a
        ``System`` binds its explainer to its own ladder, so a variant with another ladder
        (early Fate's, a campaign's words in another language) is explained in its words."""
        if ladder is self.ladder:
            return self
        bound = copy.copy(self)
        bound.ladder = ladder
        return bound

    # -- the margin: outcome and harm ---------------------------------------------------------
    def margin(self, n: int) -> str:
        """"1 shift", "3 shifts"."""
        if self.unit == "shift":
            return Msgs("{n} shift", "{n} shifts", n)
        return f"{n} {self.unit}" if n == 1 else f"{n} {self.unit}s"

    def hit(self, n: int, track: str = "", *, definite: bool = False) -> str:
        """A hit as prompts name it: "a 2-shift hit", "the 2-shift physical hit"."""
        if self.unit == "shift":
            if track:
                return (Msg("the {n}-shift {track} hit", n=n, track=track) if definite
                        else Msg("a {n}-shift {track} hit", n=n, track=track))
            return Msg("the {n}-shift hit", n=n) if definite else Msg("a {n}-shift hit", n=n)
        return f"{'the' if definite else 'a'} {n}-{self.unit} {track + ' ' if track else ''}hit"

    def worth(self, bonus: int) -> str:
        """What an invoke (or a stunt) adds, as errors and examples say it: "+2"."""
        return signed(bonus)

    def hit_of(self, n: int) -> str:
        """A hit by its size, as a revised roll names a new one: "a hit of 2 shifts"."""
        return f"a hit of {self.margin(n)}"

    def hit_goes(self, before: int, after: int) -> str:
        """A hit's new size, as a revised roll says it: "the hit goes from 4 to 2 shifts"."""
        return f"the hit goes from {before} to {self.margin(after)}"

    # -- dice ---------------------------------------------------------------------------------
    def faces(self, roll) -> str:
        if roll.sides == "F":
            return " ".join(FACE[f] for f in roll.faces)
        return " ".join(f"[{f}]" for f in roll.faces)

    def glyphs(self, roll) -> tuple[str, ...]:
        """The faces as drawn in HTML boxes: "+", "−", a blank for 0 (Fate dice), or numbers."""
        if roll.sides == "F":
            return tuple({1: "+", 0: "\u00a0", -1: "\u2212"}[f] for f in roll.faces)
        return tuple(str(f) for f in roll.faces)

    def dice_value(self, roll) -> str:
        """What a throw counts for, in its row: "+2"."""
        return signed(roll.total)

    # -- effort and opposition ----------------------------------------------------------------
    def amount(self, n: int, effort=None) -> str:
        """An effort's total: "+4 Great"; numbers beyond the ladder stay numbers."""
        word = adjective(n, self.ladder)
        return f"{signed(n)} {word}" if word else signed(n)

    def passive(self, n: int) -> str:
        """A difficulty: "Fair (+2)"."""
        return describe(n, self.ladder)

    def skill_words(self, terms, effort) -> str:
        """The skill terms of an effort: "Fight Good (+3)"."""
        return f"{terms[0].label} {self.rated(terms[0].label, terms[0].value)}" if terms else ""

    def headline_skill(self, skill: str, terms, effort) -> str:
        """The skill in a result's first line: "Fight, Good (+3)"."""
        return f"{skill}, {self.rated(skill, terms[0].value)}" if terms else skill

    def rolled(self, written: str, terms, effort) -> str:
        """What a plain ``/roll`` rolled, in its first line: the command as written ("4dF+2",
        "Fight")."""
        return written

    # -- outcome ------------------------------------------------------------------------------
    def verdict(self, res) -> str:
        """"success, 2 shifts", "fail, 1 shift short", "tie"; a roll without opposition, its
        total."""
        if res.outcome is None:
            return Msg("total {amount}", amount=self.amount(res.effort.total, res.effort))
        word = OUTCOME_WORDS[res.outcome.value]
        s = res.shifts or 0
        if res.outcome.value == "fail":
            return Msg("{outcome}, {margin} short", outcome=word, margin=self.margin(-s))
        if res.outcome.value == "tie":
            return Msg(word)
        return Msg("{outcome}, {margin}", outcome=word, margin=self.margin(s))

    # -- conflicts and harm -------------------------------------------------------------------
    def conflict_begins(self, kind: str, tracks) -> str:
        """"A physical conflict begins"; a system of one track (the d10 hack's strain) has no
        kind to name: "A conflict begins"."""
        return Msg("A {kind} conflict begins", kind=kind) if len(tracks) > 1 else Msg("A conflict begins")

    # -- the sheet ----------------------------------------------------------------------------
    def slot(self, shifts: int, aspect: str | None) -> str:
        """A consequence slot on a sheet, after its severity: what it absorbs and what fills
        it, "2: (free)", "4: Gaping Chest Wound"."""
        return Msg("{shifts}: {aspect}", shifts=shifts, aspect=aspect or Msg("(free)"))

    def clears(self, noun: str) -> str:
        """What clears at a scene's end: "stress clears" (``noun``: the box model's noun)."""
        return Msg("{noun} clears", noun=noun)
