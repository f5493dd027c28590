"""OAuth 2.0 for Microsoft and Google mailboxes (issue 28, item 6): the device flow (RFC
8628) and the refresh grant (RFC 6749) against a local token endpoint that follows both
RFCs (a small real HTTP server, no mock of the HTTP client), and SMTP's AUTH XOAUTH2
checked by the test SMTP server, which asks the token endpoint whether the bearer token
is live (token introspection, RFC 7662) before it takes any mail."""
from __future__ import annotations

import asyncio
import base64
import json
import secrets
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs

import httpx
import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult

from pbp.errors import ConfigError
from pbp.transport.oauth import OAuthError, Provider, TokenSource, poll_device_flow, start_device_flow, xoauth2
from pbp.transport.settings import SmtpSettings
from pbp.transport.smtp import SmtpSender
from tests.rig.net import LOOPBACK, free_ports

CLIENT_ID = "pbp-test-client"
USER = "table@contoso.test"


class TokenEndpoint:
    """The authorization server: /devicecode (RFC 8628 3.1-3.2), /token (the device_code
    grant, 3.4-3.5, and the refresh_token grant, RFC 6749 6, rotating refresh tokens),
    /introspect (RFC 7662). ``approve()`` is the user typing the code in the browser."""

    def __init__(self) -> None:
        self.port = free_ports(1)[0]
        self.url = f"http://{LOOPBACK}:{self.port}"
        self.approved = False
        self.polls = 0
        self.device_code = secrets.token_hex(8)
        self.refresh_tokens: set[str] = set()
        self.access_tokens: set[str] = set()
        self.requests: list[dict] = []
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                form = {k: v[0] for k, v in parse_qs(self.rfile.read(int(self.headers["Content-Length"])).decode()).items()}
                endpoint.requests.append({"path": self.path, **form})
                status, body = endpoint.answer(self.path, form)
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Cache-Control", "no-store")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer((LOOPBACK, self.port), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def provider(self) -> Provider:
        return Provider("microsoft", device_url=f"{self.url}/devicecode", token_url=f"{self.url}/token",
                        scopes="offline_access https://outlook.office.com/SMTP.Send")

    def _tokens(self) -> dict:
        access, refresh = secrets.token_urlsafe(16), secrets.token_urlsafe(16)
        self.access_tokens.add(access)
        self.refresh_tokens.add(refresh)
        return {"token_type": "Bearer", "access_token": access, "refresh_token": refresh, "expires_in": 3600}

    def answer(self, path: str, form: dict) -> tuple[int, dict]:
        if form.get("client_id") != CLIENT_ID and path != "/introspect":
            return 401, {"error": "invalid_client"}
        if path == "/devicecode":
            return 200, {"device_code": self.device_code, "user_code": "WDJB-MJHT",
                         "verification_uri": f"{self.url}/device", "expires_in": 900, "interval": 5}
        if path == "/introspect":
            return 200, {"active": form.get("token") in self.access_tokens}
        grant = form.get("grant_type")
        if grant == "urn:ietf:params:oauth:grant-type:device_code":
            if form.get("device_code") != self.device_code:
                return 400, {"error": "invalid_grant"}
            self.polls += 1
            if self.polls == 2:
                return 400, {"error": "slow_down"}
            if not self.approved:
                return 400, {"error": "authorization_pending"}
            return 200, self._tokens()
        if grant == "refresh_token":
            if form.get("refresh_token") not in self.refresh_tokens:
                return 400, {"error": "invalid_grant", "error_description": "the refresh token was revoked"}
            self.refresh_tokens.discard(form["refresh_token"])
            return 200, self._tokens()
        return 400, {"error": "unsupported_grant_type"}

    def revoke_all(self) -> None:
        self.access_tokens.clear()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class XOAuth2Handler:
    """A submission server that takes AUTH XOAUTH2 only, checking the token with the
    authorization server's introspection endpoint; it records what it accepts."""

    def __init__(self, introspect_url: str) -> None:
        self.introspect_url = introspect_url
        self.received: list[tuple[str, list[str], bytes]] = []

    async def auth_XOAUTH2(self, server, args):
        try:
            fields = dict(part.split("=", 1) for part in
                          base64.b64decode(args[1]).decode().split("\x01") if "=" in part)
        except (IndexError, ValueError):
            return AuthResult(success=False, handled=False)
        token = fields.get("auth", "").removeprefix("Bearer ")
        async with httpx.AsyncClient() as client:
            answer = (await client.post(self.introspect_url, data={"token": token})).json()
        ok = fields.get("user") == USER and answer.get("active") is True
        return AuthResult(success=ok, handled=False, auth_data=fields.get("user") if ok else None)

    async def handle_DATA(self, server, session, envelope):
        self.received.append((envelope.mail_from, list(envelope.rcpt_tos), envelope.content))
        return "250 OK"


