"""The d10 dice-pool hack (004_c619695e1641b466.txt): a pool of skill + approach d10s counted
as hits, strain instead of stress, and a mech layered on its pilot.

"ADD the number for your SKILL and the number for your APPROACH to determine the size of your
DICE POOL, then roll that many TEN-SIDED DICE (d10). Each die that comes up 8 or higher counts
as a HIT. Each result of 10 counts as 2 hits; each result of 1 subtracts a hit." The result
(hits, plus stunts and invokes) meets "an active opposed roll or passive target number from
1 to 5"; "Interpreting Results": negative hits a catastrophic failure, below the opposition
a failure, equal a tie, 1-2 above a success, 3+ above success with style. An invoke is worth
+1 hit (or a reroll).

What the engine already plays the same way, by the text: the four actions' outcome tables
(they are Fate Condensed's, row for row), several invokes on one roll needing different
aspects, hostile invocation paid after the scene, story details with the GM's veto, compels
as events and decisions, anyone offering a compel with their own point, retroactive
self-compels (see docs/systems.md for the row-by-row reading).

How the text is read here, where it is silent or points to chapters it does not contain
(each a documented, replaceable piece of data; docs/systems.md):

* **Catastrophic failure** is a failure whose tallied result (after invokes and stunts) is
  below zero hits; the action tables play it as a failure, and the result carries a
  ``catastrophic`` effect: the GM may escalate to a severe cost.
* **Approaches** ("3 Skills, Approaches, & Stunts" is not in the text): Boldly, Carefully,
  Cleverly and Quickly (its examples are "Move Boldly", "Sway Carefully", "Tinker
  Quickly"); a PC rates them +3, +2, +1 and +0, one each. A roll names the approach with
  the skill: ``/overcome "Move Boldly" vs 2`` (or ``Move-Boldly``). A defence or an
  opposition the engine picks uses the character's best approach; an NPC without
  approaches rolls its skill alone.
* **Skills**: Endure, Fight, Move, Notice, Shoot, Sneak, Study, Sway, Tinker. Fight and
  Shoot attack (Fight or Move defends against close combat, Move against a shot), Sway
  attacks the mind (Endure defends).
* **Strain** (its size is in "4 Challenges, Conflicts, & Contests", not in the text): one
  track, ``strain``, of one-point boxes: 3, or 4 with Endure at +2 or more, 5 at +4;
  ``/absorb strain 2`` marks two. Consequences are Fate Condensed's mild, moderate and
  severe (2, 4 and 6).
* **The mech** ("2 Character Creation#Mech Creation" is not in the text): a ``[mech]``
  table on the pilot's sheet with a name, aspects and stunts, and whether the pilot is in
  the cockpit (``piloting``, changed by play with ``/mech in`` and ``/mech out``). "while
  they're in the cockpit, both sets apply": the mech's stunts join the pilot's, and its
  aspects may be invoked as the pilot's, while piloting.
* **Stunts** add hits: +1 hit when the sheet gives no ``bonus`` (as an invoke), at most
  2 (``stunt_bonus``, ``stunt_bonus_max``); the text says only that stunts "grant
  automatic bonuses".
* **Costs** on failures and ties wait for the GM to name them by reply, with a deadline
  default (``costs_by_reply``; :mod:`pbp.play.costs`).
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from pbp.errors import RulesError
from pbp.rules.dice import DiceSource
from pbp.rules.results import Change, DiceRoll, Modifier, Outcome
from pbp.rules.state import Stunt
from pbp.rules.character_state import CharacterState
from pbp.rules.system import fate_attack_kinds, FateTiers, OnePointBoxes, StressTable, frozen
from pbp.rules.systems.fate_condensed import FATE_CONDENSED
from pbp.rules.explain import FateExplainer
from pbp.rules.outcomes import shifts_text
from pbp.rules.outcome_tables import FateTables

HIT_FROM = 8          # "Each die that comes up 8 or higher counts as a HIT"
DOUBLE = 10           # "Each result of 10 counts as 2 hits"
MINUS = 1             # "each result of 1 subtracts a hit"
PASSIVE = (1, 5)      # "passive target number from 1 to 5"

#: The steps of costs the GM names by reply (``pbp.play.costs``), run only in the hack's
#: campaigns: a failed or tied roll opens its cost, a re-run moves it, they lapse with the scene.
COST_STEPS = frozen({
    "after_action": ("costs.cost_due",),
    "roll_revised": ("costs.cost_after_revision",),
    "scene_end": ("costs.costs_lapse",),
})


def hits(face: int) -> int:
    """What one d10 counts for: 10 -> 2, 8-9 -> 1, 1 -> -1, else 0."""
    if face >= DOUBLE:
        return 2
    if face >= HIT_FROM:
        return 1
    return -1 if face == MINUS else 0


class D10Pool:
    """Roll ``rating`` d10s and count hits; the rating sizes the pool and is not added."""

    name = "d10 pool"
    adds_rating = False

    def roll(self, dice: DiceSource, rating: int) -> DiceRoll:
        faces = tuple(dice.die(10, rating)) if rating > 0 else ()
        return DiceRoll(faces, "10", value=sum(hits(f) for f in faces))

    # -- a plain /roll: the pool's dice, counted as hits ------------------------------------
    def check_plain(self, cmd, sides: str, system) -> None:
        """``/roll 6d10`` (six d10s counted as hits) or ``/roll "Fight Boldly"`` (the pool of
        the skill and approach); other dice, a skill beside written dice, or no dice at all
        are refused with what the hack rolls and a working example."""
        title = system.title or system.name
        forms = 'Nd10, a pool of N ten-sided dice counted as hits, or a skill and approach ("Fight Boldly")'
        if cmd.dice_written and sides != "10":
            raise RulesError(f"{title} rolls ten-sided dice counted as hits, not {cmd.count}d{cmd.sides}",
                             source=cmd.source, expected=forms, example="/roll 6d10")
        if cmd.dice_written and cmd.skill:
            raise RulesError(f"{title} sizes a pool by its skill and approach: roll {cmd.skill} alone, or the dice alone",
                             source=cmd.source, expected=forms, example=f'/roll "{cmd.skill} Boldly"'
                             if " " not in cmd.skill else f'/roll "{cmd.skill}"')
        if not cmd.dice_written and not cmd.skill:
            raise RulesError(f"{title} has no dice of its own to roll without a pool: name its size or its skill",
                             source=cmd.source, expected=forms, example="/roll 6d10")

    def plain(self, dice: DiceSource, count: int, sides: str, rating: int, *, written: bool) -> DiceRoll:
        return self.roll(dice, count if written else rating)


class D10Tiers(FateTiers):
    """Fate's four tiers by the margin, and a catastrophic failure below zero hits."""

    def tier_name(self, effort: int, shifts: int) -> str:
        outcome = self.tier(shifts)
        return "catastrophic" if outcome is Outcome.FAIL and effort < 0 else outcome.value

    def note(self, report, effort: int, outcome: Outcome) -> None:
        if outcome is Outcome.FAIL and effort < 0:
            report.effect("catastrophic", "Negative hits: a catastrophic failure; the GM may escalate to a severe cost",
                          hits=effort)


