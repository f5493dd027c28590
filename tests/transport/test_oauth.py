"""OAuth 2.0 for Microsoft and Google mailboxes (issue 28, item 6), against a local
authorization server that follows RFC 6749 / 8628 / 7662 (tests/rig/oauth.py: a small real
HTTP server, no mock of the HTTP client): the device flow, the refresh grant, a revoked
refresh token; IMAP's XOAUTH2 login on the rig's real Dovecot, whose ``oauth2`` passdb asks
the same server about each bearer token (introspection); SMTP's AUTH XOAUTH2 checked by a
test submission server that asks it too."""
from __future__ import annotations

import asyncio
import base64
import json
import re
import threading
import time

import httpx
import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult

from pbp.config import config_from_dict
from pbp.errors import ConfigError
from pbp.transport.errors import AuthFailed
from pbp.transport.imap import ImapInbox
from pbp.transport.oauth import OAuthError, TokenSource, poll_device_flow, start_device_flow, xoauth2
from pbp.transport.settings import ImapSettings, SmtpSettings
from pbp.transport.smtp import SmtpSender
from tests.rig.dovecot import Dovecot
from tests.rig.fixtures import TABLE_USER, USERS, require_dovecot
from tests.rig.net import LOOPBACK, free_ports
from tests.rig.oauth import CLIENT_ID, TokenEndpoint

pytestmark = pytest.mark.live

USER = TABLE_USER
RAW = b"From: table@example.test\r\nTo: ruth@example.org\r\nSubject: hi\r\nMessage-ID: <x@y>\r\n\r\nhello\r\n"


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
        ok = answer.get("active") is True and answer.get("username") == fields.get("user")
        return AuthResult(success=ok, handled=False, auth_data=fields.get("user") if ok else None)

    async def handle_DATA(self, server, session, envelope):
        self.received.append((envelope.mail_from, list(envelope.rcpt_tos), envelope.content))
        return "250 OK"


@pytest.fixture(scope="module")
def module_endpoint():
    server = TokenEndpoint(USER)
    yield server
    server.stop()


@pytest.fixture
def endpoint(module_endpoint):
    """The module's authorization server, every token and request of earlier tests gone."""
    e = module_endpoint
    e.refresh_tokens.clear()
    e.access_tokens.clear()
    e.requests.clear()
    e.approved, e.polls = False, 0
    e.interval, e.slow_down_at = 5, 2
    e.client_secret, e.deny = None, False
    return e


@pytest.fixture(scope="module")
def oauth_dovecot(module_endpoint, tls_files):
    """The rig's Dovecot with an ``oauth2`` passdb pointed at the endpoint's introspection."""
    require_dovecot()
    server = Dovecot(tls=tls_files, oauth2_introspection_url=f"{module_endpoint.url}/introspect")
    for user, password in USERS.items():
        server.add_user(user, password)
    server.start()
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


def sign_in(endpoint, tmp_path, clock=None) -> TokenSource:
    """``pbp init --oauth``'s flow: the code shown, the user approves, the tokens kept."""
    provider = endpoint.provider()
    code = start_device_flow(provider, CLIENT_ID)
    assert (code.user_code, code.interval) == ("WDJB-MJHT", 5)
    waits = []

    def sleep(seconds):
        waits.append(seconds)
        if len(waits) == 3:
            endpoint.approved = True      # the user typed the code in the browser

    tokens = TokenSource(provider, CLIENT_ID, tmp_path / "oauth" / "table.json",
                         **({"clock": clock} if clock else {}))
    tokens.save(poll_device_flow(provider, CLIENT_ID, code, sleep=sleep))
    assert waits == [5, 5, 10]            # pending, slow_down, then five seconds more (RFC 8628, 3.5)
    return tokens


def imap_settings(server: Dovecot, tokens, tls_ca) -> ImapSettings:
    return ImapSettings(host=server.host, port=server.imaps_port, security="tls", username=USER,
                        auth="oauth2", tokens=tokens, ca_file=str(tls_ca), timeout=10)


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
    assert endpoint.refreshes() == 2


