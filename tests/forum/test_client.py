"""The Discourse client against the published API description: every request it builds is
validated (parameters, headers, bodies) and every answer it reads is built from, and validated
against, the response schemas. Waits go to an injected sleep; nothing really waits."""
from __future__ import annotations

import logging
from datetime import datetime, timezone

import httpx
import pytest

from pbp.forum.discourse import DEFAULT_PM_TITLE, reply_body
from pbp.forum.errors import (ForumRateLimited, ForumRefused, ForumResponseError, ForumUnavailable)
from pbp.forum.models import ForumAudience, InboundPost, OutboundReply, SentPost

from .conftest import BOT, KEY, latest_item, single_post


def page(contract, *items):
    return 200, contract.sample("get", "/posts.json", latest_posts=list(items))


def created(contract, **fields):
    values = {"id": 501, "topic_id": 7, "post_number": 12, "username": BOT, "raw": "x", "version": 1}
    values.update(fields)
    return 200, contract.sample("post", "/posts.json", **values)


# --- what is sent --------------------------------------------------------------------------

def test_every_request_carries_the_bots_key_and_username(forum, contract):
    client, transport, _ = forum(
        ("GET", "/posts.json", None, page(contract, latest_item(contract, 3))),
        ("GET", "/posts/3.json", None, (200, single_post(contract, 3))),
        ("GET", "/t/7/posts.json", None, (200, contract.sample("get", "/t/{id}/posts.json", post_stream={"posts": []}))),
        ("POST", "/posts.json", None, created(contract)),
    )
    client.poll(None)
    client.post(3)
    client.topic_posts(7)
    client.send(OutboundReply(ForumAudience.TABLE, "Ruth rolls.", topic_id=7))
    assert len(transport.exchanges) == 4
    for exchange in transport.exchanges:
        assert exchange.request.headers["Api-Key"] == KEY
        assert exchange.request.headers["Api-Username"] == BOT
        assert exchange.request.url.host == "forum.example.org" and exchange.request.url.scheme == "https"


def test_a_reply_in_the_topic_is_the_described_body(forum, contract):
    client, transport, _ = forum(("POST", "/posts.json", None, created(contract, id=88, post_number=4)))
    sent = client.send(OutboundReply(ForumAudience.TABLE, "**Ruth** punches: +2", topic_id=7, reply_to_post_number=3))
    assert transport.exchanges[0].body == {"topic_id": 7, "raw": "**Ruth** punches: +2", "reply_to_post_number": 3}
    assert sent == SentPost(post_id=88, topic_id=7, post_number=4)


def test_a_reply_to_the_topic_itself_names_no_post(forum, contract):
    client, transport, _ = forum(("POST", "/posts.json", None, created(contract)))
    client.send(OutboundReply(ForumAudience.TABLE, "The scene opens.", topic_id=7))
    assert transport.exchanges[0].body == {"topic_id": 7, "raw": "The scene opens."}


@pytest.mark.parametrize("audience, recipient", [(ForumAudience.PLAYER, "charles"), (ForumAudience.GM, "gm-anna")])
def test_a_private_answer_is_a_private_message_to_that_one_person(forum, contract, audience, recipient):
    client, transport, _ = forum(("POST", "/posts.json", None, created(contract, topic_id=90, post_number=1)))
    reply = OutboundReply(audience, "You took 3 shifts: `/absorb stress 2 mild \"Bruised\"`",
                          recipient=recipient, title="Charles: absorb the ghoul's hit")
    sent = client.send(reply)
    body = transport.exchanges[0].body
    assert body == {"title": "Charles: absorb the ghoul's hit", "raw": reply.raw,
                    "archetype": "private_message", "target_recipients": recipient}
    assert "topic_id" not in body and sent.topic_id == 90


def test_a_private_message_gets_a_title_when_none_is_given():
    body = reply_body(OutboundReply(ForumAudience.GM, "Approve #12?", recipient="gm-anna"))
    assert body["title"] == DEFAULT_PM_TITLE and body["archetype"] == "private_message"