def hits_text(n: int) -> str:
    """"1 hit", "3 hits", "-1 hit": the hack counts margins and harm in hits."""
    return f"{n} hit" if abs(n) == 1 else f"{n} hits"


class PoolTables(FateTables):
    """"The Four Actions" of the hack, in hits. Its rows are Fate Condensed's, row for row:
    overcome ("FAILURE: You fail ... The GM may instead allow you to succeed, but at a
    guaranteed severe cost"; "TIE: Partial success, or success with a minor cost", the
    partial success played as Fate's fail with a boost when the player chooses "on tie
    boost"; "SUCCESS WITH STYLE: Get what you want and an added benefit or boost"), create an
    advantage (new and existing aspects), attack ("Inflict harm on your target equal to the
    number of hits above the opposition ... SUCCESS WITH STYLE: As normal success, but you may
    also reduce the value of your hit by one to gain a boost") and defend. What differs is
    the count: hits, not shifts."""

    def amount(self, n: int) -> str:
        return hits_text(n)

    def hit_text(self, who: str, target: str, n: int) -> str:
        return f"{who} inflicts {hits_text(n)} of harm on {target}"

    def taken_text(self, who: str, n: int) -> str:
        return f"{who} takes {hits_text(n)} of harm"


class PoolExplainer(FateExplainer):
    """The hack's rolls explained: d10 faces, each throw and effort counted in hits
    (``[8] [9] [3]``, ``2 hits``), a pool named by its terms and size (``Fight + Boldly, 6
    dice``), passive opposition in hits, margins in hits (``success, 2 hits``), a
    catastrophic failure named as such, strain clearing at a scene's end. A plain ``/roll``
    counts hits too (``D10Pool.plain``: ``/roll 6d10``, ``/roll "Fight Boldly"``)."""

    unit = "hit"

    def worth(self, bonus: int) -> str:
        return f"+{hits_text(bonus)}"

    def hit_of(self, n: int) -> str:
        return self.hit(n)

    def hit_goes(self, before: int, after: int) -> str:
        """"the harm goes from 5 to 1 hit"."""
        return f"the harm goes from {before} to {hits_text(after)}"

    def hit(self, n: int, track: str = "", *, definite: bool = False) -> str:
        """"2 hits of harm" ("Inflict harm on your target equal to the number of hits")."""
        return f"{hits_text(n)} of harm"

    def faces(self, roll) -> str:
        """The d10s with what each counts marked: ``[8+] [10++] [3] [1-]`` (a hit, two, none,
        one taken away), so the text shows which dice are hits."""
        if roll.sides != "10":
            return super().faces(roll)
        return " ".join(f"[{g}]" for g in self.glyphs(roll))

    def glyphs(self, roll) -> tuple[str, ...]:
        """The HTML dice, marked as the text's: ``8+``, ``10++``, ``1-``, ``3``."""
        if roll.sides != "10":
            return super().glyphs(roll)
        mark = {2: "++", 1: "+", 0: "", -1: "-"}
        return tuple(f"{f}{mark[hits(f)]}" for f in roll.faces)

    def dice_value(self, roll) -> str:
        return hits_text(roll.total) if roll.value is not None else super().dice_value(roll)

    def amount(self, n: int, effort=None) -> str:
        return hits_text(n) if effort is None or not effort.rating_counts else super().amount(n, effort)

    def passive(self, n: int) -> str:
        return hits_text(n)

    def skill_words(self, terms, effort) -> str:
        if not terms or effort.rating_counts:
            return super().skill_words(terms, effort)
        size = sum(m.value for m in terms)
        return f"{' + '.join(m.label for m in terms)}, {size} {'die' if size == 1 else 'dice'}"

    def headline_skill(self, skill: str, terms, effort) -> str:
        if not terms or effort.rating_counts:
            return super().headline_skill(skill, terms, effort)
        return self.skill_words(terms, effort)

    def rolled(self, written: str, terms, effort) -> str:
        """A pool rolled with ``/roll "Fight Boldly"`` is named by its terms and size."""
        return self.skill_words(terms, effort) if terms and not effort.rating_counts else written

    def verdict(self, res) -> str:
        text = super().verdict(res)
        if res.outcome is not None and res.outcome.value == "fail" and res.effort.total < 0:
            return "catastrophic " + text.replace("fail,", "failure,", 1)
        return text


