"""Discourse by mail (docs/forum.md, path 1) through the pipeline: a forum category's
mailing-list mails in, one answer per post id out, to the post's reply-key address, from
the bot's address, with nothing Discourse's receiver refuses; private answers by mail."""
from __future__ import annotations

import email
import email.policy

import pytest

from pbp.forum import bymail
from pbp.pipeline import process_message
from pbp.store import models as m
from tests.helpers import make_ctx

from .discourse_mail import BOT, BOT_ADDRESS, LIST_ID, SITE, discourse_mail, receiver_refuses

REPLY_KEY = f"replies+5f3a9c0d1e2b@{SITE}"


@pytest.fixture
def forum_table(chicago):
    """The sample campaign bound to the forum's Game Table category; Ruth, Charles and the
    GM play on the forum, Cassandra and Ethan by mail."""
    from pbp.campaigns import add_member, bind_forum

    bind_forum(chicago, site=SITE, list_id=LIST_ID, bot=BOT, names="usernames")
    add_member(chicago, "ruth@pbp.localhost", forum_username="ruth")
    add_member(chicago, "charles@pbp.localhost", forum_username="charles_d")
    add_member(chicago, "gm@pbp.localhost", "gm", forum_username="tess_gm")
    return chicago


def outbox() -> list[m.OutboxMail]:
    return list(m.OutboxMail.select().order_by(m.OutboxMail.id))


def parsed(row):
    return email.message_from_string(row.raw, policy=email.policy.default)


def test_a_topics_first_post_is_answered_in_the_topic_from_the_bot(forum_table, config):
    """Fate Condensed, Overcome: Ruth's Investigate Fair (+2)... [0][+][0][0] is +1; the
    answer goes to the reply key, from the bot's own address, Markdown, result first."""
    out = process_message(discourse_mail("Ruth searches the dock.\n\n/overcome Investigate vs Fair\n", poster="ruth"),
                          make_ctx(config, "0+00"))
    assert out.status == "applied", out.errors
    assert out.message_id == f"topic/12@{SITE}"
    forum, by_mail = outbox()
    assert forum.recipients == [REPLY_KEY] and forum.sender == BOT_ADDRESS
    assert receiver_refuses(forum.raw.encode(), key_user_address=BOT_ADDRESS) == []
    msg = parsed(forum)
    assert msg["Auto-Submitted"] is None and msg["Precedence"] is None
    assert msg["In-Reply-To"] == f"<topic/12.a1b2c3@{SITE}>"
    text = msg.get_body(("plain",)).get_content()
    assert text.startswith("**Ruth overcomes with Investigate")   # the result first, not the post relayed
    assert "Ruth searches the dock." not in text
    assert "```text" in text and "=> success" in text
    # the members who play by mail get the table's mail, as a mail table does
    assert sorted(by_mail.recipients) == ["cassandra@pbp.localhost", "ethan@pbp.localhost"]
    assert parsed(by_mail)["Auto-Submitted"] == "auto-replied"


def test_every_copy_of_a_post_and_an_edit_notice_roll_once(forum_table, config):
    post = dict(poster="ruth", post=345, number=2)
    first = process_message(discourse_mail("/overcome Investigate vs Fair\n", **post), make_ctx(config, "0+00"))
    assert first.status == "applied" and first.message_id == f"topic/12/345@{SITE}"
    sent = len(outbox())
    again = process_message(discourse_mail("/overcome Investigate vs Fair\n", random="zz9", **post),
                            make_ctx(config, "++++"))
    edited = process_message(discourse_mail("/overcome Investigate vs Great\n", random="ed1", **post),
                             make_ctx(config, "----"))
    assert again.status == edited.status == "duplicate"
    assert m.RollRecord.select().count() == 1
    assert len(outbox()) == sent   # no answer to a copy, in the topic or by mail


