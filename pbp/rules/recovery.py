"""Recovering from conflicts: clearing stress, treating consequences, and the clocks that
clear them.

Fate Condensed, "Recovering from Conflicts": every character clears their stress boxes at the
end of each scene. A consequence starts to recover when someone succeeds at an overcome with
an appropriate skill (Academics for physical harm, Empathy for mental) against its severity:
Fair (+2) for mild, Great (+4) for moderate, Fantastic (+6) for severe, two more when
treating yourself. Success rewrites the consequence to show it healing. Then a mild one
clears after one full scene, a moderate one after a full session, a severe one at a major
milestone (Fate Condensed, "Major Milestones": any moderate or severe consequence already in
recovery may then be cleared).

How the rules are read here:

* "A full scene after treatment": the scene the treatment happens in does not count. A mild
  consequence treated during a scene clears at the end of the next scene; one treated
  between scenes clears at the end of the next scene too. The consequence counts the scene
  ends it still needs (``recovery_scenes_left``: 2 when treated during a scene, else 1);
  moderates count session ends the same way (``recovery_sessions_left``). Severes wait for
  ``major_milestone``, which also clears moderates in recovery. These clocks and the
  difficulties are the system's (``System.recovery``, one ``Recovery`` per severity or kind
  of condition; Fate Condensed's ``FATE_RECOVERY`` is the ordinary case, Dresden Files
  Condensed adds its lasting conditions): ``start_recovery`` sets the clock a severity waits
  on, and ``end_scene`` and ``end_session`` count down whatever clock a slot has.
* A tie on the treatment roll is the overcome's tie: success at a minor cost (the roll's own
  "cost_minor" effect asks the GM to name it). A failure does not start recovery.
* Another skill than the usual one may be named (Lore for a curse): the GM allowed the roll.
  A resolved roll handed to ``treat`` must be an overcome by the healer against at least the
  treatment difficulty (the GM may make it harder, never easier).
* ``end_scene`` also removes boosts and situation and zone aspects (on the scene, on zones and
  on characters: they last only as long as the situation), except those named in ``keep``;
  a taken-out character is back for the next scene. ``end_session`` does not end the scene:
  call ``end_scene`` first.
"""
from __future__ import annotations

from typing import Iterable

from pbp.commands import Opposition, Overcome, Treat
from pbp.errors import RulesError
from pbp.rules.actions import resolve
from pbp.rules.bookkeeping import Report, remove_aspect
from pbp.rules.dice import DiceSource
from pbp.rules.harm import clear_consequence, find_consequence, rename_consequence
from pbp.rules.ladder import describe
from pbp.rules.names import find_character, same_name
from pbp.rules.results import ActionResult, Outcome
from pbp.rules.state import Character, Consequence, Table
from pbp.rules.system import System, or_words

SELF_TREATMENT = 2
SCENE_ASPECTS = ("boost", "situation", "zone")
TREATED = (Outcome.TIE, Outcome.SUCCESS, Outcome.STYLE)


# -- treatment -----------------------------------------------------------------------------

def treatment_difficulty(consequence: Consequence | str, *, self_treatment: bool = False,
                         system: System) -> int:
    """The system's treatment difficulty for the severity (``System.recovery``; Fate
    Condensed: the consequence's own shifts, mild 2, moderate 4, severe 6; a lasting
    condition: Great (+4)), +2 to treat yourself."""
    severity = consequence.severity if isinstance(consequence, Consequence) else consequence
    rec = system.recovery_of(severity)
    if rec is not None and rec.difficulty is not None:
        base = rec.difficulty
    elif isinstance(consequence, Consequence):
        base = consequence.shifts
    else:
        base = system.slot_shifts(consequence)
        if base is None:
            slots = system.severities
            raise RulesError(f'"{consequence}" is not a consequence severity ({", ".join(slots)})',
                             expected=or_words(slots), example=f'/absorb {system.harm.word} 1 {slots[0]} "Nasty Bite"')
    return base + (SELF_TREATMENT if self_treatment else 0)


def treatment_skill(consequence: Consequence, system: System) -> str:
    """Academics for physical harm, Empathy for mental (the system's ``treatment_skills``)."""
    track = consequence.hit_track or consequence.track or system.tracks[0]
    return system.treatment_skills.get(track, next(iter(system.treatment_skills.values())))


