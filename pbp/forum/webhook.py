"""Discourse webhooks: the signature check, and a delivery read as an ``InboundPost``.

A pure function over the headers and the raw body (served by ``webhook_server.py``). Discourse signs each
delivery with ``X-Discourse-Event-Signature: sha256=<hex HMAC-SHA256 of the body with the
secret>``; the check runs on the raw bytes before any JSON is read, compares in constant time,
and refuses a missing header, another algorithm and a malformed digest alike. Webhooks are not
in Discourse's API description; their shape is Discourse's ``WebHookPostSerializer``
(``{"post": {...}}``).
"""
from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Mapping

from pbp.errors import ConfigError

from .discourse import REGULAR_POST, parse_post
from .errors import WebhookError, WebhookSignatureError
from .models import InboundPost

SIGNATURE_HEADER = "x-discourse-event-signature"
EVENT_HEADER = "x-discourse-event"
POST_EVENTS = {"post_created": False, "post_edited": True}   # event -> is an edit


def sign(body: bytes, secret: str) -> str:
    """The header value Discourse sends for ``body``: ``sha256=<hex>``."""
    return "sha256=" + hmac.new(secret.encode("utf-8"), body, hashlib.sha256).hexdigest()


def verify_signature(body: bytes, signature: str | None, secret: str) -> None:
    """Raise ``WebhookSignatureError`` unless ``signature`` is ``sign(body, secret)``."""
    if not secret:
        raise ConfigError("discourse: no webhook secret to check deliveries with",
                          hint="set the webhook's secret on the forum and export PBP_DISCOURSE_WEBHOOK_SECRET")
    if not signature:
        raise WebhookSignatureError("webhook delivery without X-Discourse-Event-Signature")
    algorithm, _, digest = signature.strip().partition("=")
    if algorithm.lower() != "sha256" or not digest:
        raise WebhookSignatureError(f"webhook signature is not sha256=<hex> (algorithm {algorithm!r})")
    expected = sign(body, secret).partition("=")[2]
    if not hmac.compare_digest(digest.strip().lower().encode("ascii", "replace"), expected.encode("ascii")):
        raise WebhookSignatureError("webhook signature does not match the body")


def parse_webhook(headers: Mapping[str, str], body: bytes, *, secret: str, site: str,
                  bot_username: str | None = None) -> InboundPost | None:
    """The post a verified ``post_created`` or ``post_edited`` delivery carries; None for any
    other event (``ping``, topics, users...), for small-action, moderator and whisper posts and
    for the bot's own posts (``bot_username``), as polling leaves them out. The signature is
    checked first, always."""
    lowered = {str(k).lower(): v for k, v in headers.items()}
    verify_signature(body, lowered.get(SIGNATURE_HEADER), secret)
    event = (lowered.get(EVENT_HEADER) or "").strip()
    if event not in POST_EVENTS:
        return None
    try:
        payload = json.loads(body)
    except (ValueError, UnicodeDecodeError) as exc:
        raise WebhookError(f"webhook {event}: the body is not JSON") from exc
    post = payload.get("post") if isinstance(payload, dict) else None
    if not isinstance(post, dict):
        raise WebhookError(f"webhook {event}: the body has no post object")
    if post.get("post_type", REGULAR_POST) != REGULAR_POST:
        return None
    if bot_username and str(post.get("username", "")).casefold() == bot_username.casefold():
        return None
    return parse_post(post, site=site, edited=POST_EVENTS[event])
