"""What a game system is: the interface of the rules core and Fate's default strategies, data
plus a few declared hooks, Fate Condensed's being the ordinary case.

One engine plays every Fate-family system; what differs is a ``System`` value (python-chess's
``chess/variant.py`` shape: each system overrides only the hooks where it differs). This
module is part of the rules core: the core's functions take a ``System`` and import this
module only. The five systems and their registry (``pbp.rules.systems``: found by name with
aliases) sit above the core and import it. A system decides:

* how effort is rolled from a rating and what the dice were (``dice``: 4dF by default);
* how effort meets opposition: the margin and the outcome tier (``tiers``; a system may add
  tiers such as a catastrophic failure);
* each action's outcome table (``tables``: what a fail, tie, success or style gives);
* how a result is explained in replies (``explain``: one renderer per part of a result);
* what an invoke is worth (``invoke_bonus``) and what a stunt adds (``stunt_bonus``, at most
  ``stunt_bonus_max``);
* harm: the tracks and their names (``stress_skills``), the box model (``harm``: one-point
  boxes, or Fate Core's escalating boxes), the consequence slots, the deadline default;
* the ladder and its words (``ladder``), the skills, and the sheet rules at import;
* teamwork's numbers (``teamwork``) and the victories a contest is played to;
* the character state it keeps beyond Fate Condensed's sheet (``character_state``, the hooks of
  ``pbp.rules.character_state``: the d10 hack's approaches and mech), read and checked at
  import, stored whole, shown on sheets and in ``pbp sheet --json``, and used in play (an
  approach joins the dice pool).

The engine asks the system, never names one: there is no default system anywhere in the
rules core. A variant that differs only in data is ``dataclasses.replace`` of one.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from types import MappingProxyType
from typing import Mapping

from pbp.i18n import Msg, Msgs, N_, fold
from pbp.rules.advancement import MAJOR, MINOR, Allowance
from pbp.rules.character_state import NO_STATE, CharacterState
from pbp.rules.dice import DiceSource
from pbp.rules.ladder import LADDER
from pbp.rules.outcomes import outcome_for, rank, shifts_text
from pbp.rules.results import DiceRoll, Outcome
from pbp.rules.explain import FateExplainer
from pbp.rules.outcome_tables import FateTables
from pbp.rules.teamwork import FateTeamwork


# -- dice ------------------------------------------------------------------------------------

class FateDice:
    """Fate's effort dice: 4dF (-4..+4) added to the rating. The rating does not change the
    throw; a dice-pool system's ``roll`` would throw ``rating`` dice instead."""

    name = "4dF"
    adds_rating = True       # effort = dice + rating (+ modifiers)

    def roll(self, dice: DiceSource, rating: int) -> DiceRoll:
        return DiceRoll(tuple(dice.fate(4)), "F")

    # -- a plain /roll ---------------------------------------------------------------------
    def check_plain(self, cmd, sides: str, system: "System") -> None:
        """Refuse (a RulesError) a ``/roll`` of dice the system does not use; Fate rolls any
        dice written (``/roll 3d6``)."""

    def plain(self, dice: DiceSource, count: int, sides: str, rating: int, *, written: bool) -> DiceRoll:
        """The throw of a ``/roll``: the dice written, 4dF unless written otherwise (the
        rating is added as a term of the effort)."""
        if sides == "F":
            return DiceRoll(tuple(dice.fate(count)), "F")
        return DiceRoll(tuple(dice.die(int(sides), count)), sides)


def four_fate_dice(dice: DiceSource) -> DiceRoll:
    """Fate's effort dice: 4dF, -4..+4 (kept for callers that roll without a rating)."""
    return FateDice().roll(dice, 0)


# -- outcome tiers ---------------------------------------------------------------------------