def check_treatment(table: Table, healer: str, patient: str, consequence: str,
                    system: System) -> tuple[Consequence, str, int]:
    """The slot to treat, the usual skill and the difficulty; refused when it is already
    recovering."""
    doctor = find_character(table, healer)
    ch = find_character(table, patient)
    slot = find_consequence(ch, consequence)
    if not system.treatment_skills:
        clears = " and ".join(system.scene_clears)
        raise RulesError(f"{system.title or system.name} has no treatment: {clears + ' consequences clear at the end of the scene, ' if clears else ''}"
                         "the others when the GM says", expected="the GM clearing the consequence",
                         example=f'/aspect remove "{slot.aspect}"' if system.gm_clears else "/scene end")
    if slot.condition and system.recovery_of(slot.severity) is None:
        treated = tuple(k for k in system.condition_kinds if system.recovery_of(k) is not None)
        clears = "at the end of the scene" if slot.severity in system.scene_clears else \
            "when the GM says its event has come (/aspect remove)"
        raise RulesError(f"{slot.aspect} is a {slot.severity} condition: it needs no treatment and clears {clears}",
                         expected=f"a consequence or a {or_words(treated)} condition" if treated else "a consequence",
                         example=f'/aspect remove "{slot.aspect}"' if slot.severity in system.gm_clears_kinds else "/scene end")
    if slot.recovering:
        raise RulesError(f"{slot.aspect} is already recovering; it needs time now, not treatment",
                         expected="a consequence that is not recovering yet", example="/sheet")
    difficulty = treatment_difficulty(slot, self_treatment=doctor is ch, system=system)
    return slot, treatment_skill(slot, system), difficulty


def treat(table: Table, healer: str, patient: str, consequence: str, result: ActionResult, *,
          rename: str = "", system: System, scene_in_progress: bool = True,
          session_in_progress: bool = True) -> Report:
    """Apply an already-resolved treatment roll (an overcome by ``healer`` against the
    treatment difficulty): on a tie or better the consequence is renamed (``rename``) and
    starts recovering."""
    slot, _, difficulty = check_treatment(table, healer, patient, consequence, system)
    opposition = result.opposition.value if result.opposition else None
    if result.action != "overcome" or not same_name(result.actor, healer) or opposition is None \
            or opposition < difficulty:
        raise RulesError(f"treating {slot.aspect} is an overcome by {healer} against {describe(difficulty, system.ladder)}",
                         expected=f"an overcome vs {describe(difficulty, system.ladder)} (or harder, if the GM says so)",
                         example='/treat Charles "Gaping Chest Wound" with Academics')
    r = Report()
    if result.outcome not in TREATED:
        r.effect("not_treated", f"{slot.aspect} is not treated; it does not start to recover",
                 patient=patient, aspect=slot.aspect)
        return r
    return start_recovery(table, patient, slot.aspect, rename=rename, system=system,
                          scene_in_progress=scene_in_progress, session_in_progress=session_in_progress, report=r)


def roll_treatment(cmd: Treat, table: Table, dice: DiceSource, actor: str, system: System, *,
                   scene_in_progress: bool = True, session_in_progress: bool = True) -> ActionResult:
    """``/treat PATIENT "Consequence" [with SKILL] [as "New Name"]``: roll the overcome with
    the actions engine and apply it. The result's effects and changes include the treatment."""
    patient = cmd.patient or actor
    slot, usual, difficulty = check_treatment(table, actor, patient, cmd.consequence, system)
    overcome = Overcome(line=cmd.line, source=cmd.source, skill=cmd.skill or usual,
                        opposition=Opposition(rating=difficulty), invokes=cmd.invokes, actor=actor)
    result = resolve(overcome, table, dice, actor, system)
    report = treat(table, actor, patient, slot.aspect, result, rename=cmd.rename, system=system,
                   scene_in_progress=scene_in_progress, session_in_progress=session_in_progress)
    result.effects.extend(report.effects)
    result.changes.extend(report.changes)
    return result


def start_recovery(table: Table, patient: str, consequence: str, *, system: System, rename: str = "",
                   scene_in_progress: bool = True, session_in_progress: bool = True,
                   report: Report | None = None) -> Report:
    """Start a consequence's clock (after a successful treatment, or at a major milestone):
    the system's ``recovery`` says which clock its severity waits on."""
    r = report or Report()
    ch = find_character(table, patient)
    slot = find_consequence(ch, consequence)
    rec = system.recovery_of(slot.severity)
    if rec is None:
        raise RulesError(f"{slot.aspect} is a {slot.severity} {'condition' if slot.condition else 'consequence'}: "
                         f"{system.title or system.name} does not treat it",
                         expected=f"a {or_words(tuple(system.recovery))} one", example="/sheet")
    if rename and rename.strip().casefold() != slot.aspect.casefold():
        rename_consequence(table, ch, slot.aspect, rename, r)
    slot.recovering = True
    r.change("recovering", f"{slot.aspect} ({ch.name})", False, True)
    if rec.clock == "scene":
        slot.recovery_scenes_left = 2 if scene_in_progress else 1
    elif rec.clock == "session":
        # a lasting condition: "When recovery begins, erase one check box. Erase the second
        # one (and recover from it fully) after one more full session."
        slot.recovery_sessions_left = 2 if session_in_progress else 1
    r.effect("treated", f"{slot.aspect} on {ch.name} is recovering; it clears {rec.when}",
             patient=ch.name, aspect=slot.aspect, severity=slot.severity,
             **({} if rename else {"rename": True}))
    return r


