"""Discourse by its API (docs/forum.md, path 2) wired to the pipeline: the daemon polls
``GET /posts.json`` with a cursor, each post runs through ``process_post``, and the outbox's
forum rows go out as ``POST /posts.json`` (in the topic, or a private message), every request
checked against Discourse's published description and every answer built from its schemas."""
from __future__ import annotations

import pytest

from pbp.config import config_from_dict
from pbp.daemon import Daemon, make_sender
from pbp.rules.dice import FixedDice
from pbp.store import models as m

from .conftest import BOT, latest_item
from .test_client import created, page

SITE = "forum.example.org"


@pytest.fixture
def api_config(tmp_path):
    return config_from_dict({"database": {"url": f"sqlite:///{tmp_path / 'pbp.db'}"},
                             "mail": {"domain": "pbp.test", "from_address": "table@pbp.test"},
                             "maildir": {"inbox": str(tmp_path / "in"), "outbox": str(tmp_path / "out")},
                             "discourse": {"url": f"https://{SITE}", "username": BOT, "categories": [5]}},
                            base=tmp_path)


@pytest.fixture
def api_table(chicago):
    from pbp.campaigns import add_member, bind_forum

    bind_forum(chicago, site=SITE, list_id=f"game-table.{SITE}", bot=BOT, category_id=5)
    add_member(chicago, "ruth@pbp.localhost", forum_username="ruth")
    add_member(chicago, "gm@pbp.localhost", "gm", forum_username="tess_gm")
    return chicago


def daemon_with(config, client, dice):
    d = Daemon(config, dice=FixedDice(dice), environ={"PBP_DISCOURSE_API_KEY": "k"})
    d.forum = client
    d.sender = make_sender(config, forum=client)
    return d


def test_polled_posts_are_resolved_once_and_answered_in_the_topic(api_table, api_config, forum, contract):
    post = latest_item(contract, 42, username="ruth", raw="Ruth searches.\n\n/overcome Investigate vs Fair\n",
                       post_number=3, topic_id=7, category_id=5)
    client, transport, _ = forum(
        ("GET", "/posts.json", None, page(contract, latest_item(contract, 41))),     # the first poll: the cursor
        ("GET", "/posts.json", None, page(contract, post, latest_item(contract, 41))),
        ("POST", "/posts.json", None, created(contract, id=43, post_number=4)),
        ("GET", "/posts.json", None, page(contract, post, latest_item(contract, 41))),   # nothing new
    )
    d = daemon_with(api_config, client, "0+00")
    assert d.run_once() == 0                        # old posts are never rolled
    assert m.MailboxState.get(m.MailboxState.mailbox == f"discourse:{SITE}").last_uid == 41
    assert d.run_once() == 1
    assert m.RollRecord.select().count() == 1
    body = transport.exchanges[2].body
    assert body["topic_id"] == 7 and body["reply_to_post_number"] == 3
    assert body["raw"].startswith("**Ruth overcomes with Investigate") and "Ruth searches." not in body["raw"]
    row = m.OutboxMail.get(m.OutboxMail.sender == f"discourse:{SITE}")
    assert row.status == "sent" and row.recipients == ["topic:7"]
    assert m.Message.get().message_id == f"topic/7/42@{SITE}"   # the id the mail path gives this post too
    # the members who play by mail got the table's mail (the Maildir here)
    mails = list(m.OutboxMail.select().where(m.OutboxMail.sender != f"discourse:{SITE}"))
    assert [sorted(r.recipients) for r in mails] == [["cassandra@pbp.localhost", "charles@pbp.localhost",
                                                      "ethan@pbp.localhost"]]
    assert d.run_once() == 0


def test_an_error_is_a_private_message_to_its_author(api_table, api_config, forum, contract):
    post = latest_item(contract, 42, username="ruth", raw="/overcome Investigate vs Farr\n", category_id=5)
    client, transport, _ = forum(
        ("GET", "/posts.json", None, page(contract, post)),
        ("POST", "/posts.json", None, created(contract, id=43, post_number=1, topic_id=99)),
    )
    d = daemon_with(api_config, client, "")
    m.MailboxState.create(mailbox=f"discourse:{SITE}", last_uid=41)
    assert d.run_once() == 1
    body = transport.exchanges[1].body
    assert body["archetype"] == "private_message" and body["target_recipients"] == "ruth"
    assert "topic_id" not in body and "Farr" in body["raw"]


