"""The neutral post and reply objects, and reading one post's JSON into them."""
from __future__ import annotations

import dataclasses

import pytest

from pbp.forum.discourse import parse_post
from pbp.forum.errors import ForumResponseError
from pbp.forum.models import ForumAudience, OutboundReply

from .conftest import latest_item


def test_posts_and_replies_are_frozen(contract):
    post = parse_post(latest_item(contract, 3), site="forum.example.org")
    with pytest.raises(dataclasses.FrozenInstanceError):
        post.raw = "/roll 4dF+8"
    reply = OutboundReply(ForumAudience.TABLE, "x", topic_id=7)
    with pytest.raises(dataclasses.FrozenInstanceError):
        reply.audience = ForumAudience.GM
    assert not reply.private and OutboundReply(ForumAudience.GM, "x", recipient="anna").private


@pytest.mark.parametrize("change, field", [
    ({"id": "3"}, "id"), ({"id": True}, "id"), ({"topic_id": None}, "topic_id"),
    ({"post_number": -1}, "post_number"), ({"username": None}, "username"), ({"raw": 5}, "raw"),
    ({"reply_to_post_number": "two"}, "reply_to_post_number"), ({"reply_to_post_number": 0}, "reply_to_post_number"),
    ({"created_at": None}, "created_at"), ({"created_at": "soon"}, "created_at"), ({"version": 1.5}, "version"),
])
def test_a_post_that_does_not_fit_names_the_field(contract, change, field):
    with pytest.raises(ForumResponseError, match=field):
        parse_post({**latest_item(contract, 3), **change}, site="forum.example.org")


def test_a_post_without_a_version_is_a_first_version(contract):
    item = latest_item(contract, 3)
    del item["version"]
    assert parse_post(item, site="f").version == 1 and not parse_post(item, site="f").edited
    assert parse_post(item, site="f", edited=True).edited
    with pytest.raises(ForumResponseError, match="JSON object"):
        parse_post([], site="f")
