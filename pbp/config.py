"""Configuration: a TOML file read into small validated value objects.

Every key the file may hold is in :data:`SCHEMA` (section -> key -> what it must be), so a
typo anywhere (``transprt``, ``poll_secnds``) is an error with a "did you mean", and a wrong
value names its place, what was expected and an example. Plain stdlib on purpose: the
config is some forty keys, and the errors we want (place, expected, example, suggestion)
would have to be written on top of a validation library's anyway.

Relative paths (the SQLite file, Maildirs, ``ca_file``, ``password_file``) are relative to
the config file's folder, whatever the working directory. Secrets never live in the TOML:
the IMAP and SMTP passwords come from an environment variable or a file named there; with
``auth = "oauth2"`` the ``[oauth]`` section names the provider and the token file instead
(docs/oauth.md). Every option is shown, commented, in config.example.toml.
"""
from __future__ import annotations

import math
import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path

from pbp.errors import ConfigError
from pbp.forum.settings import DiscourseSettings
from pbp.textsafety import is_addr_spec
from pbp.transport.oauth import TokenSource, provider_for
from pbp.transport.secrets import resolve_secret
from pbp.transport.settings import ImapSettings, SmtpSettings, is_loopback
from pbp.settingvalues import MAX_HOURS, did_you_mean, hours_value

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
class ArchiveConfig:
    """``[archive]``: the daemon keeps each campaign's site in ``dir/SLUG`` (and the GM's in
    ``gm_dir/SLUG``), rewritten every ``every_minutes`` when the campaign had new posts."""

    dir: Path
    gm_dir: Path | None = None
    every_minutes: float = 5.0


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
    compact_sent_after_days: float = 30.0    # sent replies keep headers and text only after this; 0: never
    compact_at_send: bool = True    # a reply keeps headers and text only from the moment it is sent (issue 23)
    database_down_exit_seconds: float = 0.0  # exit 75 after this long without the database; 0: never (pbp.store.outage)
    apply_workers: int = 0                   # PostgreSQL: threads applying stored mail (pbp.inbound); 0: the reader applies
    invoke_window_hours: float = 24.0
    reaction_deadline_hours: float = 48.0
    reminder_hours: float = 12.0
    post_deadline_hours: float = 48.0        # outside a conflict: time for an owed post (pbp.play.pace)
    stall_hours: float = 72.0                # outside a conflict: a scene with no post this long nudges the table
    show_npc_skills: bool = False            # players see NPCs' skills and stunts in /sheet
    free_bonuses: bool = False               # a player's plain +N applies at once (else it waits for the GM)
    hold_out_of_turn: bool = False           # an action out of turn waits for its turn (else it is refused)
    contest_invoke_next_side: bool = False   # 3+ sides: a failed advantage's free invoke to the next side (else the GM)
    trust_authserv_id: str = ""              # trust Authentication-Results from this host
    beacon: str = "none"                     # "none" | "drand": a public beacon mixed into each scene's dice seed
    beacon_url: str = ""                     # the beacon's HTTP API (default: drand's, pbp.beacon.DRAND_URL)
    discourse: dict | None = None            # the raw [discourse] table (the forum's API); see discourse_settings()
    archive: ArchiveConfig | None = None     # [archive]: the daemon keeps the sites up to date (None: off)
    oauth: dict | None = None                # the raw [oauth] table (paths absolute); see oauth_tokens
    #: the [oauth] token source, one per loaded config: every mailbox and the sender share it
    oauth_tokens: TokenSource | None = field(default=None, repr=False, compare=False)

    def imap_settings(self, mailbox: str = "INBOX", environ=None):
        """The IMAP connection settings for one mailbox, password resolved now."""
        from dataclasses import replace

        if not self.imap:
            raise ConfigError("no [imap] section", hint="see config.example.toml")
        return replace(ImapSettings.from_config(self.imap, environ=environ, tokens=self.oauth_tokens),
                       mailbox=mailbox)

    def discourse_settings(self, environ=None):
        """The forum API's settings (docs/forum.md, path 2), the key resolved now."""
        if not self.discourse:
            raise ConfigError("no [discourse] section", hint="see config.example.toml and docs/forum.md")
        return DiscourseSettings.from_config(self.discourse, environ=environ)

    def smtp_settings(self, environ=None):
        if not self.smtp:
            raise ConfigError("no [smtp] section", hint="see config.example.toml")
        return SmtpSettings.from_config(self.smtp, environ=environ, tokens=self.oauth_tokens)



LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")


class _Kind:
    """What one key must hold: a check, the words for it, and an example value."""

    def __init__(self, check, expected: str, example: str) -> None:
        self.check, self.expected, self.example = check, expected, example


def _number(positive: bool = False):
    return lambda v: isinstance(v, (int, float)) and not isinstance(v, bool) and (v > 0 if positive else v >= 0)


TEXT = _Kind(lambda v: isinstance(v, str), "a string", '"..."')
PATH = _Kind(lambda v: isinstance(v, str), "a path (relative to this file's folder)", '"certs/ca.pem"')
FOLDER = _Kind(lambda v: isinstance(v, str), "a folder (relative to this file's folder)", '"/srv/pbp-archive"')
BOOL = _Kind(lambda v: isinstance(v, bool), "true or false", "false")
PORT = _Kind(lambda v: isinstance(v, int) and not isinstance(v, bool) and 0 < v < 65536, "a port number", "993")
SECONDS = _Kind(_number(positive=True), "a number of seconds above 0", "60")
HOURS = _Kind(lambda v: _number()(v) and math.isfinite(v) and v <= MAX_HOURS,
              f"a finite number of hours, 0 to {MAX_HOURS}", "24")
DAYS = _Kind(_number(), "a number of days (0: never)", "30")
WORKERS = _Kind(lambda v: isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 64,
                "a whole number of threads, 0 to 64 (0: the reader applies)", "2")
SECONDS_OR_NEVER = _Kind(lambda v: _number()(v) and math.isfinite(v), "a number of seconds (0: never)", "300")
MINUTES = _Kind(lambda v: _number(positive=True)(v) and math.isfinite(v), "a number of minutes above 0", "5")
COUNT = _Kind(lambda v: isinstance(v, int) and not isinstance(v, bool) and v > 0, "a whole number above 0", "20")


def _one_of(*choices: str) -> _Kind:
    return _Kind(lambda v: v in choices, "one of " + ", ".join(f'"{c}"' for c in choices), f'"{choices[0]}"')


SECURITY = _one_of("tls", "starttls", "plain")
_SERVER = {"host": TEXT, "port": PORT, "username": TEXT, "password_env": TEXT, "password_file": PATH,
           "ca_file": PATH, "timeout": SECONDS, "allow_insecure": BOOL, "security": SECURITY,
           "auth": _one_of("password", "oauth2")}
OAUTH_PROVIDERS = ("microsoft", "google", "other")
URL = _Kind(lambda v: isinstance(v, str), "an https URL", '"https://login.example.org/oauth2/token"')

