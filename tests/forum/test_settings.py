"""DiscourseSettings: validated when made; the API key and webhook secret from secret sources."""
from __future__ import annotations

import os
from datetime import datetime, timezone

import httpx
import pytest

from pbp.errors import ConfigError, PbpError
from pbp.forum.errors import (ForumError, ForumRateLimited, ForumRefused, ForumResponseError, ForumUnavailable,
                              WebhookError, WebhookSignatureError)
from pbp.forum.retry import RetryPolicy, rate_limit_wait
from pbp.forum.settings import DiscourseSettings

TABLE = {"url": "https://forum.example.org/", "username": "pbp-bot"}
ENV = {"PBP_DISCOURSE_API_KEY": "from-env"}


def test_from_config_takes_the_key_from_the_environment():
    settings = DiscourseSettings.from_config(TABLE, environ=ENV)
    assert settings.api_key == "from-env" and settings.url == "https://forum.example.org"
    assert settings.site == "forum.example.org" and settings.webhook_secret is None
    assert "from-env" not in repr(settings)


def test_the_key_and_the_webhook_secret_from_files(tmp_path):
    key, secret = tmp_path / "key", tmp_path / "hook"
    key.write_text("from-file\n")
    secret.write_text("hook-secret\n")
    os.chmod(key, 0o600)
    os.chmod(secret, 0o600)
    settings = DiscourseSettings.from_config(
        {**TABLE, "api_key_file": str(key), "webhook_secret_file": str(secret), "categories": [5, 12]}, environ={})
    assert (settings.api_key, settings.webhook_secret, settings.categories) == ("from-file", "hook-secret", (5, 12))
    assert "hook-secret" not in repr(settings)


def test_the_webhook_secret_from_its_variable_when_set():
    settings = DiscourseSettings.from_config(TABLE, environ={**ENV, "PBP_DISCOURSE_WEBHOOK_SECRET": "s"})
    assert settings.webhook_secret == "s"


def test_a_named_key_variable_that_is_unset_says_api_key():
    with pytest.raises(ConfigError) as caught:
        DiscourseSettings.from_config({**TABLE, "api_key_env": "MY_KEY", "api_key_file": "/nonexistent/key"},
                                      environ={})
    assert "cannot read the API key file /nonexistent/key" in str(caught.value)
    with pytest.raises(ConfigError) as caught:
        DiscourseSettings.from_config(TABLE, environ={})
    assert "PBP_DISCOURSE_API_KEY is not set" in str(caught.value) and "api_key_file" in caught.value.hint


@pytest.mark.parametrize("table, words", [
    ({**TABLE, "api_key": "oops"}, "api_key in the config file is not read"),
    ({**TABLE, "webhook_secret": "oops"}, "webhook_secret in the config file is not read"),
    ({**TABLE, "categorys": [5]}, "unknown setting(s): categorys"),
    ({"username": "pbp-bot"}, "url"),
    ({**TABLE, "url": "forum.example.org"}, "not an http(s) URL"),
    ({**TABLE, "url": "http://forum.example.org"}, "unencrypted"),
    ({**TABLE, "url": "https://forum.example.org/?x=1"}, "query"),
    ({**TABLE, "username": " "}, "username is empty"),
    ({**TABLE, "categories": "5"}, "categories"),
    ({**TABLE, "categories": [5, True]}, "categories"),
    ({**TABLE, "timeout": 0}, "timeout"),
    ({**TABLE, "max_wait": "long"}, "max_wait"),
    ({**TABLE, "max_pages": 0}, "max_pages"),
    ({**TABLE, "retries": -1}, "retries"),
    ({**TABLE, "ca_file": "/nonexistent/ca.pem"}, "ca_file"),
    ("https://forum.example.org", "must be a table"),
])
def test_bad_settings_fail_when_made(table, words):
    with pytest.raises(ConfigError) as caught:
        DiscourseSettings.from_config(table, environ=ENV)
    assert words in str(caught.value)


def test_unknown_setting_suggests_the_near_one():
    with pytest.raises(ConfigError) as caught:
        DiscourseSettings.from_config({**TABLE, "categorys": [5]}, environ=ENV)
    assert caught.value.hint == "did you mean categories?"


def test_plain_http_is_allowed_on_loopback_or_when_asked():
    assert DiscourseSettings(url="http://127.0.0.1:3000", username="b", api_key="k").site == "127.0.0.1:3000"
    assert DiscourseSettings(url="http://forum.lan", username="b", api_key="k", allow_insecure=True)


def test_the_backoff_follows_the_settings():
    settings = DiscourseSettings(url="https://f.example", username="b", api_key="k", retries=2,
                                 backoff_base=0.5, backoff_cap=1.5, max_wait=9)
    assert settings.backoff == RetryPolicy(retries=2, base=0.5, cap=1.5, max_wait=9)
    assert [settings.backoff.delay(n) for n in range(4)] == [0.5, 1.0, 1.5, 1.5]


@pytest.mark.parametrize("headers, body, wait", [
    ({"Retry-After": "7"}, None, 7.0),
    ({"Retry-After": "Tue, 01 Dec 2026 10:00:30 GMT"}, None, 30.0),
    ({"Retry-After": "soon"}, {"extras": {"wait_seconds": 4}}, 4.0),
    ({}, {"extras": {"wait_seconds": 12, "time_left": "12 seconds"}}, 12.0),
    ({}, {"errors": ["slow down"]}, None),
    ({"Retry-After": "-3"}, {"extras": {"wait_seconds": True}}, None),
])
def test_the_wait_a_429_names(headers, body, wait):
    now = datetime(2026, 12, 1, 10, 0, 0, tzinfo=timezone.utc)
    assert rate_limit_wait(httpx.Headers(headers), body, now=now) == wait


def test_the_error_hierarchy():
    for error in (ForumUnavailable, ForumRateLimited, ForumRefused, ForumResponseError, WebhookError):
        assert issubclass(error, ForumError) and issubclass(error, PbpError)
    assert issubclass(WebhookSignatureError, WebhookError)
    assert issubclass(ForumUnavailable, ConnectionError)
