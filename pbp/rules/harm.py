"""Taking harm: absorbing a hit with stress boxes and consequences, or being taken out.

Fate Condensed, "Stress" and "Consequences": a hit of N shifts is absorbed by marking empty
stress boxes of the hit's track (each absorbs one shift, mark as many as you like) and by
writing consequences in empty slots (mild 2, moderate 4, severe 6; at Superb Physique or Will,
a second mild slot for that track only), in any mix. Whoever caused a consequence gets one
free invoke on it. A hit that cannot be absorbed takes the character out: the winner's side
decides what happens to them. Minor NPCs have 0-3 boxes and no consequences.

How the rules are read here (a plan is what a player writes in ``/absorb``):

* **Exactly enough, or the least overshoot the choices allow.** A plan must absorb at least
  the shifts, and every resource in it must be needed: dropping any one box or consequence
  would leave shifts unabsorbed. So a severe consequence for a 5-shift hit is accepted
  (nothing smaller was chosen), but a severe and a box is refused (the box is wasted).
* **A plan that falls short** is refused with the options that would work, when there are
  any; when nothing the character has can absorb the hit, any answer takes them out and
  nothing is marked (the book's Charles, facing 9 shifts with 8 left, is simply taken out).
* **The deadline default** (``cheapest_absorption``) harms the character least: the fewest
  consequences (each is an aspect the attacker holds a free invoke on), then the lightest
  of them, then the fewest boxes. 2 shifts with free boxes: two boxes. 5 shifts with one
  free box (Charles's second hit): moderate + one box. 5 shifts with three free boxes:
  mild + three boxes (a mild consequence clears a scene after treatment, a moderate one
  only a session after). Placeholder names ("Moderate Wound (to be named)") are flagged
  ``rename`` for the player to rewrite.
* **NPCs** (``npc_absorb``): minor NPCs mark boxes or are taken out; major NPCs mark stress
  first, then take the single smallest consequence that covers the rest, else they are out.
* A "mild" in a plan fills the regular mild slot, or the extra mild slot of the hit's track
  when the regular one is full; "mild2" names the extra slot explicitly.
* Boxes are marked first-empty-first ("the first two of his three physical stress boxes").

The box model is the system's (``System.harm``): Fate Condensed's one-point boxes, where
the stress term of a plan is the number of boxes to mark, or Fate Core's escalating boxes
(``pbp.rules.system.EscalatingBoxes``), where it names the one box checked and a plan
absorbs that box's value. Everything above holds for both: "mark as many as you like" is the
one-point model's ``least``; "one box per hit, the hit's value or higher" is the escalating
one's. Every function takes the system; none defaults to one.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations

from pbp.i18n import N_, Joined, Msg
from pbp.i18n.words import ENGLISH_WORDS, GAME_WORDS, TO_BE_NAMED
from pbp.errors import RulesError
from pbp.rules.bookkeeping import Report, grant_free_invokes, remove_aspect
from pbp.rules.names import find_character, quote
from pbp.rules.results import ActionResult, Change, Effect
from pbp.rules.sheets import consequence_slots, stress_tracks
from pbp.rules.state import Aspect, Character, Consequence, Table
from pbp.rules.system import OnePointBoxes, System



def _severity_order(system: System) -> tuple[str, ...]:
    """The system's severities, lightest first, with the extra mild slot after the mild."""
    order: list[str] = []
    for severity in system.severities:
        order += [severity, "mild2"] if severity == "mild" else [severity]
    return tuple(order) + system.condition_kinds


# -- values --------------------------------------------------------------------------------

@dataclass(frozen=True)
class Hit:
    """A hit waiting to be absorbed, as an attack or a failed defence reports it."""

    target: str
    shifts: int
    attacker: str | None = None
    track: str = ""     # "": not chosen yet (where it lands: the attack skill's or the conflict's)


