"""The webhook server of ``pbp run`` (docs/forum.md, "By API") as a real server on a
loopback port: Discourse's own known signature, bad bodies under a good signature, a burst
of 120 deliveries at once, a body too big, and a client that stalls."""
from __future__ import annotations

import http.client
import json
import socket
import threading
import time

import pytest

from pbp.forum import webhook_server
from pbp.forum.settings import DiscourseSettings
from pbp.forum.webhook import sign, verify_signature

from .conftest import single_post

SECRET = "the-webhook-secret-0123"


def test_the_signature_is_the_one_discourses_own_spec_expects():
    """spec/jobs/emit_web_hook_event_spec.rb ("sets up proper request headers"): the ping
    body ``{"ping":"OK"}`` (13 bytes) with the secret of spec/fabricators/web_hook_fabricator.rb
    is signed ``sha256=162f107f...b7d6``."""
    body, secret = b'{"ping":"OK"}', "my_lovely_secret_for_web_hook"
    expected = "sha256=162f107f6b5022353274eb1a7197885cfd35744d8d08e5bcea025d309386b7d6"
    assert sign(body, secret) == expected
    verify_signature(body, expected, secret)


@pytest.fixture
def server():
    got = []
    settings = DiscourseSettings(url="https://forum.example.org", username="pbp-bot", api_key="k",
                                 webhook_secret=SECRET, webhook_port=0)
    running = webhook_server.WebhookServer(settings, got.append).start()
    running.got = got
    yield running
    running.stop()


def deliver(port: int, body: bytes, *, event="post_created", signature=None, timeout=30):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    conn.request("POST", "/", body=body, headers={
        "Content-Type": "application/json", "X-Discourse-Event": event, "X-Discourse-Event-Type": "post",
        "X-Discourse-Event-Signature": signature or sign(body, SECRET)})
    answer = conn.getresponse()
    status, text = answer.status, answer.read().decode()
    conn.close()
    return status, text


def post_body(contract, post_id: int) -> bytes:
    post = single_post(contract, post_id, topic_id=7, post_number=5, username="ruth", raw="/defend Athletics")
    return json.dumps({"post": {**post, "category_id": 5, "topic_archetype": "regular"}}).encode()


@pytest.mark.parametrize("body", [b"not json", b'{"post": "a string"}', b'{"post": {"id": "x"}}',
                                  b'{"post": {"id": 5}}', b"[1, 2]", "{\"post\": \"\udcff\"}".encode("utf-8", "surrogatepass")])
def test_a_good_signature_on_a_bad_body_is_a_400_not_a_dropped_connection(server, body):
    status, text = deliver(server.port, body)
    assert status == 400 and text.strip()
    assert server.got == []


def test_a_bad_signature_is_a_403(server, contract):
    status, _ = deliver(server.port, post_body(contract, 70), signature="sha256=" + "0" * 64)
    assert status == 403 and server.got == []


def test_a_body_too_big_is_a_413_and_never_read(server, monkeypatch):
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    conn.putrequest("POST", "/")
    conn.putheader("Content-Length", str(webhook_server.MAX_BODY + 1))
    conn.putheader("X-Discourse-Event", "post_created")
    conn.endheaders()
    answer = conn.getresponse()
    assert answer.status == 413
    conn.close()


def test_120_deliveries_at_once_are_all_answered(server, contract):
    """A busy forum's burst: 120 connections opened together, each a signed post."""
    bodies = [post_body(contract, 1000 + n) for n in range(120)]
    statuses = [None] * len(bodies)
    start = threading.Barrier(len(bodies))

    def one(n):
        start.wait()
        statuses[n] = deliver(server.port, bodies[n])[0]

    threads = [threading.Thread(target=one, args=(n,)) for n in range(len(bodies))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert statuses == [200] * 120
    assert sorted(p.post_id for p in server.got) == list(range(1000, 1120))


def test_a_client_that_stalls_is_let_go_and_blocks_no_one(monkeypatch, contract):
    monkeypatch.setattr(webhook_server, "READ_TIMEOUT", 0.5)
    got = []
    settings = DiscourseSettings(url="https://forum.example.org", username="pbp-bot", api_key="k",
                                 webhook_secret=SECRET, webhook_port=0)
    running = webhook_server.WebhookServer(settings, got.append).start()
    try:
        slow = socket.create_connection(("127.0.0.1", running.port))
        slow.sendall(b"POST / HTTP/1.1\r\nContent-Length: 500\r\n\r\n{\"post\":")   # and nothing more
        assert deliver(running.port, post_body(contract, 71))[0] == 200            # the others go on
        slow.settimeout(5)
        started = time.monotonic()
        slow.recv(1024)      # the server lets it go (EOF, or an answer); a timeout here raises
        assert time.monotonic() - started < 4
        slow.close()
    finally:
        running.stop()
    assert [p.post_id for p in got] == [71]


def test_a_handler_that_fails_answers_500_so_discourse_delivers_again(contract):
    def broken(post):
        raise RuntimeError("the database is away")

    settings = DiscourseSettings(url="https://forum.example.org", username="pbp-bot", api_key="k",
                                 webhook_secret=SECRET, webhook_port=0)
    running = webhook_server.WebhookServer(settings, broken).start()
    try:
        assert deliver(running.port, post_body(contract, 72))[0] == 500
    finally:
        running.stop()