@pytest.mark.parametrize("kwargs, message", [
    ({"audience": ForumAudience.TABLE, "raw": "x"}, "topic id"),
    ({"audience": ForumAudience.TABLE, "raw": "x", "topic_id": 7, "recipient": "ruth"}, "no recipient"),
    ({"audience": ForumAudience.PLAYER, "raw": "x"}, "recipient"),
    ({"audience": ForumAudience.GM, "raw": "x", "recipient": "anna,ruth"}, "exactly one"),
    ({"audience": ForumAudience.TABLE, "raw": "  ", "topic_id": 7}, "text"),
    ({"audience": ForumAudience.TABLE, "raw": "x", "topic_id": 7, "reply_to_post_number": 0}, "positive"),
    ({"audience": "table", "raw": "x", "topic_id": 7}, "Audience"),
])
def test_a_reply_that_could_go_wrong_is_refused_when_made(kwargs, message):
    with pytest.raises(ValueError, match=message):
        OutboundReply(**kwargs)


# --- what is read: the cursor ---------------------------------------------------------------

def test_the_first_poll_yields_nothing_and_starts_from_the_newest_post(forum, contract):
    client, transport, _ = forum(("GET", "/posts.json", None, page(contract, latest_item(contract, 41),
                                                                    latest_item(contract, 40))))
    poll = client.poll(None)
    assert poll.posts == () and poll.cursor == 41 and poll.complete


def test_the_cursor_reads_back_across_pages_and_yields_in_id_order(forum, contract):
    item = lambda i, **kw: latest_item(contract, i, **kw)  # noqa: E731
    client, transport, _ = forum(
        ("GET", "/posts.json", None, page(contract, item(10), item(9, username=BOT), item(8))),
        ("GET", "/posts.json", {"before": "8"}, page(contract, item(7, post_type=3), item(6, category_id=99),
                                                     item(5, deleted_at="2026-11-29T19:00:00.000Z"))),
        ("GET", "/posts.json", {"before": "5"}, page(contract, item(4, version=3), item(3), item(2))),
        settings=_settings(categories=(5,)),
    )
    poll = client.poll(3)
    assert [p.post_id for p in poll.posts] == [4, 8, 10]   # own, small action, other category, deleted left out
    assert poll.cursor == 10 and poll.complete
    assert all(isinstance(p, InboundPost) and p.source == "discourse" and p.site == "forum.example.org"
               for p in poll.posts)
    assert [e.request.url.params.get("before") for e in transport.exchanges] == [None, "8", "5"]


def test_pages_that_repeat_their_edge_as_discourse_does_are_merged(forum, contract):
    # The description says before= loads lower ids; Discourse's controller uses id <= before.
    item = lambda i: latest_item(contract, i)  # noqa: E731
    client, _, _ = forum(
        ("GET", "/posts.json", None, page(contract, item(9), item(8))),
        ("GET", "/posts.json", {"before": "8"}, page(contract, item(8), item(7))),
        ("GET", "/posts.json", {"before": "7"}, page(contract, item(7))),     # the oldest post: nothing new
    )
    poll = client.poll(2)
    assert [p.post_id for p in poll.posts] == [7, 8, 9] and poll.complete and poll.cursor == 9


def test_a_cursor_inside_the_first_page_needs_one_request(forum, contract):
    client, _, _ = forum(("GET", "/posts.json", None, page(contract, *(latest_item(contract, i) for i in (12, 11, 10)))))
    poll = client.poll(10)
    assert [p.post_id for p in poll.posts] == [11, 12] and poll.cursor == 12


def test_nothing_new_keeps_the_cursor_and_it_never_goes_back(forum, contract):
    client, _, _ = forum(("GET", "/posts.json", None, page(contract, latest_item(contract, 12))),
                         ("GET", "/posts.json", None, page(contract, latest_item(contract, 9))),
                         ("GET", "/posts.json", None, page(contract)))
    first = client.poll(12)
    assert first.posts == () and first.cursor == 12
    assert client.poll(12).cursor == 12           # the newest post was deleted: no going back
    assert client.poll(None).cursor is None       # an empty forum: still nothing to start from