def test_a_revoked_refresh_token_says_to_sign_in_again(endpoint, tmp_path):
    sign_in(endpoint, tmp_path)
    endpoint.revoke_refresh_tokens()
    fresh = TokenSource(endpoint.provider(), CLIENT_ID, tmp_path / "oauth" / "table.json")
    with pytest.raises(OAuthError, match="invalid_grant") as caught:
        fresh.access_token()
    assert "refresh token was revoked" in str(caught.value) and not caught.value.temporary
    assert "pbp init --oauth microsoft" in caught.value.hint and "--config" in caught.value.hint
    with pytest.raises(ConfigError, match="no OAuth refresh token") as missing:
        TokenSource(endpoint.provider(), CLIENT_ID, tmp_path / "none.json").access_token()
    assert "pbp init --oauth microsoft" in missing.value.hint


def test_a_token_file_pbp_cannot_write_names_the_file_and_the_fix(endpoint, tmp_path):
    (tmp_path / "etc").write_text("a file where a folder should be")   # (root may write anywhere: no chmod)
    tokens = TokenSource(endpoint.provider(), CLIENT_ID, tmp_path / "etc" / "oauth-token.json")
    for attempt in (lambda: tokens.save({"access_token": "a", "refresh_token": "r"}), tokens.access_token):
        with pytest.raises(ConfigError, match="cannot write beside the OAuth token file") as caught:
            attempt()
        assert str(tmp_path / "etc" / "oauth-token.json") in str(caught.value)
        assert "/var/lib/pbp/oauth-token.json" in caught.value.hint


def test_an_unreachable_token_endpoint_is_temporary(tmp_path):
    from pbp.transport.oauth import Provider

    port = free_ports(1)[0]                        # nothing listens there
    (tmp_path / "t.json").write_text('{"refresh_token": "r"}')
    dead = Provider("microsoft", "", f"http://{LOOPBACK}:{port}/token", "")
    with pytest.raises(OAuthError, match="could not be reached") as caught:
        TokenSource(dead, CLIENT_ID, tmp_path / "t.json", timeout=2).access_token()
    assert caught.value.temporary


def test_imap_logs_in_to_dovecot_by_xoauth2(endpoint, oauth_dovecot, tls_ca, tmp_path):
    tokens = sign_in(endpoint, tmp_path)
    oauth_dovecot.clear(USER)
    oauth_dovecot.append(USER, RAW)
    with ImapInbox(imap_settings(oauth_dovecot, tokens, tls_ca)) as inbox:
        got = inbox.fetch_new(0)
    assert [m.raw.replace(b"\r\n", b"\n") for m in got.messages] == [RAW.replace(b"\r\n", b"\n")]
    token = tokens.access_token()
    assert {"path": "/introspect", "token": token} in endpoint.requests   # Dovecot asked the server


def test_imap_refreshes_an_expired_token_before_it_logs_in(endpoint, oauth_dovecot, tls_ca, tmp_path):
    now = [1000.0]
    tokens = sign_in(endpoint, tmp_path, clock=lambda: now[0])
    inbox = ImapInbox(imap_settings(oauth_dovecot, tokens, tls_ca))
    inbox.fetch_new(0)
    inbox.close()
    assert endpoint.refreshes() == 0
    now[0] += 3600                                 # the hour is up: the server no longer takes it
    endpoint.expire_access_tokens()
    inbox.fetch_new(0)                             # logs in again, with a refreshed token
    inbox.close()
    assert endpoint.refreshes() == 1 and tokens.access_token() in endpoint.access_tokens


def test_a_token_dovecot_refuses_is_replaced_at_the_next_try(endpoint, oauth_dovecot, tls_ca, tmp_path):
    tokens = sign_in(endpoint, tmp_path)
    endpoint.expire_access_tokens()                # revoked early: pbp's clock still calls it fresh
    inbox = ImapInbox(imap_settings(oauth_dovecot, tokens, tls_ca))
    with pytest.raises(AuthFailed, match="OAuth 2.0") as caught:
        inbox.fetch_new(0)
    assert "new access token" in caught.value.hint
    inbox.fetch_new(0)                             # the next round: refreshed, taken
    inbox.close()
    assert endpoint.refreshes() == 1