def test_an_edit_seen_before_its_post_is_the_post(api_table, api_config, forum, contract):
    """pbp was down while Ruth posted and then fixed a typo: the poll's first sight of post
    42 is version 2. pbp never read version 1, so nothing was rolled: the edit is the post
    and rolls once (Fate Condensed, Overcome: Investigate Fair +2 with [0][+][0][0] is +3)."""
    edited = latest_item(contract, 42, username="ruth", raw="/overcome Investigate vs Fair\n", version=2,
                         category_id=5)
    client, transport, _ = forum(("GET", "/posts.json", None, page(contract, edited)),
                                 ("POST", "/posts.json", None, created(contract, id=43, post_number=4)))
    d = daemon_with(api_config, client, "0+00")
    m.MailboxState.create(mailbox=f"discourse:{SITE}", last_uid=41)
    assert d.run_once() == 1
    assert m.RollRecord.select().count() == 1
    assert m.Message.get().status == "applied"


def test_an_edit_of_a_post_before_pbps_time_never_rolls(api_table, api_config, forum, contract):
    """A webhook's ``post_edited`` for post 30, below the poll's cursor (41) and never read:
    a post from before pbp read the forum (the first poll starts at the newest). Edited
    today, it is shown to nobody and never rolled."""
    from pbp.forum.discourse import parse_post

    old = parse_post(latest_item(contract, 30, username="ruth", raw="/overcome Investigate vs Fair\n", version=3,
                                 category_id=5), site=SITE, edited=True)
    client, _, _ = forum()
    d = daemon_with(api_config, client, "")
    m.MailboxState.create(mailbox=f"discourse:{SITE}", last_uid=41)
    outcome = d.forum_post(old)
    assert outcome.status == "ignored" and "an edit" in outcome.reason
    assert m.RollRecord.select().count() == 0 and m.OutboxMail.select().count() == 0


def test_a_post_pbp_fails_on_is_recorded_and_does_not_block_the_poll(api_table, api_config, forum, contract,
                                                                     monkeypatch):
    import pbp.pipeline

    def broken(*args, **kwargs):
        raise RuntimeError("a bug")

    monkeypatch.setattr(pbp.pipeline, "_apply", broken)
    posts = [latest_item(contract, n, username="ruth", raw="/overcome Investigate vs Fair\n", category_id=5)
             for n in (43, 42)]
    client, transport, _ = forum(
        ("GET", "/posts.json", None, page(contract, *posts)),
        ("POST", "/posts.json", None, created(contract, id=44, post_number=1, topic_id=99)),
        ("POST", "/posts.json", None, created(contract, id=45, post_number=1, topic_id=100)),
    )
    d = daemon_with(api_config, client, "")
    m.MailboxState.create(mailbox=f"discourse:{SITE}", last_uid=41)
    assert d.run_once() == 2
    assert [r.status for r in m.Message.select()] == ["rejected", "rejected"]
    assert m.MailboxState.get(m.MailboxState.mailbox == f"discourse:{SITE}").last_uid == 43
    # each author is told, privately, that nothing was applied
    assert all(e.body["target_recipients"] == "ruth" and "could not process" in e.body["raw"]
               for e in transport.exchanges[1:])


def test_a_post_by_mail_is_answered_in_the_latest_topic_and_by_mail(api_table, api_config, forum, contract):
    from pbp.flow.context import Context
    from pbp.pipeline import process_message
    from tests.helpers import FIXED_NOW, eml

    post = latest_item(contract, 42, username="ruth", raw="/overcome Investigate vs Fair\n", topic_id=7,
                       post_number=3, category_id=5)
    client, transport, _ = forum(
        ("GET", "/posts.json", None, page(contract, post)),
        ("POST", "/posts.json", None, created(contract, id=43, post_number=4)),
        ("POST", "/posts.json", None, created(contract, id=45, post_number=5)),
    )
    d = daemon_with(api_config, client, "0+00")
    m.MailboxState.create(mailbox=f"discourse:{SITE}", last_uid=41)
    assert d.run_once() == 1
    out = process_message(eml("Ethan checks the door.\n/overcome Athletics vs Fair\n", sender="ethan@pbp.localhost",
                              message_id="ethan-1@pbp.test"),
                          Context(config=api_config, dice=FixedDice("++00"), clock=lambda: FIXED_NOW))
    assert out.status == "applied", out.errors
    d.deliver()
    body = transport.exchanges[2].body
    assert body["topic_id"] == 7 and "reply_to_post_number" not in body and "**Ethan overcomes" in body["raw"]
    (mail,) = [r for r in m.OutboxMail.select().where(m.OutboxMail.source_id == "ethan-1@pbp.test")
               if not r.sender.startswith("discourse:")]
    assert "ethan@pbp.localhost" in mail.recipients and "ruth@pbp.localhost" not in mail.recipients


