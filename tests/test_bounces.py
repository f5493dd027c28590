"""Bounces and list headers (issue 28, item 5): a delivery report (RFC 3464) about the
table's mail is recorded against the member with GNU Mailman 3's bounce score; at the
threshold the GM is told once and the member's mail is held; when they post again the
held mail goes out and the GM is told once more. Table mail carries List-Id, List-Post
and List-Unsubscribe, whose mailto mutes the member (the GM told). A real Postfix
bounces a real table mail, and the bounce is recorded against the member."""
from __future__ import annotations

import email
import time
from datetime import timedelta
from email import policy
from pathlib import Path

import pytest

from pbp import bounces
from pbp.campaigns import add_member
from pbp.mail.bounces import read_report
from pbp.flow.context import Context
from pbp.pipeline import process_message
from pbp.rules.dice import FixedDice
from pbp.store import models as m
from tests.helpers import FIXED_NOW, eml

DATA = Path(__file__).parent / "data" / "dsn"
RUTH = "ruth@pbp.localhost"


def ctx(config, now=FIXED_NOW, dice=""):
    return Context(config=config, dice=FixedDice(dice), clock=lambda: now)


def dsn_for(original_id: str, recipient: str = RUTH, n: int = 1) -> bytes:
    """Postfix's bounce (tests/data/dsn) as it would read for one of pbp's mails."""
    raw = (DATA / "postfix-error-transport.eml").read_text()
    raw = raw.replace("orig-1@pbp.test", original_id).replace("ruth@nowhere.test", recipient)
    return raw.replace("<20261207185706.9502C20C475@mx.pbp.test>", f"<bounce-{n}@mx.pbp.test>").encode()


def table_mail(config, now, n: int) -> m.OutboxMail:
    """A post of Ruth's; the table's answer to it (a row for every member)."""
    out = process_message(eml("Ruth looks around.\n/roll Notice\n", message_id=f"ruth-{n}@pbp.test"),
                          ctx(config, now, "0000"))
    assert out.status == "applied", out.errors
    (row,) = [m.OutboxMail.get(m.OutboxMail.message_id == r["message_id"]) for r in out.replies
              if RUTH in r["to"] and len(r["to"]) > 1]
    return row


def headers(row: m.OutboxMail):
    return email.message_from_string(row.raw, policy=policy.default)


def test_postfixs_report_is_read(tmp_path):
    report = read_report((DATA / "postfix-error-transport.eml").read_bytes())
    assert report.original_id == "orig-1@pbp.test"
    (status,) = report.recipients
    assert (status.address, status.action, status.status, status.failed) == ("ruth@nowhere.test", "failed", "5.1.1",
                                                                               True)
    assert "mailbox unavailable" in status.diagnostic
    assert read_report(eml("/roll Notice")) is None    # a post is no report
    assert read_report(b"Content-Type: multipart/report; report-type=delivery-status\n\nbroken") is None


def test_a_bounce_is_scored_once_a_day_and_at_five_the_gm_is_told_once_and_mail_held(chicago, config):
    row = table_mail(config, FIXED_NOW, 0)
    gm_mails = []
    for day in range(7):
        now = FIXED_NOW + timedelta(days=day, hours=1)
        for again in range(2):       # two bounces on one day count once
            out = process_message(dsn_for(row.message_id, n=day * 2 + again), ctx(config, now))
            assert out.status == "ignored" and out.campaign == chicago.slug
            gm_mails += out.replies
        member = m.Member.get(m.Member.email == RUTH)
        assert member.bounce_score == min(day + 1, 7)
    assert m.BounceEvent.select().where(m.BounceEvent.email == RUTH).count() == 14
    # told once, on the fifth day, and only the GM
    (told,) = gm_mails
    assert told["to"] == ["gm@pbp.localhost"] and RUTH in told["subject"]
    notice = m.OutboxMail.get(m.OutboxMail.message_id == told["message_id"])
    assert "5.1.1" in headers(notice).get_body(("plain",)).get_content()
    # the table's mail to Ruth now waits; the others get theirs
    later = FIXED_NOW + timedelta(days=8)
    out = process_message(eml("/roll Notice\n", sender="cassandra@pbp.localhost", message_id="cass-1@pbp.test"),
                          ctx(config, later, "0000"))
    assert out.status == "applied"
    assert all(RUTH not in r["to"] for r in out.replies)
    (held,) = m.OutboxMail.select().where(m.OutboxMail.status == "held")
    assert held.recipients == [RUTH] and held.source_id == "cass-1@pbp.test"
    # Ruth posts again from that address: it works; the held mail goes, the GM is told once
    out = process_message(eml("/roll Notice\n", message_id="ruth-back@pbp.test"), ctx(config, later, "0000"))
    assert out.status == "applied"
    assert m.OutboxMail.get_by_id(held.id).status == "pending"
    works = [r for r in m.OutboxMail.select().where(m.OutboxMail.subject.contains("works again"))]
    assert len(works) == 1 and works[0].recipients == ["gm@pbp.localhost"]
    assert m.Member.get(m.Member.email == RUTH).bounce_score == 0
    out = process_message(eml("/roll Notice\n", message_id="ruth-back-2@pbp.test"), ctx(config, later, "0000"))
    assert m.OutboxMail.select().where(m.OutboxMail.subject.contains("works again")).count() == 1


def test_a_stale_score_starts_again(chicago, config):
    row = table_mail(config, FIXED_NOW, 0)
    for n, day in enumerate((0, 1, 2, 12)):     # the fourth comes more than seven days after the third
        process_message(dsn_for(row.message_id, n=n), ctx(config, FIXED_NOW + timedelta(days=day)))
    assert m.Member.get(m.Member.email == RUTH).bounce_score == 1