def test_a_revoked_sign_in_stops_the_imap_login_with_what_to_run(endpoint, oauth_dovecot, tls_ca, tmp_path):
    tokens = sign_in(endpoint, tmp_path)
    endpoint.expire_access_tokens()
    endpoint.revoke_refresh_tokens()
    tokens.forget()
    with pytest.raises(OAuthError) as caught:
        ImapInbox(imap_settings(oauth_dovecot, tokens, tls_ca)).fetch_new(0)
    assert caught.value.error == "invalid_grant" and "pbp init --oauth microsoft" in caught.value.hint


def test_the_config_wires_imap_and_smtp_to_one_token_source(endpoint, oauth_dovecot, smtp, tls_ca, tmp_path):
    """[imap] and [smtp] auth = "oauth2" with an [oauth] section: the settings the daemon
    makes log in to the real Dovecot and the XOAUTH2 submission server with one token."""
    sign_in(endpoint, tmp_path)
    port, handler = smtp
    config = config_from_dict({
        "mail": {"transport": "imap"},
        "imap": {"host": oauth_dovecot.host, "port": oauth_dovecot.imaps_port, "username": USER,
                 "auth": "oauth2", "ca_file": str(tls_ca)},
        "smtp": {"host": LOOPBACK, "port": port, "security": "plain", "username": USER, "auth": "oauth2"},
        "oauth": {"provider": "microsoft", "client_id": CLIENT_ID, "token_file": "oauth/table.json",
                  "device_url": f"{endpoint.url}/devicecode", "token_url": f"{endpoint.url}/token"},
    }, base=tmp_path)
    oauth_dovecot.clear(USER)
    oauth_dovecot.append(USER, RAW)
    with ImapInbox(config.imap_settings()) as inbox:
        assert len(inbox.fetch_new(0).messages) == 1

    async def send():
        async with SmtpSender(config.smtp_settings()) as sender:
            return await sender.send(RAW, USER, ["ruth@example.org"])

    assert asyncio.run(send()).code == 250 and handler.received[0][:2] == (USER, ["ruth@example.org"])
    assert endpoint.refreshes() == 1               # one token for both logins


def test_smtp_sends_with_xoauth2_and_a_dead_token_is_refused(endpoint, smtp, tmp_path):
    port, handler = smtp
    tokens = sign_in(endpoint, tmp_path)
    settings = SmtpSettings(host=LOOPBACK, port=port, security="plain", timeout=10, username=USER,
                            auth="oauth2", tokens=tokens)

    async def send():
        sender = SmtpSender(settings)
        try:
            return await sender.send(RAW, USER, ["ruth@example.org"])
        finally:
            await sender.close()

    receipt = asyncio.run(send())
    assert receipt.code == 250 and handler.received[0][:2] == (USER, ["ruth@example.org"])
    endpoint.expire_access_tokens()                # the token is no longer live at the server
    with pytest.raises(AuthFailed, match="OAuth 2.0") as caught:
        asyncio.run(send())
    assert "SMTP.Send" in caught.value.hint and len(handler.received) == 1
    assert asyncio.run(send()).code == 250         # the next try: a refreshed token
    assert len(handler.received) == 2 and endpoint.refreshes() == 1


def test_the_xoauth2_string_is_the_sasl_mechanisms():
    assert base64.b64decode(xoauth2("u@x", "T")) == b"user=u@x\x01auth=Bearer T\x01\x01"


# ---- pbp init --oauth: the device flow from the command line, then the daemon's login

def oauth_config(tmp_path, endpoint, server: Dovecot, tls_ca):
    """The config ``pbp init --oauth microsoft`` writes, pointed at the local endpoint and Dovecot."""
    from pbp.config_template import config_text

    text = config_text(domain="example.test", imap=server.host, username=USER,
                       oauth={"provider": "microsoft", "client_id": CLIENT_ID, "tenant": "contoso.com"})
    text = text.replace('# device_url = ""', f'device_url = "{endpoint.url}/devicecode"')
    text = text.replace('# token_url = ""', f'token_url = "{endpoint.url}/token"')
    text = text.replace("# port = 993", f"port = {server.imaps_port}", 1)
    text = text.replace('# ca_file = ""', f'ca_file = "{tls_ca}"', 1)
    path = tmp_path / "pbp.toml"
    path.write_text(text)
    return path


