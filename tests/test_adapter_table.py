"""The adapter table (issue 22, item 1): one ordered table of post adapters asked in one
place, adapters that are given values and read no database, outbox rows that carry their
channel and thread. A third adapter is a class of about forty lines: the chat adapter
below plays the whole warehouse conflict (tests/golden/whole_conflict) and its players
read what they read by mail."""
from __future__ import annotations

import ast
import json
import re
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from pbp import adapters
from pbp.flow.context import Context
from pbp.flow.deadlines import apply_deadlines
from pbp.pipeline import process_post
from pbp.posts import Claim, NeutralPost, ThreadRef, Written, thread_from_dict
from pbp.rules.dice import FixedDice
from pbp.store import models as m
from tests.play import golden
from tests.play.table import MailTable, Reply, Step, address

PACKAGE = Path(__file__).resolve().parent.parent / "pbp"


# --------------------------------------------------------------------------- a third adapter


@dataclass(frozen=True)
class ChatLine:
    """A line said in a chat room: its room, author (a member's address), text and id, and
    the id of the line it answers."""
    room: str
    author: str
    text: str
    id: str = field(default_factory=lambda: f"chat-{uuid.uuid4().hex}")
    answers: str | None = None


class ChatAdapter:
    """A campaign whose binding names a chat ``room`` plays there: lines in, lines out."""
    channel = "chat"
    markdown = False
    needs_members = False

    def claims(self, arrival, bindings, config):
        if not isinstance(arrival, ChatLine):
            return None
        found = next((b for b in bindings() if b.forum.get("room") == arrival.room), None)
        return Claim(found.slug if found is not None else None)

    def read(self, arrival, roster, config):
        return NeutralPost(source=self.channel, id=arrival.id, author=arrival.author, subject=f"#{arrival.room}",
                           new_text=arrival.text, campaign=roster.slug if roster is not None else None,
                           thread=ThreadRef(source=self.channel, id=arrival.id, parent=arrival.answers,
                                            topic=arrival.room))

    def serves(self, campaign, config):
        return bool(campaign.forum.get("room"))

    def write(self, reply, roster, *, config, now):
        room = roster.forum["room"]
        line = {"room": room, "audience": reply.audience.value, "to": list(reply.to), "text": reply.text}
        own = f"chat-{uuid.uuid4().hex}"
        return [Written(id=own, sender=f"chat:{room}", recipients=list(reply.to), subject=f"#{room}",
                        in_reply_to=reply.thread.id if reply.thread else None, raw=json.dumps(line),
                        channel=self.channel, thread=ThreadRef(source=self.channel, id=own, topic=room))]


TABLE = [ChatAdapter(), *adapters.TABLE]


@dataclass
class ChatTable(MailTable):
    """The golden conversations' table, each post a line in room #warehouse."""

    def _context(self, dice):
        return Context(config=self.config, dice=dice, clock=lambda: self.now, adapters=TABLE)

    def post(self, who, body, *, dice="", reply_to=None, at=None, subject=None, references=True) -> Step:
        self.count += 1
        self.now = at or (self.now + self.step)
        answers = reply_to.replies[0].message_id if reply_to is not None and reply_to.replies else None
        line = ChatLine("warehouse", address(who), body, id=f"line-{self.count}", answers=answers)
        dice_source = FixedDice(dice or "")
        outcome = process_post(adapters.read(line, self.config, TABLE), self._context(dice_source))
        if outcome.status == "applied":
            assert dice_source.remaining == 0, f"line {self.count}: throws left unused"
        step = Step(outcome, [said(r["message_id"]) for r in outcome.replies])
        self.steps.append(step)
        return step

    def tick(self, at, *, dice="") -> Step:
        self.now = at
        before = m.OutboxMail.select(m.OutboxMail.id).order_by(m.OutboxMail.id.desc()).first()
        apply_deadlines(self._context(FixedDice(dice or "")))
        rows = m.OutboxMail.select().where(m.OutboxMail.id > (before.id if before else 0)).order_by(m.OutboxMail.id)
        step = Step(None, [said(r.message_id) for r in rows])
        self.steps.append(step)
        return step


def said(message_id: str) -> Reply:
    row = m.OutboxMail.get(m.OutboxMail.message_id == message_id)
    assert row.channel == "chat", f"a {row.channel} row in a chat campaign"
    line = json.loads(row.raw)
    return Reply(to=list(row.recipients), subject=row.subject, text=line["text"], message_id=message_id)


def without_subjects(transcript: str) -> str:
    return "\n".join(line for line in transcript.splitlines() if not line.startswith("--- subject:"))