#: Every section and key a config file may hold (``mailboxes`` is an array of tables).
SCHEMA: dict[str, dict[str, _Kind]] = {
    "database": {"url": _Kind(lambda v: isinstance(v, str) and "://" in v, "a database URL",
                              '"sqlite:///pbp.db" or "postgresql://pbp@127.0.0.1/pbp"')},
    "mail": {"transport": _one_of("maildir", "imap"), "domain": TEXT, "from_address": TEXT},
    "maildir": {"inbox": PATH, "outbox": PATH},
    "daemon": {"poll_seconds": SECONDS, "log_level": _one_of(*LOG_LEVELS), "compact_sent_after_days": DAYS,
               "compact_at_send": BOOL,
               "database_down_exit_seconds": SECONDS_OR_NEVER, "apply_workers": WORKERS,
               "handled": _Kind(lambda v: isinstance(v, str) and (v in ("seen", "none") or v.startswith("move:")),
                                '"seen", "none" or "move:FOLDER"', '"move:Done"')},
    "play": {"invoke_window_hours": HOURS, "reaction_deadline_hours": HOURS, "reminder_hours": HOURS,
             "post_deadline_hours": HOURS, "stall_hours": HOURS,
             "show_npc_skills": BOOL, "free_bonuses": BOOL,
             "hold_out_of_turn": BOOL, "contest_invoke_next_side": BOOL},
    "security": {"trust_authserv_id": TEXT},
    "dice": {"beacon": _one_of("none", "drand"), "beacon_url": TEXT},
    "limits": {"max_message_bytes": COUNT, "max_commands": COUNT},
    "archive": {"dir": FOLDER, "gm_dir": FOLDER, "every_minutes": MINUTES},
    "imap": {**_SERVER, "mailbox": TEXT, "fetch_batch": COUNT, "poll_interval": SECONDS},
    "smtp": {**_SERVER, "local_hostname": TEXT},
    "mailboxes": {"name": TEXT, "campaign": TEXT},
    "oauth": {"provider": _one_of(*OAUTH_PROVIDERS), "client_id": TEXT, "tenant": TEXT, "token_file": PATH,
              "client_secret_env": TEXT, "client_secret_file": PATH,
              "device_url": URL, "token_url": URL, "authorize_url": URL, "scopes": TEXT},
    "discourse": {"url": TEXT, "username": TEXT, "api_key_env": TEXT, "api_key_file": PATH,
                  "webhook_secret_env": TEXT, "webhook_secret_file": PATH, "ca_file": PATH, "allow_insecure": BOOL,
                  "categories": _Kind(lambda v: isinstance(v, list) and all(
                      isinstance(c, int) and not isinstance(c, bool) and c > 0 for c in v),
                      "a list of category ids (from the category's URL, /c/slug/ID)", "[5]"),
                  "timeout": SECONDS, "poll_interval": SECONDS, "max_pages": COUNT,
                  "retries": _Kind(lambda v: isinstance(v, int) and not isinstance(v, bool) and v >= 0,
                                   "a whole number, 0 or more", "5"),
                  "backoff_base": SECONDS, "backoff_cap": SECONDS, "max_wait": SECONDS,
                  "webhook_host": TEXT, "webhook_port": PORT},
}
#: Keys holding paths that are resolved against the config file's folder.
PATH_KEYS = ("ca_file", "password_file", "api_key_file", "webhook_secret_file", "token_file",
             "client_secret_file")


def check_keys(data: dict) -> list[tuple[str, str]]:
    """Every unknown section or key and every value of the wrong kind, as (problem, hint)."""
    problems: list[tuple[str, str]] = []
    for name, table in data.items():
        if name not in SCHEMA:
            problems.append((f"[{name}] is not a section pbp knows", did_you_mean(name, SCHEMA)))
            continue
        if name == "mailboxes":
            if not isinstance(table, list) or not all(isinstance(t, dict) for t in table):
                problems.append(("mailboxes must be tables: [[mailboxes]]",
                                 'e.g. [[mailboxes]] then name = "INBOX" and campaign = "chicago"'))
                continue
            tables = [(f"[[mailboxes]] #{i + 1}", t) for i, t in enumerate(table)]
        elif not isinstance(table, dict):
            problems.append((f"{name} must be a section: [{name}]", f"write [{name}] on a line of its own, "
                             "then its keys below it"))
            continue
        else:
            tables = [(f"[{name}]", table)]
        for place, values in tables:
            for key, value in values.items():
                kind = SCHEMA[name].get(key)
                if kind is None:
                    if (key == "password" and name in ("imap", "smtp")) or (
                            key in ("api_key", "webhook_secret") and name == "discourse"):
                        continue  # refused by the settings with its own hint
                    problems.append((f"{place} {key} is not a setting pbp knows", did_you_mean(key, SCHEMA[name])))
                elif not kind.check(value):
                    problems.append((f"{place} {key} = {_toml(value)}: expected {kind.expected}",
                                     f"e.g. {key} = {kind.example}"))
    return problems


