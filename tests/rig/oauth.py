"""A local OAuth 2.0 authorization server for the tests: the identity provider a Microsoft
or Google mailbox would use, small and real (an HTTP server on loopback, no mock of the
HTTP client), following the RFCs pbp relies on:

``/devicecode``  the device authorization request (RFC 8628, 3.1-3.2)
``/device``      the verification page: a POST of ``user_code`` is the user approving
``/token``       the device_code grant (RFC 8628, 3.4-3.5: authorization_pending, slow_down)
                 and the refresh_token grant (RFC 6749, 6), refresh tokens rotated and
                 single-use, a revoked one answered ``invalid_grant`` (RFC 6749, 5.2)
``/introspect``  token introspection (RFC 7662): what the rig's Dovecot (its ``oauth2``
                 passdb) and the test SMTP server ask about a bearer token
``/authorize``   the browser sign-in (RFC 6749, 4.1, with RFC 7636's S256 challenge and RFC
                 8252's loopback redirect): a GET is the user signing in and allowing
                 access; it redirects to ``redirect_uri`` with a code (or ``error`` when
                 ``deny`` is set), which the ``authorization_code`` grant at ``/token``
                 takes with the matching ``code_verifier`` (and ``client_secret``, if set)

Each access token belongs to ``user`` (introspection answers ``username``), so a server
checks the login name against the token, as Microsoft's and Google's do.
"""
from __future__ import annotations

import base64
import hashlib
import json
import secrets
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlencode, urlsplit

from pbp.transport.oauth import Provider

from .net import LOOPBACK, free_ports

CLIENT_ID = "pbp-test-client"
DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code"


class TokenEndpoint:
    """The authorization server on loopback. ``interval`` is the polling interval it asks
    for; ``slow_down_at`` the poll (1-based) answered ``slow_down`` (None: never);
    ``expires_in`` the access tokens' life in seconds."""

    def __init__(self, user: str, *, interval: int = 5, slow_down_at: int | None = 2, expires_in: int = 3600) -> None:
        self.user = user
        self.interval, self.slow_down_at, self.expires_in = interval, slow_down_at, expires_in
        self.port = free_ports(1)[0]
        self.url = f"http://{LOOPBACK}:{self.port}"
        self.approved = False
        self.polls = 0
        self.device_code = secrets.token_hex(8)
        self.user_code = "WDJB-MJHT"
        self.refresh_tokens: set[str] = set()
        self.access_tokens: dict[str, str] = {}     # token -> username
        self.requests: list[dict] = []
        self.client_secret: str | None = None      # the authorization_code grant wants it when set
        self.deny = False                           # the user refuses access at /authorize
        self.codes: dict[str, dict] = {}            # code -> the /authorize request it answered
        self._lock = threading.Lock()
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                form = {k: v[0] for k, v in parse_qs(self.rfile.read(length).decode()).items()}
                with endpoint._lock:
                    endpoint.requests.append({"path": self.path, **form})
                    status, body = endpoint.answer(self.path, form)
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Cache-Control", "no-store")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self):
                query = {k: v[0] for k, v in parse_qs(urlsplit(self.path).query).items()}
                with endpoint._lock:
                    endpoint.requests.append({"path": urlsplit(self.path).path, **query})
                    status, location = endpoint.authorize(query)
                self.send_response(status)
                if location:
                    self.send_header("Location", location)
                self.send_header("Content-Length", "0")
                self.end_headers()

        self.server = ThreadingHTTPServer((LOOPBACK, self.port), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def provider(self, name: str = "microsoft") -> Provider:
        if name == "google":
            return Provider(name, device_url="", token_url=f"{self.url}/token", scopes="https://mail.google.com/",
                            authorize_url=f"{self.url}/authorize")
        return Provider(name, device_url=f"{self.url}/devicecode", token_url=f"{self.url}/token",
                        scopes="offline_access https://outlook.office.com/IMAP.AccessAsUser.All "
                               "https://outlook.office.com/SMTP.Send")

    def authorize(self, query: dict) -> tuple[int, str]:
        """The browser at ``/authorize``: a redirect back to the (loopback) ``redirect_uri``."""
        redirect = query.get("redirect_uri", "")
        if (query.get("client_id") != CLIENT_ID or query.get("response_type") != "code"
                or not redirect.startswith(f"http://{LOOPBACK}:") or query.get("code_challenge_method") != "S256"
                or not query.get("code_challenge")):
            return 400, ""
        answer = {"state": query.get("state", "")}
        if self.deny:
            answer["error"] = "access_denied"
        else:
            code = secrets.token_urlsafe(12)
            self.codes[code] = query
            answer["code"] = code
        return 302, f"{redirect}?{urlencode(answer)}"

    def _tokens(self) -> dict:
        access, refresh = secrets.token_urlsafe(16), secrets.token_urlsafe(16)
        self.access_tokens[access] = self.user
        self.refresh_tokens.add(refresh)
        return {"token_type": "Bearer", "access_token": access, "refresh_token": refresh,
                "expires_in": self.expires_in}

    def answer(self, path: str, form: dict) -> tuple[int, dict]:
        if path == "/introspect":
            user = self.access_tokens.get(form.get("token", ""))
            return 200, ({"active": True, "username": user, "client_id": CLIENT_ID, "token_type": "Bearer"}
                         if user else {"active": False})
        if path == "/device":
            if form.get("user_code") != self.user_code:
                return 400, {"error": "invalid user code"}
            self.approved = True
            return 200, {}
        if form.get("client_id") != CLIENT_ID:
            return 401, {"error": "invalid_client"}
        if path == "/devicecode":
            return 200, {"device_code": self.device_code, "user_code": self.user_code,
                         "verification_uri": f"{self.url}/device", "expires_in": 900, "interval": self.interval}
        grant = form.get("grant_type")
        if grant == DEVICE_GRANT:
            if form.get("device_code") != self.device_code:
                return 400, {"error": "invalid_grant"}
            self.polls += 1
            if self.polls == self.slow_down_at:
                return 400, {"error": "slow_down"}
            if not self.approved:
                return 400, {"error": "authorization_pending"}
            return 200, self._tokens()
        if grant == "authorization_code":
            asked = self.codes.pop(form.get("code", ""), None)
            verifier = form.get("code_verifier", "")
            challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
            if (asked is None or form.get("redirect_uri") != asked["redirect_uri"]
                    or challenge != asked["code_challenge"]):
                return 400, {"error": "invalid_grant"}
            if self.client_secret and form.get("client_secret") != self.client_secret:
                return 401, {"error": "invalid_client"}
            return 200, self._tokens()
        if grant == "refresh_token":
            if self.client_secret and form.get("client_secret") != self.client_secret:
                return 401, {"error": "invalid_client"}
            if form.get("refresh_token") not in self.refresh_tokens:
                return 400, {"error": "invalid_grant", "error_description": "the refresh token was revoked"}
            self.refresh_tokens.discard(form["refresh_token"])
            return 200, self._tokens()
        return 400, {"error": "unsupported_grant_type"}

    def refreshes(self) -> int:
        return sum(1 for r in self.requests if r.get("grant_type") == "refresh_token")

    def expire_access_tokens(self) -> None:
        """Every access token given so far is no longer live (expired or revoked at the server)."""
        self.access_tokens.clear()

    def revoke_refresh_tokens(self) -> None:
        """The user (or an admin) revoked pbp's sign-in: every refresh token is refused."""
        self.refresh_tokens.clear()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