class FateTiers:
    """Effort minus opposition is the margin (shifts); <0 fail, 0 tie, 1-2 success, 3+ style
    (Fate Condensed, "Outcomes"). A system with more tiers overrides ``tier`` and ``rank``."""

    def margin(self, effort: int, opposition: int) -> int:
        return effort - opposition

    def tier(self, shifts: int) -> Outcome:
        return outcome_for(shifts)

    def contest_tier(self, shifts: int, active: bool) -> Outcome:
        """The tier of a rolled action, against an opponent's roll (``active``) or a
        difficulty; Fate Condensed makes no difference."""
        return self.tier(shifts)

    def rank(self, outcome: Outcome) -> int:
        return rank(outcome)

    def note(self, report, effort: int, outcome: Outcome) -> None:
        """Report a tier beyond the four outcomes (a catastrophic failure); Fate has none. The
        action tables read ``outcome``, so an extra tier is a finer kind of one of the four."""


# -- harm: the box model ---------------------------------------------------------------------

class OnePointBoxes:
    """Fate Condensed, "Stress": each box absorbs one shift, mark as many as you like.

    The stress term of an ``/absorb`` (``stress 2``) is the number of boxes to mark, and it
    absorbs that many shifts. Boxes are marked first-empty-first."""

    word = "stress"
    example = "stress 2"
    noun = "stress"          # what the boxes are called ("mark stress boxes")

    def absorbs(self, boxes: list[bool], term: int) -> int:
        return term

    def values(self, count: int) -> list[int]:
        """The shifts each of a track's ``count`` boxes absorbs, as a sheet shows them."""
        return [1] * count

    def least(self, boxes: list[bool], need: int) -> int | None:
        """The cheapest stress term absorbing at least ``need`` shifts, or None."""
        return need if need <= boxes.count(False) else None

    def term_problem(self, who: str, track: str, boxes: list[bool], term: int) -> tuple[str, str] | None:
        free = boxes.count(False)
        if 0 <= term <= free:
            return None
        return (f"{who} has {free} free {track} stress box{'es' if free != 1 else ''}, not {term}",
                f"stress 0 to {free}")

    def waste_problem(self, who: str, boxes: list[bool], term: int, need: int, shifts: int,
                      absorbed: int) -> str | None:
        spare = absorbed - shifts
        if term and spare >= 1:
            keep = term - min(term, spare)
            return (f"{who} needs {shifts_text(shifts)} absorbed and this absorbs {absorbed}: "
                    f"mark {keep} stress box{'es' if keep != 1 else ''}, not {term}")
        return None

    def mark(self, boxes: list[bool], term: int) -> list[int]:
        return [i for i, full in enumerate(boxes) if not full][:term]

    def describe(self, term: int) -> str:
        return Msgs("{n} stress box", "{n} stress boxes", term)

    def command(self, term: int) -> str:
        return f"stress {term}"

    def show(self, boxes: list[bool]) -> str:
        return "".join("[x]" if b else "[ ]" for b in boxes)


class EscalatingBoxes(OnePointBoxes):
    """Fate Core, "Escalating Stress Boxes" (quoted in 000_7ba3f797fc1d45d3.txt): box n
    absorbs n shifts; "check off a stress box with a value equal to the shift value of the
    hit. If that box is already checked, check off a higher value box"; "You can only check
    off one stress box per hit." The stress term of an ``/absorb`` (``box 2``) names the box.

    With consequences, the box covers what they leave (need): the box of that value, or a
    higher one when it is checked or missing."""

    word = "box"
    example = "box 2"

    def values(self, count: int) -> list[int]:
        return list(range(1, count + 1))

    def least(self, boxes: list[bool], need: int) -> int | None:
        return next((n for n in range(max(need, 1), len(boxes) + 1) if not boxes[n - 1]), None)

    def _free(self, boxes: list[bool]) -> str:
        return ", ".join(str(n) for n, full in enumerate(boxes, start=1) if not full) or "none"

    def term_problem(self, who: str, track: str, boxes: list[bool], term: int) -> tuple[str, str] | None:
        if term == 0 or (1 <= term <= len(boxes) and not boxes[term - 1]):
            return None
        have = ", ".join(str(n) for n in range(1, len(boxes) + 1)) or "none"
        why = (f"{who}'s {track} box {term} is already checked" if 1 <= term <= len(boxes)
               else f"{who} has no {track} box {term} (boxes: {have})")
        return f"{why}; free boxes: {self._free(boxes)}", "box and the number of a free box"

    def waste_problem(self, who: str, boxes: list[bool], term: int, need: int, shifts: int,
                      absorbed: int) -> str | None:
        if not term:
            return None
        if need <= 0:
            return f"{who} needs {shifts_text(shifts)} absorbed and the consequences absorb them: leave the box out"
        if term != need and need <= len(boxes) and not boxes[need - 1]:
            return (f"{who} checks the box worth the {shifts_text(need)} left while it is "
                    f"free: box {need}, not box {term}")
        return None

    def mark(self, boxes: list[bool], term: int) -> list[int]:
        return [term - 1] if term else []

    def describe(self, term: int) -> str:
        return f"the {term}-point stress box"

    def command(self, term: int) -> str:
        return f"box {term}"

    def show(self, boxes: list[bool]) -> str:
        return "".join(f"[{'x' if b else n}]" for n, b in enumerate(boxes, start=1))


