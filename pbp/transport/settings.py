"""Connection settings for IMAP and SMTP as small value objects that validate themselves.

A bad setting fails when the object is made (at start-up, with a hint), not on the first
connection an hour later. Passwords come from ``resolve_secret`` (environment variable or
file); ``from_config`` refuses a password written into the config table itself. With
``auth = "oauth2"`` there is no password: ``tokens`` (a :class:`pbp.transport.oauth.TokenSource`
made from the config's ``[oauth]``) gives the access token the login sends by XOAUTH2.
"""
from __future__ import annotations

import ipaddress
import os
import ssl
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar, Literal

from pbp.errors import ConfigError
from pbp.settingvalues import did_you_mean

from .secrets import resolve_secret

Security = Literal["tls", "starttls", "plain"]
SECURITY_MODES = ("tls", "starttls", "plain")
AUTH_MODES = ("password", "oauth2")


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def tls_context(ca_file: str | None) -> ssl.SSLContext:
    """A verifying client context: the system CAs, or only ``ca_file`` when given."""
    return ssl.create_default_context(cafile=ca_file)


def checked_ca_file(kind: str, ca_file, peer: str = "server") -> str:
    """``ca_file`` as a path string, refused at start-up when there is no such file (the
    forum's settings use it too, with ``peer="forum"``)."""
    ca = os.fspath(ca_file)
    if not os.path.isfile(ca):
        raise ConfigError(
            f"{kind}: ca_file {ca} does not exist",
            hint=f"give the PEM file of the CA that signed the {peer}'s certificate, or "
            "leave ca_file out to trust the system's CAs",
        )
    return ca


@dataclass(frozen=True)
class _Endpoint:
    """Fields and checks shared by the IMAP and SMTP settings."""

    DEFAULT_PORTS: ClassVar[dict[str, int]] = {}
    KIND: ClassVar[str] = ""

    def _check_endpoint(self) -> None:
        kind = self.KIND
        if not isinstance(self.host, str) or not self.host.strip():
            raise ConfigError(f"{kind}: host is empty", hint='set host, e.g. host = "mail.example.org"')
        if self.security not in SECURITY_MODES:
            raise ConfigError(
                f"{kind}: unknown security {self.security!r}",
                hint='use "tls" (implicit TLS), "starttls" or "plain" (loopback only)',
            )
        if self.port is None:
            object.__setattr__(self, "port", self.DEFAULT_PORTS[self.security])
        if isinstance(self.port, bool) or not isinstance(self.port, int) or not 0 < self.port < 65536:
            raise ConfigError(f"{kind}: port {self.port!r} is not a port number", hint="use 1-65535")
        if isinstance(self.timeout, bool) or not isinstance(self.timeout, (int, float)) or self.timeout <= 0:
            raise ConfigError(f"{kind}: timeout must be a positive number of seconds, not {self.timeout!r}")
        if self.ca_file is not None:
            object.__setattr__(self, "ca_file", checked_ca_file(kind, self.ca_file))
        if self.security == "plain" and not is_loopback(self.host) and not self.allow_insecure:
            raise ConfigError(
                f"{kind}: security \"plain\" would send the password unencrypted to {self.host}",
                hint='use security = "tls" or "starttls"; set allow_insecure = true only on a '
                "network you trust",
            )

    def _check_auth(self) -> None:
        """``auth``: "password", or "oauth2" with ``tokens`` and no password."""
        kind = self.KIND
        if self.auth not in AUTH_MODES:
            raise ConfigError(f"{kind}: unknown auth {self.auth!r}",
                              hint='use "password" (the default) or "oauth2" (with an [oauth] section)')
        if self.auth != "oauth2":
            return
        if self.tokens is None:
            raise ConfigError(f'{kind}: auth = "oauth2" needs an [oauth] section',
                              hint='e.g. [oauth] with provider = "microsoft" and client_id = "..." '
                                   "(docs/oauth.md; pbp init --imap HOST --oauth microsoft writes it)")
        if not self.username:
            raise ConfigError(f'{kind}: auth = "oauth2" needs username, the mailbox\'s address',
                              hint='e.g. username = "table@contoso.com"')
        if self.password:
            raise ConfigError(f'{kind}: auth = "oauth2" takes no password',
                              hint="remove password_env and password_file: the token of [oauth] replaces it")

    def ssl_context(self) -> ssl.SSLContext:
        return tls_context(self.ca_file)

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"


