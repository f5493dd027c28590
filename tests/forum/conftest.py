"""Fixtures for the Discourse adapter: the published contract, settings, and a scripted
responder whose answers are built from the description's response schemas."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from pbp.forum.discourse import DiscourseClient
from pbp.forum.settings import DiscourseSettings

from .contract import Contract, ContractTransport, Exchange, build

SITE_URL = "https://forum.example.org"
BOT = "pbp-bot"
KEY = "k3y-0f-the-b0t"


@pytest.fixture(scope="session")
def contract() -> Contract:
    return Contract()


@pytest.fixture
def settings() -> DiscourseSettings:
    return DiscourseSettings(url=SITE_URL, username=BOT, api_key=KEY, retries=3, backoff_base=1.0,
                             backoff_cap=4.0, max_wait=60.0)


def latest_item(contract: Contract, post_id: int, **fields: Any) -> dict:
    """One ``latest_posts`` item, every required field present, valid against the schema."""
    values = {"id": post_id, "topic_id": 7, "post_number": post_id, "username": "ruth",
              "raw": f"post {post_id}", "version": 1, "created_at": "2026-11-29T18:00:00.000Z",
              "post_type": 1, "category_id": 5, "reply_to_post_number": None, "deleted_at": None}
    values.update(fields)
    values.setdefault("user_id", user_id_of(values["username"]))
    return build(contract.item_schema("get", "/posts.json", "latest_posts", "items"), values)


def user_id_of(username: str) -> int:
    """A forum user id for a username, the same in every test (one account per name)."""
    import zlib

    return zlib.crc32(username.casefold().encode("utf-8")) % 100_000 + 1


def single_post(contract: Contract, post_id: int, **fields: Any) -> dict:
    values = {"id": post_id, "topic_id": 7, "post_number": 1, "username": "ruth", "raw": f"post {post_id}",
              "version": 1, "created_at": "2026-11-29T18:00:00.000Z", "post_type": 1,
              "reply_to_post_number": None, "deleted_at": None}
    values.update(fields)
    return contract.sample("get", "/posts/{id}.json", **values)


class Script:
    """Answers in order; each step names the request it expects: (method, path, query, answer).
    Not a server: it knows nothing of Discourse, it replays what a test wrote down."""

    def __init__(self, *steps: tuple) -> None:
        self.steps = list(steps)

    def __call__(self, exchange: Exchange):
        assert self.steps, f"unexpected request {exchange.request.method} {exchange.request.url}"
        method, path, query, answer = self.steps.pop(0)
        request = exchange.request
        assert (request.method, request.url.path) == (method, path)
        assert dict(request.url.params) == dict(query or {}), request.url
        if isinstance(answer, BaseException):
            raise answer
        return answer(exchange) if callable(answer) else answer

    def finished(self) -> bool:
        return not self.steps


@pytest.fixture
def forum(contract, settings):
    """``forum(*steps)`` -> (client, transport, sleeps): a client whose every request is checked
    against the contract and answered by the script; ``sleeps`` records each backoff wait."""
    made = []

    def make(*steps, settings=settings, check_responses=True, clock=None):
        script = Script(*steps)
        transport = ContractTransport(contract, script, check_responses=check_responses)
        sleeps: list[float] = []
        clock = clock or (lambda: sum(sleeps))       # time passes only while backing off
        client = DiscourseClient(settings, transport=transport, sleep=sleeps.append, clock=clock)
        made.append((client, script))
        client.script = script
        return client, transport, sleeps

    yield make
    for client, script in made:
        client.close()
        assert script.finished(), f"requests not made: {script.steps}"


def as_mapping(value: Any) -> Mapping:
    assert isinstance(value, Mapping)
    return value
