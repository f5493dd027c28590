"""``pbp init --oauth microsoft|google``: sign a table's mailbox in once, so that the daemon
can log in to IMAP and SMTP by XOAUTH2 (docs/oauth.md).

The config's ``[oauth]`` section says whom to ask (``pbp init --imap HOST --oauth PROVIDER
--client-id ID`` writes it; run again on an existing config, it signs in again and keeps the
file). Microsoft: the device authorization grant (RFC 8628): pbp asks the provider for a
code, prints the page to open and the code to type there (on any device: the server pbp
runs on needs no browser), polls until the mailbox's owner approves. Google, whose device
flow does not grant the mail scope: the browser sign-in for programs on a computer (RFC
8252): pbp prints the provider's page with a PKCE challenge (RFC 7636), listens on a
loopback port for the browser to come back with the code, and trades the code for the
tokens. Either way the refresh token is kept in ``token_file`` (mode 0600); every access
token after that is made from it by the daemon (:class:`pbp.transport.oauth.TokenSource`).
"""
from __future__ import annotations

import base64
import hashlib
import os
import secrets
import time
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Callable
from urllib.parse import parse_qs, urlencode, urlsplit

from pbp.config import Config
from pbp.errors import CommandError, ConfigError
from pbp.transport.oauth import OAuthError, Provider, exchange_code, poll_device_flow, start_device_flow

#: How long the browser sign-in waits for the browser to come back.
BROWSER_WAIT_SECONDS = 600

#: The provider's own servers, for ``pbp init --oauth PROVIDER`` without ``--imap``.
PROVIDER_HOSTS = {"microsoft": ("outlook.office365.com", "smtp.office365.com"),
                  "google": ("imap.gmail.com", "smtp.gmail.com")}
EXAMPLE = "pbp init --oauth microsoft --username table@contoso.com --client-id 8f2a5c1e-0b7d-4c3e-9a61-2f4d8e7b3c90"


def token_file_beside(database: str | None) -> str:
    """Where a new config keeps the token: beside a SQLite file given by absolute path (the
    folder the daemon may write, /var/lib/pbp under docs/pbp.service), else beside the config."""
    prefix = "sqlite:////"
    if database and database.startswith(prefix):
        return str(Path(database[len("sqlite:///"):]).parent / "oauth-token.json")
    return "oauth-token.json"


