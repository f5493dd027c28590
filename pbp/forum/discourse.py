"""A Discourse client on httpx: poll new posts, read one post or a topic, reply, message privately.

The operations it uses are those of Discourse's published API description
(``shared/testdata/discourse/openapi.json``); tests validate every request it builds and every
response it reads against that description:

    GET  /posts.json?before=ID    latest posts site-wide, newest first (the poll)
    GET  /posts/{id}.json         one post with its raw Markdown
    GET  /t/{id}/posts.json       a topic's posts (their ``raw`` fetched per post when absent)
    POST /posts.json              a reply in a topic, or a private message

Polling keeps a cursor, the highest post id seen: ids only grow, so every post with a larger id
is new. A poll reads pages back (``before`` = the lowest id of the last page) until it reaches
the cursor, at most ``max_pages`` pages. A first poll (no cursor) yields nothing and sets the
cursor to the newest post, so starting pbp on a busy forum never rolls old posts.

What a poll yields are ``InboundPost`` objects in id order, the bot's own posts, small-action,
moderator, whisper and deleted posts left out. A post whose ``version`` is above 1 has been
edited: it is marked ``edited`` so the pipeline shows it and never rolls it again.

Every call goes through ``_call``: 429 waits for the time the forum names, 5xx and network
errors back off exponentially, both bounded by the settings (see ``retry.py``); a write is
retried only when it cannot have been applied (429, 502, 503, a refused connection).
"""
from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

import httpx

from pbp.transport.settings import tls_context

from .errors import ForumRateLimited, ForumRefused, ForumResponseError, ForumUnavailable
from .models import Audience, InboundPost, OutboundReply, SentPost
from .retry import rate_limit_wait
from .settings import DiscourseSettings

log = logging.getLogger(__name__)

SOURCE = "discourse"
REGULAR_POST = 1             # Discourse's post_type: 1 regular, 2 moderator action, 3 small action, 4 whisper
DEFAULT_PM_TITLE = "A private note from the table"
WRITE_RETRYABLE = frozenset({502, 503})


@dataclass(frozen=True)
class Poll:
    """What one poll found: the new ``posts`` in id order, the ``cursor`` to keep for the next
    poll, and ``complete`` false when ``max_pages`` ran out before the old cursor was reached
    (posts in between were skipped; a warning is logged)."""

    posts: tuple[InboundPost, ...]
    cursor: int | None
    complete: bool = True


def reply_body(reply: OutboundReply) -> dict[str, Any]:
    """The JSON body of ``POST /posts.json`` for a reply: in the topic, or a private message."""
    if reply.audience is Audience.TABLE:
        body: dict[str, Any] = {"topic_id": reply.topic_id, "raw": reply.raw}
        if reply.reply_to_post_number is not None:
            body["reply_to_post_number"] = reply.reply_to_post_number
        return body
    return {
        "title": reply.title or DEFAULT_PM_TITLE,
        "raw": reply.raw,
        "archetype": "private_message",
        "target_recipients": reply.recipient,
    }


def parse_post(data: Any, *, site: str, private: bool = False, edited: bool = False) -> InboundPost:
    """An ``InboundPost`` from Discourse's JSON for one post (a latest-posts item, a single post,
    a webhook's ``post``). Raises ``ForumResponseError`` naming the field that does not fit."""
    if not isinstance(data, Mapping):
        raise ForumResponseError(f"a post is a JSON object, not {type(data).__name__}")
    version = _int(data, "version", default=1)
    return InboundPost(
        source=SOURCE,
        site=site,
        post_id=_int(data, "id"),
        topic_id=_int(data, "topic_id"),
        post_number=_int(data, "post_number"),
        reply_to_post_number=_reply_to(data.get("reply_to_post_number")),
        username=_str(data, "username"),
        raw=_str(data, "raw"),
        version=version,
        edited=edited or version > 1,
        created_at=_time(data.get("created_at")),
        category_id=data.get("category_id") if _is_int(data.get("category_id")) else None,
        private=private or data.get("topic_archetype") == "private_message",
    )


