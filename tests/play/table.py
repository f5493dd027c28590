"""Playing a campaign by mail in tests: each post goes through the real pipeline with its
own fixed dice and clock, and its replies are read back from the outbox."""
from __future__ import annotations

import email
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from email import policy

from pbp.flow.context import Context
from pbp.flow.deadlines import apply_deadlines
from pbp.pipeline import process_message
from pbp.rules.dice import FixedDice, RandomDice
from pbp.store import models as m
from tests.helpers import FIXED_NOW, eml, plain_text

ADDRESS = {"GM": "gm@pbp.localhost"}


def address(who: str) -> str:
    return ADDRESS.get(who, who if "@" in who else f"{who.lower()}@pbp.localhost")


@dataclass
class Reply:
    to: list[str]
    subject: str
    text: str
    message_id: str
    references: list[str] = field(default_factory=list)
    html: str = ""


@dataclass
class Step:
    outcome: object | None
    replies: list[Reply]

    @property
    def text(self) -> str:
        return self.replies[0].text if self.replies else ""

    @property
    def status(self) -> str:
        return self.outcome.status if self.outcome is not None else "tick"


@dataclass
class MailTable:
    """A table of players writing to the campaign, one post at a time."""

    config: object
    now: datetime = FIXED_NOW
    count: int = 0
    steps: list[Step] = field(default_factory=list)
    step: timedelta = timedelta(minutes=10)
    committed: bool = False     # a post without fixed dice rolls real, committed dice (pbp.store.seeds)

    def post(self, who: str, body: str, *, dice: str = "", reply_to: Step | None = None,
             at: datetime | None = None, subject: str | None = None, references: bool = True) -> Step:
        """A post from ``who``; one that answers ``reply_to`` has that mail's subject with "Re: "
        in front and its id in In-Reply-To and References, as a mail client writes them
        (``references=False``: In-Reply-To alone, as some clients write it)."""
        self.count += 1
        self.now = at or (self.now + self.step)
        extra = ""
        if reply_to is not None and reply_to.replies:
            parent = reply_to.replies[0]
            chain = " ".join(f"<{r}>" for r in [*parent.references, parent.message_id])
            extra = f"In-Reply-To: <{parent.message_id}>\n" + (f"References: {chain}\n" if references else "")
            subject = subject or f"Re: {parent.subject}"
        subject = subject or "The conflict"
        raw = eml(body, sender=address(who), message_id=f"post-{self.count}@pbp.test", subject=subject, extra=extra)
        dice_source = RandomDice() if self.committed and not dice else FixedDice(dice or "")
        outcome = process_message(raw, Context(config=self.config, dice=dice_source, clock=lambda: self.now))
        if outcome.status == "applied" and isinstance(dice_source, FixedDice):
            assert dice_source.remaining == 0, f"post {self.count}: {dice_source.remaining} fixed throws left unused"
        step = Step(outcome, [_read(r["message_id"]) for r in outcome.replies])
        self.steps.append(step)
        return step

    def tick(self, at: datetime, *, dice: str = "") -> Step:
        """The daemon's periodic deadline job, with the clock at ``at``."""
        self.now = at
        before = m.OutboxMail.select(m.OutboxMail.id).order_by(m.OutboxMail.id.desc()).first()
        dice_source = FixedDice(dice or "")
        apply_deadlines(Context(config=self.config, dice=dice_source, clock=lambda: at))
        assert dice_source.remaining == 0, f"tick at {at}: {dice_source.remaining} fixed throws left unused"
        rows = m.OutboxMail.select().where(m.OutboxMail.id > (before.id if before else 0)).order_by(m.OutboxMail.id)
        step = Step(None, [_read(r.message_id) for r in rows])
        self.steps.append(step)
        return step


def _read(message_id: str) -> Reply:
    row = m.OutboxMail.get(m.OutboxMail.message_id == message_id)
    msg = email.message_from_string(row.raw, policy=policy.default)
    text = plain_text(msg)
    refs = [r.strip("<>") for r in (msg["References"] or "").split()]
    html = msg.get_body(("html",)).get_content()
    return Reply(to=list(row.recipients), subject=row.subject, text=text, message_id=message_id, references=refs,
                 html=html)