def check_token_file(config: Config) -> str:
    """``pbp check-config``'s line: a refresh token is kept, and the daemon's user may
    replace it (the provider may send a new one at any refresh)."""
    tokens = config.oauth_tokens
    path = tokens.token_file
    if not tokens.stored_refresh_token():
        raise ConfigError(f"no refresh token in {path}",
                          hint=f"sign in once: pbp init --oauth {tokens.provider.name} with this --config")
    folder = path.parent
    if not os.access(folder, os.W_OK | os.X_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise ConfigError(f"{path} cannot be replaced by this user (the provider may send a new token at any refresh)",
                          hint="put token_file in a folder the daemon's user may write, e.g. "
                               "/var/lib/pbp/oauth-token.json (docs/pbp.service's ReadWritePaths)")
    return f"{path} (refresh token kept)"


def check_new_config(args) -> None:
    """What a new OAuth config needs from the command line (before anything is written)."""
    if not args.client_id:
        raise CommandError("--oauth needs --client-id: the application (client) id of the app registered "
                           f"for pbp at {args.oauth} (docs/oauth.md)", expected="--client-id ID", example=EXAMPLE)
    if not args.username:
        raise CommandError("--oauth needs --username: the mailbox's address, the login of both IMAP and SMTP",
                           expected="--username ADDRESS", example=EXAMPLE)
    if args.tenant and args.oauth != "microsoft":
        raise CommandError(f"--tenant is Microsoft's alone, not {args.oauth}'s", expected="no --tenant",
                           example=EXAMPLE + " --tenant contoso.com")


def sign_in(config: Config, provider: str, *, out: Callable[[str], None] = print,
            sleep: Callable[[float], None] = time.sleep) -> None:
    """Run the device flow for the config's ``[oauth]`` and keep the token it gives."""
    tokens = config.oauth_tokens
    where = f"{config.path}: " if config.path else ""
    if tokens is None:
        raise ConfigError(f"{where}no [oauth] section to sign in with",
                          hint="add one (see config.example.toml and docs/oauth.md), or write a new config: "
                               + EXAMPLE + " --force")
    if tokens.provider.name != provider:
        raise ConfigError(f'{where}[oauth] provider = "{tokens.provider.name}", not "{provider}"',
                          hint=f"run pbp init --oauth {tokens.provider.name}, or change provider in [oauth]")
    user = (config.imap or {}).get("username") or (config.smtp or {}).get("username") or "the table's mailbox"
    if not tokens.provider.device_url:
        response = browser_sign_in(tokens.provider, tokens.client_id, user, client_secret=tokens.client_secret,
                                   out=out)
        tokens.save(response)
        out(f"signed in: the refresh token is kept in {tokens.token_file} (mode 0600, readable by this user only)")
        return
    code = start_device_flow(tokens.provider, tokens.client_id)
    minutes = max(1, code.expires_in // 60)
    out(f"To let pbp read and send mail as {user}, open\n\n    {code.verification_uri}\n\n"
        f"in a browser (on any device), enter the code\n\n    {code.user_code}\n\n"
        f"and sign in as {user} (within {minutes} minutes). Waiting...")
    response = poll_device_flow(tokens.provider, tokens.client_id, code, sleep=sleep,
                                client_secret=tokens.client_secret)
    tokens.save(response)
    out(f"signed in: the refresh token is kept in {tokens.token_file} (mode 0600, readable by this user only)")


def browser_sign_in(provider: Provider, client_id: str, user: str, *, client_secret: str | None = None,
                    out: Callable[[str], None] = print, wait: float = BROWSER_WAIT_SECONDS) -> dict:
    """RFC 8252 (with RFC 7636's S256 challenge and a ``state``): the URL to open, the
    browser's return to ``http://127.0.0.1:PORT/`` taken by a one-page server here, the
    code traded at the token endpoint. Returns the token response."""
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode("ascii")).digest()).rstrip(b"=").decode()
    state = secrets.token_urlsafe(16)
    came_back: dict[str, str] = {}

    class Return(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):
            query = {k: v[0] for k, v in parse_qs(urlsplit(self.path).query).items()}
            ours = query.get("state") == state and ("code" in query or "error" in query)
            if ours:
                came_back.update(query)
            text = ("pbp is signed in: you may close this page." if ours and "code" in query else
                    "pbp was not signed in; the terminal says why." if ours else "Not the page pbp waits for.")
            body = f"<!doctype html><title>pbp</title><p>{text}</p>".encode()
            self.send_response(200 if ours else 400)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = HTTPServer(("127.0.0.1", 0), Return)
    try:
        port = server.server_address[1]
        redirect_uri = f"http://127.0.0.1:{port}/"
        url = provider.authorize_url + "?" + urlencode({
            "client_id": client_id, "redirect_uri": redirect_uri, "response_type": "code",
            "scope": provider.scopes, "state": state, "code_challenge": challenge,
            "code_challenge_method": "S256", "access_type": "offline", "prompt": "consent", "login_hint": user})
        out(f"To let pbp read and send mail as {user}, open this page in a browser and sign in as {user}:\n\n"
            f"    {url}\n\nThe browser then comes back to pbp at {redirect_uri} (on a server without a browser, "
            f"first forward that port from your computer: ssh -L {port}:127.0.0.1:{port} THIS-HOST). Waiting...")
        deadline = time.monotonic() + wait
        while not came_back and time.monotonic() < deadline:
            server.timeout = max(0.1, min(1.0, deadline - time.monotonic()))
            server.handle_request()
    finally:
        server.server_close()
    if not came_back:
        raise OAuthError(f"the browser did not come back to pbp within {int(wait // 60)} minutes",
                         hint=f"run pbp init --oauth {provider.name} again and open the page it prints")
    if "code" not in came_back:
        error = came_back.get("error", "")
        raise OAuthError(f"{provider.name} did not authorise pbp: {error} {came_back.get('error_description', '')}"
                         .strip(), error=error, hint=f"run pbp init --oauth {provider.name} again and allow access "
                         f"as {user}")
    return exchange_code(provider, client_id, came_back["code"], redirect_uri, verifier, client_secret=client_secret)