def approve_in_browser(endpoint):
    """The mailbox's owner: once pbp polls, types the code at the verification page."""
    def run():
        deadline = time.monotonic() + 20
        while endpoint.polls < 1 and time.monotonic() < deadline:
            time.sleep(0.05)
        httpx.post(f"{endpoint.url}/device", data={"user_code": endpoint.user_code})

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def test_init_oauth_writes_the_oauth_settings(tmp_path):
    from pbp.config import load_config

    from pbp.config_template import config_text

    path = tmp_path / "pbp.toml"
    path.write_text(config_text(domain="contoso.com", imap="outlook.office365.com", smtp="smtp.office365.com",
                                username="table@contoso.com",
                                oauth={"provider": "microsoft", "client_id": "abc", "tenant": "contoso.com"}))
    config = load_config(path)
    assert config.imap == {"host": "outlook.office365.com", "username": "table@contoso.com", "auth": "oauth2"}
    assert config.smtp == {"host": "smtp.office365.com", "username": "table@contoso.com", "auth": "oauth2"}
    assert config.oauth == {"provider": "microsoft", "client_id": "abc", "tenant": "contoso.com",
                            "token_file": str(tmp_path / "oauth-token.json")}
    assert "login.microsoftonline.com/contoso.com/" in config.oauth_tokens.provider.device_url


def test_init_keeps_the_token_beside_an_absolute_sqlite_database():
    """Under docs/pbp.service only /var/lib/pbp is writable: the token goes where the database does."""
    from pbp.oauth_signin import token_file_beside

    assert token_file_beside("sqlite:////var/lib/pbp/pbp.db") == "/var/lib/pbp/oauth-token.json"
    assert token_file_beside(None) == token_file_beside("sqlite:///pbp.db") == "oauth-token.json"
    assert token_file_beside("postgresql://pbp@127.0.0.1/pbp") == "oauth-token.json"


@pytest.mark.parametrize("argv, words", [
    (["--imap", "outlook.office365.com", "--username", USER, "--oauth", "microsoft"],
     ("--oauth needs --client-id", "example:  pbp init --oauth microsoft")),
    (["--oauth", "microsoft", "--client-id", "x"], ("--oauth needs --username", "--username ADDRESS")),
    (["--oauth", "google", "--client-id", "x", "--username", USER, "--tenant", "contoso.com"],
     ("--tenant is Microsoft's alone",)),
    (["--client-id", "x"], ("--client-id and --tenant go with --oauth",)),
])
def test_init_oauth_refuses_a_command_line_it_cannot_use(tmp_path, capsys, argv, words):
    from pbp.cli import main

    assert main(["-c", str(tmp_path / "pbp.toml"), "init", *argv]) == 3
    said = capsys.readouterr().err
    assert all(w in said for w in words), said
    assert not (tmp_path / "pbp.toml").exists()


def test_init_oauth_signs_in_by_the_device_flow_and_again_after_a_revocation(
        endpoint, oauth_dovecot, tls_ca, tmp_path, capsys):
    from pbp.cli import main
    from pbp.config import load_config

    endpoint.interval, endpoint.slow_down_at = 1, None
    path = oauth_config(tmp_path, endpoint, oauth_dovecot, tls_ca)
    assert main(["-c", str(path), "check-config"]) == 1
    checked = capsys.readouterr().out
    assert f"FAIL  oauth microsoft token: no refresh token in {tmp_path / 'oauth-token.json'}" in checked
    assert "hint: sign in once: pbp init --oauth microsoft" in checked
    browser = approve_in_browser(endpoint)
    assert main(["-c", str(path), "init", "--oauth", "microsoft"]) == 0
    browser.join()
    out = capsys.readouterr().out
    assert f"{endpoint.url}/device" in out and endpoint.user_code in out and "exists already" in out
    assert "signed in: the refresh token is kept in" in out
    kept = tmp_path / "oauth-token.json"
    assert kept.stat().st_mode & 0o777 == 0o600
    main(["-c", str(path), "check-config"])         # (its SMTP server is not up here)
    checked = capsys.readouterr().out
    assert f"ok    oauth microsoft token: {kept} (refresh token kept)" in checked
    assert f"ok    imap {oauth_dovecot.host} mailbox INBOX: logged in as {USER}" in checked
    oauth_dovecot.clear(USER)
    oauth_dovecot.append(USER, RAW)
    with ImapInbox(load_config(path).imap_settings()) as inbox:       # the daemon, later
        assert len(inbox.fetch_new(0).messages) == 1

    endpoint.revoke_refresh_tokens()                                   # the owner revoked pbp's access
    with pytest.raises(OAuthError) as caught:
        ImapInbox(load_config(path).imap_settings()).fetch_new(0)
    assert "pbp init --oauth microsoft" in caught.value.hint
    endpoint.approved, endpoint.polls = False, 0
    browser = approve_in_browser(endpoint)
    assert main(["-c", str(path), "init", "--oauth", "microsoft"]) == 0   # what the hint says
    browser.join()
    with ImapInbox(load_config(path).imap_settings()) as inbox:
        assert len(inbox.fetch_new(0).messages) == 1


