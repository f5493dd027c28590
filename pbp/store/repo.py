"""Between the database rows and the rules engine's plain state.

A message loads its campaign's table in two queries (characters, aspects in play), the
engine changes the dataclasses, and :func:`save_table` writes back only what changed. The
cost does not grow with the campaign's history: inactive aspects and old rolls are never
read.

A daemon keeps each campaign's decoded table and play state from one post to the next
(:func:`keep`, :func:`take_kept`), under the campaign's ``version``: a post that changes
anything writes a fresh random version with the play state, and triggers move it on any
other write to the campaign's characters or aspects (:func:`pbp.store.migrations.create_triggers`),
so a kept table is used only while the database still holds exactly what it was made from,
whichever daemon or shell wrote last. A kept entry is taken out for the post that uses it
(an engine changes it in place): a post that fails leaves nothing kept, and the next one
loads the campaign afresh.
"""
from __future__ import annotations

import hashlib
import json
import secrets
from dataclasses import dataclass

from peewee import fn

from pbp.rules import state as rs
from pbp.store import models as m
from pbp.store.prepared import Insert, Select, Update

_CHARACTERS = Select(lambda campaign_id: m.Character.select().where(m.Character.campaign == campaign_id))
_ASPECTS = Select(lambda campaign_id: m.Aspect.select(
    m.Aspect.id, m.Aspect.name, m.Aspect.kind, m.Aspect.owner, m.Aspect.free_invokes, m.Aspect.hidden,
    m.Aspect.system_state)
    .where((m.Aspect.campaign == campaign_id) & (m.Aspect.active == True))  # noqa: E712
    .order_by(m.Aspect.id))
_LEDGER_HEAD = Select(lambda campaign_id: m.RollRecord.select(m.RollRecord.hash)
                      .where(m.RollRecord.campaign == campaign_id).order_by(m.RollRecord.id.desc()).limit(1))
_INSERT_ROLL = Insert(m.RollRecord, ("campaign", "message_id", "actor", "command", "action", "skill", "dice", "effort",
                                     "opposition", "shifts", "outcome", "detail", "prev_hash", "hash", "created_at"))


def character_to_state(row: dict) -> rs.Character:
    """From a Character row read with ``.dicts()`` (which skips building model objects)."""
    return rs.character_from_record(row)


def _character_fields(ch: rs.Character) -> dict:
    return rs.character_record(ch)


def aspect_to_state(row: dict) -> rs.Aspect:
    return rs.Aspect(
        id=row["id"],
        name=row["name"],
        kind=row["kind"],
        owner=row["owner"],
        free_invokes=dict(row["free_invokes"] or {}),
        hidden=bool(row["hidden"]),
        system_state=dict(row.get("system_state") or {}),
    )


def _aspect_fields(a: rs.Aspect) -> dict:
    return {"name": a.name, "kind": a.kind, "owner": a.owner, "free_invokes": a.free_invokes, "hidden": a.hidden,
            "system_state": a.system_state}


def load_table(campaign: m.Campaign, skill_list: tuple[str, ...] = ()) -> rs.Table:
    """The campaign's characters and active aspects as rules state (two queries)."""
    characters = {row["name"]: character_to_state(row) for row in _CHARACTERS(campaign.id)}
    aspects = [aspect_to_state(row) for row in _ASPECTS(campaign.id)]
    return rs.Table(system=campaign.system, characters=characters, aspects=aspects, skill_list=skill_list)


def _dump(fields: dict) -> str:
    return json.dumps(fields, sort_keys=True, separators=(",", ":"))


@dataclass(frozen=True)
class Snapshot:
    """The table as it was loaded, serialised: what :func:`save_table` diffs against.
    (A JSON string per row is several times cheaper than a deep copy and cannot alias.)"""

    characters: dict[str, str]      # name -> fields
    ids: dict[str, int | None]      # name -> storage id
    aspects: dict[int, str]         # storage id -> fields
    system: str                     # the campaign's system (which reads the characters' own state)

    def aspect(self, aspect_id: int) -> dict:
        return json.loads(self.aspects[aspect_id])


def snapshot(table: rs.Table) -> Snapshot:
    return Snapshot(
        characters={ch.name: _dump(_character_fields(ch)) for ch in table.characters.values()},
        ids={ch.name: ch.id for ch in table.characters.values()},
        aspects={a.id: _dump(_aspect_fields(a)) for a in table.aspects if a.id is not None},
        system=table.system,
    )


def table_as_loaded(before: Snapshot) -> rs.Table:
    """The table as it was loaded, rebuilt from its snapshot: what a reply compares a
    changed sheet with (has it changed where the table can see?)."""
    characters = {name: character_to_state(json.loads(fields)) for name, fields in before.characters.items()}
    aspects = [aspect_to_state({**json.loads(fields), "id": aspect_id}) for aspect_id, fields in before.aspects.items()]
    return rs.Table(system=before.system, characters=characters, aspects=aspects)


