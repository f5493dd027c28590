"""Configuration: a TOML file read into small validated value objects.

Secrets never live in the TOML: the IMAP and SMTP passwords come from an environment
variable or a file named there. Every option is shown, commented, in config.example.toml.
"""
from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from pbp.errors import ConfigError

DEFAULT_CONFIG_NAME = "pbp.toml"


@dataclass(frozen=True)
class MaildirConfig:
    inbox: Path
    outbox: Path


@dataclass(frozen=True)
class ServerConfig:
    """An IMAP or SMTP server. ``security`` is "tls" (implicit), "starttls" or "plain"."""

    host: str
    port: int
    security: str = "tls"
    username: str = ""
    password_env: str = ""
    password_file: str = ""
    ca_file: str = ""
    timeout: float = 30.0

    def __post_init__(self) -> None:
        if self.security not in ("tls", "starttls", "plain"):
            raise ConfigError(
                f"security = {self.security!r} is not one of tls, starttls, plain",
                hint='use security = "tls" for port 993/465, "starttls" for 143/587',
            )
        if not (0 < int(self.port) < 65536):
            raise ConfigError(f"port {self.port} is out of range")


@dataclass(frozen=True)
class MailboxBinding:
    """One IMAP mailbox read by the daemon, bound to a campaign (or routed by plus-address)."""

    name: str = "INBOX"
    campaign: str = ""       # "" = route by plus-address table+CAMPAIGN@...


@dataclass(frozen=True)
class Limits:
    max_message_bytes: int = 1_000_000
    max_commands: int = 20


@dataclass(frozen=True)
class Config:
    path: Path | None
    database_url: str
    transport: str = "maildir"               # "maildir" | "imap"
    domain: str = "pbp.localhost"            # right-hand side of our Message-IDs
    from_address: str = "table@pbp.localhost"
    maildir: MaildirConfig | None = None
    imap: ServerConfig | None = None
    smtp: ServerConfig | None = None
    mailboxes: tuple[MailboxBinding, ...] = (MailboxBinding(),)
    handled: str = "seen"                    # "seen" | "move:FOLDER" | "none"
    poll_seconds: float = 60.0
    limits: Limits = field(default_factory=Limits)
    log_level: str = "INFO"


def _section(data: dict, name: str) -> dict:
    value = data.get(name, {})
    if not isinstance(value, dict):
        raise ConfigError(f"[{name}] must be a table")
    return value


def _server(data: dict, name: str, default_port: int) -> ServerConfig | None:
    sec = data.get(name)
    if not sec:
        return None
    if "password" in sec:
        raise ConfigError(
            f"[{name}] has a password in the file",
            hint=f"remove it; set password_env = \"PBP_{name.upper()}_PASSWORD\" or password_file = \"/path\" instead",
        )
    try:
        return ServerConfig(
            host=sec["host"],
            port=int(sec.get("port", default_port)),
            security=sec.get("security", "tls"),
            username=sec.get("username", ""),
            password_env=sec.get("password_env", ""),
            password_file=sec.get("password_file", ""),
            ca_file=sec.get("ca_file", ""),
            timeout=float(sec.get("timeout", 30.0)),
        )
    except KeyError as exc:
        raise ConfigError(f"[{name}] needs {exc.args[0]}") from None


def load_config(path: str | Path) -> Config:
    """Read and validate a config file; relative paths in it are relative to the file."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"no config file at {path}", hint="run `pbp init` to write one") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path} is not valid TOML: {exc}") from None
    return config_from_dict(data, base=path.parent, path=path)


def config_from_dict(data: dict, *, base: Path = Path("."), path: Path | None = None) -> Config:
    database = _section(data, "database")
    mail = _section(data, "mail")
    maildir = _section(data, "maildir")
    limits = _section(data, "limits")
    daemon = _section(data, "daemon")

    def rel(p: str) -> Path:
        q = Path(p).expanduser()
        return q if q.is_absolute() else (base / q)

    url = database.get("url", "sqlite:///pbp.db")
    if url.startswith("sqlite:///") and url != "sqlite:///:memory:":
        url = "sqlite:///" + str(rel(url[len("sqlite:///"):]))
    transport = mail.get("transport", "maildir")
    if transport not in ("maildir", "imap"):
        raise ConfigError(f"[mail] transport = {transport!r} is not maildir or imap")
    md = None
    if maildir or transport == "maildir":
        md = MaildirConfig(inbox=rel(maildir.get("inbox", "maildir/inbox")), outbox=rel(maildir.get("outbox", "maildir/outbox")))
    imap = _server(data, "imap", 993)
    smtp = _server(data, "smtp", 587)
    if transport == "imap" and (imap is None or smtp is None):
        raise ConfigError("[mail] transport = \"imap\" needs both an [imap] and an [smtp] section")
    boxes = tuple(
        MailboxBinding(name=b.get("name", "INBOX"), campaign=b.get("campaign", ""))
        for b in data.get("mailboxes", [{}])
    )
    handled = daemon.get("handled", "seen")
    if handled not in ("seen", "none") and not handled.startswith("move:"):
        raise ConfigError(f"[daemon] handled = {handled!r}", hint='use "seen", "none" or "move:FolderName"')
    return Config(
        path=path,
        database_url=url,
        transport=transport,
        domain=mail.get("domain", "pbp.localhost"),
        from_address=mail.get("from_address", "table@pbp.localhost"),
        maildir=md,
        imap=imap,
        smtp=smtp,
        mailboxes=boxes,
        handled=handled,
        poll_seconds=float(daemon.get("poll_seconds", 60.0)),
        limits=Limits(
            max_message_bytes=int(limits.get("max_message_bytes", 1_000_000)),
            max_commands=int(limits.get("max_commands", 20)),
        ),
        log_level=daemon.get("log_level", "INFO"),
    )