# -- data ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class StressTable:
    """Stress boxes by the rating of the track's skill (Physique, Will).

    ``steps`` are (lowest rating, boxes), lowest first. ``escalating`` is Fate Core's
    option where box n absorbs n shifts; Fate Condensed's boxes absorb one shift each.
    """

    steps: tuple[tuple[int, int], ...]
    extra_mild_from: int | None = None
    escalating: bool = False

    def boxes(self, rating: int) -> int:
        count = 0
        for lowest, boxes in self.steps:
            if rating >= lowest:
                count = boxes
        return count

    def box_values(self, rating: int) -> tuple[int, ...]:
        """Shifts each box absorbs: (1, 1, 1, 1) or, escalating, (1, 2, 3, 4)."""
        n = self.boxes(rating)
        return tuple(range(1, n + 1)) if self.escalating else (1,) * n

    def extra_mild(self, rating: int) -> bool:
        return self.extra_mild_from is not None and rating >= self.extra_mild_from


@dataclass(frozen=True)
class AttackKind:
    """A kind of attack: the stress track it hits and the skills that defend against it; and
    its own words: whether it reaches past the attacker's zone (``ranged``: per the scene's
    range policy; else close combat, in one's own zone), how a defence ask names what is
    defended against (``against``), and how an out-of-reach refusal names the attack
    (``reach_words``, ``{skill}`` the attack's skill; empty: "close combat" or "a shot")."""

    name: str
    track: str
    defences: tuple[str, ...]
    ranged: bool = False
    against: str = "against this attack"
    reach_words: str = ""

    def how(self, skill: str) -> str:
        """The attack as a reach refusal names it ("a Provoke attack"), or "" (close combat, a shot)."""
        return self.reach_words.format(skill=skill) if self.reach_words else ""


def fate_attack_kinds(physical: str, mental: str, melee: tuple[str, ...], ranged: tuple[str, ...],
                      will: tuple[str, ...]) -> Mapping[str, AttackKind]:
    """Fate's three kinds of attack (close combat, a shot, a mental attack) on a system's
    tracks, with the skills that defend against each."""
    return frozen({
        "melee": AttackKind("melee", physical, melee, against=N_("against close combat")),
        "ranged": AttackKind("ranged", physical, ranged, ranged=True, against=N_("against a shot")),
        "mental": AttackKind("mental", mental, will, ranged=True, against=N_("against a mental attack"),
                             reach_words="a {skill} attack"),
    })


