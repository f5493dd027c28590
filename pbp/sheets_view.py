"""A character sheet as data: the ``pbp sheet --json`` shape, also shown in replies."""
from __future__ import annotations


def sheet_dict(ch, table) -> dict:
    """The ``pbp sheet --json`` shape (also attached to /sheet results)."""
    aspects = [a for a in table.aspects if a.owner == ch.name and a.kind not in ("consequence",)]
    return {
        "name": ch.name,
        "kind": ch.kind,
        "player": ch.player,
        "fate_points": ch.fate_points,
        "refresh": ch.refresh,
        "skills": dict(sorted(ch.skills.items(), key=lambda kv: (-kv[1], kv[0]))),
        "aspects": [{"name": a.name, "kind": a.kind, "free_invokes": dict(a.free_invokes)} for a in aspects],
        "stunts": [{"name": s.name, "skill": s.skill, "action": s.action, "bonus": s.bonus,
                    "circumstance": s.circumstance} for s in ch.stunts],
        "stress": {k: list(v) for k, v in ch.stress.items()},
        "consequences": [{"severity": q.severity, "aspect": q.aspect, "shifts": q.shifts,
                          "recovering": q.recovering, **({"track": q.track} if q.track else {})}
                         for q in ch.consequences],
        "conditions": [],
        "taken_out": ch.taken_out,
        "carried_points": ch.carried_points,
        "free_invokes_held": {a.name: a.free_for(ch.name) for a in table.aspects if a.free_for(ch.name)},
    }