class DiscourseClient:
    """The forum's REST API as pbp needs it. ``transport`` is httpx's seam (tests pass one
    that validates against the published API description); ``sleep`` is how backoff waits."""

    def __init__(self, settings: DiscourseSettings, *, transport: httpx.BaseTransport | None = None,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self.settings = settings
        self._sleep = sleep
        self._http = httpx.Client(
            base_url=settings.url,
            headers={"Api-Key": settings.api_key, "Api-Username": settings.username,
                     "Accept": "application/json", "User-Agent": "pbp (play-by-post Fate)"},
            timeout=settings.timeout,
            transport=transport,
            verify=tls_context(settings.ca_file) if settings.ca_file else True,
            follow_redirects=False,
        )

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> "DiscourseClient":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # reading

    def poll(self, cursor: int | None) -> Poll:
        """The posts newer than ``cursor`` (the highest post id already handled)."""
        items: dict[int, Mapping[str, Any]] = {}
        before: int | None = None
        complete = False
        for _ in range(self.settings.max_pages):
            page = self._latest_posts(before)
            if not page:
                complete = True
                break
            for item in page:
                items[_int(item, "id")] = item
            lowest = min(_int(item, "id") for item in page)
            if cursor is None or lowest <= cursor + 1:
                complete = True
                break
            before = lowest
        newest = max(items, default=None)
        if cursor is None:
            return Poll(posts=(), cursor=newest, complete=True)
        if not complete:
            log.warning("discourse %s: more than %d pages of new posts since post %d; posts between "
                        "were skipped (raise max_pages or poll more often)",
                        self.settings.site, self.settings.max_pages, cursor)
        fresh = [items[post_id] for post_id in sorted(items) if post_id > cursor]
        posts = tuple(parse_post(item, site=self.settings.site) for item in fresh if self._wanted(item))
        return Poll(posts=posts, cursor=max(cursor, newest or cursor), complete=complete)

    def post(self, post_id: int) -> InboundPost:
        """One post by id, with its raw Markdown (``GET /posts/{id}.json``)."""
        return parse_post(self._call("GET", f"/posts/{int(post_id)}.json"), site=self.settings.site)

    def topic_posts(self, topic_id: int) -> tuple[InboundPost, ...]:
        """The posts of a topic's first chunk (``GET /t/{id}/posts.json``), with their raw text:
        that answer does not promise ``raw``, so a post without it is read by id."""
        data = self._call("GET", f"/t/{int(topic_id)}/posts.json")
        stream = data.get("post_stream") if isinstance(data, Mapping) else None
        posts = stream.get("posts") if isinstance(stream, Mapping) else None
        if not isinstance(posts, list):
            raise ForumResponseError(f"topic {topic_id}: the answer has no post_stream.posts list")
        found = []
        for item in posts:
            if not isinstance(item, Mapping):
                raise ForumResponseError(f"topic {topic_id}: a post is not a JSON object")
            if not self._wanted(item, own_too=True):
                continue
            found.append(parse_post(item, site=self.settings.site) if isinstance(item.get("raw"), str)
                         else self.post(_int(item, "id")))
        return tuple(found)

    # writing

    def send(self, reply: OutboundReply) -> SentPost:
        """Post ``reply`` (``POST /posts.json``) and say where it landed."""
        data = self._call("POST", "/posts.json", body=reply_body(reply), write=True)
        if not isinstance(data, Mapping):
            raise ForumResponseError("the new post's answer is not a JSON object")
        return SentPost(post_id=_int(data, "id"), topic_id=_int(data, "topic_id"),
                        post_number=_int(data, "post_number"))

    # plumbing

    def _latest_posts(self, before: int | None) -> list[Mapping[str, Any]]:
        data = self._call("GET", "/posts.json", params={"before": before} if before is not None else None)
        page = data.get("latest_posts") if isinstance(data, Mapping) else None
        if not isinstance(page, list) or not all(isinstance(item, Mapping) for item in page):
            raise ForumResponseError("GET /posts.json: the answer has no latest_posts list of posts")
        return page

    def _wanted(self, item: Mapping[str, Any], *, own_too: bool = False) -> bool:
        """Regular, not deleted, not the bot's own (unless ``own_too``), in the watched categories."""
        if item.get("post_type", REGULAR_POST) != REGULAR_POST or item.get("deleted_at"):
            return False
        if not own_too and str(item.get("username", "")).casefold() == self.settings.username.casefold():
            return False
        categories = self.settings.categories
        return not categories or item.get("category_id") in categories or "category_id" not in item

    def _call(self, method: str, path: str, *, params: dict | None = None, body: dict | None = None,
              write: bool = False) -> Any:
        backoff = self.settings.backoff
        attempt = 0
        while True:
            try:
                response = self._http.request(method, path, params=params, json=body)
            except httpx.TransportError as exc:
                if write and not isinstance(exc, httpx.ConnectError):
                    raise ForumUnavailable(f"{method} {path}: {exc!r}; the post may have been made",
                                           maybe_sent=True) from exc
                if attempt >= backoff.retries:
                    raise ForumUnavailable(f"{method} {path}: {exc!r} after {attempt} retries") from exc
                self._wait(backoff.delay(attempt), f"{method} {path}: {exc!r}")
                attempt += 1
                continue
            status = response.status_code
            if status == 429:
                wait = rate_limit_wait(response.headers, _json_or_none(response))
                wait = backoff.delay(attempt) if wait is None else wait
                if wait > backoff.max_wait or attempt >= backoff.retries:
                    raise ForumRateLimited(f"{method} {path}: rate limited, the forum asks to wait "
                                           f"{wait:g}s (after {attempt} retries)", wait=wait)
                self._wait(wait, f"{method} {path}: rate limited")
                attempt += 1
                continue
            if status >= 500:
                if write and status not in WRITE_RETRYABLE:
                    raise ForumUnavailable(f"{method} {path}: HTTP {status}; the post may have been made",
                                           status=status, maybe_sent=True)
                if attempt >= backoff.retries:
                    raise ForumUnavailable(f"{method} {path}: HTTP {status} after {attempt} retries",
                                           status=status)
                self._wait(backoff.delay(attempt), f"{method} {path}: HTTP {status}")
                attempt += 1
                continue
            if status >= 400:
                raise _refused(method, path, response)
            if status != 200:
                raise ForumResponseError(f"{method} {path}: unexpected HTTP {status}"
                                         + (f" to {response.headers.get('location')}" if status < 400 else ""),
                                         hint="check the forum's url (a redirect often means a login page)")
            data = _json_or_none(response)
            if data is None:
                raise ForumResponseError(f"{method} {path}: the answer is not JSON")
            return data

    def _wait(self, seconds: float, why: str) -> None:
        log.info("discourse %s: %s; waiting %.1fs", self.settings.site, why, seconds)
        self._sleep(seconds)


def _refused(method: str, path: str, response: httpx.Response) -> ForumRefused:
    data = _json_or_none(response)
    errors = data.get("errors") if isinstance(data, Mapping) else None
    errors = tuple(str(e) for e in errors) if isinstance(errors, list) else ()
    hint = {401: "check the API key and Api-Username", 403: "the bot account may not do this: check the "
            "API key's scope and the category's permissions", 404: "no such topic or post, or the bot cannot see it",
            422: "the forum refused the post (too short, too similar to a recent one, closed topic)"}
    detail = f": {'; '.join(errors)}" if errors else ""
    return ForumRefused(f"{method} {path}: HTTP {response.status_code}{detail}", status=response.status_code,
                        errors=errors, hint=hint.get(response.status_code, ""))


def _json_or_none(response: httpx.Response) -> Any:
    try:
        return response.json()
    except ValueError:
        return None


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _int(data: Mapping[str, Any], name: str, *, default: int | None = None) -> int:
    value = data.get(name, default)
    if not _is_int(value) or value < 0:
        raise ForumResponseError(f"a post's {name} should be a whole number, not {value!r}")
    return value


def _str(data: Mapping[str, Any], name: str) -> str:
    value = data.get(name)
    if not isinstance(value, str):
        raise ForumResponseError(f"a post's {name} should be text, not {value!r}")
    return value


def _reply_to(value: object) -> int | None:
    """``reply_to_post_number``: an integer from a real forum, a numeric string or null in the
    published description; both are read."""
    if value is None or value == "":
        return None
    if _is_int(value) and value > 0:
        return value
    if isinstance(value, str) and value.isdigit() and int(value) > 0:
        return int(value)
    raise ForumResponseError(f"a post's reply_to_post_number should be a post number, not {value!r}")


def _time(value: object) -> datetime:
    if not isinstance(value, str):
        raise ForumResponseError(f"a post's created_at should be a time, not {value!r}")
    try:
        when = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError as exc:
        raise ForumResponseError(f"a post's created_at {value!r} is not an ISO time") from exc
    return when if when.tzinfo else when.replace(tzinfo=timezone.utc)
