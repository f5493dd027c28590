"""Webhook deliveries: believed only with the right signature, read as the same post objects."""
from __future__ import annotations

import hashlib
import hmac
import json

import pytest

from pbp.errors import ConfigError
from pbp.forum.errors import WebhookError, WebhookSignatureError
from pbp.forum.webhook import parse_webhook, sign, verify_signature

from .conftest import single_post

SECRET = "the-webhook-secret-0123"
SITE = "forum.example.org"


def delivery(contract, event="post_created", **fields):
    values = dict(topic_id=7, post_number=5, reply_to_post_number="2", username="charles", raw="/defend Athletics")
    post = single_post(contract, 77, **{**values, **fields})
    # WebHookPostSerializer: a PostSerializer with raw, category_id and topic fields added.
    body = json.dumps({"post": {**post, "topic_title": "The warehouse", "category_id": 5, "category_slug": "chicago",
                                "topic_archetype": "regular", "topic_posts_count": 5}}).encode()
    headers = {"X-Discourse-Event": event, "X-Discourse-Event-Type": "post", "X-Discourse-Event-Id": "9",
               "X-Discourse-Instance": "https://forum.example.org",
               "X-Discourse-Event-Signature": sign(body, SECRET)}
    return headers, body


def test_the_signature_is_the_hmac_sha256_of_the_raw_body():
    body = b'{"post": {}}'
    assert sign(body, SECRET) == "sha256=" + hmac.new(SECRET.encode(), body, hashlib.sha256).hexdigest()


def test_a_signed_post_created_is_an_inbound_post(contract):
    headers, body = delivery(contract)
    post = parse_webhook(headers, body, secret=SECRET, site=SITE)
    assert (post.post_id, post.topic_id, post.post_number, post.reply_to_post_number) == (77, 7, 5, 2)
    assert (post.username, post.raw, post.edited, post.category_id, post.site) == \
        ("charles", "/defend Athletics", False, 5, SITE)


def test_post_edited_is_an_edit_even_inside_the_grace_period(contract):
    headers, body = delivery(contract, "post_edited", version=1)
    assert parse_webhook(headers, body, secret=SECRET, site=SITE).edited


@pytest.mark.parametrize("fields, bot", [({"post_type": 3}, None), ({"post_type": 4}, None),
                                         ({"username": "PBP-Bot"}, "pbp-bot")])
def test_what_polling_leaves_out_the_webhook_leaves_out(contract, fields, bot):
    headers, body = delivery(contract, **fields)
    assert parse_webhook(headers, body, secret=SECRET, site=SITE, bot_username=bot) is None


def test_header_names_are_case_insensitive(contract):
    headers, body = delivery(contract)
    lowered = {k.lower(): v for k, v in headers.items()}
    assert parse_webhook(lowered, body, secret=SECRET, site=SITE).post_id == 77


def test_a_private_message_post_is_marked_private(contract):
    post = single_post(contract, 78)
    body = json.dumps({"post": {**post, "topic_archetype": "private_message"}}).encode()
    headers = {"X-Discourse-Event": "post_created", "X-Discourse-Event-Signature": sign(body, SECRET)}
    assert parse_webhook(headers, body, secret=SECRET, site=SITE).private


def test_other_events_are_ignored_but_still_checked(contract):
    body = b'{"ping": "OK"}'
    assert parse_webhook({"X-Discourse-Event": "ping", "X-Discourse-Event-Signature": sign(body, SECRET)},
                         body, secret=SECRET, site=SITE) is None
    with pytest.raises(WebhookSignatureError):
        parse_webhook({"X-Discourse-Event": "ping", "X-Discourse-Event-Signature": sign(body, "other")},
                      body, secret=SECRET, site=SITE)


@pytest.mark.parametrize("tamper, why", [
    (lambda h, b: ({**h, "X-Discourse-Event-Signature": sign(b, "not-the-secret")}, b), "does not match"),
    (lambda h, b: (h, b.replace(b"/defend Athletics", b"/defend Fight!!!!")), "does not match"),
    (lambda h, b: ({k: v for k, v in h.items() if k != "X-Discourse-Event-Signature"}, b), "without"),
    (lambda h, b: ({**h, "X-Discourse-Event-Signature": ""}, b), "without"),
    (lambda h, b: ({**h, "X-Discourse-Event-Signature": "sha1=" + hmac.new(SECRET.encode(), b, hashlib.sha1).hexdigest()}, b),
     "algorithm 'sha1'"),
    (lambda h, b: ({**h, "X-Discourse-Event-Signature": h["X-Discourse-Event-Signature"].partition("=")[2]}, b),
     "not sha256"),
    (lambda h, b: ({**h, "X-Discourse-Event-Signature": "sha256="}, b), "not sha256"),
    (lambda h, b: ({**h, "X-Discourse-Event-Signature": "sha256=zz" + "0" * 62}, b), "does not match"),
    (lambda h, b: ({**h, "X-Discourse-Event-Signature": "sha256=é" + "0" * 63}, b), "does not match"),
])
def test_a_delivery_with_a_bad_missing_or_foreign_signature_is_refused(contract, tamper, why):
    headers, body = tamper(*delivery(contract))
    with pytest.raises(WebhookSignatureError, match=why):
        parse_webhook(headers, body, secret=SECRET, site=SITE)


def test_the_check_is_constant_time(monkeypatch):
    calls = []
    real = hmac.compare_digest
    monkeypatch.setattr(hmac, "compare_digest", lambda a, b: calls.append((a, b)) or real(a, b))
    verify_signature(b"{}", sign(b"{}", SECRET), SECRET)
    assert len(calls) == 1


def test_no_secret_is_a_configuration_error():
    with pytest.raises(ConfigError, match="no webhook secret"):
        verify_signature(b"{}", sign(b"{}", ""), "")


@pytest.mark.parametrize("body, why", [(b"not json", "not JSON"), (b'{"topic": {}}', "no post")])
def test_a_signed_body_that_is_not_a_post_is_an_error(body, why):
    headers = {"X-Discourse-Event": "post_created", "X-Discourse-Event-Signature": sign(body, SECRET)}
    with pytest.raises(WebhookError, match=why):
        parse_webhook(headers, body, secret=SECRET, site=SITE)