@dataclass(frozen=True)
class Plan:
    """One way to absorb a hit: ``stress`` boxes and ``consequences`` as (severity, aspect)."""

    stress: int = 0
    consequences: tuple[tuple[str, str], ...] = ()
    absorbs: int = 0
    # the system's box model, which says what ``stress`` means (escalating: it names one box)
    model: OnePointBoxes = field(default_factory=OnePointBoxes, compare=False, repr=False)

    @property
    def severities(self) -> tuple[str, ...]:
        return tuple(s for s, _ in self.consequences)

    def describe(self) -> str:
        """"moderate + 1 stress box", "severe", "2 stress boxes"."""
        parts = [_severity_words(s) for s in self.severities]
        if self.stress:
            parts.append(self.model.describe(self.stress))
        if len(parts) == 1:
            return parts[0]
        rest = Joined([part for n, p in enumerate(parts[1:]) for part in ((p,) if not n else (" + ", p))])
        return Msg("{first} + {second}", first=parts[0], second=rest) if parts else Msg("nothing")

    def command(self) -> str:
        """The ``/absorb`` line that asks for this plan."""
        words = ["/absorb"]
        if self.stress:
            words.append(self.model.command(self.stress))
        words += [f'{"mild" if s == "mild2" else s} "{name}"' for s, name in self.consequences]
        return " ".join(words)


@dataclass
class AbsorbResult:
    """What absorbing one hit did: boxes marked (0-based), consequences written, or taken out."""

    character: str
    track: str
    shifts: int
    attacker: str | None = None
    stress_boxes: tuple[int, ...] = ()
    consequences: tuple[tuple[str, str], ...] = ()
    absorbed: int = 0
    taken_out: bool = False
    effects: list[Effect] = field(default_factory=list)
    changes: list[Change] = field(default_factory=list)


@dataclass(frozen=True)
class _Slot:
    index: int
    severity: str
    shifts: int
    condition: str = ""     # a condition's fixed name (its severity is its kind)


# -- reading the sheet ---------------------------------------------------------------------

def hits(result: ActionResult, track: str = "") -> list[Hit]:
    """The hits an attack or a failed defence dealt (its "hit" effects), on ``track`` ("":
    left to where they land, ``hit_track``)."""
    return [Hit(e.data["target"], e.data["shifts"], e.data.get("attacker"), track)
            for e in result.effects if e.kind == "hit"]


def hit_track(skill: str | None, system: System, default: str = "") -> str:
    """The stress track an attack skill hits (Provoke: mental); free-form NPC skills hit the
    conflict's own kind, ``default`` (none, or not the system's: its first track)."""
    kind = system.attack_kind(system.skill_named(skill) or skill) if skill else None
    if kind is not None:
        return kind.track
    return default if default in system.tracks else system.tracks[0]   # one track (strain): every hit


def free_boxes(character: Character, track: str, system: System) -> int:
    return _boxes(character, track, system).count(False)


def free_slots(character: Character, track: str, system: System) -> list[Consequence]:
    """Empty consequence slots a hit on ``track`` may use."""
    slots = _slots(character, system)
    return [slots[s.index] for s in _free(slots, track, system)]


def absorption_options(character: Character, track: str, shifts: int,
                       system: System) -> list[Plan]:
    """Every acceptable plan (see the module doc), cheapest first, with placeholder names."""
    boxes = _boxes(character, track, system)
    slots = _free(_slots(character, system), track, system)
    plans: dict[tuple, tuple[tuple, Plan]] = {}
    for n in range(len(slots) + 1):
        for chosen in combinations(slots, n):
            plan = _plan(character, track, shifts, boxes, chosen, system)
            if plan is None:
                continue
            same = (tuple(sorted(_base(s.severity) for s in chosen)), plan.stress)
            rank = _cost(chosen, plan.stress)
            if same not in plans or rank < plans[same][0]:
                plans[same] = (rank, plan)
    return [plan for _, plan in sorted(plans.values(), key=lambda rp: rp[0])]


def can_absorb(character: Character, track: str, shifts: int, system: System) -> bool:
    return bool(absorption_options(character, track, shifts, system))


def cheapest_absorption(character: Character, track: str, shifts: int,
                        system: System) -> Plan | None:
    """The deadline default for a player: the plan that harms the character least, or None
    when nothing can absorb the hit (they are taken out)."""
    options = absorption_options(character, track, shifts, system)
    return options[0] if options else None