# -- the clocks ----------------------------------------------------------------------------

def end_scene(table: Table, keep: Iterable[str] = (), clears: tuple[str, ...] = ()) -> Report:
    """Clear every stress box, remove boosts and situation and zone aspects (but ``keep``),
    bring taken-out characters back, and clear mild consequences that recovered a full scene.
    ``clears``: severities that clear at every scene end, treated or not (the system's
    ``scene_clears``; early Fate: "Mild consequences usually clear at the end of the current
    scene")."""
    r = Report()
    for ch in table.characters.values():
        _clear_stress(ch, r)
        if ch.taken_out:
            ch.taken_out = False
            r.change("taken_out", ch.name, True, False, "a new scene")
        _tick(table, ch, "recovery_scenes_left", "recovered for a full scene", r)
        for slot in ch.consequences:
            if slot.aspect and slot.severity in clears:
                clear_consequence(table, ch, slot, r, "the scene ended")
    kept = {k.casefold() for k in keep}
    for aspect in list(table.aspects):
        if aspect.kind in SCENE_ASPECTS and aspect.name.casefold() not in kept:
            remove_aspect(table, aspect)
            r.change("boost" if aspect.kind == "boost" else "aspect", aspect.name, "in play", "removed",
                     "the scene ended")
    r.effect("scene_end", "The scene ends: stress clears, boosts and situation aspects go")
    return r


def end_session(table: Table) -> Report:
    """Clear consequences on a session clock (Fate Condensed: moderate) that recovered for a
    full session."""
    r = Report()
    for ch in table.characters.values():
        _tick(table, ch, "recovery_sessions_left", "recovered for a full session", r)
    return r


def major_milestone(table: Table, system: System) -> Report:
    """Clear the consequences the system's major milestone clears (Fate Condensed: moderate
    and severe, ``System.milestone_clears``) in recovery; list the untreated ones, which may
    now begin recovery (``start_recovery``) and be renamed."""
    r = Report()
    clears = system.milestone_clears
    for ch in table.characters.values():
        for slot in ch.consequences:
            if not slot.aspect or slot.severity not in clears:
                continue
            if slot.recovering:
                clear_consequence(table, ch, slot, r, "cleared at a major milestone")
            else:
                r.effect("may_recover", f"{slot.aspect} on {ch.name} may begin recovery now; rename it",
                         patient=ch.name, aspect=slot.aspect, severity=slot.severity)
    return r


def gm_clear(table: Table, name: str, kinds: tuple[str, ...] | None = None) -> Report | None:
    """The GM clears the consequence called ``name`` (early Fate, "Clearing Stress and
    Consequences": moderate and severe ones take hours, days or weeks, so the GM says when);
    None when no character has a consequence of that name."""
    key = name.strip().casefold()
    for ch in table.characters.values():
        for slot in ch.consequences:
            if slot.aspect and slot.aspect.casefold() == key and (kinds is None or slot.severity in kinds):
                r = Report()
                clear_consequence(table, ch, slot, r, "cleared by the GM")
                return r
    return None


def _clear_stress(ch: Character, r: Report) -> None:
    for track, boxes in ch.stress.items():
        if any(boxes):
            before = "".join("[x]" if b else "[ ]" for b in boxes)
            boxes[:] = [False] * len(boxes)
            r.change("stress", f"{ch.name} ({track})", before, "[ ]" * len(boxes), "the scene ended")


def _tick(table: Table, ch: Character, counter: str, why: str, r: Report) -> None:
    """Count down the clock ``start_recovery`` set on each recovering slot (the system chose
    the clock from the slot's severity then)."""
    for slot in ch.consequences:
        if not slot.aspect or not slot.recovering or getattr(slot, counter) <= 0:
            continue
        left = getattr(slot, counter)
        if left > 1:
            setattr(slot, counter, left - 1)
            r.change(counter, f"{slot.aspect} ({ch.name})", left, left - 1)
        else:
            clear_consequence(table, ch, slot, r, why)
