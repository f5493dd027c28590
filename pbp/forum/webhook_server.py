"""The webhook of docs/forum.md, path 2, served by ``pbp run`` on a local port
(``[discourse] webhook_port``): each delivery's signature is checked on the raw body
(:func:`pbp.forum.webhook.parse_webhook`) before anything is read, and a ``post_created``
or ``post_edited`` post goes to the pipeline at once instead of waiting for the next poll.
The poll goes on: a post the webhook brought is a duplicate there (the same post id), never
rolled twice. Put it behind the forum host's reverse proxy (TLS there); it listens on
``webhook_host`` (loopback by default).
"""
from __future__ import annotations

import logging
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable

from pbp.forum.errors import ForumError, WebhookSignatureError
from pbp.forum.models import InboundPost
from pbp.forum.webhook import parse_webhook

log = logging.getLogger("pbp.forum")

#: the largest delivery read (a post's JSON with its raw and cooked text)
MAX_BODY = 1_000_000
#: connections the kernel holds while every handler is busy: a busy forum's burst (a
#: topic's many posts at once, Discourse's redeliveries after pbp was down)
BACKLOG = 256
#: seconds a client may take to send its request: a slow or stalled one is let go
READ_TIMEOUT = 10.0


class _Server(ThreadingHTTPServer):
    request_queue_size = BACKLOG
    daemon_threads = True


class WebhookServer:
    """A small HTTP server in a thread of its own; ``on_post`` gets each verified post."""

    def __init__(self, settings, on_post: Callable[[InboundPost], None]) -> None:
        self.settings = settings
        self.on_post = on_post
        server = self

        class Handler(BaseHTTPRequestHandler):
            timeout = READ_TIMEOUT     # a client that stalls mid-request is let go

            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                body = self._body()
                status, text = server.handle(dict(self.headers.items()), body)
                if body is None:
                    self.close_connection = True   # the rest of a body too big is never read
                data = (text + "\n").encode("utf-8")
                self.send_response(status)
                self.send_header("Content-Type", "text/plain; charset=utf-8")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _body(self) -> bytes | None:
                try:
                    length = int(self.headers.get("Content-Length") or 0)
                except ValueError:
                    return None
                return self.rfile.read(length) if 0 <= length <= MAX_BODY else None

            def log_message(self, format: str, *args) -> None:  # the daemon logs what matters
                log.debug("webhook %s", format % args)

        self.httpd = _Server((settings.webhook_host, settings.webhook_port or 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, name="pbp-webhook", daemon=True)

    @property
    def port(self) -> int:
        return self.httpd.server_address[1]

    def handle(self, headers: dict, body: bytes | None) -> tuple[int, str]:
        """The answer to one delivery: 403 for a bad signature, 400 for what cannot be read,
        413 for a body too large, 200 otherwise (a post handled, or an event pbp ignores)."""
        if body is None:
            return 413, f"a delivery is at most {MAX_BODY} bytes"
        try:
            post = parse_webhook(headers, body, secret=self.settings.webhook_secret, site=self.settings.site,
                                 bot_username=self.settings.username)
        except WebhookSignatureError as exc:
            log.warning("webhook: refused a delivery: %s", exc)
            return 403, "bad signature"
        except ForumError as exc:   # signed, but not a post pbp can read (a field missing, not JSON)
            log.warning("webhook: %s", exc)
            return 400, str(exc)
        if post is None:
            return 200, "ignored"
        try:
            self.on_post(post)
        except Exception:   # the database away, a bug: Discourse redelivers a failed event
            log.exception("webhook: post %s could not be handled", post.post_id)
            return 500, "not handled; deliver it again later"
        return 200, "ok"

    def start(self) -> "WebhookServer":
        self.thread.start()
        log.info("webhook: listening on %s:%d", self.settings.webhook_host, self.port)
        return self

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
