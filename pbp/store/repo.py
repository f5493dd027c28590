"""Between the database rows and the rules engine's plain state.

A message loads its campaign's table in two queries (characters, aspects in play), the
engine changes the dataclasses, and :func:`save_table` writes back only what changed. The
cost does not grow with the campaign's history: inactive aspects and old rolls are never
read.
"""
from __future__ import annotations

import copy
import hashlib
import json
from dataclasses import asdict

from pbp.rules import state as rs
from pbp.store import models as m


def character_to_state(row: m.Character) -> rs.Character:
    return rs.Character(
        id=row.id,
        name=row.name,
        kind=row.kind,
        player=row.player,
        skills=dict(row.skills or {}),
        stunts=[rs.Stunt(**s) for s in (row.stunts or [])],
        refresh=row.refresh,
        fate_points=row.fate_points,
        stress={k: list(v) for k, v in (row.stress or {}).items()},
        consequences=[rs.Consequence(**c) for c in (row.consequences or [])],
        taken_out=row.taken_out,
    )


def _character_fields(ch: rs.Character) -> dict:
    return {
        "name": ch.name,
        "kind": ch.kind,
        "player": ch.player,
        "skills": ch.skills,
        "stunts": [asdict(s) for s in ch.stunts],
        "refresh": ch.refresh,
        "fate_points": ch.fate_points,
        "stress": ch.stress,
        "consequences": [asdict(c) for c in ch.consequences],
        "taken_out": ch.taken_out,
    }


def aspect_to_state(row: m.Aspect) -> rs.Aspect:
    return rs.Aspect(
        id=row.id,
        name=row.name,
        kind=row.kind,
        owner=row.owner,
        free_invokes=dict(row.free_invokes or {}),
        hidden=row.hidden,
    )


def _aspect_fields(a: rs.Aspect) -> dict:
    return {"name": a.name, "kind": a.kind, "owner": a.owner, "free_invokes": a.free_invokes, "hidden": a.hidden}


def load_table(campaign: m.Campaign, skill_list: tuple[str, ...] = ()) -> rs.Table:
    """The campaign's characters and active aspects as rules state (two queries)."""
    characters = {row.name: character_to_state(row) for row in m.Character.select().where(m.Character.campaign == campaign)}
    aspects = [
        aspect_to_state(row)
        for row in m.Aspect.select().where((m.Aspect.campaign == campaign) & (m.Aspect.active == True))  # noqa: E712
        .order_by(m.Aspect.id)
    ]
    return rs.Table(system=campaign.system, characters=characters, aspects=aspects, skill_list=skill_list)


def snapshot(table: rs.Table) -> rs.Table:
    """A deep copy to diff against after the engine has run."""
    return copy.deepcopy(table)


def save_table(campaign: m.Campaign, before: rs.Table, after: rs.Table) -> None:
    """Write the differences between two states of a table: changed characters, new,
    changed and removed aspects. Unchanged rows cost no query."""
    old_chars = {c.id: c for c in before.characters.values() if c.id is not None}
    for ch in after.characters.values():
        fields = _character_fields(ch)
        if ch.id is None:
            row = m.Character.create(campaign=campaign, **fields)
            ch.id = row.id
        elif ch.id not in old_chars or _character_fields(old_chars[ch.id]) != fields:
            m.Character.update(**fields, updated_at=m.utcnow()).where(m.Character.id == ch.id).execute()

    old_aspects = {a.id: a for a in before.aspects if a.id is not None}
    kept: set[int] = set()
    for a in after.aspects:
        fields = _aspect_fields(a)
        if a.id is None:
            a.id = m.Aspect.create(campaign=campaign, **fields).id
        else:
            kept.add(a.id)
            if a.id not in old_aspects or _aspect_fields(old_aspects[a.id]) != fields:
                m.Aspect.update(**fields).where(m.Aspect.id == a.id).execute()
    gone = [aid for aid in old_aspects if aid not in kept]
    if gone:
        m.Aspect.update(active=False).where(m.Aspect.id.in_(gone)).execute()


def chain_hash(prev_hash: str, record: dict) -> str:
    """The ledger link: sha256 over the previous hash and the roll's canonical JSON."""
    body = json.dumps(record, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256((prev_hash + "\n" + body).encode("utf-8")).hexdigest()


def ledger_payload(row: m.RollRecord) -> dict:
    """The fields a ledger hash covers (everything a dispute could be about)."""
    return {
        "campaign": row.campaign_id,
        "actor": row.actor,
        "command": row.command,
        "action": row.action,
        "skill": row.skill,
        "dice": row.dice,
        "effort": row.effort,
        "opposition": row.opposition,
        "shifts": row.shifts,
        "outcome": row.outcome,
        "detail": row.detail,
    }


def last_ledger_hash(campaign: m.Campaign) -> str:
    row = (
        m.RollRecord.select(m.RollRecord.hash)
        .where(m.RollRecord.campaign == campaign)
        .order_by(m.RollRecord.id.desc())
        .first()
    )
    return row.hash if row else ""


def record_roll(campaign: m.Campaign, message: m.Message | None, result_dict: dict, prev_hash: str) -> m.RollRecord:
    """Append one roll to the campaign's ledger, chained to ``prev_hash``."""
    opp = result_dict.get("opposition")
    row = m.RollRecord(
        campaign=campaign,
        message=message,
        actor=result_dict["actor"],
        command=result_dict["command"],
        action=result_dict["action"],
        skill=result_dict.get("skill"),
        dice=result_dict["dice"],
        effort=result_dict["effort"],
        opposition=opp["value"] if opp else None,
        shifts=result_dict.get("shifts"),
        outcome=result_dict.get("outcome"),
        detail={k: result_dict[k] for k in ("rolls", "modifiers", "opposition", "effects") if k in result_dict},
        prev_hash=prev_hash,
    )
    row.hash = chain_hash(prev_hash, ledger_payload(row))
    row.save(force_insert=True)
    return row


def verify_ledger(campaign: m.Campaign) -> list[str]:
    """Recompute the chain; returns the problems found (empty when the ledger is intact)."""
    problems: list[str] = []
    prev = ""
    for row in m.RollRecord.select().where(m.RollRecord.campaign == campaign).order_by(m.RollRecord.id).iterator():
        if row.prev_hash != prev:
            problems.append(f"roll #{row.id}: previous-hash link broken")
        if chain_hash(row.prev_hash, ledger_payload(row)) != row.hash:
            problems.append(f"roll #{row.id}: contents do not match its hash")
        prev = row.hash
    return problems