def npc_plan(character: Character, track: str, shifts: int, system: System) -> Plan | None:
    """How an NPC absorbs by default; None means taken out. Minor NPCs: boxes only. Major
    NPCs: stress first, then the single smallest consequence covering what stress cannot."""
    model, boxes = system.harm, _boxes(character, track, system)
    alone = model.least(boxes, shifts)
    if alone is not None:
        return Plan(stress=alone, absorbs=model.absorbs(boxes, alone), model=system.harm)
    if character.kind == "minor":
        return None
    for slot in sorted(_free(_slots(character, system), track, system),
                       key=lambda s: (s.shifts, _severity_order(system).index(s.severity))):
        need = shifts - slot.shifts
        stress = 0 if need <= 0 else model.least(boxes, need)
        if stress is None:
            continue
        name = slot.condition or _placeholder(character, slot.severity, track, set(), system)
        return Plan(stress=stress, consequences=((slot.severity, name),),
                    absorbs=(model.absorbs(boxes, stress) if stress else 0) + slot.shifts, model=system.harm)
    return None


# -- absorbing -----------------------------------------------------------------------------

def absorb(table: Table, character: Character | str, track: str, shifts: int, *, stress: int = 0,
           consequences: tuple[tuple[str, str], ...] | list[tuple[str, str]] = (),
           attacker: str | None = None, system: System, source: str = "", unit: str = "") -> AbsorbResult:
    """Absorb a hit of ``shifts`` on ``track`` with ``stress`` boxes and ``consequences``
    [(severity, aspect name)] as the player chose. Refused (RulesError) when the plan uses a
    full box or slot, falls short while something could absorb the hit, or wastes a resource.
    When nothing can absorb the hit, the character is taken out. ``unit`` is the word the
    player wrote before the stress number ("stress", "box"): the system's box model names
    the one it reads. A refusal without an example of its own gets this system's cheapest
    answer (a generic one would be another system's words)."""
    ch = _character(table, character, source)
    try:
        return _absorb(table, ch, track, shifts, stress, consequences, attacker, system, source, unit)
    except RulesError as exc:
        if not exc.example:
            exc.example = _example(ch, track, shifts, system) if not ch.taken_out else ""
        raise


def _absorb(table: Table, ch: Character, track: str, shifts: int, stress: int, consequences,
            attacker: str | None, system: System, source: str, unit: str) -> AbsorbResult:
    _check_hit(ch, track, shifts, system, source)
    model = system.harm
    if stress and unit and unit.casefold() != model.word:
        raise RulesError(
            f'{system.title or system.name} marks stress as "{model.word} N", not "{unit} {stress}"',
            source=source, expected=f'"{model.word}" and a number ({model.example})',
            example=_example(ch, track, shifts, system) or f"/absorb {model.example}",
        )
    slots = _slots(ch, system)
    chosen = _chosen_slots(ch, slots, track, consequences, source, system)
    # a condition is written under its own name, as the mantle spells it
    names = [slot.condition or name for slot, name in zip(chosen, _check_names(table, ch, consequences, source))]
    boxes = _boxes(ch, track, system)
    problem = model.term_problem(ch.name, track, boxes, stress)
    if problem is not None and not absorption_options(ch, track, shifts, system):
        return _taken_out(table, ch, track, shifts, attacker)     # any answer: nothing can absorb it
    if problem is not None:
        raise RulesError(problem[0], source=source, expected=problem[1], example=_example(ch, track, shifts, system))
    absorbed = (model.absorbs(boxes, stress) if stress else 0) + sum(s.shifts for s in chosen)
    if absorbed < shifts:
        options = absorption_options(ch, track, shifts, system)
        if not options:
            return _taken_out(table, ch, track, shifts, attacker)
        raise RulesError(
            f"{ch.name} must absorb {system.explain.margin(shifts)} ({track}); this absorbs "
            f"{absorbed}. Options: {'; '.join(p.describe() for p in options[:4])}",
            source=source, expected=f"{model.noun} boxes and consequences that absorb every {system.explain.unit}",
            example=options[0].command(),
        )
    if system.consequences_in_order and stress and chosen:
        raise RulesError(f"in {system.title or system.name} a consequence is taken instead of stress boxes and "
                         f"takes the whole hit: leave the stress out", source=source,
                         expected="stress boxes or one consequence", example=f'/absorb {chosen[0].severity} "{names[0]}"')
    _check_waste(ch, shifts, stress, chosen, absorbed, source, model, boxes, system)
    plan = Plan(stress, tuple((s.severity, n) for s, n in zip(chosen, names)), absorbed, model=system.harm)
    return _apply(table, ch, track, shifts, plan, chosen, attacker, set(), system)