def test_the_webhook_brings_a_post_at_once_and_refuses_a_bad_signature(api_table, tmp_path, forum, contract):
    """pbp run serves the webhook on a local port: a signed post_created delivery is resolved
    at once; a forged one is refused with 403 and changes nothing; the poll that sees the
    same post later does not roll it again."""
    import json

    import socket

    import httpx

    from pbp.forum.webhook import sign

    with socket.socket() as probe:       # a free port on loopback
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]

    config = config_from_dict({"database": {"url": f"sqlite:///{tmp_path / 'pbp.db'}"},
                               "mail": {"domain": "pbp.test", "from_address": "table@pbp.test"},
                               "maildir": {"inbox": str(tmp_path / "in"), "outbox": str(tmp_path / "out")},
                               "discourse": {"url": f"https://{SITE}", "username": BOT, "webhook_port": port,
                                             "webhook_secret_env": "HOOK"}}, base=tmp_path)
    post = latest_item(contract, 42, username="ruth", raw="/overcome Investigate vs Fair\n", topic_id=7,
                       post_number=3, category_id=5)
    client, transport, _ = forum(("POST", "/posts.json", None, created(contract, id=43, post_number=4)),
                                 ("GET", "/posts.json", None, page(contract, post)))
    d = Daemon(config, dice=FixedDice("0+00"), environ={"PBP_DISCOURSE_API_KEY": "k", "HOOK": "s3cret"})
    settings = d.forum.settings
    d.forum = client
    client.settings = settings   # the scripted client with the daemon's settings (its webhook secret)
    d.sender = make_sender(config, forum=client)
    hook = d.start_webhook()
    try:
        body = json.dumps({"post": post}).encode()
        url = f"http://127.0.0.1:{hook.port}/discourse"
        forged = httpx.post(url, content=body, headers={"X-Discourse-Event": "post_created",
                                                          "X-Discourse-Event-Signature": sign(body, "guess")})
        assert forged.status_code == 403 and m.Message.select().count() == 0
        ok = httpx.post(url, content=body, headers={"X-Discourse-Event": "post_created",
                                                      "X-Discourse-Event-Signature": sign(body, "s3cret")})
        assert ok.status_code == 200 and m.RollRecord.select().count() == 1
    finally:
        hook.stop()
    d.deliver()
    assert transport.exchanges[0].body["topic_id"] == 7
    m.MailboxState.create(mailbox=f"discourse:{SITE}", last_uid=41)
    d.poll_forum()                                  # the same post again: a duplicate, no roll, no answer
    assert m.RollRecord.select().count() == 1 and [x.status for x in m.Message.select()] == ["applied"]


def run_posts(api_config, forum, contract, *items, dice="0+00", answers=0):
    """The daemon polls ``items`` (newest first) once, from a cursor just below them; the
    forum takes ``answers`` posts."""
    client, transport, _ = forum(("GET", "/posts.json", None, page(contract, *items, latest_item(contract, 40))),
                                 *[("POST", "/posts.json", None, created(contract, id=900 + n, post_number=50 + n))
                                   for n in range(answers)])
    d = daemon_with(api_config, client, dice)
    m.MailboxState.get_or_create(mailbox=f"discourse:{SITE}", defaults={"last_uid": 40})
    d.run_once()
    return transport


