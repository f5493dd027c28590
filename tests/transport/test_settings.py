"""Settings value objects, password sources and the error types (no servers needed)."""
from __future__ import annotations

import pytest

from pbp.errors import ConfigError, PbpError
from pbp.transport import (
    AuthFailed,
    ConnectFailed,
    ImapSettings,
    MailboxMissing,
    SmtpRejected,
    SmtpSettings,
    TlsFailed,
    TransportError,
    TransportTimeout,
    resolve_secret,
)
from pbp.transport.base import parse_action

IMAP = dict(host="imap.example.org", username="table@example.org", password="s3cret")


# ---- ImapSettings / SmtpSettings -----------------------------------------------------------


def test_default_ports_follow_security():
    assert ImapSettings(**IMAP).port == 993
    assert ImapSettings(**IMAP, security="starttls").port == 143
    assert SmtpSettings(host="smtp.example.org").port == 587
    assert SmtpSettings(host="smtp.example.org", security="tls").port == 465


def test_password_is_not_in_the_repr():
    assert "s3cret" not in repr(ImapSettings(**IMAP))
    assert "s3cret" not in repr(SmtpSettings(host="h.example", username="u", password="s3cret"))


@pytest.mark.parametrize(
    "change, words",
    [
        ({"security": "ssl"}, "security"),
        ({"port": 0}, "port"),
        ({"port": "993"}, "port"),
        ({"host": " "}, "host"),
        ({"username": ""}, "username"),
        ({"password": ""}, "password"),
        ({"mailbox": ""}, "mailbox"),
        ({"timeout": 0}, "timeout"),
        ({"fetch_batch": 0}, "fetch_batch"),
        ({"ca_file": "/nonexistent/ca.pem"}, "ca_file"),
        ({"security": "plain"}, "unencrypted"),
    ],
)
def test_imap_settings_are_checked_on_creation(change, words):
    with pytest.raises(ConfigError) as caught:
        ImapSettings(**{**IMAP, **change})
    assert words in str(caught.value) + caught.value.hint


def test_plain_is_fine_on_loopback_or_when_allowed():
    assert ImapSettings(**{**IMAP, "host": "127.0.0.1", "security": "plain"}).port == 143
    assert ImapSettings(**IMAP, security="plain", allow_insecure=True).security == "plain"
    assert SmtpSettings(host="relay.example.org", security="plain").port == 25  # no AUTH: no password to leak


def test_smtp_username_and_password_go_together():
    with pytest.raises(ConfigError):
        SmtpSettings(host="smtp.example.org", username="table@example.org")


def test_from_config_reads_the_password_from_the_environment(tmp_path):
    table = {"host": "imap.example.org", "username": "table@example.org", "mailbox": "Table"}
    settings = ImapSettings.from_config(table, environ={"PBP_IMAP_PASSWORD": "from-env"})
    assert (settings.password, settings.mailbox, settings.port) == ("from-env", "Table", 993)

    secret = tmp_path / "smtp-password"
    secret.write_text("from-file\n")
    smtp = SmtpSettings.from_config(
        {"host": "smtp.example.org", "username": "t", "password_file": str(secret)}, environ={}
    )
    assert smtp.password == "from-file"


def test_from_config_refuses_a_password_in_the_file_and_unknown_keys():
    with pytest.raises(ConfigError) as caught:
        ImapSettings.from_config({**IMAP})
    assert "PBP_IMAP_PASSWORD" in caught.value.hint
    with pytest.raises(ConfigError) as caught:
        ImapSettings.from_config({"host": "h.example", "username": "u", "hots": "x"}, environ={"PBP_IMAP_PASSWORD": "p"})
    assert "hots" in str(caught.value) and "did you mean host?" in caught.value.hint


# ---- resolve_secret ------------------------------------------------------------------------


def test_environment_variable_wins(tmp_path):
    path = tmp_path / "pw"
    path.write_text("from-file\n")
    assert resolve_secret("PW", str(path), environ={"PW": "from-env"}) == "from-env"
    assert resolve_secret("PW", str(path), environ={}) == "from-file"


def test_only_the_trailing_newline_is_stripped(tmp_path):
    path = tmp_path / "pw"
    path.write_text("  spaces kept  \r\n")
    assert resolve_secret(None, path) == "  spaces kept  "


@pytest.mark.parametrize(
    "env, file, environ, words",
    [
        ("PBP_IMAP_PASSWORD", None, {}, "PBP_IMAP_PASSWORD is not set"),
        ("PW", "/nonexistent/pw", {}, "cannot read the password file"),
        (None, None, {}, "no password source"),
        ("PW", None, {"PW": ""}, "PW is not set"),
    ],
)
def test_missing_secret_is_a_config_error(env, file, environ, words):
    with pytest.raises(ConfigError) as caught:
        resolve_secret(env, file, environ=environ)
    assert words in str(caught.value) and caught.value.hint


def test_empty_password_file_is_a_config_error(tmp_path):
    path = tmp_path / "pw"
    path.write_text("\n")
    with pytest.raises(ConfigError, match="empty"):
        resolve_secret(None, path)


# ---- errors and actions --------------------------------------------------------------------


def test_errors_subclass_what_they_resemble():
    assert issubclass(TransportError, PbpError)
    assert issubclass(ConnectFailed, ConnectionError) and issubclass(TlsFailed, ConnectionError)
    assert issubclass(TransportTimeout, TimeoutError) and issubclass(TransportTimeout, ConnectFailed)
    assert issubclass(AuthFailed, PermissionError) and issubclass(MailboxMissing, LookupError)


def test_errors_carry_their_fields():
    error = AuthFailed("imap login failed", host="imap.example.org", port=993)
    assert str(error) == "imap login failed (imap.example.org:993)"
    assert "PBP_IMAP_PASSWORD" in error.hint and not error.temporary

    rejected = SmtpRejected(554, "5.7.1 Relay access denied", stage="RCPT", host="smtp.example.org", port=587)
    assert (rejected.code, rejected.message, rejected.permanent) == (554, "5.7.1 Relay access denied", True)
    assert str(rejected) == "SMTP RCPT refused: 554 5.7.1 Relay access denied (smtp.example.org:587)"
    assert SmtpRejected(421, "4.7.0 Try later").temporary


def test_handled_actions():
    assert parse_action("seen") == ("seen", None)
    assert parse_action("none") == ("none", None)
    assert parse_action("move:Done/pbp") == ("move", "Done/pbp")
    for bad in ("", "move:", "delete", "Seen"):
        with pytest.raises(ConfigError):
            parse_action(bad)
