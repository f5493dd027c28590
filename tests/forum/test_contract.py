"""The validating transport itself: it must refuse what the published description refuses,
or the client's tests would prove nothing."""
from __future__ import annotations

import httpx
import pytest

from .conftest import latest_item
from .contract import ContractViolation


def request(method, path, **kwargs):
    headers = {"Api-Key": "k", "Api-Username": "bot", **kwargs.pop("headers", {})}
    return httpx.Request(method, "https://forum.example.org" + path, headers=headers, **kwargs)


def test_the_requests_pbp_makes_pass(contract):
    contract.check_request(request("GET", "/posts.json", params={"before": 8}))
    contract.check_request(request("POST", "/posts.json", json={"topic_id": 7, "raw": "x", "reply_to_post_number": 2}))
    contract.check_request(request("POST", "/posts.json", json={"title": "t", "raw": "x", "archetype": "private_message",
                                                                 "target_recipients": "ruth"}))
    contract.check_request(request("GET", "/t/7/posts.json"))
    contract.check_request(request("GET", "/posts/3.json"))


@pytest.mark.parametrize("bad, why", [
    (request("GET", "/posts.json", params={"limit": 5}), "not described"),
    (request("GET", "/posts.json", params={"before": "eight"}), "not an integer"),
    (request("POST", "/posts.json", json={"topic_id": 7, "raw": "x", "reply_to": 2}), "Additional properties"),
    (request("POST", "/posts.json", json={"topic_id": "7", "raw": "x"}), "is not of type 'integer'"),
    (request("POST", "/posts.json", json={"topic_id": 7}), "'raw' is a required property"),
    (request("POST", "/posts.json", content=b'{"raw": "x"}'), "application/json"),
    (httpx.Request("GET", "https://forum.example.org/t/7/posts.json"), "Api-Key"),
    (request("GET", "/posts/3.json", json={"raw": "x"}), "body the description does not have"),
    (request("GET", "/latest-posts.json"), "no such operation"),
    (request("PATCH", "/posts.json"), "no such operation"),
])
def test_requests_the_description_does_not_allow_are_refused(contract, bad, why):
    with pytest.raises(ContractViolation, match=why):
        contract.check_request(bad)


def test_a_response_missing_a_required_field_is_refused(contract):
    item = latest_item(contract, 3)
    del item["raw"]
    operation, _ = contract.operation("GET", "/posts.json")
    with pytest.raises(ContractViolation, match="'raw' is a required property"):
        contract.check_response(operation, {"latest_posts": [item]})


def test_a_response_with_a_field_of_the_wrong_type_is_refused(contract):
    operation, _ = contract.operation("POST", "/posts.json")
    body = contract.sample("post", "/posts.json")
    body["version"] = "2"
    with pytest.raises(ContractViolation, match="version"):
        contract.check_response(operation, body)


def test_samples_follow_the_schema_and_its_examples(contract):
    body = contract.sample("post", "/posts.json", id=5)
    assert body["id"] == 5 and set(body) >= {"topic_id", "post_number", "version"}
    with pytest.raises(ContractViolation):
        contract.sample("post", "/posts.json", id="five")
