"""A Discourse client on httpx: poll new posts, read one post or a topic, reply, message privately.

The operations it uses are those of Discourse's published API description
(``tests/data/discourse/openapi.json``); tests validate every request it builds and every
response it reads against that description:

    GET  /posts.json?before=ID    latest posts site-wide, newest first (the poll)
    GET  /posts/{id}.json         one post with its raw Markdown
    GET  /t/{id}/posts.json       a topic's posts (their ``raw`` fetched per post when absent)
    POST /posts.json              a reply in a topic, or a private message

Polling keeps a cursor, the highest post id seen: ids only grow, so every post with a larger id
is new. A poll reads pages back (``before`` = the lowest id of the last page) until it reaches
the cursor, a page brings nothing new, or ``max_pages`` pages were read. The description says
``before`` loads ids "lower than" it; Discourse's posts_controller.rb uses ``id <= before``, so
a page may repeat the last one's lowest post: pages are merged by id, which is right either way.
A first poll (no cursor) yields nothing and sets the cursor to the newest post, so starting pbp
on a busy forum never rolls old posts.

What a poll yields are ``InboundPost`` objects in id order, the bot's own posts, small-action,
moderator, whisper and deleted posts left out. A post whose ``version`` is above 1 has been
edited: it is marked ``edited``; an edit of a post pbp read has that post's id and never
rolls again, one seen first is the post itself (pbp.forum.byapi.post_from).

Every call goes through ``_call``: 429 waits for the time the forum names, 5xx and network
errors back off exponentially, both bounded by the settings (see ``retry.py``). A write is
retried when it cannot have been applied (429, 502, 503, a refused connection), and after an
answer that leaves it unknown (500, 504, a timeout) only within ``WRITE_REPLAY_WINDOW`` seconds
of the first attempt: Discourse memoizes an API create by its parameters for 120 seconds
(``DistributedMemoizer.memoize(signature_for(params), 120)`` in posts_controller.rb#create), so
the same body sent again inside that window returns the post already made instead of a second
one. Past the window the error says ``maybe_sent`` and nothing is sent again.
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
from .models import ForumAudience, InboundPost, OutboundReply, SentPost
from .retry import rate_limit_wait
from .settings import DiscourseSettings

log = logging.getLogger(__name__)

SOURCE = "discourse"
REGULAR_POST = 1             # Discourse's post_type: 1 regular, 2 moderator action, 3 small action, 4 whisper
DEFAULT_PM_TITLE = "A private note from the table"
WRITE_RETRYABLE = frozenset({502, 503})   # the request never reached the application
WRITE_REPLAY_WINDOW = 100.0               # seconds; Discourse replays an identical API create for 120


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
    if reply.audience is ForumAudience.TABLE:
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


def parse_post(data: Any, *, site: str, edited: bool = False) -> InboundPost:
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
        private=data.get("topic_archetype") == "private_message",
        user_id=data.get("user_id") if _is_int(data.get("user_id")) else None,
    )


class DiscourseClient:
    """The forum's REST API as pbp needs it. ``transport`` is httpx's seam (tests pass one
    that validates against the published API description); ``sleep`` is how backoff waits."""

    def __init__(self, settings: DiscourseSettings, *, transport: httpx.BaseTransport | None = None,
                 sleep: Callable[[float], None] = time.sleep,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.settings = settings
        self._sleep = sleep
        self._clock = clock
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
            new = {_int(item, "id"): item for item in page if _int(item, "id") not in items}
            if not new:
                complete = True
                break
            items.update(new)
            lowest = min(new)
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
        posts = []
        for post_id in sorted(items):
            if post_id > cursor and self._wanted(items[post_id]):
                try:
                    posts.append(parse_post(items[post_id], site=self.settings.site))
                except ForumResponseError as exc:
                    # One unreadable post must not stop the table: it is logged and passed over.
                    log.warning("discourse %s: post %d cannot be read, passed over: %s",
                                self.settings.site, post_id, exc)
        return Poll(posts=tuple(posts), cursor=max(cursor, newest or cursor), complete=complete)

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
        """One API call with its bounded retries; the decoded JSON of its 200 answer."""
        backoff = self.settings.backoff
        started = self._clock()
        uncertain = False          # a write whose earlier attempt may have been applied
        where = f"{method} {path}"
        for attempt in range(backoff.retries + 1):
            last = attempt == backoff.retries
            try:
                response = self._http.request(method, path, params=params, json=body)
            except httpx.TransportError as exc:
                unknown = write and not isinstance(exc, httpx.ConnectError)
                why, status = repr(exc), None
            else:
                status = response.status_code
                if status == 429:
                    wait = rate_limit_wait(response.headers, _json_or_none(response))
                    wait = backoff.delay(attempt) if wait is None else wait
                    if wait > backoff.max_wait or last or (
                            uncertain and self._clock() - started + wait >= WRITE_REPLAY_WINDOW):
                        self._give_up(uncertain, where, f"rate limited for {wait:g}s", status)
                        raise ForumRateLimited(f"{where}: rate limited, the forum asks to wait {wait:g}s "
                                               f"(after {attempt} retries)", wait=wait)
                    self._wait(wait, f"{where}: rate limited")
                    continue
                if status < 500:
                    if uncertain and status >= 400:
                        self._give_up(True, where, f"HTTP {status}", status)
                    return _answer(where, response)
                unknown = write and status not in WRITE_RETRYABLE
                why = f"HTTP {status}"
            uncertain = uncertain or unknown
            if uncertain and (last or self._clock() - started + backoff.delay(attempt) >= WRITE_REPLAY_WINDOW):
                self._give_up(True, where, why, status)
            if last:
                raise ForumUnavailable(f"{where}: {why} after {attempt} retries", status=status)
            self._wait(backoff.delay(attempt), f"{where}: {why}")
        raise AssertionError("unreachable")  # pragma: no cover

    def _give_up(self, uncertain: bool, where: str, why: str, status: int | None) -> None:
        if uncertain:
            raise ForumUnavailable(f"{where}: {why}; the post may have been made", status=status,
                                   maybe_sent=True, hint="look in the topic before sending it again")

    def _wait(self, seconds: float, why: str) -> None:
        log.info("discourse %s: %s; waiting %.1fs", self.settings.site, why, seconds)
        self._sleep(seconds)


def _answer(where: str, response: httpx.Response) -> Any:
    status = response.status_code
    if status >= 400:
        raise _refused(where, response)
    if status != 200:
        location = response.headers.get("location")
        raise ForumResponseError(f"{where}: unexpected HTTP {status}" + (f" to {location}" if location else ""),
                                 hint="check the forum's url (a redirect often means a login page)")
    data = _json_or_none(response)
    if data is None:
        raise ForumResponseError(f"{where}: the answer is not JSON")
    return data


def _refused(where: str, response: httpx.Response) -> ForumRefused:
    data = _json_or_none(response)
    errors = data.get("errors") if isinstance(data, Mapping) else None
    errors = tuple(str(e) for e in errors) if isinstance(errors, list) else ()
    hint = {401: "check the API key and Api-Username", 403: "the bot account may not do this: check the "
            "API key's scope and the category's permissions", 404: "no such topic or post, or the bot cannot see it",
            422: "the forum refused the post (too short, too similar to a recent one, closed topic)"}
    detail = f": {'; '.join(errors)}" if errors else ""
    return ForumRefused(f"{where}: HTTP {response.status_code}{detail}", status=response.status_code,
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
