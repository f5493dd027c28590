"""A campaign's play state between posts: the scene, the conflict and its turn order,
reactions waiting for an answer, rolls still open for invokes, compels and story details,
the GM's fate point pool, and which of pbp's mails was about what.

It is one JSON document per campaign (``Campaign.play``), read and written with the
message's transaction; ``next_deadline`` is mirrored into an indexed column so the
deadline job finds due campaigns with one query.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from pbp.commands import ActionCommand
from pbp.rules.compels import Compel
from pbp.rules.conflict import Conflict
from pbp.rules.fate_points import DetailRequest, FateLedger
from pbp.rules.reopen import AfterInvoke
from pbp.rules.zones import ZoneMap
from pbp.store.codec import dump, load


@dataclass
class Scene:
    name: str
    number: int = 1
    zones: ZoneMap | None = None
    started_at: datetime | None = None


@dataclass
class Pending:
    """A reaction pbp waits for: a PC's defence against an attack, or their absorption of a
    hit. ``deadline`` passes -> the documented default applies."""

    id: int
    kind: str                       # "defend" | "absorb"
    target: str                     # who must answer
    attacker: str
    deadline: datetime
    opened_at: datetime
    roll_id: int | None = None      # the attack's roll in the ledger
    attack_effort: int = 0          # defend: the effort to beat
    attack_skill: str = ""
    attack_kind: str = "melee"      # melee | ranged | mental (which skills may defend)
    shifts: int = 0                 # absorb: the hit
    track: str = "physical"
    reminded: bool = False
    summary: str = ""               # one line for replies ("the Ghoul's claws, Great (+4)")


@dataclass
class RollRecordRef:
    """A roll still open for invokes after the dice: what to re-run and what it replaced."""

    id: int                         # the ledger roll id
    cmd: ActionCommand
    actor: str
    throws: tuple[tuple[int, ...] | None, ...]
    rolled_at: datetime
    table_before: dict = field(default_factory=dict)   # serialised Table as it was before the roll
    added: tuple[AfterInvoke, ...] = ()
    vetoed: tuple[str, ...] = ()
    closed: bool = False


@dataclass
class PlayState:
    scene: Scene | None = None
    conflict: Conflict | None = None
    pending: list[Pending] = field(default_factory=list)
    open_rolls: list[RollRecordRef] = field(default_factory=list)
    compels: list[Compel] = field(default_factory=list)
    details: list[DetailRequest] = field(default_factory=list)
    ledger: FateLedger = field(default_factory=FateLedger)
    next_id: int = 1                # numbers compels, details and pending reactions (#12)
    session: int = 1
    threads: dict[str, list[str]] = field(default_factory=dict)  # our Message-ID -> ["compel:12", "roll:142"]

    def new_id(self) -> int:
        n = self.next_id
        self.next_id += 1
        return n

    def next_deadline(self, reminder: timedelta = timedelta(0)) -> datetime | None:
        """The earliest moment something is due: a default, or the reminder ``reminder``
        before it (for items not yet reminded)."""
        times = [p.deadline - (timedelta(0) if p.reminded else reminder) for p in self.pending]
        times += [c.deadline - (timedelta(0) if c.reminded_at else reminder)
                  for c in self.compels if c.deadline is not None and c.is_open]
        times += [d.deadline for d in self.details if d.deadline is not None and d.state == "pending"]
        return min(times) if times else None

    def forget_thread_refs(self, ref: str) -> None:
        """Drop a closed item from the thread map, so the map does not grow with history."""
        for key in [k for k, refs in self.threads.items() if ref in refs]:
            refs = [r for r in self.threads[key] if r != ref]
            if refs:
                self.threads[key] = refs
            else:
                del self.threads[key]


def load_play(data: dict | None) -> PlayState:
    return load(PlayState, data) if data else PlayState()


def dump_play(play: PlayState) -> dict:
    return dump(play)
