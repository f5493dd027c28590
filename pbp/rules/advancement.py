"""Advancement: what a milestone lets a character change, and whether a change fits.

Dresden Files Condensed ("Advancement", 000_7ba3f797fc1d45d3.txt) and Fate Condensed:

* a **minor milestone** (end of a session) allows one of: switch the ranks of two skills
  (or replace an Average skill with one not on the sheet, which is the same exchange of
  ratings with a Mediocre skill), rewrite one stunt, buy a new stunt for 1 refresh (never
  below 1; pbp's reading: a sheet with a free stunt slot left fills it first, as the
  creation rules let a player "fill them in as you play"), rewrite one aspect other than
  the high concept;
* a **major milestone** (end of an arc) allows one thing from the minor list, and also
  rewriting the high concept, and raising one skill by one step ("even from Mediocre
  (+0) to Average (+1)"); the GM may offer a point of refresh and a second skill step
  ("power up", ``/milestone major power``).

A raise is a **skill point**; points not spent are saved ("you may save up your skill
points rather than spend them immediately"), the other allowances lapse at the next
milestone. "Improving Skill Ratings": the sheet keeps its column (each step has no more
skills than the step below it); a raise that breaks it is refused with the raises that
would keep it (:func:`column_options`).

The allowances are data on the system (``System.milestones``): Fate Core has a
**significant milestone** too (docs/systems.md says which reading pbp takes).
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from itertools import combinations
from typing import Mapping

from pbp.rules.ladder import describe


def column_problems(skills: dict[str, int], ladder: Mapping[int, str]) -> list[str]:
    """The column rule: each step may not have more skills than the step below it.

    The starting pyramid (one Great, two Good, three Fair, four Average) obeys it, and so
    does every sheet grown by milestones; Mediocre is "all other skills", so Average is
    never limited by the step below. ``ladder``: the system's, which names the steps.
    """
    counts = Counter(r for r in skills.values() if r > 0)
    if not counts:
        return []
    problems = []
    for rating in range(2, max(counts) + 1):
        if counts[rating] > counts[rating - 1]:
            problems.append(
                f"{counts[rating]} skill{'s' if counts[rating] > 1 else ''} at {describe(rating, ladder)} but only "
                f"{counts[rating - 1]} at {describe(rating - 1, ladder)}: each step may not have more skills "
                "than the step below it"
            )
    return problems


@dataclass(frozen=True)
class Allowance:
    """What one milestone allows: ``lateral`` changes from the minor list, a new high
    concept, ``skill_points`` raises of one step, ``refresh`` gained."""

    lateral: int = 1
    high_concept: bool = False
    skill_points: int = 0
    refresh: int = 0

    def plus(self, other: "Allowance") -> "Allowance":
        return Allowance(self.lateral + other.lateral, self.high_concept or other.high_concept,
                         self.skill_points + other.skill_points, self.refresh + other.refresh)


MINOR = Allowance(lateral=1)
MAJOR = Allowance(lateral=1, high_concept=True, skill_points=1)
#: What the GM may add to a major milestone ("power up"): a point of refresh, a second raise.
POWER_UP = Allowance(lateral=0, skill_points=1, refresh=1)


@dataclass
class MilestoneChange:
    """One thing a requested sheet change does, as the milestone rules count it."""

    kind: str          # swap | raise | stunt_rewrite | stunt_bought | aspect | high_concept | refresh
    text: str
    lateral: int = 0   # minor-list changes it uses
    points: int = 0    # skill points it uses


@dataclass
class Verdict:
    changes: list[MilestoneChange]
    problems: list[str]
    points: int = 0
    lateral: int = 0
    fix: dict | None = None     # a set of raises that keeps the column, for an example


def _ratings(skills: dict[str, int]) -> dict[str, int]:
    return {k.casefold(): v for k, v in skills.items() if v > 0}


def _spelling(*sheets: dict[str, int]) -> dict[str, str]:
    out: dict[str, str] = {}
    for s in sheets:
        for k in s:
            out.setdefault(k.casefold(), k)
    return out


def skill_changes(before: dict[str, int], after: dict[str, int],
                  ladder: Mapping[int, str]) -> tuple[list[MilestoneChange], list[str]]:
    """The skill part of a change: at most one swap of two skills' ratings (the minor
    list's), the rest raises of one step each (a skill point per step). Lowering a skill
    other than by a swap is not an advancement."""
    old, new = _ratings(before), _ratings(after)
    names = _spelling(after, before)
    delta = {k: new.get(k, 0) - old.get(k, 0) for k in set(old) | set(new) if new.get(k, 0) != old.get(k, 0)}
    best: tuple[int, list[MilestoneChange]] | None = None
    pairs: list[tuple[str, str] | None] = [None] + list(combinations(sorted(delta), 2))
    for pair in pairs:
        base = dict(old)
        changes: list[MilestoneChange] = []
        if pair is not None:
            a, b = pair
            base[a], base[b] = old.get(b, 0), old.get(a, 0)
            if base[a] == old.get(a, 0):
                continue
            changes.append(MilestoneChange("swap", f"{names[a]} and {names[b]} switch ranks ({names[a]} "
                                          f"{describe(old.get(a, 0), ladder)} -> {describe(base[a], ladder)}, {names[b]} "
                                          f"{describe(old.get(b, 0), ladder)} -> {describe(base[b], ladder)})", lateral=1))
        rest = {k: new.get(k, 0) - base.get(k, 0) for k in delta}
        if any(v < 0 for v in rest.values()):
            continue
        for k, steps in sorted(rest.items()):
            if steps:
                changes.append(MilestoneChange("raise", f"{names[k]} {describe(base.get(k, 0), ladder)} -> {describe(new.get(k, 0), ladder)}",
                                      points=steps))
        cost = sum(c.points for c in changes) * 10 + sum(c.lateral for c in changes)
        if best is None or cost < best[0]:
            best = (cost, changes)
    if best is None:
        lowered = [names[k] for k, v in sorted(delta.items()) if v < 0]
        return [], [f"{', '.join(lowered)} would go down; a milestone lowers a skill only by switching the ranks "
                    "of two skills"]
    return best[1], []


def column_options(before: dict[str, int], wanted: dict[str, int], points: int, skills: tuple[str, ...],
                   ladder: Mapping[int, str], *, most: int = 4, fixes: list | None = None) -> list[str]:
    """Raises of one step (within ``points``) that keep the column: first the wanted raises
    with the fewest more added, then single raises instead. ``skills`` and ``ladder`` are the
    system's.
    ``fixes``, when given, gets each option's raises as {skill: new rating}."""
    fixes = [] if fixes is None else fixes
    old = {k.casefold(): v for k, v in before.items()}
    names = _spelling(before, {s: 0 for s in skills})
    asked = [k.casefold() for k, v in wanted.items() if v > old.get(k.casefold(), 0)]
    found: list[str] = []

    def raised(keys) -> dict[str, int]:
        out = dict(old)
        for k in keys:
            out[k] = out.get(k, 0) + 1
        return out

    candidates = sorted(names)

    def step(k: str) -> str:
        return f"{describe(old.get(k, 0), ladder)} -> {describe(old.get(k, 0) + 1, ladder)}"

    def listed(keys: list[str]) -> str:
        return ", ".join(names[k] for k in keys[:6]) + (", ..." if len(keys) > 6 else "")

    for extra in range(1, max(0, points - len(asked)) + 1):
        groups: dict[tuple, list[tuple]] = {}
        for more in combinations([k for k in candidates if k not in asked], extra):
            if not column_problems(raised(asked + list(more)), ladder):
                groups.setdefault(tuple(sorted(old.get(k, 0) for k in more)), []).append(more)
        for _, combos in sorted(groups.items()):
            fixes.append({names[k]: old.get(k, 0) + 1 for k in asked + list(combos[0])})
            if extra == 1:
                keys = [m[0] for m in combos]
                found.append(f"also raise one skill {step(keys[0])} ({listed(keys)}): "
                             f"{len(asked) + 1} skill points")
            else:
                found.append("also raise " + ", ".join(f"{names[k]} {step(k)}" for k in combos[0])
                             + f": {len(asked) + extra} skill points")
            if len(found) >= most:
                break
        if found:
            break
    if points >= 1:
        by_step: dict[int, list[str]] = {}
        for k in candidates:
            if k not in asked and not column_problems(raised([k]), ladder):
                by_step.setdefault(old.get(k, 0), []).append(k)
        for rating, keys in sorted(by_step.items(), reverse=True):
            fixes.append({names[keys[0]]: old.get(keys[0], 0) + 1})
            found.append(f"raise another skill {step(keys[0])} instead ({listed(keys)})")
    found.append(f"or save the skill point{'s' if points > 1 else ''} for a later milestone")
    return found


