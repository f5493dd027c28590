"""Against a real Discourse, opt-in: set PBP_DISCOURSE_URL, PBP_DISCOURSE_API_KEY and
PBP_DISCOURSE_USERNAME (a bot account's key). Read-only unless PBP_DISCOURSE_TOPIC names a
topic the bot may post a test reply in. Every request still goes through the contract check;
the answers are recorded, not validated: a real forum's answers differ from the description in
small ways (``reply_to_post_number`` is an integer, not a string)."""
from __future__ import annotations

import os

import httpx
import pytest

from pbp.forum.discourse import DiscourseClient
from pbp.forum.models import ForumAudience, OutboundReply
from pbp.forum.settings import DiscourseSettings

from .contract import ContractTransport

NEEDED = ("PBP_DISCOURSE_URL", "PBP_DISCOURSE_API_KEY", "PBP_DISCOURSE_USERNAME")
pytestmark = pytest.mark.skipif(not all(os.environ.get(name) for name in NEEDED),
                                reason="set " + ", ".join(NEEDED) + " to test against a real Discourse")


@pytest.fixture
def live(contract):
    settings = DiscourseSettings.from_config({"url": os.environ["PBP_DISCOURSE_URL"],
                                              "username": os.environ["PBP_DISCOURSE_USERNAME"]})
    real = httpx.HTTPTransport(verify=True)
    transport = ContractTransport(contract, lambda exchange: real.handle_request(exchange.request),
                                  check_responses=False)
    with DiscourseClient(settings, transport=transport) as client:
        yield client, transport


def test_live_poll_read_and_reply(live):
    client, transport = live
    start = client.poll(None)
    assert start.posts == ()
    if start.cursor is None:
        pytest.fail("the forum has no public posts to read")
    post = client.post(start.cursor)
    assert post.post_id == start.cursor and post.raw
    back = client.poll(max(0, start.cursor - 5))
    assert all(p.post_id > start.cursor - 5 for p in back.posts)
    topic = os.environ.get("PBP_DISCOURSE_TOPIC")
    if topic:
        sent = client.send(OutboundReply(ForumAudience.TABLE, "pbp live test: 4dF rolled `+ 0 - +` (+1, Average).",
                                         topic_id=int(topic)))
        assert sent.topic_id == int(topic)
        assert client.post(sent.post_id).username.casefold() == client.settings.username.casefold()
    assert all(e.status == 200 for e in transport.exchanges)