def test_more_new_posts_than_pages_says_so_and_moves_on(forum, contract, caplog):
    item = lambda i: latest_item(contract, i)  # noqa: E731
    client, _, _ = forum(
        ("GET", "/posts.json", None, page(contract, item(30), item(29))),
        ("GET", "/posts.json", {"before": "29"}, page(contract, item(28), item(27))),
        settings=_settings(max_pages=2),
    )
    with caplog.at_level(logging.WARNING, logger="pbp.forum.discourse"):
        poll = client.poll(3)
    assert [p.post_id for p in poll.posts] == [27, 28, 29, 30]
    assert poll.cursor == 30 and not poll.complete
    assert "skipped" in caplog.text and "max_pages" in caplog.text


def test_one_unreadable_post_is_logged_and_passed_over(forum, contract, caplog):
    bad = latest_item(contract, 12)
    bad["created_at"] = "yesterday"
    client, _, _ = forum(("GET", "/posts.json", None, page(contract, latest_item(contract, 13), bad)))
    with caplog.at_level(logging.WARNING, logger="pbp.forum.discourse"):
        poll = client.poll(11)
    assert [p.post_id for p in poll.posts] == [13] and poll.cursor == 13
    assert "post 12 cannot be read" in caplog.text


def test_a_post_reads_every_field_the_pipeline_needs(forum, contract):
    client, _, _ = forum(("GET", "/posts.json", None, page(contract, latest_item(
        contract, 21, topic_id=7, post_number=6, reply_to_post_number="4", username="ruth", user_id=31,
        raw="I swing at the ghoul.\n\n/attack Ghoul with Fight", created_at="2026-11-29T18:05:00.000Z"))))
    (post,) = client.poll(20).posts
    assert post == InboundPost(
        source="discourse", site="forum.example.org", post_id=21, topic_id=7, post_number=6,
        reply_to_post_number=4, username="ruth", raw="I swing at the ghoul.\n\n/attack Ghoul with Fight",
        version=1, edited=False, created_at=datetime(2026, 11, 29, 18, 5, tzinfo=timezone.utc),
        category_id=5, private=False, user_id=31)
    assert post.key == ("discourse", "forum.example.org", 21)


def test_an_edited_post_is_marked_so_it_never_rolls_again(forum, contract):
    client, _, _ = forum(("GET", "/posts.json", None, page(
        contract, latest_item(contract, 22, version=2), latest_item(contract, 21, version=1))))
    first, second = client.poll(20).posts
    assert (first.post_id, first.edited) == (21, False)
    assert (second.post_id, second.version, second.edited) == (22, 2, True)


def test_reply_to_post_number_as_real_forums_send_it(forum, contract):
    # The description types it string-or-null; a real Discourse sends an integer. Both read.
    item = latest_item(contract, 21)
    item["reply_to_post_number"] = 3
    client, _, _ = forum(("GET", "/posts.json", None, (200, {"latest_posts": [item]})), check_responses=False)
    assert client.poll(20).posts[0].reply_to_post_number == 3


def test_a_single_post_and_a_topic(forum, contract):
    stream = {"posts": [
        {k: v for k, v in single_post(contract, 31, post_number=1).items() if k != "raw"},
        single_post(contract, 32, post_number=2, raw="already here"),
        single_post(contract, 33, post_number=3, post_type=3),
    ]}
    client, transport, _ = forum(
        ("GET", "/t/7/posts.json", None, (200, contract.sample("get", "/t/{id}/posts.json", id=7, post_stream=stream))),
        ("GET", "/posts/31.json", None, (200, single_post(contract, 31, post_number=1, raw="the first post"))),
    )
    posts = client.topic_posts(7)
    assert [(p.post_id, p.raw) for p in posts] == [(31, "the first post"), (32, "already here")]
    assert transport.exchanges[1].path_params == {"id": "31"}


