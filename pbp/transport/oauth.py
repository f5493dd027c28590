"""OAuth 2.0 for mailboxes that take no password (Microsoft 365 and Outlook.com, Google):
the device authorization grant to set up (RFC 8628; Google: the authorization code with
PKCE, whose browser side is pbp.oauth_signin), the refresh token grant to keep an access
token fresh (RFC 6749, section 6), and the SASL XOAUTH2 string IMAP and SMTP log in with
(imapclient's ``oauth2_login`` sends the same).

The grants are plain HTTP form posts to the provider's endpoints, made with httpx (a
dependency already, for the forum); :func:`provider_for` gives each provider's endpoints and
the scopes that reach IMAP and SMTP. The refresh token is the secret; it is kept in a file
of mode 0600 (``token_file``), rewritten when the provider sends a new one.

Why not msal (Microsoft's library): each grant is a form post or two, the same for both
providers; msal is Microsoft's alone (Google would need a second library), brings
requests, PyJWT and cryptography, keeps its own token cache format, and insists on its
authority discovery, so it could not be run against the local RFC 8628 endpoint the tests
use. What it adds beyond the RFCs (brokers, Conditional Access claims challenges) does not
arise for IMAP and SMTP.
"""
from __future__ import annotations

import base64
import fcntl
import json
import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import httpx

from pbp.errors import ConfigError, PbpError


@dataclass(frozen=True)
class Provider:
    """One provider's endpoints and the scopes pbp asks for. ``device_url``: signing in by the
    device flow (RFC 8628); else ``authorize_url``: by a browser coming back to pbp on
    loopback (RFC 8252, the authorization code with PKCE), as Google wants for mail."""

    name: str
    device_url: str
    token_url: str
    scopes: str
    authorize_url: str = ""


MICROSOFT = "https://login.microsoftonline.com/{tenant}/oauth2/v2.0"
PROVIDERS = {
    # Microsoft identity platform: the "common" tenant takes work, school and personal accounts
    "microsoft": Provider(
        "microsoft",
        device_url=MICROSOFT.format(tenant="common") + "/devicecode",
        token_url=MICROSOFT.format(tenant="common") + "/token",
        scopes="offline_access https://outlook.office.com/IMAP.AccessAsUser.All https://outlook.office.com/SMTP.Send"),
    # Google's device flow grants a short list of scopes, and mail is not on it: a browser
    # sign-in that comes back to pbp on loopback (Google's flow for desktop programs)
    "google": Provider(
        "google",
        device_url="",
        token_url="https://oauth2.googleapis.com/token",
        scopes="https://mail.google.com/",
        authorize_url="https://accounts.google.com/o/oauth2/v2/auth"),
}


def provider_for(name: str, *, tenant: str = "", device_url: str = "", token_url: str = "",
                 scopes: str = "", authorize_url: str = "") -> Provider:
    """The provider of ``[oauth]``: Microsoft's endpoints in ``tenant`` ("common",
    "organizations", "consumers", or the directory's id or domain), Google's; any of the
    others given replaces the provider's own (a national cloud, an identity server of one's
    own: ``name`` "other" takes them all)."""
    base = PROVIDERS.get(name) or Provider(name, "", "", "")
    if name == "microsoft" and tenant:
        base = Provider(name, MICROSOFT.format(tenant=tenant) + "/devicecode",
                        MICROSOFT.format(tenant=tenant) + "/token", base.scopes)
    return Provider(name, device_url or base.device_url, token_url or base.token_url, scopes or base.scopes,
                    authorize_url or base.authorize_url)

#: refresh this long before the provider says the access token expires
EARLY_SECONDS = 60


class OAuthError(PbpError):
    """The provider refused or could not be reached; ``error`` is its RFC 6749 code.
    ``temporary``: trying again later may help (the endpoint unreachable or failing), as
    the transports' errors say it (pbp.transport.errors)."""

    def __init__(self, message: str, *, error: str = "", hint: str = "", temporary: bool = False) -> None:
        super().__init__(message, hint=hint)
        self.error = error
        self.temporary = temporary


def sign_in_again(provider: str) -> str:
    """The hint for a refresh token the provider no longer takes (revoked, expired, the
    password changed): sign in once more; the config file is kept."""
    return (f"sign in again: run `pbp init --oauth {provider}` with the same --config (the config file "
            "is kept; the device code it shows is approved in a browser, and the new token replaces the old)")


def xoauth2(user: str, access_token: str) -> str:
    """The SASL XOAUTH2 initial response, base64 (``user=U^Aauth=Bearer T^A^A``)."""
    return base64.b64encode(f"user={user}\x01auth=Bearer {access_token}\x01\x01".encode()).decode("ascii")