def test_a_chat_adapter_of_forty_lines_plays_the_whole_conflict(chicago, config):
    """The whole warehouse conflict (67 posts, deadlines, defences, concessions) in a chat
    room: every post reaches the table through the adapter table, every answer leaves
    through it as a chat line, and each says, to the same people, what the mail said."""
    m.Campaign.update(forum={"room": "warehouse"}).where(m.Campaign.id == chicago.id).execute()
    table, transcript = golden.play("whole_conflict", config, ChatTable(config))
    expected = (golden.GOLDEN / "whole_conflict" / "expected.txt").read_text(encoding="utf-8")
    assert without_subjects(transcript) == without_subjects(expected)
    assert m.RollRecord.select().count() > 10
    channels = {row.channel for row in m.OutboxMail.select()}
    assert channels == {"chat"}
    # a deadline round answered in a thread it found from a stored reference
    assert all(thread_from_dict(row.thread).topic == "warehouse" for row in m.OutboxMail.select())


def test_the_first_adapter_that_claims_an_arrival_reads_it(chicago, config):
    from pbp.mail.adapter import MailArrival
    from tests.helpers import eml

    m.Campaign.update(forum={"room": "warehouse"}).where(m.Campaign.id == chicago.id).execute()
    line = adapters.read(ChatLine("warehouse", "ruth@pbp.localhost", "/roll Fight"), config, TABLE)
    assert (line.source, line.campaign) == ("chat", chicago.slug)
    mail = adapters.read(MailArrival(eml("/roll Fight", sender="ruth@pbp.localhost")), config, TABLE)
    assert mail.source == "mail"
    campaign = m.Campaign.get_by_id(chicago.id)
    assert adapters.writer(campaign, config, TABLE).channel == "chat"
    assert adapters.writer(campaign, config).channel == "mail"   # the house table has no chat adapter


# --------------------------------------------------------------------------- the structural facts


def _imports(path: Path) -> set[str]:
    """Every module a file imports, at any level (functions included)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found |= {f"{node.module}.{a.name}" for a in node.names}
    return found


def _modules(folder: str) -> list[Path]:
    return sorted((PACKAGE / folder).glob("*.py"))


def test_no_adapter_module_imports_the_store():
    for path in [*_modules("mail"), *_modules("forum")]:
        bad = {i for i in _imports(path) if i == "pbp.store" or i.startswith("pbp.store.")}
        # nor a module that reads members for them (pbp.members, pbp.campaigns)
        bad |= {i for i in _imports(path) if i in ("pbp.members", "pbp.campaigns", "pbp.pipeline")}
        assert not bad, f"{path.relative_to(PACKAGE.parent)} imports {sorted(bad)}: adapters are given values"


def test_mail_imports_nothing_of_the_forum():
    for path in _modules("mail"):
        bad = {i for i in _imports(path) if i == "pbp.forum" or i.startswith("pbp.forum.")}
        assert not bad, f"{path.relative_to(PACKAGE.parent)} imports {sorted(bad)}"


def test_the_pipeline_names_no_adapter():
    source = (PACKAGE / "pipeline.py").read_text(encoding="utf-8")
    imports = _imports(PACKAGE / "pipeline.py")
    adapter_modules = {"pbp.mail.adapter", "pbp.mail.compose", "pbp.forum"}
    assert not {i for i in imports if any(i == a or i.startswith(a + ".") for a in adapter_modules)}
    code = "\n".join(line for line in source.splitlines() if not line.lstrip().startswith("#"))
    code = re.sub(r'"""[\s\S]*?"""', "", code)
    assert not re.search(r"\b(bymail|byapi|mail_adapter|write_mail|discourse)\b", code, re.I)


def test_no_row_is_told_apart_by_its_sender_or_its_bytes():
    """Rows are told apart by their channel, threads read from their stored reference:
    nothing in the package looks at a sender's prefix or a stored mail's X-PBP-Topic."""
    for path in PACKAGE.rglob("*.py"):
        if path.name == "migrations.py":   # version 14 reads the old rows once
            continue
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"sender\.startswith\(|SENDER_PREFIX\)|contains\(\"X-PBP-Topic", text), path
        assert 'headers.get("X-PBP-Topic")' not in text, path


def test_the_adapter_table_is_asked_in_one_place():
    """Only pbp/adapters.py chooses an adapter: no other module calls ``serves`` or
    ``claims``, or the old per-adapter tests (``bound(``, ``active(``) outside the adapters."""
    for path in PACKAGE.rglob("*.py"):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel in ("adapters.py", "posts.py") or rel.startswith(("mail/", "forum/")):
            continue
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"\.(serves|claims)\(|bymail\.bound\(|byapi\.active\(", text), rel
