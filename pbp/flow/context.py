"""What a post needs from the outside world (:class:`Context`) and what processing it
produced (:class:`PostOutcome`, the ``--json`` contract); the rows every ending writes."""
from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import datetime
from typing import Callable

from pbp.beacon import from_config as beacon_from_config
from pbp.config import Config
from pbp.render import Renderer
from pbp.rules.dice import DiceSource
from pbp.store import models as m
from pbp.store import repo
from pbp.store.prepared import Insert, Select

log = logging.getLogger("pbp.pipeline")


@dataclass
class Context:
    """What a message needs from the outside world: swapped in tests, wired by the daemon."""

    config: Config
    dice: DiceSource
    clock: Callable[[], datetime] = m.utcnow
    renderer: Renderer = field(default_factory=Renderer)
    beacon: object = None       # a public randomness beacon mixed into committed seeds (pbp.store.seeds.Beacon)
    adapters: list | None = None   # the adapter table (pbp.adapters.TABLE unless a test gives its own)

    def __post_init__(self) -> None:
        if self.beacon is None:     # [dice] beacon (pbp.beacon)
            self.beacon = beacon_from_config(self.config)


@dataclass
class PostOutcome:
    """What processing one message produced; ``to_dict`` is the ``--json`` contract."""

    message_id: str
    campaign: str | None
    author: str
    status: str                      # applied | rejected | ignored | duplicate
    errors: list[dict] = field(default_factory=list)
    results: list[dict] = field(default_factory=list)
    replies: list[dict] = field(default_factory=list)
    reason: str = ""
    duplicate_of: str = ""           # the Message-ID of the post a copy or forward repeats
    elapsed_ms: float = 0.0
    shown_results: list[dict] = field(default_factory=list)     # as the table's mail showed them (pbp.views)

    def to_dict(self) -> dict:
        d = {
            "message_id": self.message_id,
            "campaign": self.campaign,
            "author": self.author,
            "status": self.status,
            "errors": self.errors,
            "results": self.results,
            "replies": self.replies,
        }
        if self.reason:
            d["reason"] = self.reason
        if self.duplicate_of:
            d["duplicate_of"] = self.duplicate_of
        return d

    def read_by(self, reader: str | None, members: frozenset[str] = frozenset()) -> dict:
        """What a reader of the table may know of this outcome (``pbp process --json
        --as-player``, ``--audience table``; docs/json.md): ``reader`` a member's address, or
        None for anyone at the table; ``members`` every member's address (casefolded). The
        results as the table's mail showed them (a secret roll as its note, nothing only the
        GM knows), if the reader got the table's mail (a parallel scene's goes to its players:
        a forum topic or a list, whose address is no member's, to everyone); the errors only
        for the post's author; the replies that reader got, never the GM's copy. A
        duplicate's results are left out (the original's own outcome has them)."""
        d = self.to_dict()
        who = reader.casefold() if reader is not None else None
        mine = who is not None and who == (self.author or "").casefold()

        def reaches(reply: dict) -> bool:
            to = {a.casefold() for a in reply["to"]}
            return who is None or who in to or not (to & members)
        table = [r for r in self.replies if r.get("audience") == "table" and reaches(r)]
        d["errors"] = self.errors if mine else []
        d["results"] = self.shown_results if self.status == "applied" and table else []
        d["replies"] = [r for r in self.replies if r in table or (
            who is not None and r.get("audience") not in ("gm", "table") and who in {a.casefold() for a in r["to"]})]
        d["reader"] = reader or "table"
        return d


MEMBERS = Select(lambda campaign_id: m.Member.select(m.Member.email, m.Member.role).where(m.Member.campaign == campaign_id))


INSERT_MESSAGE = Insert(m.Message, ("message_id", "post_key", "campaign", "mailbox", "uidvalidity", "uid", "author", "subject",
                                     "status", "result", "received_at", "copy_key", "forward_key",
                                     "text_sketch"))
_FACTS = Select(lambda archive_id: m.ArchivePost.select(m.ArchivePost.facts).where(m.ArchivePost.id == archive_id))


def stored(message: m.Message, status: str, reason: str = "") -> PostOutcome:
    stored = dict(message.result or {})
    results = stored.get("results", [])
    if stored.get("archive") is not None:      # results the table read as they are: the archive's facts
        found = _FACTS(stored["archive"])
        facts = found[0]["facts"] if found else []
        results = [{k: v for k, v in sorted({**facts[r["fact"]], **r}.items()) if k != "fact"}
                   if "fact" in r and r["fact"] < len(facts) else r for r in results]
    if any("ledger" in r and "command" not in r for r in results):    # kept short (_kept_result)
        rolls = {row.hash[:8]: row for row in m.RollRecord.select().where(m.RollRecord.message_id == message.message_id)}
        results = [{**repo.ledger_view(rolls[r["ledger"]]), **r} if "command" not in r and r.get("ledger") in rolls
                   else r for r in results]
    return PostOutcome(
        message_id=message.message_id,
        campaign=stored.get("campaign"),
        author=message.author,
        status=status,
        errors=stored.get("errors", []),
        results=results,
        replies=[],
        reason=reason or f"first handled with status {message.status}",
    )


def finish(base: PostOutcome, record: dict, campaign) -> PostOutcome:
    """Record a message that needs no reply (ignored), so a second copy is a duplicate."""
    with m.db.atomic():
        m.Message.create(**record, campaign=campaign, status=base.status, result=base.to_dict())
    return base