def judge(before: dict, after: dict, allowance: Allowance, saved_points: int, system) -> Verdict:
    """Whether the change from ``before`` to ``after`` (sheet data: skills, aspects,
    stunts, refresh) fits what the milestone allows plus the saved skill points, in
    ``system`` (its skills and the words of its ladder; a ``pbp.rules.system.System``)."""
    changes, problems = skill_changes(before.get("skills", {}), after.get("skills", {}), system.ladder)
    fixes: list = []
    points = sum(c.points for c in changes)
    available = allowance.skill_points + saved_points
    if points > available:
        problems.append(f"the raises need {points} skill point{'s' if points != 1 else ''} and "
                        f"{available} {'is' if available == 1 else 'are'} at hand")
    if not problems and points:
        broken = column_problems(after.get("skills", {}), system.ladder)
        if broken:
            fixes: list = []
            options = column_options(before.get("skills", {}), after.get("skills", {}), available, system.skills,
                                     system.ladder, fixes=fixes)
            problems.append("the sheet must keep its column: " + "; ".join(broken) + ". What would work: "
                            + "; ".join(options))
    gained = int(after.get("milestone_refresh", 0) or 0) - int(before.get("milestone_refresh", 0) or 0)
    spent = int(before.get("refresh", 0) or 0) + gained - int(after.get("refresh", 0) or 0)
    changes += _stunt_changes(before.get("stunts", []), after.get("stunts", []), spent,
                              int(before.get("refresh", 0) or 0) + gained)
    changes += _aspect_changes(before.get("aspects", {}), after.get("aspects", {}))
    if gained:
        changes.append(MilestoneChange("refresh", f"refresh +{gained} from the milestone"))
        if gained > allowance.refresh:
            problems.append(f"this milestone gives {allowance.refresh} refresh, not {gained}")
    if any(c.kind == "high_concept" for c in changes) and not allowance.high_concept:
        problems.append("the high concept is rewritten at a major milestone, not this one")
    lateral = sum(c.lateral for c in changes)
    if lateral > allowance.lateral:
        problems.append(f"this milestone allows {allowance.lateral} change{'s' if allowance.lateral != 1 else ''} "
                        f"from the minor list and these are {lateral}: "
                        + "; ".join(c.text for c in changes if c.lateral))
    if not changes:
        problems.append("nothing changes")
    return Verdict(changes, problems, points, lateral, fixes[0] if points and problems and fixes else None)