def test_a_reply_to_a_reply_is_answered_under_its_own_key(forum_table, config):
    process_message(discourse_mail("/overcome Investigate vs Fair\n", poster="ruth", post=345, number=2),
                    make_ctx(config, "0+00"))
    out = process_message(discourse_mail("Charles looks too.\n/overcome Investigate vs Fair\n", poster="charles_d",
                                         post=346, number=3, parent=345, key="77aa"),
                          make_ctx(config, "0000"))
    assert out.status == "applied", out.errors
    row = [r for r in outbox() if r.source_id == f"topic/12/346@{SITE}" and r.recipients == [f"replies+77aa@{SITE}"]]
    assert len(row) == 1
    assert "**Charles overcomes" in parsed(row[0]).get_body(("plain",)).get_content()
    stored = m.Message.get(m.Message.message_id == f"topic/12/346@{SITE}")
    assert stored.author == "charles@pbp.localhost"


def test_the_bots_own_post_echoed_back_is_never_answered(forum_table, config):
    out = process_message(discourse_mail("**Ruth overcomes** ... /overcome Investigate vs Fair\n", poster=BOT, post=400),
                          make_ctx(config, "0+00"))
    assert out.status == "ignored" and "own post" in out.reason
    assert outbox() == [] and m.RollRecord.select().count() == 0


def test_a_poster_who_is_no_member_is_ignored_quietly(forum_table, config):
    out = process_message(discourse_mail("/overcome Investigate vs Fair\n", poster="lurker", post=401),
                          make_ctx(config, "0+00"))
    assert out.status == "ignored" and "no member" in out.reason
    assert outbox() == []   # nothing to the forum's noreply address, nothing to the topic


def test_another_forums_list_mail_is_still_refused_by_the_loop_guard(forum_table, config):
    out = process_message(discourse_mail("/overcome Investigate vs Fair\n", poster="ruth", post=402,
                                         list_id="other.forum.example.org"), make_ctx(config, "0+00"))
    assert out.status == "ignored" and "Auto-Submitted" in out.reason
    forged = process_message(discourse_mail("/overcome Investigate vs Fair\n", poster="ruth", post=403,
                                            notify="noreply@evil.example"), make_ctx(config, "0+00"))
    assert forged.status == "ignored"     # the category's List-ID from another domain is not the forum
    assert outbox() == [] and m.RollRecord.select().count() == 0


def test_an_error_goes_to_its_author_by_mail_not_to_the_topic(forum_table, config):
    out = process_message(discourse_mail("/overcome Investigate vs Farr\n", poster="ruth", post=404),
                          make_ctx(config, "0+00"))
    assert out.status == "rejected"
    (row,) = outbox()
    assert row.recipients == ["ruth@pbp.localhost"]
    assert "Farr" in parsed(row).get_body(("plain",)).get_content()


def test_a_bound_campaign_without_the_bots_address_is_refused(chicago):
    from pbp.campaigns import bind_forum
    from pbp.errors import ConfigError

    chicago.address = None
    with pytest.raises(ConfigError, match="no address"):
        bind_forum(chicago, site=SITE, list_id=LIST_ID, bot=BOT, names="usernames")
    with pytest.raises(ConfigError, match="not a host name"):
        chicago.address = BOT_ADDRESS
        bind_forum(chicago, site="forum example", list_id=LIST_ID, bot=BOT)


def test_message_ids_map_to_post_ids():
    assert bymail.normal_id(f"topic/12/345.a1b2@{SITE}") == f"topic/12/345@{SITE}"
    assert bymail.normal_id(f"topic/12.a1b2@{SITE}") == f"topic/12@{SITE}"
    assert bymail.normal_id(f"topic/12/345@{SITE}") == f"topic/12/345@{SITE}"
    assert bymail.normal_id("post-1@pbp.test") is None


def ctx_at(config, when, dice="0000"):
    from pbp.flow.context import Context
    from pbp.rules.dice import FixedDice

    return Context(config=config, dice=FixedDice(dice), clock=lambda: when)