def test_a_report_about_no_mail_of_pbps_or_a_delivered_one_scores_nothing(chicago, config):
    out = process_message(dsn_for("someone-elses@example.org"), ctx(config))
    assert out.status == "ignored" and out.campaign is None and not out.replies
    row = table_mail(config, FIXED_NOW, 0)
    delivered = dsn_for(row.message_id, n=2).replace(b"Action: failed", b"Action: delivered").replace(b"5.1.1", b"2.0.0")
    process_message(delivered, ctx(config))
    assert m.Member.get(m.Member.email == RUTH).bounce_score == 0
    assert m.BounceEvent.get().action == "delivered"


def test_table_mail_carries_list_headers_and_private_mail_does_not(chicago, config):
    row = table_mail(config, FIXED_NOW, 0)
    msg = headers(row)
    assert msg["List-Id"] == '"Chicago Nights" <chicago.pbp.test>'
    sender = msg["From"].addresses[0].addr_spec
    assert msg["List-Post"] == f"<mailto:{sender}>"
    assert msg["List-Unsubscribe"] == f"<mailto:{sender}?subject=mute>"
    out = process_message(eml("/roll Notice\n/scene start Nope zones\n", message_id="bad@pbp.test"), ctx(config))
    (error,) = [m.OutboxMail.get(m.OutboxMail.message_id == r["message_id"]) for r in out.replies]
    assert error.recipients == [RUTH] and headers(error)["List-Id"] is None


def test_the_unsubscribe_mailto_mutes_the_member_and_tells_the_gm(chicago, config):
    msg = headers(table_mail(config, FIXED_NOW, 0))
    target = msg["List-Unsubscribe"].strip("<>").removeprefix("mailto:")
    address, _, query = target.partition("?")
    assert query == "subject=mute"
    out = process_message(eml("", sender="cassandra@pbp.localhost", to=address, subject="mute",
                              message_id="mute-1@pbp.test"), ctx(config))
    assert out.status == "ignored" and "muted" in out.reason
    (told,) = out.replies
    assert told["to"] == ["gm@pbp.localhost"] and "cassandra@pbp.localhost muted" in told["subject"]
    out = process_message(eml("/roll Notice\n", message_id="ruth-2@pbp.test"), ctx(config, dice="0000"))
    table = [r for r in out.replies if RUTH in r["to"]]
    assert table and all("cassandra@pbp.localhost" not in r["to"] for r in out.replies)
    # still a member: her post plays
    out = process_message(eml("/roll Notice\n", sender="cassandra@pbp.localhost", message_id="cass-2@pbp.test"),
                          ctx(config, dice="0000"))
    assert out.status == "applied"
    out = process_message(eml("", sender="cassandra@pbp.localhost", to=address, subject="Re: unmute",
                              message_id="unmute-1@pbp.test"), ctx(config))
    assert "unmuted" in out.replies[0]["subject"]
    out = process_message(eml("/roll Notice\n", message_id="ruth-3@pbp.test"), ctx(config, dice="0000"))
    assert any("cassandra@pbp.localhost" in r["to"] for r in out.replies)


@pytest.mark.live
def test_a_bounce_from_a_real_postfix_is_recorded_against_the_member(chicago, tmp_path, dovecot, tls_ca):
    """Postfix from Debian takes the table's mail over SMTP, hands the copy for
    ruth@nowhere.test to its error transport, and delivers its own bounce (RFC 3464) over
    LMTP to the table's mailbox in the rig's Dovecot; pbp reads it from there."""
    from pbp.config import load_config
    from pbp.delivery import deliver_outbox
    from tests.rig.fixtures import TABLE_USER
    from tests.rig.postfix import DEAD_DOMAIN, Postfix

    dead = f"ruth@{DEAD_DOMAIN}"
    add_member(chicago, dead)
    dovecot.clear_all()
    with Postfix("example.test", dovecot.lmtp_port) as postfix:
        path = tmp_path / "pbp.toml"
        path.write_text(f"""
[database]
url = "sqlite:///{tmp_path / 'pbp.db'}"
[mail]
transport = "imap"
domain = "pbp.test"
from_address = "{TABLE_USER}"
[imap]
host = "127.0.0.1"
port = {dovecot.imap_port}
security = "plain"
username = "{TABLE_USER}"
password_env = "PBP_IMAP_PASSWORD"
[smtp]
host = "127.0.0.1"
port = {postfix.port}
security = "plain"
timeout = 10
""")
        config = load_config(path)
        m.Campaign.update(address=TABLE_USER).where(m.Campaign.id == chicago.id).execute()
        out = process_message(eml("Ruth looks around.\n/roll Notice\n", message_id="ruth-live@pbp.test"),
                              ctx(config, dice="0000"))
        assert out.status == "applied"
        table = next(r for r in out.replies if dead in r["to"])
        assert deliver_outbox(config) >= 1
        postfix.wait_in_log("sender non-delivery notification")
        for _ in range(100):
            found = [s for s in dovecot.messages(TABLE_USER) if b"delivery-status" in s.raw]
            if found:
                break
            time.sleep(0.1)
        else:
            raise AssertionError(f"no bounce reached the mailbox:\n{postfix.log_tail()}")
        out = process_message(found[0].raw, ctx(config))
    assert out.status == "ignored" and out.campaign == chicago.slug and dead in out.reason
    # (the other members' pbp.localhost has no mail server: Postfix bounces theirs in the same report)
    (event,) = m.BounceEvent.select().where(m.BounceEvent.email == dead)
    assert (event.email, event.action, event.status, event.message_id) == (dead, "failed", "5.1.1",
                                                                           table["message_id"])
    assert "mx.example.test" in event.reporter
    assert m.Member.get(m.Member.email == dead).bounce_score == 1