@dataclass(frozen=True)
class Saved:
    """What :func:`save_table` compared and wrote, so nothing after it dumps a row again
    (the sheet history, :func:`pbp.sheethistory.record_play`, reads it)."""

    changed: list[str]                          # the sheets a reply shows (see save_table)
    rows: dict[str, tuple[str | None, str]]     # name -> (row as loaded, row now), rows that changed
    aspects: list[tuple[int, dict | None, dict | None]]  # id, fields as loaded (None: new), now (None: gone)
    snapshot: Snapshot | None = None            # the table as now stored (what the next post diffs against)

    @property
    def wrote(self) -> bool:
        return bool(self.rows or self.aspects)


_UPDATES: dict[tuple[str, ...], Update] = {}
_ASPECT_INSERT = Insert(m.Aspect, ("campaign", "name", "kind", "owner", "free_invokes", "hidden", "active", "created_at",
                                   "system_state"))
_ASPECT_UPDATE = Update(m.Aspect, ("name", "kind", "owner", "free_invokes", "hidden", "system_state"))


def _update_character(row_id: int, fields: dict) -> None:
    names = tuple(fields) + ("updated_at",)
    update = _UPDATES.get(names)
    if update is None:
        update = _UPDATES[names] = Update(m.Character, names)
    update(row_id, **fields, updated_at=m.utcnow())


def save_table(campaign: m.Campaign, before: Snapshot, after: rs.Table) -> Saved:
    """Write the differences between the loaded table and its state now (changed
    characters; new, changed and removed aspects; unchanged rows cost no query). Returns
    what it compared (:class:`Saved`): the names of the characters whose sheet changed, or
    who own or hold free invokes on an aspect that changed (the sheets a reply shows), the
    changed rows' dumps and the changed aspects' fields before and after."""
    changed: list[str] = []
    rows: dict[str, tuple[str | None, str]] = {}
    stored: dict[str, str] = {}
    for ch in after.characters.values():
        fields = _character_fields(ch)
        now = stored[ch.name] = _dump(fields)
        if ch.id is None:
            ch.id = m.Character.create(campaign=campaign, **fields).id
            changed.append(ch.name)
            rows[ch.name] = (None, now)
            continue
        was = before.characters.get(ch.name)
        if was != now:
            _update_character(ch.id, fields)
            changed.append(ch.name)
            rows[ch.name] = (was, now)

    touched: list[tuple[int, dict | None, dict | None]] = []
    kept: set[int] = set()
    aspects: dict[int, str] = {}
    for a in after.aspects:
        fields = _aspect_fields(a)
        if a.id is None:
            a.id = _ASPECT_INSERT(campaign=campaign.id, **fields)
            touched.append((a.id, None, fields))
            aspects[a.id] = _dump(fields)
            continue
        kept.add(a.id)
        now = aspects[a.id] = _dump(fields)
        if before.aspects.get(a.id) != now:
            _ASPECT_UPDATE(a.id, **fields)
            touched.append((a.id, before.aspect(a.id), fields))
    gone = [aid for aid in before.aspects if aid not in kept]
    if gone:
        m.Aspect.update(active=False).where(m.Aspect.id.in_(gone)).execute()
        touched += [(aid, before.aspect(aid), None) for aid in gone]
    for _, was, now in touched:
        for fields in (now, was):
            if fields is None:
                continue
            for name in (fields["owner"], *fields["free_invokes"]):
                if name in after.characters and name not in changed:
                    changed.append(name)
    return Saved(changed, rows, touched, Snapshot(characters=stored, ids={ch.name: ch.id for ch in after.characters.values()},
                                                  aspects=aspects, system=after.system))


# --------------------------------------------------------------------------- kept between posts

@dataclass
class Kept:
    """A campaign's table and play state as its last post left them, at ``version``."""

    database: object
    version: int
    system: str
    table: rs.Table
    snapshot: Snapshot
    play: object                    # pbp.play.state.PlayState (the store does not import play)


KEPT_MOST = 64
"""How many campaigns' tables a process keeps (the most recently played)."""
_KEPT: dict[int, Kept] = {}


def new_version() -> int:
    """A fresh version for a campaign a post changed: random, so two daemons never write
    the same one (the triggers' +1 steps cannot meet one either, in practice)."""
    return secrets.randbits(62)


def take_kept(campaign: m.Campaign) -> Kept | None:
    """The table and play state kept for ``campaign`` if the database still holds what
    they were made from (same database, version and system); taken out either way."""
    kept = _KEPT.pop(campaign.id, None)
    if kept is None or kept.database is not m.db.obj or kept.version != campaign.version \
            or kept.system != campaign.system or not campaign.version:
        return None
    return kept


