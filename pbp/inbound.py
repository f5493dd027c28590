"""Reading and applying as separate roles, so several daemons share one mailbox's load.

With PostgreSQL and ``[daemon] apply_workers = N`` a mailbox's watcher only *reads*: each
batch it fetches is stored in ``inboundmail`` (:func:`store`, one transaction, a UID stored
twice is ignored), then flagged handled on the server. *Apply workers* (N threads in every
daemon, each with its own connection) take the stored mail one at a time (:func:`apply_next`):

* a worker claims the oldest stored mail whose campaign has no older mail waiting, with
  ``FOR UPDATE SKIP LOCKED`` (as procrastinate and Solid Queue do): workers never wait
  for each other, and a campaign's posts are applied in the order they were read, since
  a newer post of a campaign is not eligible while an older one is stored, even one being
  applied by another worker (its row is still there until that transaction commits);
* the post is applied by :func:`pbp.pipeline.process_message` and the stored mail deleted
  in the same transaction: applied once, even when a worker dies (its transaction and its
  row lock go with it, and another worker takes the mail).

The campaign is found when the mail is read (:func:`route_key`, the pipeline's own
routing), so the queue can keep each campaign's order without applying anything. Mail that
routes to no campaign has no order to keep. One reader per mailbox (its lease,
:mod:`pbp.leases`), as many apply workers as the database and the cores allow.
"""
from __future__ import annotations

import logging

from pbp import adapters
from pbp.leases import campaign_writes
from pbp.flow.context import Context, PostOutcome
from pbp.pipeline import process_message, route
from pbp.store import models as m

log = logging.getLogger("pbp.daemon")

#: The claim: the oldest stored mail whose campaign has nothing older waiting.
CLAIM_SQL = """
SELECT id FROM inboundmail AS i
WHERE NOT EXISTS (SELECT 1 FROM inboundmail AS o WHERE o.route_key = i.route_key AND o.id < i.id)
ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED
"""


def route_key(raw: bytes, ctx: Context, campaign_slug: str | None) -> int | None:
    """The id of the campaign the pipeline will route this mail to, or None."""
    try:
        post = adapters.read_mail(raw, ctx.config)
        campaign = None if post.ignored else route(post, campaign_slug=campaign_slug)
    except Exception:  # the pipeline will say what is wrong with it; no order to keep
        return None
    return campaign.id if campaign is not None else None


def store(items, ctx: Context, campaign_slug: str | None) -> int:
    """Store a fetched batch durably (one transaction); returns how many rows are new."""
    rows = [dict(mailbox=item.mailbox, uidvalidity=item.uidvalidity, uid=item.uid, raw=item.raw, size=item.size,
                 campaign_slug=campaign_slug, route_key=route_key(item.raw, ctx, campaign_slug)) for item in items]
    if not rows:
        return 0
    with m.db.atomic():
        return m.InboundMail.insert_many(rows).on_conflict_ignore().execute() or 0


def apply_next(ctx: Context) -> PostOutcome | None:
    """Claim the next stored mail any campaign may take, apply it and delete it, in one
    transaction; None when nothing is eligible now."""
    with campaign_writes():   # a transaction (PostgreSQL): the claim, the post, the delete
        found = m.db.execute_sql(CLAIM_SQL).fetchone()
        if found is None:
            return None
        row = m.InboundMail.get_by_id(found[0])
        outcome = process_message(bytes(row.raw), ctx, mailbox=row.mailbox, uidvalidity=row.uidvalidity,
                                  uid=row.uid, campaign_slug=row.campaign_slug, size=row.size)
        m.InboundMail.delete().where(m.InboundMail.id == row.id).execute()
    return outcome


def waiting() -> int:
    """How many stored mails wait to be applied."""
    return m.InboundMail.select().count()