# --- 429 and 5xx --------------------------------------------------------------------------

def rate_limited(wait=None, header=None):
    body = {"errors": ["You've performed this action too many times. Please wait a few seconds."],
            "error_type": "rate_limit"}
    if wait is not None:
        body["extras"] = {"wait_seconds": wait, "time_left": f"{wait} seconds"}
    return 429, body, ({"Retry-After": header} if header is not None else {})


def test_a_429_waits_the_time_the_forum_names(forum, contract):
    client, _, sleeps = forum(
        ("GET", "/posts.json", None, rate_limited(wait=7, header="7")),
        ("GET", "/posts.json", None, rate_limited(wait=12)),
        ("GET", "/posts.json", None, page(contract, latest_item(contract, 5))),
    )
    assert client.poll(None).cursor == 5
    assert sleeps == [7.0, 12.0]


def test_a_429_longer_than_max_wait_gives_up_at_once(forum):
    client, _, sleeps = forum(("POST", "/posts.json", None, rate_limited(header="3600")))
    with pytest.raises(ForumRateLimited) as caught:
        client.send(OutboundReply(ForumAudience.TABLE, "x", topic_id=7))
    assert caught.value.wait == 3600 and sleeps == []


def test_429s_are_retried_a_bounded_number_of_times(forum):
    client, _, sleeps = forum(*[("GET", "/posts/3.json", None, rate_limited(wait=2))] * 4)
    with pytest.raises(ForumRateLimited):
        client.post(3)
    assert sleeps == [2.0, 2.0, 2.0]          # retries=3


def test_a_rate_limited_write_is_retried_it_was_never_made(forum, contract):
    client, transport, sleeps = forum(("POST", "/posts.json", None, rate_limited(wait=1)),
                                      ("POST", "/posts.json", None, created(contract)))
    client.send(OutboundReply(ForumAudience.TABLE, "x", topic_id=7))
    assert sleeps == [1.0] and transport.exchanges[0].body == transport.exchanges[1].body


def test_5xx_backs_off_exponentially_then_succeeds(forum, contract):
    client, _, sleeps = forum(
        ("GET", "/posts.json", None, (500, b"")),
        ("GET", "/posts.json", None, (502, b"<html>Bad Gateway</html>")),
        ("GET", "/posts.json", None, httpx.ConnectError("refused")),
        ("GET", "/posts.json", None, page(contract, latest_item(contract, 5))),
        settings=_settings(retries=5),
    )
    assert client.poll(None).cursor == 5
    assert sleeps == [1.0, 2.0, 4.0]


def test_5xx_gives_up_after_the_retries_with_the_delay_capped(forum):
    client, _, sleeps = forum(*[("GET", "/posts/3.json", None, (503, b""))] * 5,
                              settings=_settings(retries=4, backoff_cap=3.0))
    with pytest.raises(ForumUnavailable) as caught:
        client.post(3)
    assert sleeps == [1.0, 2.0, 3.0, 3.0] and caught.value.status == 503 and not caught.value.maybe_sent


UNKNOWN = [(500, b""), (504, b""), httpx.ReadTimeout("slow")]


@pytest.mark.parametrize("failure", UNKNOWN)
def test_a_write_with_an_unknown_outcome_is_replayed_inside_discourses_window(forum, contract, failure):
    # Discourse answers an identical API create within 120 s with the post already made.
    client, transport, sleeps = forum(("POST", "/posts.json", None, failure),
                                      ("POST", "/posts.json", None, created(contract, id=77)))
    assert client.send(OutboundReply(ForumAudience.TABLE, "x", topic_id=7)).post_id == 77
    assert sleeps == [1.0] and transport.exchanges[0].body == transport.exchanges[1].body