@dataclass(frozen=True)
class ImapSettings(_Endpoint):
    """Where the table's mail is read. ``port`` None means 993 for tls, 143 otherwise.

    ``fetch_batch`` bounds how many bodies one FETCH asks for; ``poll_interval`` is how often
    ``idle_wait`` asks the server when it has no IDLE.
    """

    host: str
    port: int | None = None
    security: Security = "tls"
    username: str = ""
    password: str = field(default="", repr=False)
    mailbox: str = "INBOX"
    ca_file: str | None = None
    timeout: float = 30.0
    fetch_batch: int = 50
    poll_interval: float = 60.0
    allow_insecure: bool = False
    auth: str = "password"
    tokens: Any = field(default=None, repr=False, compare=False)

    DEFAULT_PORTS: ClassVar[dict[str, int]] = {"tls": 993, "starttls": 143, "plain": 143}
    KIND: ClassVar[str] = "imap"
    PASSWORD_ENV: ClassVar[str] = "PBP_IMAP_PASSWORD"

    def __post_init__(self) -> None:
        self._check_endpoint()
        self._check_auth()
        if not self.username:
            raise ConfigError("imap: username is empty", hint="set username to the mailbox's login")
        if not self.password and self.auth == "password":
            raise ConfigError(
                "imap: no password",
                hint=f"export {self.PASSWORD_ENV} or set password_file; never put it in pbp.toml",
            )
        if not isinstance(self.mailbox, str) or not self.mailbox.strip():
            raise ConfigError("imap: mailbox is empty", hint='use "INBOX" or the folder to read')
        if not isinstance(self.fetch_batch, int) or self.fetch_batch < 1:
            raise ConfigError(f"imap: fetch_batch must be a positive integer, not {self.fetch_batch!r}")
        if not isinstance(self.poll_interval, (int, float)) or self.poll_interval <= 0:
            raise ConfigError(f"imap: poll_interval must be positive, not {self.poll_interval!r}")

    @classmethod
    def from_config(cls, table: Mapping[str, Any], environ: Mapping[str, str] | None = None,
                    tokens=None) -> "ImapSettings":
        """Build from a config table (``[imap]``); the password from ``password_env``/``password_file``,
        or with ``auth = "oauth2"`` the ``tokens`` of ``[oauth]``."""
        values = _table_values(cls, table)
        if values.get("auth") == "oauth2":
            _no_password_keys(cls, table)
            values["tokens"] = tokens
        else:
            values["password"] = resolve_secret(
                table.get("password_env", cls.PASSWORD_ENV), table.get("password_file"), environ=environ
            )
        return cls(**values)


@dataclass(frozen=True)
class SmtpSettings(_Endpoint):
    """Where replies are submitted. ``port`` None means 465 for tls, 587 starttls, 25 plain.

    ``username`` and ``password`` go together; leave both out for a server that needs no AUTH.
    """

    host: str
    port: int | None = None
    security: Security = "starttls"
    username: str | None = None
    password: str | None = field(default=None, repr=False)
    ca_file: str | None = None
    timeout: float = 30.0
    local_hostname: str | None = None
    allow_insecure: bool = False
    auth: str = "password"
    tokens: Any = field(default=None, repr=False, compare=False)

    DEFAULT_PORTS: ClassVar[dict[str, int]] = {"tls": 465, "starttls": 587, "plain": 25}
    KIND: ClassVar[str] = "smtp"
    PASSWORD_ENV: ClassVar[str] = "PBP_SMTP_PASSWORD"

    def __post_init__(self) -> None:
        if self.security == "plain" and not self.username:
            # Without AUTH there is no password to leak: plain is fine for a local relay.
            object.__setattr__(self, "allow_insecure", True)
        self._check_endpoint()
        self._check_auth()
        if self.auth == "password" and bool(self.username) != bool(self.password):
            raise ConfigError(
                "smtp: username and password go together",
                hint=f"set both (the password via {self.PASSWORD_ENV} or password_file) or neither",
            )

    @classmethod
    def from_config(cls, table: Mapping[str, Any], environ: Mapping[str, str] | None = None,
                    tokens=None) -> "SmtpSettings":
        """Build from a config table (``[smtp]``); a password only when a username is set,
        none with ``auth = "oauth2"`` (the ``tokens`` of ``[oauth]``)."""
        values = _table_values(cls, table)
        if values.get("auth") == "oauth2":
            _no_password_keys(cls, table)
            values["tokens"] = tokens
        elif values.get("username"):
            values["password"] = resolve_secret(
                table.get("password_env", cls.PASSWORD_ENV), table.get("password_file"), environ=environ
            )
        return cls(**values)


def _table_values(cls: type, table: Mapping[str, Any]) -> dict[str, Any]:
    kind = cls.KIND
    if "password" in table:
        raise ConfigError(
            f"{kind}: a password in the config file is not read",
            hint=f"remove it; export {cls.PASSWORD_ENV} or set password_file to a file only the "
            "daemon's user can read",
        )
    known = {f.name for f in fields(cls)} - {"password", "tokens"}
    unknown = sorted(set(table) - known - {"password_env", "password_file"})
    if unknown:
        raise ConfigError(
            f"{kind}: unknown setting(s): {', '.join(unknown)}",
            hint=did_you_mean(unknown[0], known | {"password_env", "password_file"}),
        )
    return {key: value for key, value in table.items() if key in known}


def _no_password_keys(cls: type, table: Mapping[str, Any]) -> None:
    given = [key for key in ("password_env", "password_file") if table.get(key)]
    if given:
        raise ConfigError(f'{cls.KIND}: auth = "oauth2" takes no password, but {given[0]} is set',
                          hint=f"remove {' and '.join(given)}: the token of [oauth] replaces the password")