def _toml(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return f'"{value}"' if isinstance(value, str) else repr(value)


def _server(data: dict, name: str, rel, tokens: TokenSource | None, where: str) -> dict | None:
    """The [imap]/[smtp] table with its paths made absolute, checked now (everything but the
    password, which is read from the environment or a file when the daemon connects).
    An empty string means "not set", as the commented example shows."""
    table = {k: v for k, v in (data.get(name) or {}).items() if v != ""}
    if not table:
        return None
    for key in PATH_KEYS:
        if key in table:
            table[key] = str(rel(table[key]))
    cls = ImapSettings if name == "imap" else SmtpSettings
    if table.get("auth") == "oauth2":
        if tokens is None:
            raise ConfigError(f'{where}[{name}] auth = "oauth2" needs an [oauth] section',
                              hint='e.g. [oauth] with provider = "microsoft" and client_id = "..." '
                                   "(docs/oauth.md; pbp init --imap HOST --oauth microsoft writes it)")
        cls.from_config(table, tokens=tokens)
        return table
    probe = {k: v for k, v in table.items() if k not in ("password_env", "password_file")}
    cls.from_config({**probe, "password_env": "PBP_CONFIG_CHECK"}, environ={"PBP_CONFIG_CHECK": "-"})
    return table


def _oauth(data: dict, rel, where: str) -> tuple[dict | None, TokenSource | None]:
    """The [oauth] section and the one token source made from it; nothing is read from the
    token file or the network now (``pbp init --oauth`` writes the file, the first login
    reads it). Each wrong or missing key names its place, what it must be and an example."""
    table = {k: v for k, v in (data.get("oauth") or {}).items() if v != ""}
    if not table:
        return None, None
    provider = table.get("provider")
    if provider is None:
        raise ConfigError(f"{where}[oauth] provider is missing",
                          hint='e.g. provider = "microsoft" (Outlook.com, Microsoft 365) or provider = "google"')
    if not table.get("client_id", "").strip():
        raise ConfigError(f"{where}[oauth] client_id is missing",
                          hint='the application (client) id of the app registered for pbp at the provider, '
                               'e.g. client_id = "8f2a5c1e-0b7d-4c3e-9a61-2f4d8e7b3c90" (docs/oauth.md)')
    if "tenant" in table and provider != "microsoft":
        raise ConfigError(f'{where}[oauth] tenant = "{table["tenant"]}": a tenant is Microsoft\'s alone, '
                          f'and provider = "{provider}"', hint='remove tenant, or set provider = "microsoft"')
    if provider == "other":
        missing = [key for key in ("token_url", "scopes") if key not in table]
        if "device_url" not in table and "authorize_url" not in table:
            missing.insert(0, "device_url (or authorize_url)")
        if missing:
            raise ConfigError(f'{where}[oauth] provider = "other" needs {", ".join(missing)}',
                              hint='e.g. device_url = "https://id.example.org/oauth2/device", token_url = '
                                   '"https://id.example.org/oauth2/token", scopes = "offline_access email"')
    for key in ("device_url", "token_url", "authorize_url"):
        url = table.get(key)
        if url is None:
            continue
        scheme, _, rest = url.partition("://")
        host = rest.split("/", 1)[0].rsplit(":", 1)[0].strip("[]")
        if not rest or scheme not in ("https", "http") or (scheme == "http" and not is_loopback(host)):
            raise ConfigError(f'{where}[oauth] {key} = "{url}": expected an https URL (http on loopback only)',
                              hint=f"e.g. {key} = {URL.example}")
    table["token_file"] = str(rel(table.get("token_file", "oauth-token.json")))
    if "client_secret_file" in table:
        table["client_secret_file"] = str(rel(table["client_secret_file"]))
    secret_env = table.get("client_secret_env", "PBP_OAUTH_CLIENT_SECRET")

    def client_secret() -> str | None:
        """Google's clients have a secret (the token endpoint wants it); Microsoft's public
        clients none: read only when one is configured, or for Google."""
        if provider != "google" and not ("client_secret_env" in table or "client_secret_file" in table):
            return None
        return resolve_secret(secret_env, table.get("client_secret_file"), what="client secret",
                              file_key="client_secret_file")

    tokens = TokenSource(provider_for(provider, tenant=table.get("tenant", ""), device_url=table.get("device_url", ""),
                                      token_url=table.get("token_url", ""), scopes=table.get("scopes", ""),
                                      authorize_url=table.get("authorize_url", "")),
                         table["client_id"], table["token_file"], client_secret=client_secret)
    return table, tokens


def load_config(path: str | Path) -> Config:
    """Read and validate a config file; relative paths in it are relative to the file."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"no config file at {path}", hint="run `pbp init` to write one") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path} is not valid TOML: {exc}",
                          hint='strings need quotes (domain = "example.org"); sections are [name]') from None
    return config_from_dict(data, base=path.parent, path=path)


def config_from_dict(data: dict, *, base: Path = Path("."), path: Path | None = None) -> Config:
    where = f"{path}: " if path else ""
    problems = check_keys(data)
    if len(problems) == 1:
        raise ConfigError(where + problems[0][0], hint=problems[0][1])
    if problems:
        raise ConfigError(f"{where}{len(problems)} problems:\n" + "\n".join(f"    {p} ({h})" for p, h in problems),
                          hint="fix each line above; every key is explained in config.example.toml")
    base = Path(base).expanduser().resolve()
    database, mail, maildir, limits, daemon, play, security = (
        data.get(name, {}) for name in ("database", "mail", "maildir", "limits", "daemon", "play", "security"))

    def rel(p: str) -> Path:
        q = Path(p).expanduser()
        return q if q.is_absolute() else (base / q)

    url = database.get("url", "sqlite:///pbp.db")
    if url.startswith("sqlite:///") and url != "sqlite:///:memory:":
        url = "sqlite:///" + str(rel(url[len("sqlite:///"):]))
    transport = mail.get("transport", "maildir")
    md = None
    if maildir or transport == "maildir":
        md = MaildirConfig(inbox=rel(maildir.get("inbox", "maildir/inbox")), outbox=rel(maildir.get("outbox", "maildir/outbox")))
    oauth, tokens = _oauth(data, rel, where)
    imap = _server(data, "imap", rel, tokens, where)
    smtp = _server(data, "smtp", rel, tokens, where)
    discourse = _discourse(data, rel)
    if transport == "imap" and (imap is None or smtp is None):
        raise ConfigError(where + '[mail] transport = "imap" needs both an [imap] and an [smtp] section',
                          hint="copy them from config.example.toml (pbp init --imap writes them)")
    boxes = tuple(MailboxBinding(name=b.get("name", "INBOX"), campaign=b.get("campaign", ""))
                  for b in data.get("mailboxes", [{}]))
    defaults = {f.name: f.default for f in fields(Config) if not callable(f.default)}
    domain = mail.get("domain", defaults["domain"])
    from_address = mail.get("from_address", defaults["from_address"])
    # both are written into every reply's headers (Message-ID, From): no room for a line break
    if not is_addr_spec(f"x@{domain}"):
        raise ConfigError(f"{where}[mail] domain = {domain!r} is not a domain name", hint='e.g. domain = "example.org"')
    if not is_addr_spec(from_address):
        raise ConfigError(f"{where}[mail] from_address = {from_address!r} is not a plain mail address",
                          hint='e.g. from_address = "table@example.org"')
    return Config(
        path=path,
        database_url=url,
        transport=transport,
        domain=domain,
        from_address=from_address,
        maildir=md,
        imap=imap,
        smtp=smtp,
        mailboxes=boxes,
        handled=daemon.get("handled", defaults["handled"]),
        poll_seconds=float(daemon.get("poll_seconds", defaults["poll_seconds"])),
        limits=Limits(**limits),
        log_level=daemon.get("log_level", defaults["log_level"]),
        compact_sent_after_days=float(daemon.get("compact_sent_after_days", defaults["compact_sent_after_days"])),
        compact_at_send=bool(daemon.get("compact_at_send", defaults["compact_at_send"])),
        database_down_exit_seconds=float(daemon.get("database_down_exit_seconds",
                                                    defaults["database_down_exit_seconds"])),
        apply_workers=daemon.get("apply_workers", defaults["apply_workers"]),
        **{key: hours_value(key, play.get(key, defaults[key])) for key, kind in SCHEMA["play"].items() if kind is HOURS},
        show_npc_skills=play.get("show_npc_skills", defaults["show_npc_skills"]),
        free_bonuses=play.get("free_bonuses", defaults["free_bonuses"]),
        hold_out_of_turn=play.get("hold_out_of_turn", defaults["hold_out_of_turn"]),
        contest_invoke_next_side=play.get("contest_invoke_next_side", defaults["contest_invoke_next_side"]),
        trust_authserv_id=security.get("trust_authserv_id", defaults["trust_authserv_id"]),
        beacon=data.get("dice", {}).get("beacon", defaults["beacon"]),
        beacon_url=data.get("dice", {}).get("beacon_url", defaults["beacon_url"]),
        discourse=discourse,
        archive=_archive(data.get("archive") or {}, rel, where),
        oauth=oauth,
        oauth_tokens=tokens,
    )


def _archive(table: dict, rel, where: str) -> ArchiveConfig | None:
    """The [archive] section: folders the daemon writes each campaign's site into. An empty
    ``dir`` (or none) means off; a folder that is a file, or the same for both readers, is an
    error now rather than a failure at every rewrite."""
    table = {k: v for k, v in table.items() if v != ""}
    if "dir" not in table:
        if "gm_dir" in table:
            raise ConfigError(f"{where}[archive] gm_dir is set but dir is not",
                              hint='set both, e.g. dir = "/srv/pbp-archive" and gm_dir = "/srv/pbp-archive-gm"')
        return None
    folders = {key: rel(table[key]) for key in ("dir", "gm_dir") if key in table}
    for key, folder in folders.items():
        if folder.exists() and not folder.is_dir():
            raise ConfigError(f"{where}[archive] {key} = {_toml(table[key])}: {folder} is a file, "
                              "and the archive needs a folder",
                              hint=f'e.g. {key} = "/srv/pbp-archive" (made if need be; one folder per campaign in it)')
    if folders.get("gm_dir") is not None and folders["gm_dir"].resolve() == folders["dir"].resolve():
        raise ConfigError(f"{where}[archive] gm_dir is the same folder as dir: the GM's archive would "
                          "replace the players'", hint='e.g. dir = "/srv/pbp-archive" and gm_dir = "/srv/pbp-archive-gm"')
    return ArchiveConfig(dir=folders["dir"], gm_dir=folders.get("gm_dir"),
                         every_minutes=float(table.get("every_minutes", 5)))


def _discourse(data: dict, rel) -> dict | None:
    """The [discourse] table with its paths made absolute, checked now (everything but the
    key and the webhook secret, read from the environment or a file when they are used)."""
    table = {k: v for k, v in (data.get("discourse") or {}).items() if v != ""}
    if not table:
        return None
    for key in PATH_KEYS:
        if key in table:
            table[key] = str(rel(table[key]))
    probe = {k: v for k, v in table.items() if k not in DiscourseSettings.SECRET_KEYS}
    secrets = {"webhook_secret_env": "PBP_CONFIG_CHECK"} if "webhook_port" in table else {}
    DiscourseSettings.from_config({**probe, "api_key_env": "PBP_CONFIG_CHECK", **secrets},
                                  environ={"PBP_CONFIG_CHECK": "-"})
    return table