@pytest.mark.parametrize("failure", UNKNOWN)
def test_a_write_with_an_unknown_outcome_is_not_repeated_past_the_window(forum, failure):
    times = iter([0.0, 150.0])
    client, _, sleeps = forum(("POST", "/posts.json", None, failure), clock=lambda: next(times))
    with pytest.raises(ForumUnavailable) as caught:
        client.send(OutboundReply(ForumAudience.TABLE, "x", topic_id=7))
    assert caught.value.maybe_sent and sleeps == [] and "may have been made" in str(caught.value)


def test_a_rate_limit_wait_past_the_replay_window_gives_up_an_uncertain_write(forum):
    client, _, sleeps = forum(("POST", "/posts.json", None, (500, b"")),
                              ("POST", "/posts.json", None, rate_limited(wait=55)),
                              ("POST", "/posts.json", None, rate_limited(wait=55)))
    with pytest.raises(ForumUnavailable) as caught:
        client.send(OutboundReply(ForumAudience.TABLE, "x", topic_id=7))
    assert caught.value.maybe_sent and sleeps == [1.0, 55.0]


@pytest.mark.parametrize("then", [(503, b""), (422, {"errors": ["Body is too similar to what you recently posted"]}),
                                  (429, {"extras": {"wait_seconds": 3600}})])
def test_once_a_write_may_have_been_made_every_later_failure_says_so(forum, then):
    client, _, sleeps = forum(("POST", "/posts.json", None, (500, b"")),
                              *[("POST", "/posts.json", None, then)] * (3 if then[0] == 503 else 1))
    with pytest.raises(ForumUnavailable) as caught:
        client.send(OutboundReply(ForumAudience.TABLE, "x", topic_id=7))
    assert caught.value.maybe_sent


@pytest.mark.parametrize("failure", [(502, b""), (503, b""), httpx.ConnectError("refused")])
def test_a_write_that_cannot_have_been_made_is_retried(forum, contract, failure):
    client, _, sleeps = forum(("POST", "/posts.json", None, failure), ("POST", "/posts.json", None, created(contract)))
    assert client.send(OutboundReply(ForumAudience.TABLE, "x", topic_id=7)).post_id == 501
    assert sleeps == [1.0]


# --- refusals and bad answers ---------------------------------------------------------------

def test_a_refused_post_carries_the_forums_reasons(forum):
    client, _, sleeps = forum(("POST", "/posts.json", None,
                               (422, {"errors": ["Body is too similar to what you recently posted"]})))
    with pytest.raises(ForumRefused) as caught:
        client.send(OutboundReply(ForumAudience.TABLE, "x", topic_id=7))
    assert caught.value.status == 422 and caught.value.errors == ("Body is too similar to what you recently posted",)
    assert "too similar" in str(caught.value) and caught.value.hint and sleeps == []


def test_a_bad_key_is_refused_with_a_hint(forum):
    client, _, _ = forum(("GET", "/posts.json", None, (403, {"errors": ["You are not permitted to view the requested resource."]})))
    with pytest.raises(ForumRefused, match="403") as caught:
        client.poll(None)
    assert "API key" in caught.value.hint


@pytest.mark.parametrize("answer", [
    (200, b"<html>login</html>"),
    (200, b'{"latest_posts": "none"}'),
    (200, b'{"latest_posts": [{"id": "1"}]}'),
    (302, b"", {"Location": "https://forum.example.org/login"}),
])
def test_an_answer_pbp_cannot_read_is_an_error_not_a_crash(forum, answer):
    client, _, _ = forum(("GET", "/posts.json", None, answer))
    with pytest.raises(ForumResponseError):
        client.poll(None)


def _settings(**overrides):
    from .conftest import SITE_URL
    from pbp.forum.settings import DiscourseSettings

    values = dict(url=SITE_URL, username=BOT, api_key=KEY, retries=3, backoff_base=1.0, backoff_cap=4.0,
                  max_wait=60.0)
    values.update(overrides)
    return DiscourseSettings(**values)