def test_init_oauth_on_a_config_of_another_provider_says_so(endpoint, oauth_dovecot, tls_ca, tmp_path, capsys):
    from pbp.cli import main

    path = oauth_config(tmp_path, endpoint, oauth_dovecot, tls_ca)
    assert main(["-c", str(path), "init", "--oauth", "google"]) == 3
    err = capsys.readouterr().err
    assert '[oauth] provider = "microsoft", not "google"' in err and "pbp init --oauth microsoft" in err
    assert endpoint.requests == []


# ---- Google: the browser sign-in (RFC 8252, PKCE), since its device flow does not grant mail

def google_config(tmp_path, endpoint, server: Dovecot, tls_ca):
    from pbp.config import load_config
    from pbp.config_template import config_text

    text = config_text(domain="example.test", imap=server.host, username=USER,
                       oauth={"provider": "google", "client_id": CLIENT_ID})
    text = text.replace('# authorize_url = ""', f'authorize_url = "{endpoint.url}/authorize"')
    text = text.replace('# token_url = ""', f'token_url = "{endpoint.url}/token"')
    text = text.replace("# port = 993", f"port = {server.imaps_port}", 1)
    text = text.replace('# ca_file = ""', f'ca_file = "{tls_ca}"', 1)
    (tmp_path / "pbp.toml").write_text(text)
    return load_config(tmp_path / "pbp.toml")


def browser(strays: bool = False):
    """The user's browser: opens the page pbp prints (the provider signs in and sends it back
    to pbp's loopback port). ``strays``: first a request to that port that is not the
    provider's answer (another state), which pbp must refuse and go on waiting."""
    said, answers = [], []

    def out(text):
        said.append(text)
        if "open this page" not in text:
            return
        url = re.search(r"\n    (http\S+)", text).group(1)
        back = re.search(r"comes back to pbp at (http://\S+/)", text).group(1)

        def run():
            if strays:
                answers.append(httpx.get(back + "?code=forged&state=not-yours").status_code)
            answers.append(httpx.get(url, follow_redirects=True).status_code)

        threading.Thread(target=run, daemon=True).start()

    return out, said, answers


def test_google_signs_in_by_the_browser_then_logs_in_to_dovecot(endpoint, oauth_dovecot, tls_ca, tmp_path,
                                                                   monkeypatch):
    from pbp.oauth_signin import sign_in as init_sign_in

    endpoint.client_secret = "GOCSPX-rig"
    monkeypatch.setenv("PBP_OAUTH_CLIENT_SECRET", "GOCSPX-rig")
    config = google_config(tmp_path, endpoint, oauth_dovecot, tls_ca)
    out, said, answers = browser(strays=True)
    init_sign_in(config, "google", out=out)
    assert answers == [400, 200]                   # the forged return refused, the provider's taken
    asked = next(r for r in endpoint.requests if r["path"] == "/authorize")
    assert asked["scope"] == "https://mail.google.com/" and asked["code_challenge_method"] == "S256"
    assert asked["redirect_uri"].startswith(f"http://{LOOPBACK}:") and asked["login_hint"] == USER
    traded = next(r for r in endpoint.requests if r.get("grant_type") == "authorization_code")
    assert traded["client_secret"] == "GOCSPX-rig" and traded["code_verifier"]
    assert "signed in" in said[-1] and (tmp_path / "oauth-token.json").stat().st_mode & 0o777 == 0o600
    oauth_dovecot.clear(USER)
    oauth_dovecot.append(USER, RAW)
    with ImapInbox(google_config(tmp_path, endpoint, oauth_dovecot, tls_ca).imap_settings()) as inbox:
        assert len(inbox.fetch_new(0).messages) == 1   # a new process: refreshed with the secret
    assert endpoint.requests[-1] == {"path": "/introspect", "token": endpoint.requests[-1]["token"]}
    assert [r["client_secret"] for r in endpoint.requests if r.get("grant_type") == "refresh_token"] == ["GOCSPX-rig"]