def absorb_default(table: Table, character: Character | str, track: str, shifts: int, *,
                   attacker: str | None = None, system: System) -> AbsorbResult:
    """What happens when the deadline passes with no ``/absorb``: PCs take the cheapest plan
    (placeholder consequence names flagged ``rename``), NPCs follow ``npc_plan``."""
    ch = _character(table, character, "")
    if ch.kind != "pc":
        return npc_absorb(table, ch, track, shifts, attacker=attacker, system=system)
    _check_hit(ch, track, shifts, system, "")
    return _apply_plan(table, ch, track, shifts, cheapest_absorption(ch, track, shifts, system), attacker, system)


def npc_absorb(table: Table, character: Character | str, track: str, shifts: int, *,
               attacker: str | None = None, system: System) -> AbsorbResult:
    """An NPC absorbs by policy (``npc_plan``); consequence names are placeholders for the GM."""
    ch = _character(table, character, "")
    _check_hit(ch, track, shifts, system, "")
    return _apply_plan(table, ch, track, shifts, npc_plan(ch, track, shifts, system), attacker, system)


def take_out(table: Table, character: Character | str, *, attacker: str | None = None,
             track: str, shifts: int = 0) -> AbsorbResult:
    """A character who does not absorb a hit (or whom the story removes) is taken out."""
    return _taken_out(table, _character(table, character, ""), track, shifts, attacker)


def rename_consequence(table: Table, character: Character | str, old: str, new: str,
                       report: Report | None = None) -> list[Change]:
    """Rewrite a consequence (naming a placeholder, or healing in treatment); the aspect in
    play keeps its free invokes."""
    ch = _character(table, character, "")
    report = report or Report()
    slot = find_consequence(ch, old)
    new = new.strip()
    if not new:
        raise RulesError("a consequence needs a name", expected="the new name in quotes after as",
                         example='/treat me "Nasty Bite" with Academics as "Stitched Up"')
    if new.casefold() != slot.aspect.casefold() and new.casefold() in _names_on(table, ch):
        raise RulesError(f'{ch.name} already has an aspect called "{new}"', expected="a name not in use on the sheet",
                         example='/treat me "Nasty Bite" with Academics as "Stitched Up"')
    before = slot.aspect
    aspect = _consequence_aspect(table, ch, before)
    slot.aspect = new
    if aspect is not None:
        aspect.name = new
    report.change("consequence", ch.name, before, new, f"{_severity_words(slot.severity)} renamed")
    return report.changes


def find_consequence(character: Character, name: str) -> Consequence:
    """The filled slot whose aspect is ``name`` (case-insensitive)."""
    key = name.strip().casefold()
    for slot in character.consequences:
        if slot.aspect and slot.aspect.casefold() == key:
            return slot
    held = ", ".join(f'"{s.aspect}"' for s in character.consequences if s.aspect) or "none"
    first = next((s.aspect for s in character.consequences if s.aspect), "")
    raise RulesError(f'{character.name} has no consequence "{name}" (consequences: {held})',
                     expected=f"one of {held}", example=f'/sheet {quote(character.name)}' if not first else
                     f'/treat {quote(character.name)} "{first}" with Academics')


def clear_consequence(table: Table, character: Character, slot: Consequence, report: Report, why: str) -> None:
    """Empty a slot and take its aspect out of play."""
    before = slot.aspect
    aspect = _consequence_aspect(table, character, before) if before else None
    if aspect is not None:
        remove_aspect(table, aspect)
    slot.aspect, slot.recovering, slot.hit_track = None, False, ""
    slot.recovery_scenes_left = slot.recovery_sessions_left = 0
    report.change("consequence", character.name, before, None, why)