@dataclass(frozen=True)
class Words:
    """The words a system's commands use where systems differ: the tracks (a conflict's kind,
    ``/conflict start ... mental``), the consequence severities (``/absorb mild "..."``) and
    the word before an ``/absorb`` number (``stress 2``, ``box 2``). The grammar accepts the
    words of every registered system (``pbp.rules.systems.vocabulary``); the campaign's
    system refuses the others with its own list (``pbp.parser.build``)."""

    tracks: tuple[str, ...]
    severities: tuple[str, ...]
    units: tuple[str, ...]
    title: str = ""
    # Kinds of condition (Dresden Files Condensed: fleeting, sticky, lasting), written where
    # a severity is (``/absorb lasting "Wounded"``); the grammar reads them with the severities.
    conditions: tuple[str, ...] = ()
    # The campaign's language ("pt-BR"): its commands are also read in its words
    # (pbp.parser.grammar, pbp.rules.systems.speaking).
    language: str = "en"

    @property
    def harm_words(self) -> tuple[str, ...]:
        """What may stand before a name in ``/absorb``: severities and kinds of condition."""
        return self.severities + self.conditions

    def merged(self, other: "Words") -> "Words":
        def union(a, b):
            return tuple(dict.fromkeys(a + b))
        return Words(union(self.tracks, other.tracks), union(self.severities, other.severities),
                     union(self.units, other.units), conditions=union(self.conditions, other.conditions))


@dataclass(frozen=True)
class Recovery:
    """How a treated consequence (or condition) of one severity recovers
    (``System.recovery``, read by ``pbp.rules.recovery``): the clock it waits on once
    treatment starts it ("scene": it clears after one full scene; "session": after one full
    session; "milestone": at the next major milestone), the treatment difficulty (None: the
    slot's own shifts, Fate Condensed's "Fair (+2) for mild, Great (+4) for moderate,
    Fantastic (+6) for severe"), and whether a major milestone clears it once it is
    recovering (and lets an untreated one begin recovery)."""

    clock: str
    difficulty: int | None = None
    major_milestone: bool = False

    CLOCKS = ("scene", "session", "milestone")
    WHEN = {"scene": "after one full scene", "session": "after one full session",
            "milestone": "at the next major milestone"}

    def __post_init__(self):
        if self.clock not in self.CLOCKS:
            raise ValueError(f"a recovery clock is one of {self.CLOCKS}, not {self.clock!r}")

    @property
    def when(self) -> str:
        return self.WHEN[self.clock]


#: Fate Condensed, "Recovering from Conflicts" and "Major Milestones": a mild consequence
#: clears a full scene after treatment, a moderate one a full session after, a severe one
#: at a major milestone, which also clears moderates in recovery. The extra mild slot (Fate
#: Core's Superb Physique or Will) recovers as mild does.
FATE_RECOVERY = {
    "mild": Recovery("scene"),
    "mild2": Recovery("scene"),
    "moderate": Recovery("session", major_milestone=True),
    "severe": Recovery("milestone", major_milestone=True),
}


def and_words(words) -> str:
    """``moderate and severe``; ``mild, moderate and severe``."""
    items = list(words)
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def or_words(words, quote: str = "") -> str:
    """``mild, moderate or severe``; ``"physical" or "mental"`` with ``quote='"'``."""
    items = [f"{quote}{w}{quote}" for w in words]
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} or {items[-1]}"


def frozen(mapping: Mapping) -> Mapping:
    return MappingProxyType(dict(mapping))


_ONE_POINT = OnePointBoxes()
_ESCALATING = EscalatingBoxes()


@dataclass(frozen=True)
class SystemOption:
    """A campaign setting a system reads (``pbp campaign set KEY=VALUE``): what it means,
    the values it takes (the first is the default) and the system it makes of the base
    one (``apply(system, value)``). Set it before importing sheets: sheets are checked
    and sized under the system the campaign has then."""

    description: str
    values: tuple[str, ...]
    apply: object          # (System, str) -> System
    #: A setting whose values are not a fixed list (Dresden Files Condensed's
    #: ``scale_levels``): ``check(value)`` gives the value as kept or raises ValueError
    #: saying what is wrong; ``example`` is a value that works (for the refusal's hint).
    check: object = None   # (str) -> str
    example: str = ""
    #: ``carry(before, after, table)``: the campaign's stored state moved from the system
    #: ``before`` the change to the one ``after`` it (a renamed level of scale on the
    #: characters and aspects in play); returns what it changed, one line each, or raises
    #: ValueError (nothing changes) when it cannot.
    carry: object = None   # (System, System, Table) -> list[str]


_CONFIGURED: dict = {}