EXPLAIN = PoolExplainer()


class StrainBoxes(OnePointBoxes):
    """Strain: one-point boxes, as Fate Condensed's stress, named ``strain N``."""

    word = "strain"
    example = "strain 2"
    noun = "strain"

    def term_problem(self, who, track, boxes, term):
        problem = super().term_problem(who, track, boxes, term)
        if problem is None:
            return None
        free = boxes.count(False)
        return (f"{who} has {free} free strain box{'es' if free != 1 else ''}, not {term}", f"strain 0 to {free}")

    def waste_problem(self, who, boxes, term, need, shifts, absorbed):
        problem = super().waste_problem(who, boxes, term, need, shifts, absorbed)
        if problem is None:
            return None
        return problem.replace("stress box", "strain box").replace(f"needs {shifts_text(shifts)} absorbed",
                                                                  f"needs {hits_text(shifts)} absorbed")

    def describe(self, term: int) -> str:
        return f"{term} strain box{'es' if term != 1 else ''}"

    def command(self, term: int) -> str:
        return f"strain {term}"


# -- approaches and the mech: the hack's own character state --------------------------------

APPROACHES = ("Boldly", "Carefully", "Cleverly", "Quickly")
APPROACH_RATING = (0, 6)
MECH_KEYS = ("name", "aspects", "stunts", "piloting")