def _stunt_changes(before: list[dict], after: list[dict], paid: int = 0, refresh: int = 0) -> list[MilestoneChange]:
    """The stunts rewritten, bought and dropped. A bought stunt fills a free stunt slot while
    the sheet has one (the creation rules: "three free stunt slots ... you may fill them in
    as you play"), and past them costs 1 refresh ("Purchase a new stunt by spending 1
    refresh"): ``paid`` of the bought ones do, from ``refresh``."""
    old = {s["name"].casefold(): s for s in before}
    new = {s["name"].casefold(): s for s in after}
    gone = [old[k] for k in old if k not in new]
    came = [new[k] for k in new if k not in old]
    changed = [new[k] for k in new if k in old and new[k] != old[k]]
    out = [MilestoneChange("stunt_rewrite", f'stunt "{s["name"]}" rewritten', lateral=1) for s in changed]
    bought = came[len(gone):]
    free = max(0, len(bought) - max(0, paid))
    costs = {id(c): i >= free for i, c in enumerate(bought)}
    at = {"refresh": refresh}

    def buy(c: dict) -> MilestoneChange:
        if not costs.get(id(c)):
            return MilestoneChange("stunt_bought", f'new stunt "{c["name"]}" in a free stunt slot (refresh stays {refresh})',
                          lateral=1)
        at["refresh"] -= 1
        return MilestoneChange("stunt_bought", f'new stunt "{c["name"]}" for 1 refresh (refresh {at["refresh"] + 1} -> '
                                      f'{at["refresh"]})', lateral=1)

    return out + _paired(
        gone, came,
        lambda g, c: MilestoneChange("stunt_rewrite", f'stunt "{g["name"]}" rewritten as "{c["name"]}"', lateral=1),
        buy,
        lambda g: MilestoneChange("stunt_rewrite", f'stunt "{g["name"]}" dropped', lateral=1))


def _paired(gone: list, came: list, rewrite, add, drop) -> list[MilestoneChange]:
    """What went and what came, paired in order as rewrites; the rest added or dropped."""
    return ([rewrite(g, c) for g, c in zip(gone, came)] + [add(c) for c in came[len(gone):]]
            + [drop(g) for g in gone[len(came):]])


def _aspect_changes(before: dict, after: dict) -> list[MilestoneChange]:
    out = []
    if before.get("high_concept") != after.get("high_concept"):
        out.append(MilestoneChange("high_concept", f'high concept "{before.get("high_concept")}" -> '
                                          f'"{after.get("high_concept")}"'))
    if before.get("trouble") != after.get("trouble"):
        out.append(MilestoneChange("aspect", f'trouble "{before.get("trouble")}" -> "{after.get("trouble")}"', lateral=1))
    for part in ("other", "hidden"):
        old, new = list(before.get(part, [])), list(after.get(part, []))
        out += _paired([a for a in old if a not in new], [a for a in new if a not in old],
                       lambda g, c: MilestoneChange("aspect", f'"{g}" -> "{c}"', lateral=1),
                       lambda c: MilestoneChange("aspect", f'new aspect "{c}"', lateral=1),
                       lambda g: MilestoneChange("aspect", f'aspect "{g}" dropped', lateral=1))
    return out