# -- internals -----------------------------------------------------------------------------

def _character(table: Table, character: Character | str, source: str) -> Character:
    return character if isinstance(character, Character) else find_character(table, character, source=source)


def _check_hit(ch: Character, track: str, shifts: int, system: System, source: str) -> None:
    if track not in system.stress_skills:
        tracks = ", ".join(system.stress_skills)
        raise RulesError(f'"{track}" is not a stress track (tracks: {tracks})', source=source,
                         expected=f"one of {tracks}")
    if shifts < 1:
        raise RulesError(f"a hit of {shifts} shifts needs no absorbing", source=source,
                         expected="a hit of 1 shift or more", example="/sheet")
    if ch.taken_out:
        raise RulesError(f"{ch.name} is already taken out", source=source,
                         expected="someone still in the fight", example="/sheet")


def _boxes(ch: Character, track: str, system: System) -> list[bool]:
    """The character's boxes for ``track``; a minor NPC's few boxes serve any hit, and a sheet
    that never had the track gets the boxes its skills give (not stored until marked)."""
    if track in ch.stress:
        return ch.stress[track]
    if ch.kind == "minor":
        return next(iter(ch.stress.values())) if len(ch.stress) == 1 else []
    return [False] * stress_tracks(ch, system).get(track, 0)


def _slots(ch: Character, system: System) -> list[Consequence]:
    if ch.kind == "minor":
        return []
    return ch.consequences or consequence_slots(ch, system)


def _usable(slot: Consequence, track: str) -> bool:
    return slot.track in ("", track)


def _free(slots: list[Consequence], track: str, system: System) -> list[_Slot]:
    """The empty slots a hit on ``track`` may use; only the next one when the system takes
    consequences in order (early Fate: mild, then moderate, then severe)."""
    free = [_Slot(i, s.severity, s.shifts, s.condition) for i, s in enumerate(slots)
            if s.aspect is None and _usable(s, track)]
    return free[:1] if system.consequences_in_order else free


def _base(severity: str) -> str:
    return "mild" if severity == "mild2" else severity


def _severity_words(severity: str) -> Msg:
    """A severity as an absorption names it, in the campaign's language when said."""
    return Msg("{severity}", severity=N_("extra mild") if severity == "mild2" else severity)


def _cost(chosen: tuple[_Slot, ...], stress: int) -> tuple:
    """Fewest consequences, then the lightest (heaviest compared first), then fewest boxes,
    then regular slots before the extra mild one."""
    weights = tuple(sorted((s.shifts for s in chosen), reverse=True))
    return (len(chosen), weights, stress, sum(s.severity == "mild2" for s in chosen))


def _plan(ch: Character, track: str, shifts: int, boxes: list[bool], chosen: tuple[_Slot, ...],
          system: System) -> Plan | None:
    """The irredundant plan using exactly ``chosen`` slots, if one exists: the cheapest stress
    term the box model allows for what the slots leave, and no slot it could do without."""
    model = system.harm
    total = sum(s.shifts for s in chosen)
    need = shifts - total
    stress = 0 if need <= 0 else model.least(boxes, need)
    if stress is None:
        return None
    by_stress = model.absorbs(boxes, stress) if stress else 0
    if any(by_stress + total - s.shifts >= shifts for s in chosen):
        return None
    taken: set[str] = set()
    named = []
    for s in chosen:
        name = s.condition or _placeholder(ch, s.severity, track, taken, system)
        taken.add(name.casefold())
        named.append((s.severity, name))
    return Plan(stress, tuple(named), by_stress + total, model=system.harm)


def _placeholder(ch: Character, severity: str, track: str, taken: set[str], system: System) -> str:
    words = GAME_WORDS.get(getattr(system, "language", "en"), ENGLISH_WORDS)
    if words.harm_nouns:       # the campaign's language: "Ferimento Moderado (a nomear)"
        noun = words.harm_nouns.get(track, words.harm_nouns["Harm"])
        base = f"{noun} {words.placeholder_severities.get(_base(severity), _base(severity))}"
    else:
        base = f"{_base(severity).capitalize()} {system.harm_nouns.get(track, 'Harm')}"
    used = {s.aspect.casefold() for s in ch.consequences if s.aspect} | taken
    mark = words.to_be_named
    name, n = f"{base} {mark}", 2
    while name.casefold() in used:
        name, n = f"{base} #{n} {mark}", n + 1
    return name