@dataclass(frozen=True)
class PoolState(CharacterState):
    """A character's approaches and mech (``Character.system_state``)::

        {"approaches": {"Boldly": 3, ...}, "mech": {"name": "Dock Bravo", "aspects": [...],
         "stunts": [{...}], "piloting": false}}

    ``approaches`` and ``pc_spread`` are the choices the text leaves to a missing chapter."""

    approaches: tuple[str, ...] = APPROACHES
    pc_spread: tuple[int, ...] = (3, 2, 1, 0)   # a PC's approach ratings, one each
    keys: tuple[str, ...] = ("approaches", "mech")

    # -- import ------------------------------------------------------------------------
    def read(self, sheet, data: dict, ch) -> dict:
        state: dict = {}
        example = f"approaches.{self.approaches[0]} = 3"
        table = sheet.table(data.get("approaches"), "approaches", self.approaches, example)
        approaches = {}
        for name, value in table.items():
            rating = sheet.integer(value, f"approaches.{name}", APPROACH_RATING, f"approaches.{name} = 2")
            if rating is not None:
                approaches[name] = rating
        if approaches:
            state["approaches"] = {a: approaches[a] for a in self.approaches if a in approaches}
        if "mech" in data:
            mech = sheet.table(data.get("mech"), "mech", MECH_KEYS, 'mech.name = "Dock Bravo"')
            name = sheet.name(mech.get("name"), "mech.name", 'mech.name = "Dock Bravo"', required=True)
            aspects = sheet.name_list(mech.get("aspects"), "mech.aspects", 'mech.aspects = ["Patched Armour"]')
            stunts = sheet.stunts(mech.get("stunts"), "mech.stunts")
            piloting = mech.get("piloting", False)
            if not isinstance(piloting, bool):
                sheet.problem("mech.piloting", "expected true or false", "mech.piloting = false")
                piloting = False
            state["mech"] = {"name": name, "aspects": aspects, "stunts": [dict(vars(s)) for s in stunts],
                             "piloting": piloting}
        return state

    def problems(self, ch, system) -> list[str]:
        problems = []
        approaches = ch.system_state.get("approaches", {})
        if ch.kind == "pc":
            missing = [a for a in self.approaches if a not in approaches]
            want = ", ".join(f"{v:+d}" for v in self.pc_spread)
            if missing or sorted(approaches.values(), reverse=True) != sorted(self.pc_spread, reverse=True):
                lines = " ".join(f"{a} = {v}" for a, v in zip(self.approaches, self.pc_spread))
                problems.append(
                    f"approaches: {ch.name} rates {', '.join(self.approaches)} with {want}, one each"
                    + (f"; missing {', '.join(missing)}" if missing else
                       f"; the sheet has {', '.join(f'{v:+d}' for v in sorted(approaches.values(), reverse=True))}")
                    + f"; e.g. [approaches] {lines}")
        mech = ch.system_state.get("mech")
        if mech:
            if ch.kind != "pc":
                problems.append("mech: a mech is a player character's (its aspects and stunts layer on the pilot's)")
            for i, stunt in enumerate(mech["stunts"], start=1):
                if stunt["skill"] and system.skill_named(stunt["skill"]) is None:
                    problems.append(f'mech.stunts[{i}]: stunt "{stunt["name"]}" names "{stunt["skill"]}", '
                                    f"which is not {system.a_skill()} (skills: {', '.join(system.skills)})")
        return problems

    # -- sheets ------------------------------------------------------------------------
    def sheet_data(self, ch, data: dict) -> dict:
        """The approaches and the mech under their own keys, as ``read`` takes them back
        (``pbp character export``, ``edit``, ``set`` and ``/sheet set`` start from this)."""
        state = ch.system_state or {}
        if state.get("approaches"):
            data["approaches"] = dict(state["approaches"])
        mech = state.get("mech")
        if mech:
            data["mech"] = {"name": mech["name"], "aspects": list(mech["aspects"]),
                            "piloting": bool(mech["piloting"]),
                            "stunts": [{k: v for k, v in s.items() if v not in ("", None)} for s in mech["stunts"]]}
            if not data["mech"]["stunts"]:
                del data["mech"]["stunts"]
        return data

    def view(self, ch, *, secret: bool = False) -> tuple[dict, list[tuple[str, str]]]:
        state = ch.system_state
        entries: dict = {}
        lines: list[tuple[str, str]] = []
        approaches = state.get("approaches", {})
        if approaches and not secret:
            entries["approaches"] = dict(approaches)
            lines.append(("approaches", ", ".join(f"{a} {v:+d}" for a, v in approaches.items())))
        mech = state.get("mech")
        if mech:
            entries["mech"] = {**mech, "aspects": list(mech["aspects"]),
                               "stunts": [] if secret else [dict(s) for s in mech["stunts"]]}
            where = "in the cockpit" if mech["piloting"] else "not piloting"
            lines.append(("mech", f"{mech['name']} ({where})"))
            lines += [("mech aspect", a) for a in mech["aspects"]]
            if not secret:
                lines += [("mech stunt", _stunt_text(s)) for s in mech["stunts"]]
        return entries, lines

    # -- play ----------------------------------------------------------------------------
    def split_skill(self, name: str) -> tuple[str, str | None]:
        words = name.replace("-", " ").split()
        if len(words) >= 2:
            approach = self.approach_named(words[-1])
            if approach is not None:
                return " ".join(words[:-1]), approach
        return name, None

    def approach_named(self, name: str) -> str | None:
        return next((a for a in self.approaches if a.casefold() == name.casefold()), None)

    def approach(self, ch, name: str | None, *, chosen: bool, source: str = "", skill: str = ""):
        own = ch.system_state.get("approaches", {})
        if name is not None:
            return Modifier("skill", name, own.get(name, 0))
        if not own:
            return None
        if chosen:
            best = max(own, key=lambda a: own[a])
            written = skill or "Fight"
            example = source.replace(written, f'"{written} {best}"', 1) if written in source else \
                f'/overcome "{written} {best}" vs 2'
            raise RulesError(
                f"the pool is skill + approach: say how {ch.name} acts, {skill or 'the skill'} and one of "
                + ", ".join(f"{a} {own.get(a, 0):+d}" for a in self.approaches),
                source=source, expected=f'the skill and an approach in quotes ("{written} {best}")',
                example=example)
        best = max(own, key=lambda a: own[a])
        return Modifier("skill", best, own[best])

    def stunts(self, ch) -> list:
        mech = ch.system_state.get("mech")
        if not mech or not mech.get("piloting"):
            return ch.stunts
        return [*ch.stunts, *(Stunt(**s) for s in mech["stunts"])]


    def aspects(self, ch) -> list[str]:
        mech = ch.system_state.get("mech")
        return list(mech["aspects"]) if mech and mech.get("piloting") else []

    def board(self, ch, boarding: bool, *, title: str, source: str = ""):
        mech = ch.system_state.get("mech")
        if not mech:
            raise RulesError(f"{ch.name} has no mech (a [mech] table on the sheet gives one)", source=source,
                             expected="a pilot with a mech on the sheet", example="/sheet")
        if mech["piloting"] == boarding:
            where = "already in the cockpit of" if boarding else "not in the cockpit of"
            raise RulesError(f"{ch.name} is {where} {mech['name']}", source=source,
                             expected="/mech out" if boarding else "/mech in",
                             example="/mech out" if boarding else "/mech in")
        ch.system_state = {**ch.system_state, "mech": {**mech, "piloting": boarding}}
        return Change("piloting", ch.name, "no" if boarding else mech["name"], mech["name"] if boarding else "no")


