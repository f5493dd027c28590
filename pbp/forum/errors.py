"""Errors of the forum adapters. All derive from :class:`ForumError` (a ``PbpError``)::

    PbpError
    └── ForumError                 anything the forum adapter could not do
        ├── ForumUnavailable       5xx or network trouble, still failing after the retries;
        │                          ``maybe_sent`` when a write may have reached the forum
        ├── ForumRateLimited       429 whose wait is longer than we agree to block (``wait``)
        ├── ForumRefused           4xx: the forum said no (bad key, no access, post too short);
        │                          ``status`` and the forum's ``errors`` list
        ├── ForumResponseError     a 2xx answer whose body pbp cannot read
        └── WebhookError           a webhook delivery that must not be believed or read
            └── WebhookSignatureError   missing, malformed or wrong signature

Configuration mistakes are ``ConfigError`` like everywhere else.
"""
from __future__ import annotations

from pbp.errors import PbpError


class ForumError(PbpError):
    """The forum adapter could not do what was asked."""


class ForumUnavailable(ForumError, ConnectionError):
    """The forum kept failing (5xx, timeouts, refused connections) after the bounded retries.

    ``maybe_sent`` is true when a write may have been applied before the failure (a 500, a
    gateway timeout, a read timeout), so whoever retries it must check before posting again.
    """

    def __init__(self, message: str, *, status: int | None = None, maybe_sent: bool = False,
                 hint: str = "") -> None:
        super().__init__(message, hint=hint or "the forum may be down; pbp tries again on the next poll")
        self.status = status
        self.maybe_sent = maybe_sent


class ForumRateLimited(ForumError):
    """The forum asked us to wait ``wait`` seconds, longer than the settings let one call block."""

    def __init__(self, message: str, *, wait: float, hint: str = "") -> None:
        super().__init__(message, hint=hint or "raise the bot's rate limits on the forum, or poll less often")
        self.wait = wait


class ForumRefused(ForumError):
    """A 4xx answer: the request was understood and refused. ``errors`` is the forum's list."""

    def __init__(self, message: str, *, status: int, errors: tuple[str, ...] = (), hint: str = "") -> None:
        super().__init__(message, hint=hint)
        self.status = status
        self.errors = errors


class ForumResponseError(ForumError):
    """A successful answer whose body does not have the shape pbp reads."""


class WebhookError(ForumError):
    """A webhook delivery that cannot be read (not JSON, no post in it)."""


class WebhookSignatureError(WebhookError):
    """The ``X-Discourse-Event-Signature`` header is missing, malformed or does not match."""