def test_a_defence_prompt_goes_by_mail_and_the_deadline_answers_in_the_topic(forum_table, config):
    """The Ghoul attacks Ruth in the topic (the prompt is in the topic, as it is in the
    table's mail); the reminder is Ruth's alone, by mail; when she does not answer, the
    deadline round is answered in the topic by the reply key of the post that asked
    (docs/forum.md, "Deadline rounds")."""
    from datetime import datetime

    from pbp.flow.deadlines import apply_deadlines

    noon = datetime(2026, 11, 30, 12, 0)
    start = process_message(discourse_mail("/scene start Alley\n/conflict start Ruth, Cassandra, Ghoul first Ghoul\n",
                                           poster="tess_gm", post=500, key="g1"), ctx_at(config, noon))
    assert start.status == "applied", start.errors
    attack = process_message(discourse_mail("/as Ghoul attack Ruth with Fight\n/as Ghoul next Ruth\n",
                                            poster="tess_gm", post=501, key="g2"), ctx_at(config, noon, "++++"))
    assert attack.status == "applied", attack.errors
    (asked,) = [r for r in outbox() if r.recipients == [f"replies+g2@{SITE}"]]
    assert "If you have not answered by Wed 2 Dec 12:00 UTC" in parsed(asked).get_body(("plain",)).get_content()
    before = len(outbox())
    apply_deadlines(ctx_at(config, datetime(2026, 12, 2, 0, 30)))   # the reminder: Ruth's alone, by mail
    assert [r.recipients for r in outbox()[before:]] == [["ruth@pbp.localhost"]]
    before = len(outbox())
    apply_deadlines(ctx_at(config, datetime(2026, 12, 2, 12, 0), "----"))
    due = outbox()[before:]
    forum = [r for r in due if r.recipients == [f"replies+g2@{SITE}"]]
    assert len(forum) == 1
    text = parsed(forum[0]).get_body(("plain",)).get_content()
    assert "Ruth did not answer by Wed 2 Dec 12:00 UTC" in text
    assert receiver_refuses(forum[0].raw.encode(), key_user_address=BOT_ADDRESS) == []


def test_a_post_by_mail_in_a_forum_campaign_is_answered_in_the_topic_and_by_mail(forum_table, config):
    """One table, both ways: Ethan, who has no forum account, posts by mail; the result goes
    to the topic the table last answered in, and by mail to those who play by mail."""
    from tests.helpers import eml

    process_message(discourse_mail("/overcome Investigate vs Fair\n", poster="ruth", post=600, key="r6"),
                    make_ctx(config, "0+00"))
    before = len(outbox())
    out = process_message(eml("Ethan checks the door.\n/overcome Athletics vs Fair\n", sender="ethan@pbp.localhost",
                              to=BOT_ADDRESS, message_id="ethan-1@pbp.test"), make_ctx(config, "++00"))
    assert out.status == "applied", out.errors
    forum, by_mail = outbox()[before:]
    assert forum.recipients == [f"replies+r6@{SITE}"]
    assert "**Ethan overcomes" in parsed(forum).get_body(("plain",)).get_content()
    assert sorted(by_mail.recipients) == ["cassandra@pbp.localhost", "ethan@pbp.localhost"]
    assert "Ethan checks the door." in parsed(by_mail).get_body(("plain",)).get_content()   # relayed by mail
    assert m.RollRecord.select().count() == 2


def test_a_forum_post_of_prose_alone_is_not_answered_in_the_topic(forum_table, config):
    out = process_message(discourse_mail("Ruth lights a cigarette and waits.\n", poster="ruth", post=700),
                          make_ctx(config))
    assert out.status == "applied"
    (by_mail,) = outbox()     # only the members who play by mail hear of it, relayed
    assert sorted(by_mail.recipients) == ["cassandra@pbp.localhost", "ethan@pbp.localhost"]
    assert "Ruth lights a cigarette" in parsed(by_mail).get_body(("plain",)).get_content()