def is_placeholder(name: str) -> bool:
    """A consequence named for the player to rename, in any language's words."""
    return name.endswith(TO_BE_NAMED)


def _chosen_slots(ch: Character, slots: list[Consequence], track: str,
                  consequences, source: str, system: System) -> list[_Slot]:
    """The slots an answer names; a severity the system does not have is refused with the
    ones it has."""
    if consequences and ch.kind == "minor":
        raise RulesError(f"{ch.name} is a minor NPC: no consequences, only stress boxes", source=source,
                         expected="stress only", example=f"/absorb {system.harm.command(1)}")
    chosen: list[_Slot] = []
    severities = system.severities
    for severity, name in consequences:
        sev = severity.strip().casefold()
        if sev not in _severity_order(system):
            raise RulesError(f'"{severity}" is not a consequence ({", ".join(severities)})', source=source,
                             expected=f'{", ".join(severities[:-1])} or {severities[-1]}',
                             example=f'/absorb {severities[0]} "Nasty Bite"')
        used = {c.index for c in chosen}
        if sev in system.condition_kinds:
            chosen.append(_pick_condition(ch, slots, track, sev, name or "", used, source))
        else:
            chosen.append(_pick_slot(ch, slots, track, sev, used, source))
    if system.consequences_in_order:
        _check_order(ch, slots, track, chosen, source, system)
    return chosen


def _check_order(ch: Character, slots: list[Consequence], track: str, chosen: list[_Slot], source: str,
                 system: System) -> None:
    """Early Fate, "Consequences": "The first consequence is a mild consequence ... The second
    ... moderate ... the third ... severe": one at a time, the next free one."""
    free = _free(slots, track, system)
    if not free or not chosen:
        return
    nxt = free[0]
    if len(chosen) > 1 or chosen[0].index != nxt.index:
        taken = [s.severity for s in slots if s.aspect]
        so_far = f" ({ch.name} has taken {', '.join(taken)})" if taken else ""
        raise RulesError(f"in {system.title or system.name} consequences come in order, one per hit: "
                         f"{ch.name}'s next is {_severity_words(nxt.severity)}{so_far}",
                         source=source, expected=f"the {_severity_words(nxt.severity)} consequence, or stress",
                         example=f'/absorb {nxt.severity} "Nasty Bite"')


def _pick_slot(ch: Character, slots: list[Consequence], track: str, sev: str, used: set[int],
               source: str) -> _Slot:
    wanted = ("mild", "mild2") if sev == "mild" else (sev,)
    exists = False
    for want in wanted:
        for i, s in enumerate(slots):
            if s.severity != want or not _usable(s, track):
                continue
            exists = True
            if s.aspect is None and i not in used:
                return _Slot(i, s.severity, s.shifts)
    if not exists:
        other = [s.track for s in slots if s.severity == "mild2"]
        if sev == "mild2" and other:
            raise RulesError(f"{ch.name}'s extra mild slot is for {other[0]} hits only, not {track}",
                             source=source, expected="mild, moderate or severe")
        raise RulesError(f"{ch.name} has no {_severity_words(sev)} consequence slot for {track} hits",
                         source=source, expected="a consequence slot on the sheet (mild, moderate or severe)",
                         example='/absorb stress 1 mild "Nasty Bite"')
    full = [s.aspect for s in slots if s.severity in wanted and _usable(s, track) and s.aspect]
    why = f" ({', '.join(full)})" if full else " (used twice in this answer)"
    raise RulesError(f"{ch.name}'s {_severity_words(sev)} consequence slot is already filled{why}",
                     source=source, expected="an empty slot, stress boxes, or a bigger consequence")