def test_a_quote_never_runs_by_api(api_table, api_config, forum, contract):
    """The composer's Quote button writes BBCode: Ruth's quoted overcome is not Ruth's."""
    quoted = latest_item(contract, 42, username="ruth", category_id=5,
                         raw='[quote="charles_d, post:3, topic:7"]\n/overcome Investigate vs Fair\n[/quote]\nHa.\n')
    run_posts(api_config, forum, contract, quoted)
    assert m.RollRecord.select().count() == 0


def test_a_display_name_like_the_gms_is_nobody_by_api(api_table, api_config, forum, contract):
    """By the API a post is its account's: ``username`` is unique on the site and the
    display ``name`` is never read, so "Tess GM" with username tess_gm2 changes nothing."""
    for n, (username, name) in enumerate([("tess_gm2", "Tess GM"), ("TESS-GM", "tess_gm")]):
        item = latest_item(contract, 42 + n, username=username, name=name, category_id=5,
                           raw='/scene start "The Docks"\n/aspect add "Thick Fog"\n')
        run_posts(api_config, forum, contract, item)
    assert m.Aspect.select().where(m.Aspect.name == "Thick Fog").count() == 0
    assert all("no member" in row.result["reason"] for row in m.Message.select())


def test_a_member_is_bound_to_the_forums_user_id(api_table, api_config, forum, contract):
    """Ruth's first post binds her to her account (user 501). Her account is deleted and a
    newcomer registers "ruth" (user 777): the newcomer's post is not Ruth's."""
    run_posts(api_config, forum, contract, latest_item(contract, 42, username="ruth", user_id=501, category_id=5,
                                                       raw="/overcome Investigate vs Fair\n"), answers=1)
    assert m.Member.get(m.Member.email == "ruth@pbp.localhost").forum_user_id == 501
    run_posts(api_config, forum, contract, latest_item(contract, 43, username="Ruth", user_id=777, category_id=5,
                                                       raw="/overcome Investigate vs Fair\n"))
    assert m.RollRecord.select().count() == 1
    assert "freed username" in m.Message.get(m.Message.message_id == f"topic/7/43@{SITE}").result["reason"]


def test_a_webhook_edit_before_its_create_is_the_post_and_the_create_a_copy(api_table, api_config, forum, contract):
    """pbp's webhook hears ``post_edited`` for post 45 first (the create's delivery failed
    while pbp restarted, and Discourse redelivers it later): 45 is above the poll's cursor,
    so the edit is the post; the create that follows is the same post id, never rolled."""
    from pbp.forum.discourse import parse_post

    item = latest_item(contract, 45, username="ruth", raw="/overcome Investigate vs Fair\n", version=2,
                       category_id=5, topic_id=7, post_number=9)
    client, _, _ = forum()
    d = daemon_with(api_config, client, "0+00")
    m.MailboxState.create(mailbox=f"discourse:{SITE}", last_uid=41)
    first = d.forum_post(parse_post(item, site=SITE, edited=True))
    assert first.status == "applied", (first.reason, first.errors)
    then = d.forum_post(parse_post({**item, "version": 1}, site=SITE))
    assert then.status == "duplicate"
    assert m.RollRecord.select().count() == 1
    assert [r.recipients for r in m.OutboxMail.select()][0] == ["topic:7"]   # one answer in the topic (and the mail players')
    assert m.OutboxMail.select().count() == 2


def test_a_private_message_to_the_bot_is_not_read_and_says_so(api_table, api_config, forum, contract):
    """docs/forum.md: replies in a private message are not read (pbp reads the topics)."""
    from pbp.forum.discourse import parse_post

    pm = parse_post({**latest_item(contract, 47, username="ruth", raw="/defend Athletics\n"),
                     "topic_archetype": "private_message", "category_id": None}, site=SITE)
    client, _, _ = forum()
    outcome = daemon_with(api_config, client, "").forum_post(pm)
    assert outcome.status == "ignored" and "private message" in outcome.reason
    assert m.RollRecord.select().count() == 0


def test_a_gms_hidden_command_in_a_topic_is_refused_by_api(api_table, api_config, forum, contract):
    item = latest_item(contract, 42, username="tess_gm", category_id=5, raw='/aspect add "Secret Door" hidden\n')
    run_posts(api_config, forum, contract, item, answers=1)   # the error: a private message to the GM
    assert m.Aspect.select().where(m.Aspect.name == "Secret Door").count() == 0
    assert m.Message.get().status == "rejected"