@dataclass(frozen=True, eq=False)
class System:
    """Everything the engine needs to know about one game system.

    Equality is identity: systems are registry singletons, and mapping fields are not
    hashable. The hooks (``roll``, ``outcome``, ``rank``, ``harm``) are where systems differ in
    behaviour; the rest is data.
    """

    name: str
    skills: tuple[str, ...]
    stress: StressTable
    stress_skills: Mapping[str, str]                  # track -> skill that sizes it
    consequence_slots: tuple[tuple[str, int], ...]    # (severity, shifts absorbed)
    attack_kinds: Mapping[str, AttackKind]
    attack_skills: Mapping[str, str]                  # skill -> attack kind name
    title: str = ""
    opposed_by: Mapping[str, tuple[str, ...]] = field(default_factory=lambda: frozen({}))
    default_opposition: tuple[str, ...] = ()
    skill_pyramid: Mapping[int, int] = field(default_factory=lambda: frozen({}))
    ladder: Mapping[int, str] = field(default_factory=lambda: LADDER)
    invoke_bonus: int = 2
    # What a stunt adds, in the system's count (``explain.worth``: Fate's "+2", the d10 hack's
    # "+1 hit"): ``stunt_bonus`` when a sheet's stunt gives no ``bonus``, and the most a
    # sheet's stunt may give (pbp.sheetfile reads both at import).
    stunt_bonus: int = 2
    stunt_bonus_max: int = 8
    # Character creation: a PC starts at ``starting_refresh`` with ``free_stunts`` stunts
    # free; each further stunt costs 1 refresh, never below ``min_refresh``.
    starting_refresh: int = 3
    free_stunts: int = 3
    min_refresh: int = 1
    minor_npc_max_boxes: int = 3
    minor_npc_max_aspects: int = 2
    dice: FateDice = field(default_factory=FateDice)
    tiers: FateTiers = field(default_factory=FateTiers)
    # Each action's outcome table (what a fail, tie, success or style gives; pbp.rules.outcome_tables).
    tables: FateTables = field(default_factory=FateTables)
    # How a result is explained in replies (dice, effort, opposition, outcome, harm;
    # pbp.rules.explain): Fate's 4dF, ladder and shifts by default.
    explain: FateExplainer = field(default_factory=FateExplainer)
    # Teamwork (combining the same skill): who counts, what each adds, the cap.
    teamwork: FateTeamwork = field(default_factory=FateTeamwork)
    # Contests: victories that win one ("first to three"), and the most the GM may set
    # ("we recommend no more than five"), Fate Condensed, "Contests".
    contest_victories: int = 3
    contest_most_victories: int = 5
    treatment_skills: Mapping[str, str] = field(
        default_factory=lambda: frozen({"physical": "Academics", "mental": "Empathy"}))
    # The noun of a placeholder consequence by track ("Mild Wound (to be named)").
    harm_nouns: Mapping[str, str] = field(
        default_factory=lambda: frozen({"physical": "Wound", "mental": "Trauma"}))
    # Consequences: taken in the order of ``consequence_slots`` (early Fate: mild, then
    # moderate, then severe), or any free one (Fate Condensed).
    consequences_in_order: bool = False
    # Severities that clear at every scene end, treated or not (early Fate: mild); others
    # recover by treatment and the clocks (pbp.rules.recovery).
    scene_clears: tuple[str, ...] = ()
    # The GM clears a consequence with /aspect remove (early Fate: "when the GM says").
    gm_clears: bool = False
    # Kinds of condition a character's slots may have beside the consequences (Dresden Files
    # Condensed: fleeting, sticky, lasting; ``Consequence.condition`` names one), words of
    # ``/absorb`` like the severities; and the kinds the GM clears with /aspect remove
    # (a sticky condition's named event).
    condition_kinds: tuple[str, ...] = ()
    gm_clears_kinds: tuple[str, ...] = ()
    # How each severity (or kind of condition) recovers once treated: its clock, the
    # treatment difficulty and whether a major milestone clears it (``Recovery``; Fate
    # Condensed's ``FATE_RECOVERY`` by default). A kind of condition not named here needs no
    # treatment (Dresden Files Condensed treats only lasting conditions: Great (+4), then a
    # full session).
    recovery: Mapping[str, Recovery] = field(default_factory=lambda: frozen(FATE_RECOVERY))
    # Spin: 3+ shifts hold a +N for a later action (early Fate: +1; 0: no spin).
    spin_bonus: int = 0
    # Concessions: "paid" (Fate Condensed: 1 fate point + 1 per consequence at the end) or
    # "refusable" (early Fate: the winner may refuse, the GM rules the terms; pbp.play.concession).
    concession: str = "paid"
    # Whether a hit waiting for the target's /absorb may be answered by /concede (early Fate:
    # "Instead of taking a consequence, a character can concede"; pbp.play.concession holds
    # the hit while the concession is open). Fate Condensed: no, concede before the dice.
    concede_on_hit: bool = False
    character_state: CharacterState = NO_STATE
    box_model: OnePointBoxes | None = None   # None: one-point or escalating, by ``stress``
    # The lowest and highest passive opposition the system allows (the d10 hack: 1 to 5);
    # None: any difficulty on the ladder.
    passive_range: tuple[int, int] | None = None
    # Whether a cost a result owes (a tie's minor cost, a severe one) waits for the GM to
    # name it by reply, with a deadline default (pbp.play.costs; the d10 hack). Fate leaves
    # it to the GM's narration.
    costs_by_reply: bool = False
    # When a hostile invoke's point reaches the aspect's owner: at a conflict's end and at a
    # scene's (Fate Condensed: "At the end of a conflict ... the GM also pays out fate points
    # owed to players for hostile invokes"), or only after the scene (the d10 hack: "they
    # can't use it until AFTER THE SCENE you give it to them in").
    hostile_payout: tuple[str, ...] = ("conflict", "scene")
    # Milestones the GM marks and what each allows (pbp.rules.advancement): Fate Condensed's
    # minor and major; a system may add others (Fate Core's significant).
    milestones: Mapping[str, Allowance] = field(default_factory=lambda: frozen({"minor": MINOR, "major": MAJOR}))

    # Steps of pbp.play's sequence this system adds, by point (early Fate's spin, the d10
    # hack's costs named by reply, each a step name like ``"spin.use_spin"``): they run in
    # the point's system slot of ``pbp.play.sequence.SEQUENCE``, and only in this system's
    # campaigns (python-chess's variants: hooks declared on the one board). Fate adds none.
    steps: Mapping[str, tuple[str, ...]] = field(default_factory=lambda: frozen({}))

    # Campaign settings this system reads (Dresden Files Condensed's free stunts and
    # escalating stress), by key; ``configured`` makes the campaign's system of them.
    options: Mapping[str, SystemOption] = field(default_factory=lambda: frozen({}))
    # The language the campaign plays in (pbp.rules.systems.speaking): its skills and ladder
    # words are that language's, and so are the command words it reads.
    language: str = "en"

    def __post_init__(self) -> None:
        # The explainer speaks this system's ladder: a variant made with another ladder
        # (``dataclasses.replace``) is explained in its own words (pbp.rules.explain).
        object.__setattr__(self, "explain", self.explain.speaking(self.ladder))

    def configured(self, settings: Mapping | None) -> "System":
        """The system as a campaign's settings set its options: itself when none is set
        away from its default. The variant is made once (systems compare by identity)."""
        chosen = tuple((key, str((settings or {}).get(key, opt.values[0]))) for key, opt in self.options.items())
        if all(value == self.options[key].values[0] for key, value in chosen):
            return self
        cache_key = (id(self), chosen)
        if cache_key not in _CONFIGURED:
            system = self
            for key, value in chosen:
                if value != self.options[key].values[0]:
                    system = self.options[key].apply(system, value)
            _CONFIGURED[cache_key] = system
        return _CONFIGURED[cache_key]

    # -- dice and outcomes ------------------------------------------------------------------
    def roll(self, dice: DiceSource, rating: int) -> DiceRoll:
        """The effort dice for a rating (the rating itself is added as a modifier)."""
        return self.dice.roll(dice, rating)

    def outcome(self, shifts: int) -> Outcome:
        return self.tiers.tier(shifts)

    def rank(self, outcome: Outcome) -> int:
        return self.tiers.rank(outcome)

    # -- skills -------------------------------------------------------------------------
    @cached_property
    def _skill_index(self) -> dict[str, str]:
        return {fold(s): s for s in self.skills}

    def a_skill(self) -> str:
        """The system's skill as a sentence names it, with its title: "a Fate Condensed skill",
        "an early Fate skill", "a skill of the d10 dice-pool hack"."""
        title = self.title or self.name
        if title.startswith("the "):
            return f"a skill of {title}"
        return f"{'an' if title[:1].casefold() in 'aeiou' else 'a'} {title} skill"

    def skill_named(self, name: str) -> str | None:
        """The system's spelling of a skill named case-insensitively, or None."""
        return self._skill_index.get(fold(name))

    # -- stress and consequences ---------------------------------------------------------
    @property
    def harm(self) -> OnePointBoxes:
        """The box model: the system's own (the d10 hack's strain), else one-point boxes, or
        escalating ones when the stress table says so."""
        if self.box_model is not None:
            return self.box_model
        return _ESCALATING if self.stress.escalating else _ONE_POINT

    @property
    def tracks(self) -> tuple[str, ...]:
        """The stress tracks, which are also the kinds of conflict; the first is the kind a
        ``/conflict start`` without one has."""
        return tuple(self.stress_skills)

    @cached_property
    def words(self) -> Words:
        """The words of this system's commands (tracks, severities, the stress unit)."""
        severities: list[str] = []
        for s in self.severities:
            severities += [s, "mild2"] if s == "mild" and self.stress.extra_mild_from is not None else [s]
        # A system of one track (the d10 hack's strain) has no kind of conflict to name.
        kinds = self.tracks if len(self.tracks) > 1 else ()
        return Words(kinds, tuple(severities), (self.harm.word,), self.title or self.name, self.condition_kinds,
                     self.language)

    def track_named(self, word: str) -> str | None:
        """The system's track (kind of conflict) named case-insensitively, or None."""
        key = word.strip().casefold()
        return next((t for t in self.tracks if t.casefold() == key), None)

    @property
    def severities(self) -> tuple[str, ...]:
        return tuple(s for s, _ in self.consequence_slots)

    def slot_shifts(self, severity: str) -> int | None:
        """The shifts a consequence of ``severity`` absorbs (the extra mild as mild), or None."""
        slots = dict(self.consequence_slots)
        return slots.get("mild" if severity == "mild2" else severity)

    def recovery_of(self, severity: str) -> Recovery | None:
        """How a treated consequence or condition of ``severity`` recovers; None: it is not
        treated (it clears at the scene's end or when the GM says)."""
        return self.recovery.get(severity)

    @property
    def milestone_clears(self) -> tuple[str, ...]:
        """The severities a major milestone clears once in recovery (Fate Condensed:
        moderate and severe)."""
        return tuple(s for s, r in self.recovery.items() if r.major_milestone)

    def stress_boxes(self, rating: int) -> int:
        return self.stress.boxes(rating)

    def extra_mild(self, rating: int) -> bool:
        return self.stress.extra_mild(rating)

    # -- attack and defence --------------------------------------------------------------
    def attack_kind(self, skill: str) -> AttackKind | None:
        """The kind of attack a skill makes, or None when it is not an attack skill."""
        kind = self.attack_skills.get(skill)
        return None if kind is None else self.attack_kinds[kind]

    def defences_against(self, kind: AttackKind | None) -> tuple[str, ...]:
        """Skills that may defend against ``kind``; all defence skills when it is unknown."""
        if kind is not None:
            return kind.defences
        seen: dict[str, None] = {}
        for k in self.attack_kinds.values():
            seen.update(dict.fromkeys(k.defences))
        return tuple(seen)

    def opposing_skills(self, skill: str) -> tuple[str, ...]:
        """Skills a character uses to oppose an overcome or advantage made with ``skill``."""
        return self.opposed_by.get(skill, self.default_opposition)