def _pick_condition(ch: Character, slots: list[Consequence], track: str, kind: str, name: str, used: set[int],
                    source: str) -> _Slot:
    """The condition an answer names (``/absorb lasting "Wounded"``): one of the character's
    of that kind, for this track, with every box empty ("You can take a lasting condition
    only if both of its check boxes are empty")."""
    key = " ".join(name.split()).casefold()
    mine = [(i, s) for i, s in enumerate(slots) if s.severity == kind and s.condition]
    found = next(((i, s) for i, s in mine if s.condition.casefold() == key), None)
    if found is None:
        have = ", ".join(f'"{s.condition}"' for _, s in mine) or "none"
        example = f'/absorb {kind} "{mine[0][1].condition}"' if mine else "/sheet"
        raise RulesError(f'{ch.name} has no {kind} condition "{name}" ({kind} conditions: {have})', source=source,
                         expected=f"the name of one of {ch.name}'s {kind} conditions", example=example)
    i, slot = found
    if not _usable(slot, track):
        raise RulesError(f"{ch.name}'s {slot.condition} is for {slot.track} hits only, not {track}", source=source,
                         expected=f"a condition or consequence for {track} hits")
    if slot.aspect is not None or i in used:
        boxes = "both its boxes are" if kind == "lasting" else "its box is"
        raise RulesError(f"{ch.name}'s {slot.condition} is already checked; a {kind} condition can be taken "
                         f"only when {boxes} empty" + (" (it is recovering)" if slot.recovering else ""),
                         source=source, expected="an empty condition, stress boxes or a consequence")
    return _Slot(i, slot.severity, slot.shifts, slot.condition)


def _names_on(table: Table, ch: Character) -> set[str]:
    names = {s.aspect.casefold() for s in ch.consequences if s.aspect}
    names |= {a.name.casefold() for a in table.aspects if a.owner and a.owner.casefold() == ch.name.casefold()}
    return names


def _check_names(table: Table, ch: Character, consequences, source: str) -> list[str]:
    names: list[str] = []
    existing = _names_on(table, ch)
    for severity, name in consequences:
        name = (name or "").strip()
        if not name:
            raise RulesError(f"the {severity} consequence needs a name: the harm that befalls {ch.name}",
                             source=source, example=f'/absorb {severity} "Nasty Bite"')
        if name.casefold() in existing or name.casefold() in {n.casefold() for n in names}:
            raise RulesError(f'{ch.name} already has an aspect called "{name}"; name the consequence '
                             "differently", source=source)
        names.append(name)
    return names


def _check_waste(ch: Character, shifts: int, stress: int, chosen: list[_Slot], absorbed: int, source: str,
                 model, boxes: list[bool], system: System) -> None:
    """A box the hit does not need (one-point boxes: too many; escalating: the wrong one)."""
    need = shifts - sum(s.shifts for s in chosen)
    problem = model.waste_problem(ch.name, boxes, stress, need, shifts, absorbed)
    if problem is not None:
        raise RulesError(problem, source=source, expected="no more stress boxes than the hit needs")
    for s in chosen:
        if absorbed - s.shifts >= shifts:
            raise RulesError(
                f"{ch.name} needs {system.explain.margin(shifts)} absorbed and this absorbs {absorbed} without the "
                f"{_severity_words(s.severity)} consequence: leave it out",
                source=source, expected="only consequences the hit needs",
            )


def _apply_plan(table: Table, ch: Character, track: str, shifts: int, plan: Plan | None,
                attacker: str | None, system: System) -> AbsorbResult:
    if plan is None:
        return _taken_out(table, ch, track, shifts, attacker)
    slots = _slots(ch, system)
    used: set[int] = set()
    chosen = []
    for severity, _ in plan.consequences:
        slot = _pick_slot(ch, slots, track, severity, used, "")
        used.add(slot.index)
        chosen.append(slot)
    return _apply(table, ch, track, shifts, plan, chosen, attacker,
                  {n for _, n in plan.consequences if is_placeholder(n)}, system)