def _post(url: str, data: dict, *, client: httpx.Client | None, timeout: float) -> tuple[int, dict]:
    own = client is None
    client = client or httpx.Client(timeout=timeout)
    try:
        response = client.post(url, data=data, headers={"Accept": "application/json"})
    except httpx.HTTPError as exc:
        raise OAuthError(f"the token endpoint {url} could not be reached: {exc}", temporary=True,
                         hint="check the network; pbp tries again at the next connection") from exc
    finally:
        if own:
            client.close()
    try:
        body = response.json()
    except ValueError:
        body = {}
    return response.status_code, body if isinstance(body, dict) else {}


@dataclass
class DeviceCode:
    """What the user is told: go to ``verification_uri`` and type ``user_code``."""

    device_code: str
    user_code: str
    verification_uri: str
    interval: int
    expires_in: int


def start_device_flow(provider: Provider, client_id: str, *, client: httpx.Client | None = None,
                      timeout: float = 20.0) -> DeviceCode:
    """RFC 8628, 3.1: the device authorization request."""
    status, body = _post(provider.device_url, {"client_id": client_id, "scope": provider.scopes},
                         client=client, timeout=timeout)
    if status != 200 or "device_code" not in body:
        error = body.get("error", "")
        hint = "check client_id (and tenant) in [oauth]: the app registered for pbp (docs/oauth.md)"
        if error == "invalid_scope" and provider.name == "google":
            hint = ("Google's device flow does not grant the mail scope https://mail.google.com/; "
                    "see docs/oauth.md, Gmail")
        raise OAuthError(f"{provider.name} refused the device authorization: {error or status} "
                         f"{body.get('error_description', '')}".strip(), error=error, hint=hint,
                         temporary=status >= 500)
    return DeviceCode(body["device_code"], body["user_code"],
                      body.get("verification_uri") or body.get("verification_url", ""),
                      int(body.get("interval", 5)), int(body.get("expires_in", 900)))


def poll_device_flow(provider: Provider, client_id: str, code: DeviceCode, *, client: httpx.Client | None = None,
                     sleep: Callable[[float], None] = time.sleep, clock: Callable[[], float] = time.monotonic,
                     timeout: float = 20.0, client_secret: str | None = None) -> dict:
    """RFC 8628, 3.4-3.5: poll the token endpoint until the user has approved; returns the
    token response (``access_token``, ``refresh_token``, ``expires_in``). ``slow_down``
    adds five seconds to the interval, as the RFC says. ``client_secret``: Google's
    clients have one (not a secret in an installed program, but its token endpoint wants
    it); Microsoft's public clients have none."""
    interval, deadline = code.interval, clock() + code.expires_in
    form = {"grant_type": "urn:ietf:params:oauth:grant-type:device_code", "device_code": code.device_code,
            "client_id": client_id}
    if client_secret:
        form["client_secret"] = client_secret
    while clock() < deadline:
        sleep(interval)
        status, body = _post(provider.token_url, form, client=client, timeout=timeout)
        if status == 200 and "access_token" in body:
            return body
        error = body.get("error", "")
        if error == "authorization_pending":
            continue
        if error == "slow_down":
            interval += 5
            continue
        raise OAuthError(f"{provider.name} did not authorise pbp: {error or status} "
                         f"{body.get('error_description', '')}".strip(), error=error,
                         hint="run pbp init --oauth again and approve the request in the browser")
    raise OAuthError(f"the code {code.user_code} expired before it was approved", error="expired_token",
                     hint="run pbp init --oauth again and type the code within its time")


def exchange_code(provider: Provider, client_id: str, code: str, redirect_uri: str, verifier: str, *,
                  client_secret: str | None = None, client: httpx.Client | None = None,
                  timeout: float = 20.0) -> dict:
    """RFC 6749, 4.1.3 with RFC 7636's ``code_verifier``: the code the browser brought back,
    for the token response."""
    form = {"grant_type": "authorization_code", "code": code, "redirect_uri": redirect_uri,
            "client_id": client_id, "code_verifier": verifier}
    if client_secret:
        form["client_secret"] = client_secret
    status, body = _post(provider.token_url, form, client=client, timeout=timeout)
    if status != 200 or "access_token" not in body:
        error = body.get("error", "")
        raise OAuthError(f"{provider.name} did not give a token for the code: {error or status} "
                         f"{body.get('error_description', '')}".strip(), error=error, temporary=status >= 500,
                         hint="check client_id and the client secret in [oauth] (docs/oauth.md), then run "
                              f"pbp init --oauth {provider.name} again")
    return body