def keep(campaign: m.Campaign, table: rs.Table, saved: Saved, play) -> None:
    """Keep what a post left for the campaign's next post (at its version now): the table
    as a load would read it back, its changed rows decoded from what was written (a dict's
    keys in the stored order, which replies show) and its aspects in the order of their ids."""
    for name, (_, now) in saved.rows.items():
        ch = table.characters[name]
        table.characters[name] = character_to_state({**json.loads(now), "id": ch.id})
    written = {aid for aid, _, now in saved.aspects if now is not None}
    table.aspects = sorted((aspect_to_state({**json.loads(saved.snapshot.aspects[a.id]), "id": a.id})
                            if a.id in written else a for a in table.aspects), key=lambda a: a.id)
    _KEPT.pop(campaign.id, None)
    _KEPT[campaign.id] = Kept(m.db.obj, campaign.version, campaign.system, table, saved.snapshot, play)
    while len(_KEPT) > KEPT_MOST:
        _KEPT.pop(next(iter(_KEPT)))


def forget_kept() -> None:
    _KEPT.clear()


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


#: The keys of a roll's result (``ActionResult.to_dict``) its ledger row holds.
LEDGER_VIEW = ("command", "actor", "action", "skill", "dice", "rolls", "modifiers", "effort", "opposition", "shifts",
               "outcome", "effects", "roll_id")


def ledger_view(row: m.RollRecord) -> dict:
    """A roll's result as its ledger row recorded it (the :data:`LEDGER_VIEW` keys)."""
    detail = row.detail or {}
    out = {"command": row.command, "actor": row.actor, "action": row.action, "skill": row.skill, "dice": row.dice,
           "effort": row.effort, "shifts": row.shifts, "outcome": row.outcome}
    out.update({k: detail[k] for k in ("rolls", "modifiers", "opposition", "effects") if k in detail})
    if "number" in detail:
        out["roll_id"] = detail["number"]
    return out


def last_ledger_hash(campaign: m.Campaign) -> str:
    rows = _LEDGER_HEAD(campaign.id)
    return rows[0]["hash"] if rows else ""


def record_roll(campaign: m.Campaign, message_id: str | None, result_dict: dict, prev_hash: str,
                number: int | None = None) -> m.RollRecord:
    """Append one roll to the campaign's ledger, chained to ``prev_hash``. ``number`` is the
    id players see and type (``roll #12``), from the campaign's one counter of such ids
    (:meth:`pbp.play.state.PlayState.new_id`); it is kept in ``detail`` under the hash."""
    opp = result_dict.get("opposition")
    row = m.RollRecord(
        campaign=campaign,
        message_id=message_id,
        actor=result_dict["actor"],
        command=result_dict["command"],
        action=result_dict["action"],
        skill=result_dict.get("skill"),
        dice=result_dict["dice"],
        effort=result_dict["effort"],
        opposition=opp["value"] if opp else None,
        shifts=result_dict.get("shifts"),
        outcome=result_dict.get("outcome"),
        detail={**{k: result_dict[k] for k in ("rolls", "modifiers", "opposition", "effects", "secret")
                   if k in result_dict},
                **({"number": number} if number is not None else {})},
        prev_hash=prev_hash,
    )
    row.hash = chain_hash(prev_hash, ledger_payload(row))
    row.id = _INSERT_ROLL(**{name: getattr(row, name) for name in _INSERT_ROLL.names})
    return row


def record_event(campaign: m.Campaign, message_id: str | None, action: str, detail: dict,
                 prev_hash: str) -> m.RollRecord:
    """Append a scene's dice commitment or seed reveal (``action`` "dice_commit" or
    "dice_reveal", :mod:`pbp.store.seeds`) to the campaign's ledger, chained like a roll,
    so the chain binds commitments, rolls and reveals in the order they were made."""
    row = m.RollRecord(campaign=campaign, message_id=message_id, actor="pbp", command=action, action=action,
                       skill=None, dice=[], effort=0, detail=detail, prev_hash=prev_hash)
    row.hash = chain_hash(prev_hash, ledger_payload(row))
    row.id = _INSERT_ROLL(**{name: getattr(row, name) for name in _INSERT_ROLL.names})
    return row


def roll_number(row: m.RollRecord) -> int:
    """The id players saw for a ledger row: its number, or for rolls recorded before rolls
    were numbered with the campaign's other ids, its row id (what their replies said)."""
    number = (row.detail or {}).get("number")
    return number if isinstance(number, int) else row.id


def max_roll_row(campaign: m.Campaign) -> int:
    """The highest ledger row id of the campaign (0 without rolls)."""
    return m.RollRecord.select(fn.MAX(m.RollRecord.id)).where(m.RollRecord.campaign == campaign).scalar() or 0


def verify_ledger(campaign: m.Campaign) -> list[str]:
    """Recompute the chain; returns the problems found (empty when the ledger is intact)."""
    problems: list[str] = []
    prev = ""
    for row in m.RollRecord.select().where(m.RollRecord.campaign == campaign).order_by(m.RollRecord.id).iterator():
        if row.prev_hash != prev:
            problems.append(f"roll #{roll_number(row)}: previous-hash link broken")
        if chain_hash(row.prev_hash, ledger_payload(row)) != row.hash:
            problems.append(f"roll #{roll_number(row)}: contents do not match its hash")
        prev = row.hash
    return problems