@pytest.fixture
def endpoint():
    server = TokenEndpoint()
    yield server
    server.stop()


@pytest.fixture
def smtp(endpoint):
    handler = XOAuth2Handler(f"{endpoint.url}/introspect")
    port = free_ports(1)[0]
    controller = Controller(handler, hostname=LOOPBACK, port=port, auth_required=True, auth_require_tls=False,
                            auth_exclude_mechanism=["LOGIN", "PLAIN"])
    controller.start()
    yield port, handler
    controller.stop()


def sign_in(endpoint, tmp_path) -> TokenSource:
    """``pbp init --oauth``'s flow: the code shown, the user approves, the tokens kept."""
    provider = endpoint.provider()
    code = start_device_flow(provider, CLIENT_ID)
    assert (code.user_code, code.interval) == ("WDJB-MJHT", 5)
    waits = []

    def sleep(seconds):
        waits.append(seconds)
        if len(waits) == 3:
            endpoint.approved = True      # the user typed the code in the browser

    tokens = TokenSource(provider, CLIENT_ID, tmp_path / "oauth" / "table.json")
    tokens.save(poll_device_flow(provider, CLIENT_ID, code, sleep=sleep))
    assert waits == [5, 5, 10]            # pending, slow_down, then five seconds more (RFC 8628, 3.5); slow_down adds five seconds (RFC 8628, 3.5)
    return tokens


def test_the_device_flow_keeps_a_refresh_token_in_a_private_file(endpoint, tmp_path):
    tokens = sign_in(endpoint, tmp_path)
    kept = tmp_path / "oauth" / "table.json"
    assert kept.stat().st_mode & 0o777 == 0o600
    assert json.loads(kept.read_text())["refresh_token"] in endpoint.refresh_tokens
    assert tokens.access_token() in endpoint.access_tokens


def test_an_expired_access_token_is_refreshed_and_the_new_refresh_token_kept(endpoint, tmp_path):
    tokens = sign_in(endpoint, tmp_path)
    first = tokens.access_token()
    now = [0.0]
    later = TokenSource(endpoint.provider(), CLIENT_ID, tmp_path / "oauth" / "table.json", clock=lambda: now[0])
    second = later.access_token()                  # a new process: no access token in memory
    assert second != first and second in endpoint.access_tokens
    assert endpoint.requests[-1]["grant_type"] == "refresh_token"
    assert later.access_token() == second          # still fresh: no request
    now[0] = 3600                                  # within a minute of its expiry
    assert later.access_token() not in (first, second)
    assert len([r for r in endpoint.requests if r.get("grant_type") == "refresh_token"]) == 2


def test_a_revoked_refresh_token_says_to_sign_in_again(endpoint, tmp_path):
    tokens = sign_in(endpoint, tmp_path)
    endpoint.refresh_tokens.clear()
    fresh = TokenSource(endpoint.provider(), CLIENT_ID, tmp_path / "oauth" / "table.json")
    with pytest.raises(OAuthError, match="invalid_grant") as caught:
        fresh.access_token()
    assert "pbp init --imap HOST --oauth microsoft" in caught.value.hint
    with pytest.raises(ConfigError, match="no OAuth refresh token"):
        TokenSource(endpoint.provider(), CLIENT_ID, tmp_path / "none.json").access_token()
    assert tokens is not None


def test_smtp_sends_with_xoauth2_and_a_dead_token_is_refused(endpoint, smtp, tmp_path):
    port, handler = smtp
    tokens = sign_in(endpoint, tmp_path)
    settings = SmtpSettings(host=LOOPBACK, port=port, security="plain", timeout=10)
    raw = b"From: table@contoso.test\r\nTo: ruth@example.org\r\nSubject: hi\r\nMessage-ID: <x@y>\r\n\r\nhello\r\n"

    async def send():
        sender = SmtpSender(settings, oauth=(USER, tokens))
        try:
            return await sender.send(raw, USER, ["ruth@example.org"])
        finally:
            await sender.close()

    receipt = asyncio.run(send())
    assert receipt.code == 250 and handler.received[0][:2] == (USER, ["ruth@example.org"])
    endpoint.revoke_all()                          # the token is no longer live at the server
    from pbp.transport.errors import AuthFailed

    with pytest.raises(AuthFailed):
        asyncio.run(send())
    assert len(handler.received) == 1


def test_the_xoauth2_string_is_the_sasl_mechanisms():
    assert base64.b64decode(xoauth2("u@x", "T")) == b"user=u@x\x01auth=Bearer T\x01\x01"
