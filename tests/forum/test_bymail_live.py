"""Discourse by mail end to end on the real rig: Discourse-shaped list mails are appended
to the bot's Dovecot mailbox, the daemon reads them over IMAP and answers over SMTP
(STARTTLS + AUTH). One answer per post id, to its reply-key address, from the bot's
address, passing the receiver's refusal rules (tests/forum/discourse_mail.py); and the
crash points of the mail path hold for a forum post as they do for a mail."""
from __future__ import annotations

import email
import email.policy

import pytest

from pbp import faults
from pbp.store import models as m
from tests.test_daemon_live import daemon, env, run_child, set_up_table, write_config  # noqa: F401 (fixtures)

from .discourse_mail import BOT, LIST_ID, SITE, discourse_mail, receiver_refuses

pytestmark = pytest.mark.live


@pytest.fixture
def forum_table(tmp_path, mailbox, smtp_auth_server, tls_ca, env):  # noqa: F811
    """The Chicago campaign bound to the forum's Game Table category; the rig's table@
    mailbox is the bot account's address. Ruth and Charles play on the forum, the others
    by mail."""
    config = set_up_table(write_config(tmp_path, mailbox, smtp_auth_server, tls_ca), mailbox.user)
    from pbp.campaigns import add_member, bind_forum, get_campaign

    campaign = get_campaign("chicago")
    bind_forum(campaign, site=SITE, list_id=LIST_ID, bot=BOT)
    add_member(campaign, "ruth@pbp.localhost", forum_username="ruth")
    add_member(campaign, "charles@pbp.localhost", forum_username="charles_d")
    add_member(campaign, "gm@pbp.localhost", "gm", forum_username="tess_gm")
    return config


def to_forum(received) -> list:
    return [r for r in received if any(a.startswith("replies+") for a in r.rcpt_tos)]


def body(raw: bytes) -> str:
    return email.message_from_bytes(raw, policy=email.policy.default).get_body(("plain",)).get_content()


def test_forum_posts_in_one_answer_per_post_out(forum_table, mailbox, smtp_auth_server, env):
    to = mailbox.user
    mailbox.append(discourse_mail("Ruth searches the dock.\n\n/overcome Investigate vs Fair\n", poster="ruth",
                                  to=to, key="k1"))                                      # a topic's first post
    mailbox.append(discourse_mail("Ruth searches the dock.\n\n/overcome Investigate vs Fair\n", poster="ruth",
                                  to=to, key="k1", random="copy2"))                      # the same post, again
    mailbox.append(discourse_mail("Charles too.\n/overcome Investigate vs Fair\n", poster="charles_d", to=to,
                                  post=345, number=2, key="k2"))                          # a reply
    mailbox.append(discourse_mail("And again!\n/overcome Investigate vs Mediocre\n", poster="ruth", to=to,
                                  post=346, number=3, parent=345, key="k3"))              # a reply to a reply
    mailbox.append(discourse_mail("Charles too (edited).\n/overcome Investigate vs Great\n", poster="charles_d",
                                  to=to, post=345, number=2, key="k2", random="edit"))    # an edit notice
    mailbox.append(discourse_mail("**Ruth overcomes** with Investigate\n", poster=BOT, to=to, post=347, key="k4"))
    d = daemon(forum_table, env, dice="0+00,0000,++00")
    assert d.run_once() == 6
    forum = to_forum(smtp_auth_server.received)
    assert sorted(r.rcpt_tos for r in forum) == [(f"replies+k{n}@{SITE}",) for n in (1, 2, 3)]
    for got in forum:
        assert got.mail_from == mailbox.user and got.tls and got.login
        assert receiver_refuses(got.raw, key_user_address=mailbox.user) == []
        msg = email.message_from_bytes(got.raw, policy=email.policy.default)
        assert msg["Auto-Submitted"] is None and msg["Precedence"] is None
        assert body(got.raw).startswith("**")       # the result first
    assert m.RollRecord.select().count() == 3
    by_key = {r.rcpt_tos[0]: body(r.raw) for r in forum}
    charles = by_key[f"replies+k2@{SITE}"]
    assert "**Charles overcomes" in charles and "Fair (+2)" in charles and "Great" not in charles   # not the edit
    assert "**Ruth overcomes" in by_key[f"replies+k3@{SITE}"]
    # the members who play by mail got the table's mail of each of the three posts
    by_mail = [r for r in smtp_auth_server.received if r not in forum]
    assert len(by_mail) == 3 and all(set(r.rcpt_tos) == {"cassandra@pbp.localhost", "ethan@pbp.localhost"}
                                     for r in by_mail)
    assert all("\\Seen" in str(s.flags) for s in mailbox.messages())


@pytest.mark.parametrize("point", faults.POINTS)
def test_a_forum_post_killed_at_each_point_is_applied_and_answered_once(point, forum_table, mailbox,
                                                                        smtp_auth_server, env):
    mailbox.append(discourse_mail("/overcome Investigate vs Fair\n", poster="ruth", to=mailbox.user, post=345))
    crashed = run_child(forum_table.path, env, fault=point, dice="0+00")
    assert crashed.returncode == faults.EXIT_CODE, crashed.stderr
    again = run_child(forum_table.path, env, dice="----")
    assert again.returncode == 0, again.stderr
    assert m.RollRecord.select().count() == 1
    forum = to_forum(smtp_auth_server.received)
    assert len(forum) == 1 and forum[0].rcpt_tos == (f"replies+5f3a9c0d1e2b@{SITE}",)
    assert receiver_refuses(forum[0].raw, key_user_address=mailbox.user) == []
    assert all(o.status == "sent" for o in m.OutboxMail.select())