def _apply(table: Table, ch: Character, track: str, shifts: int, plan: Plan, chosen: list[_Slot],
           attacker: str | None, placeholders: set[str], system: System) -> AbsorbResult:
    r = Report()
    marked = _mark_boxes(ch, track, plan.stress, system, r)
    if chosen and not ch.consequences:
        ch.consequences = consequence_slots(ch, system)
    for slot, (_, name) in zip(chosen, plan.consequences):
        _write_consequence(table, ch, ch.consequences[slot.index], name, track, attacker, name in placeholders, r)
    r.effect("absorbed", Msg("{who} absorbs {margin} with {plan}", who=ch.name, margin=system.explain.margin(shifts),
                             plan=plan.describe()),
             target=ch.name, shifts=shifts, track=track, stress=plan.stress, boxes=list(marked),
             consequences=[list(c) for c in plan.consequences], attacker=attacker)
    return AbsorbResult(ch.name, track, shifts, attacker, tuple(marked), plan.consequences, plan.absorbs,
                        False, r.effects, r.changes)


def _mark_boxes(ch: Character, track: str, n: int, system: System, r: Report) -> list[int]:
    if n == 0:
        return []
    boxes = _boxes(ch, track, system)
    if not any(boxes is v for v in ch.stress.values()):
        ch.stress[track] = boxes
    before = system.harm.show(boxes)
    marked = system.harm.mark(boxes, n)
    for i in marked:
        boxes[i] = True
    r.change("stress", f"{ch.name} ({track})", before, system.harm.show(boxes))
    return marked


def _write_consequence(table: Table, ch: Character, slot: Consequence, name: str, track: str,
                       attacker: str | None, placeholder: bool, r: Report) -> None:
    slot.aspect, slot.hit_track, slot.recovering = name, track, False
    r.change("consequence", ch.name, None, name, _severity_words(slot.severity))
    aspect = Aspect(name, kind="consequence", owner=ch.name)
    table.aspects.append(aspect)
    r.change("aspect", name, None, "created", f"on {ch.name}")
    if attacker:
        grant_free_invokes(r, aspect, attacker, 1)
    who = f"; {attacker} gets a free invoke on it" if attacker else ""
    what = "condition" if slot.condition else "consequence"
    text = f"{ch.name} takes the {_severity_words(slot.severity)} {what} {name}{who}"
    if placeholder:
        text += " (name it)"
    if not slot.condition:          # said in the campaign's language (pbp.i18n.Msg)
        severity = _severity_words(slot.severity)
        if attacker and placeholder:
            text = Msg("{who} takes the {severity} consequence {name}; {holder} gets a free invoke on it (name it)",
                       who=ch.name, severity=severity, name=name, holder=attacker)
        elif attacker:
            text = Msg("{who} takes the {severity} consequence {name}; {holder} gets a free invoke on it",
                       who=ch.name, severity=severity, name=name, holder=attacker)
        elif not placeholder:
            text = Msg("{who} takes the {severity} consequence {name}", who=ch.name, severity=severity, name=name)
    r.effect("consequence", text, target=ch.name, aspect=name, severity=slot.severity, shifts=slot.shifts,
             holder=attacker, **({"rename": True} if placeholder else {}))


def _consequence_aspect(table: Table, ch: Character, name: str) -> Aspect | None:
    key = name.casefold()
    for a in table.aspects:
        if a.kind == "consequence" and a.name.casefold() == key and a.owner and a.owner.casefold() == ch.name.casefold():
            return a
    return None


def _taken_out(table: Table, ch: Character, track: str, shifts: int, attacker: str | None) -> AbsorbResult:
    r = Report()
    if not ch.taken_out:
        ch.taken_out = True
        r.change("taken_out", ch.name, False, True)
    by = attacker or Msg("the GM's side")
    r.effect("taken_out", Msg("{who} is taken out: {by} decides what happens to {who}", who=ch.name, by=by),
             target=ch.name, attacker=attacker, shifts=shifts, track=track, narrator=attacker or "GM")
    return AbsorbResult(ch.name, track, shifts, attacker, taken_out=True, effects=r.effects, changes=r.changes)


def _example(ch: Character, track: str, shifts: int, system: System) -> str:
    plan = cheapest_absorption(ch, track, shifts, system)
    return plan.command() if plan else ""