def unwritable(path: Path, exc: OSError) -> ConfigError:
    return ConfigError(f"cannot write beside the OAuth token file {path}: {exc.strerror or exc}",
                       hint="put token_file in a folder the daemon's user may write, e.g. "
                            "/var/lib/pbp/oauth-token.json (docs/pbp.service's ReadWritePaths)")


class TokenSource:
    """An access token for a mailbox, refreshed with the refresh token in ``token_file``
    (RFC 6749, 6) when it is about to expire; a new refresh token the provider sends
    replaces the kept one.

    One instance serves a process (the config makes it once: every mailbox's reader and the
    sender share it, from any thread); a refresh holds a lock on ``token_file.lock`` too, so
    daemons on one machine sharing the file take turns and each reads the refresh token the
    last one kept (providers may make a used refresh token invalid). ``client_secret`` is a
    string or a function giving it when first needed (read from the environment or a file)."""

    def __init__(self, provider: Provider, client_id: str, token_file: str | os.PathLike, *,
                 client_secret: str | Callable[[], str | None] | None = None, client: httpx.Client | None = None,
                 timeout: float = 20.0, clock: Callable[[], float] = time.time) -> None:
        self.provider, self.client_id, self._secret = provider, client_id, client_secret
        self.token_file = Path(token_file)
        self.client, self.timeout, self.clock = client, timeout, clock
        self._access: str | None = None
        self._expires_at = 0.0
        self._lock = threading.Lock()

    @property
    def client_secret(self) -> str | None:
        return self._secret() if callable(self._secret) else self._secret

    def save(self, response: dict) -> None:
        """Keep a token response (the refresh token to a 0600 file, the access token in memory)."""
        refresh = response.get("refresh_token") or self._stored().get("refresh_token")
        if not refresh:
            raise OAuthError(f"{self.provider.name} sent no refresh token", error="invalid_grant",
                             hint="the app registration must allow offline access (scope offline_access)")
        try:
            self.token_file.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.token_file.with_suffix(".tmp")
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                json.dump({"provider": self.provider.name, "refresh_token": refresh}, out)
            os.replace(tmp, self.token_file)
        except OSError as exc:
            raise unwritable(self.token_file, exc) from exc
        self._access = response.get("access_token")
        self._expires_at = self.clock() + float(response.get("expires_in", 3600)) - EARLY_SECONDS

    def stored_refresh_token(self) -> str | None:
        return self._stored().get("refresh_token")

    def _stored(self) -> dict:
        try:
            data = json.loads(self.token_file.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def forget(self) -> None:
        """Drop the access token in memory (a server refused it before its time): the next
        :meth:`access_token` asks the provider for a new one."""
        self._access, self._expires_at = None, 0.0

    def access_token(self) -> str:
        """A valid access token, refreshed first when it is (about to be) expired."""
        with self._lock:
            if self._access and self.clock() < self._expires_at:
                return self._access
            try:
                self.token_file.parent.mkdir(parents=True, exist_ok=True)
                lock = open(self.token_file.with_name(self.token_file.name + ".lock"), "a")
            except OSError as exc:
                raise unwritable(self.token_file, exc) from exc
            with lock:
                fcntl.flock(lock, fcntl.LOCK_EX)
                self._refresh()
            return self._access

    def _refresh(self) -> None:
        refresh = self._stored().get("refresh_token")
        if not refresh:
            raise ConfigError(f"no OAuth refresh token in {self.token_file}",
                              hint=f"sign in once: run `pbp init --oauth {self.provider.name}` with this "
                                   "config (it shows a code to approve in a browser and stores the token)")
        data = {"grant_type": "refresh_token", "refresh_token": refresh, "client_id": self.client_id}
        secret = self.client_secret
        if secret:
            data["client_secret"] = secret
        status, body = _post(self.provider.token_url, data, client=self.client, timeout=self.timeout)
        if status != 200 or "access_token" not in body:
            error = body.get("error", "")
            # RFC 6749, 5.2: invalid_grant is a refresh token revoked or expired; the others
            # (invalid_client, unauthorized_client) are the app registration's
            hint = sign_in_again(self.provider.name) if error == "invalid_grant" else (
                "pbp tries again at the next connection" if status >= 500 or not error else
                "check client_id (and tenant, client_secret) in [oauth] against the app registration (docs/oauth.md)")
            raise OAuthError(f"{self.provider.name} refused to refresh the token in {self.token_file}: "
                             f"{error or status} {body.get('error_description', '')}".strip(), error=error,
                             hint=hint, temporary=status >= 500 or not error)
        self.save(body)