def _stunt_text(s: dict) -> str:
    """"Servo Fists: +1 hit to Fight when you defend", as the sheet's own stunts read."""
    what = f": {EXPLAIN.worth(s['bonus'])} to {s['skill']}" if s["skill"] else ""
    when = f" when you {s['action']}" if s["skill"] and s["action"] else ""
    return f"{s['name']}{what}{when}"


SKILLS = ("Endure", "Fight", "Move", "Notice", "Shoot", "Sneak", "Study", "Sway", "Tinker")

D10_POOL = replace(
    FATE_CONDENSED,
    name="d10-pool",
    title="the d10 dice-pool hack",
    skills=SKILLS,
    dice=D10Pool(),
    tiers=D10Tiers(),
    tables=PoolTables(),
    explain=EXPLAIN,
    # No ladder: a rating is the dice it adds to the pool and a result is counted in hits,
    # so values are shown as numbers ("Fight +3"), never Fate's words ("Good (+3)"); ladder
    # words written in a post are still read (``vs Fair`` is 2).
    ladder=frozen({}),
    invoke_bonus=1,       # "invoking = reroll or +1 hit"
    # "two ways to gain bonus hits: ASPECTS ... and STUNTS, which can grant automatic
    # bonuses to your rolls": how many the text leaves to "3 Skills, Approaches, & Stunts",
    # which it does not contain. A stunt adds +1 hit, as an invoke does; a sheet may give
    # up to 2 (more would beat most passive oppositions, 1 to 5, on its own).
    stunt_bonus=1,
    stunt_bonus_max=2,
    stress=StressTable(steps=((-99, 3), (2, 4), (4, 5))),
    stress_skills=frozen({"strain": "Endure"}),
    attack_kinds=fate_attack_kinds("strain", "strain", melee=("Fight", "Move"), ranged=("Move",), will=("Endure",)),
    attack_skills=frozen({"Fight": "melee", "Shoot": "ranged", "Sway": "mental"}),
    opposed_by=frozen({"Sneak": ("Notice",), "Notice": ("Sneak",), "Sway": ("Endure",), "Fight": ("Fight", "Move"),
                       "Move": ("Move",), "Shoot": ("Move",), "Tinker": ("Tinker",), "Study": ("Sneak",)}),
    default_opposition=("Move", "Notice", "Endure"),
    skill_pyramid=frozen({3: 1, 2: 2, 1: 3}),
    treatment_skills=frozen({"strain": "Study"}),
    harm_nouns=frozen({"strain": "Harm"}),
    character_state=PoolState(),
    passive_range=PASSIVE,
    costs_by_reply=True,
    steps=COST_STEPS,
    # "they can't use it until AFTER THE SCENE you give it to them in": not at a conflict's end
    hostile_payout=("scene",),
    box_model=StrainBoxes(),
)
