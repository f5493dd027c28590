"""Playing a campaign in a Discourse topic in tests: each post is the mail Discourse's
mailing-list mode sends for it (tests/forum/discourse_mail.py), through the same pipeline
as the mail golden tests; members without a forum username post by mail. The replies are
read back from the outbox: the forum's Markdown answer, and the mails."""
from __future__ import annotations

import email
from dataclasses import dataclass
from email import policy

from pbp.flow.context import Context
from pbp.pipeline import process_message
from pbp.rules.dice import FixedDice
from pbp.store import models as m
from tests.helpers import eml, plain_text
from tests.play.table import MailTable, Reply, Step, address

from .discourse_mail import BOT_ADDRESS, discourse_mail, receiver_refuses

#: who posts on the forum, by their forum username; the others post by mail
FORUM_NAMES = {"GM": "tess_gm", "Ruth": "ruth", "Cassandra": "cassandra_v"}
FIRST_POST = 1000


@dataclass
class ForumTable(MailTable):
    """A table in topic 12: step N is post FIRST_POST + N (step 1 opens the topic); ``reply``
    answers that step's post."""

    def post(self, who: str, body: str, *, dice: str = "", reply_to: Step | None = None, at=None,
             subject: str | None = None) -> Step:
        self.count += 1
        self.now = at or (self.now + self.step)
        if who in FORUM_NAMES:
            parent = getattr(reply_to, "post_id", None)
            # a current site's mail: <discourse/post/ID@host>, X-Discourse ids, "NAME via SITE"
            raw = discourse_mail(body, poster=FORUM_NAMES[who], post=None if self.count == 1 else FIRST_POST + self.count,
                                 number=self.count, parent=parent, key=f"key{self.count}", title="The Warehouse",
                                 style="current", first=FIRST_POST + 1, via=True)
        else:
            raw = eml(body, sender=address(who), to=BOT_ADDRESS, message_id=f"mail-{self.count}@pbp.test",
                      subject="Re: [Chicago Nights] The Warehouse")
        dice_source = FixedDice(dice or "")
        outcome = process_message(raw, Context(config=self.config, dice=dice_source, clock=lambda: self.now))
        if outcome.status == "applied":
            assert dice_source.remaining == 0, f"post {self.count}: {dice_source.remaining} fixed throws left unused"
        step = Step(outcome, [read(r["message_id"]) for r in outcome.replies])
        step.post_id = FIRST_POST + self.count if who in FORUM_NAMES and self.count > 1 else None
        self.steps.append(step)
        return step

    def tick(self, at, *, dice: str = "") -> Step:
        """The daemon's periodic deadline job, with the clock at ``at``."""
        from pbp.flow.deadlines import apply_deadlines

        self.now = at
        before = m.OutboxMail.select(m.OutboxMail.id).order_by(m.OutboxMail.id.desc()).first()
        dice_source = FixedDice(dice or "")
        apply_deadlines(Context(config=self.config, dice=dice_source, clock=lambda: at))
        assert dice_source.remaining == 0, f"tick at {at}: {dice_source.remaining} fixed throws left unused"
        rows = m.OutboxMail.select().where(m.OutboxMail.id > (before.id if before else 0)).order_by(m.OutboxMail.id)
        step = Step(None, [read(r.message_id) for r in rows])
        self.steps.append(step)
        return step


def read(message_id: str) -> Reply:
    """A reply as its reader sees it: a forum answer's Markdown (checked against the
    receiver's refusal rules on the way), or a mail's plain text."""
    row = m.OutboxMail.get(m.OutboxMail.message_id == message_id)
    if row.channel == "discourse":   # a request the API path posts (pbp.forum.byapi)
        import json

        data = json.loads(row.raw)
        kind = "(forum post)" if data["audience"] == "table" else "(private message)"
        return Reply(to=list(row.recipients), subject=kind, text=data["raw"], message_id=message_id)
    msg = email.message_from_string(row.raw, policy=policy.default)
    if msg["X-PBP-Topic"]:
        problems = receiver_refuses(row.raw.encode(), key_user_address=BOT_ADDRESS)
        assert not problems, f"Discourse would refuse the answer to {row.recipients}: {problems}"
        text = msg.get_body(("plain",)).get_content()
        return Reply(to=list(row.recipients), subject="(forum post)", text=text, message_id=message_id)
    return Reply(to=list(row.recipients), subject=row.subject, text=plain_text(msg), message_id=message_id,
                 references=[r.strip("<>") for r in (msg["References"] or "").split()])


@dataclass
class ApiForumTable(ForumTable):
    """The same table played through the forum's API: each forum post is what
    ``GET /posts.json`` gives for it (built from Discourse's published schema by
    ``item``, tests/forum/conftest.py's ``latest_item``) and goes through
    ``byapi.post_from`` and ``process_post``; the answers are the outbox's forum requests
    (their ``raw``) and the mails. ``item`` is a callable (post id, **fields) -> JSON item."""

    item: object = None
    site: str = "forum.example.org"
    bot: str = "pbp-bot"

    def post(self, who: str, body: str, *, dice: str = "", reply_to: Step | None = None, at=None,
             subject: str | None = None) -> Step:
        if who not in FORUM_NAMES:
            return super().post(who, body, dice=dice, reply_to=reply_to, at=at, subject=subject)
        from pbp.adapters import ApiArrival, read as read_arrival
        from pbp.forum.discourse import parse_post
        from pbp.pipeline import process_post

        self.count += 1
        self.now = at or (self.now + self.step)
        parent = getattr(reply_to, "post_number", None)
        inbound = parse_post(self.item(FIRST_POST + self.count, username=FORUM_NAMES[who], raw=body, topic_id=12,
                                       post_number=self.count, reply_to_post_number=parent, category_id=5,
                                       created_at=self.now.strftime("%Y-%m-%dT%H:%M:%S.000Z")), site=self.site)
        dice_source = FixedDice(dice or "")
        outcome = process_post(read_arrival(ApiArrival(inbound, bot=self.bot), self.config),
                               Context(config=self.config, dice=dice_source, clock=lambda: self.now))
        if outcome.status == "applied":
            assert dice_source.remaining == 0, f"post {self.count}: {dice_source.remaining} fixed throws left unused"
        step = Step(outcome, [read(r["message_id"]) for r in outcome.replies])
        step.post_id = FIRST_POST + self.count if self.count > 1 else None
        step.post_number = str(self.count)
        self.steps.append(step)
        return step