def test_google_access_refused_in_the_browser_says_so(endpoint, oauth_dovecot, tls_ca, tmp_path, monkeypatch):
    from pbp.oauth_signin import sign_in as init_sign_in

    monkeypatch.setenv("PBP_OAUTH_CLIENT_SECRET", "GOCSPX-rig")
    endpoint.deny = True
    out, said, answers = browser()
    with pytest.raises(OAuthError, match="access_denied") as caught:
        init_sign_in(google_config(tmp_path, endpoint, oauth_dovecot, tls_ca), "google", out=out)
    assert "pbp init --oauth google again" in caught.value.hint
    assert not (tmp_path / "oauth-token.json").exists()


# ---- the daemon: a post in by IMAP, its reply out by SMTP, both by XOAUTH2; a revocation

def test_the_daemon_plays_by_oauth_and_picks_up_a_new_sign_in_without_a_restart(
        endpoint, oauth_dovecot, smtp, tls_ca, tmp_path, caplog):
    from pbp.campaigns import create_campaign, import_character
    from pbp.config import load_config
    from pbp.daemon import Daemon
    from pbp.demo import sample_dir
    from pbp.rules.dice import FixedDice
    from pbp.store.db import open_database
    from tests.helpers import eml

    port, handler = smtp
    path = oauth_config(tmp_path, endpoint, oauth_dovecot, tls_ca)
    text = path.read_text().replace("# port = 587", f"port = {port}", 1).replace('# security = "starttls"', 'security = "plain"', 1)
    text = text.replace('[[mailboxes]]\nname = "INBOX"\ncampaign = ""', '[[mailboxes]]\nname = "INBOX"\ncampaign = "chicago"')
    path.write_text(text)
    sign_in(endpoint, tmp_path)                        # (the test's own device flow, into oauth/table.json)
    (tmp_path / "oauth" / "table.json").replace(tmp_path / "oauth-token.json")
    config = load_config(path)
    assert config.smtp["port"] == port and config.mailboxes[0].campaign == "chicago"
    open_database(config.database_url)
    campaign = create_campaign("chicago", "Chicago Nights", address=USER, gms=["gm@pbp.localhost"])
    for sheet in sorted(sample_dir().glob("*.toml")):
        if sheet.name != "campaign.toml":
            import_character(campaign, str(sheet))
    oauth_dovecot.clear(USER)
    oauth_dovecot.append(USER, eml("Ruth searches the dock.\n/overcome Investigate vs Fair\n", to=USER))
    d = Daemon(config, dice=FixedDice("0+00"), environ={})
    assert d.run_once() == 1
    (reply,) = handler.received
    assert reply[0] == USER and "ruth@pbp.localhost" in reply[1] and b"+3 Good" in reply[2]

    endpoint.expire_access_tokens()                    # the owner revoked pbp: no token works any more
    endpoint.revoke_refresh_tokens()
    oauth_dovecot.kick(USER)
    oauth_dovecot.append(USER, eml("/fp\n", to=USER, message_id="post-2@pbp.test"))
    watcher = d.watchers[0]
    with caplog.at_level("WARNING", logger="pbp.daemon"):
        d.watch(watcher)                               # Dovecot refuses the old token
        d.watch(watcher)                               # the refresh is refused: what to run
    said = " ".join(r.getMessage() for r in caplog.records if r.name == "pbp.daemon")
    assert "invalid_grant" in said and "run `pbp init --oauth microsoft` with the same --config" in said

    endpoint.approved, endpoint.polls, endpoint.interval, endpoint.slow_down_at = False, 0, 1, None
    browser = approve_in_browser(endpoint)
    from pbp.oauth_signin import sign_in as init_sign_in

    init_sign_in(load_config(path), "microsoft", out=lambda text: None)   # `pbp init --oauth`, another process
    browser.join()
    assert d.run_once() == 1                           # the same daemon, the new token: no restart
    assert len(handler.received) == 2
