"""Configuration: a TOML file read into small validated value objects.

Secrets never live in the TOML: the IMAP and SMTP passwords come from an environment
variable or a file named there. Every option is shown, commented, in config.example.toml.
"""
from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from pbp.errors import ConfigError
from pbp.settingvalues import flag_value, hours_value

DEFAULT_CONFIG_NAME = "pbp.toml"


@dataclass(frozen=True)
class MaildirConfig:
    inbox: Path
    outbox: Path


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
    imap: dict | None = None                 # the raw [imap] table; see imap_settings()
    smtp: dict | None = None                 # the raw [smtp] table; see smtp_settings()
    mailboxes: tuple[MailboxBinding, ...] = (MailboxBinding(),)
    handled: str = "seen"                    # "seen" | "move:FOLDER" | "none"
    poll_seconds: float = 60.0
    limits: Limits = field(default_factory=Limits)
    log_level: str = "INFO"
    invoke_window_hours: float = 24.0
    reaction_deadline_hours: float = 48.0
    reminder_hours: float = 12.0
    free_bonuses: bool = False       # a player's plain +N applies at once (else it waits for the GM)
    trust_authserv_id: str = ""              # trust Authentication-Results from this host

    def imap_settings(self, mailbox: str = "INBOX", environ=None):
        """The IMAP connection settings for one mailbox, password resolved now."""
        from dataclasses import replace

        from pbp.transport.settings import ImapSettings

        if not self.imap:
            raise ConfigError("no [imap] section", hint="see config.example.toml")
        return replace(ImapSettings.from_config(self.imap, environ=environ), mailbox=mailbox)

    def smtp_settings(self, environ=None):
        from pbp.transport.settings import SmtpSettings

        if not self.smtp:
            raise ConfigError("no [smtp] section", hint="see config.example.toml")
        return SmtpSettings.from_config(self.smtp, environ=environ)


def _section(data: dict, name: str) -> dict:
    value = data.get(name, {})
    if not isinstance(value, dict):
        raise ConfigError(f"[{name}] must be a table")
    return value


def _server(data: dict, name: str) -> dict | None:
    """The [imap]/[smtp] table, checked now (everything but the password, which is read
    from the environment or a file when the daemon connects)."""
    table = data.get(name)
    if not table:
        return None
    from pbp.transport.settings import ImapSettings, SmtpSettings

    cls = ImapSettings if name == "imap" else SmtpSettings
    probe = {k: v for k, v in table.items() if k not in ("password_env", "password_file")}
    cls.from_config({**probe, "password_env": "PBP_CONFIG_CHECK"}, environ={"PBP_CONFIG_CHECK": "-"})
    return dict(table)


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
    play = _section(data, "play")
    security = _section(data, "security")

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
    imap = _server(data, "imap")
    smtp = _server(data, "smtp")
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
        invoke_window_hours=hours_value("invoke_window_hours", play.get("invoke_window_hours", 24.0)),
        reaction_deadline_hours=hours_value("reaction_deadline_hours", play.get("reaction_deadline_hours", 48.0)),
        reminder_hours=hours_value("reminder_hours", play.get("reminder_hours", 12.0)),
        free_bonuses=flag_value("free_bonuses", play.get("free_bonuses", False)),
        trust_authserv_id=security.get("trust_authserv_id", ""),
    )
