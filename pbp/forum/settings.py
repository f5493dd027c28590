"""``DiscourseSettings``: where the forum is, who the bot is, and its API key.

Like the IMAP and SMTP settings (pbp/transport/settings.py) it validates itself when made, so
a bad URL or a missing key fails at start-up with a hint. The API key and the webhook secret
come from ``resolve_secret`` (an environment variable or a file), never from the config table.
Not yet a section of pbp.toml: ``from_config`` takes the table a future ``[discourse]`` section
will hold (see docs/forum.md, "By API").
"""
from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar
from urllib.parse import urlsplit

from pbp.errors import ConfigError
from pbp.settingvalues import did_you_mean
from pbp.transport.secrets import resolve_secret
from pbp.transport.settings import checked_ca_file, is_loopback

from .retry import RetryPolicy

API_KEY_ENV = "PBP_DISCOURSE_API_KEY"
WEBHOOK_SECRET_ENV = "PBP_DISCOURSE_WEBHOOK_SECRET"
KIND = "discourse"


def key_flaw(key: str) -> str:
    """What is wrong with an API key as pasted (a stray line break, quotes, spaces), in
    words that never show the key; "" when nothing is."""
    for index, char in enumerate(key, start=1):
        where = f"at character {index} of {len(key)}"
        if char in "\r\n":
            return f"has a line break {where}"
        if char in "\"'`":
            return f"has a quote {where} (pasted with its quotes?)"
        if char.isspace():
            return f"has a space {where}"
        if not (char.isascii() and char.isprintable()):
            return f"has a character that is not plain ASCII {where}"
    return ""


@dataclass(frozen=True)
class DiscourseSettings:
    """One Discourse site and the bot account pbp posts as.

    ``url`` is the site's base URL (``https://forum.example.org``); ``username`` the bot's
    username, sent as ``Api-Username``; ``api_key`` sent as ``Api-Key``. ``categories``, when
    given, limits what polling yields to posts in those category ids. ``max_pages`` bounds how
    far back one poll reads (``GET /posts.json`` pages of about 50 posts). ``retries``,
    ``backoff_base``, ``backoff_cap`` and ``max_wait`` bound the retries on 429 and 5xx (see
    ``RetryPolicy``). ``webhook_secret`` is the secret of the site's webhook, when one is used.
    """

    url: str
    username: str
    api_key: str = field(default="", repr=False)
    categories: tuple[int, ...] = ()
    timeout: float = 30.0
    poll_interval: float = 60.0
    max_pages: int = 10
    retries: int = 5
    backoff_base: float = 1.0
    backoff_cap: float = 60.0
    max_wait: float = 300.0
    webhook_secret: str | None = field(default=None, repr=False)
    ca_file: str | None = None
    allow_insecure: bool = False
    webhook_host: str = "127.0.0.1"
    webhook_port: int | None = None

    SECRET_KEYS: ClassVar[frozenset[str]] = frozenset(
        {"api_key_env", "api_key_file", "webhook_secret_env", "webhook_secret_file"})

    def __post_init__(self) -> None:
        if not isinstance(self.url, str) or not self.url.strip():
            raise ConfigError(f"{KIND}: url is empty", hint='set url, e.g. url = "https://forum.example.org"')
        parts = urlsplit(self.url.strip())
        if parts.scheme not in ("https", "http") or not parts.hostname:
            raise ConfigError(f"{KIND}: url {self.url!r} is not an http(s) URL",
                              hint='use the site\'s address, e.g. url = "https://forum.example.org"')
        if parts.query or parts.fragment:
            raise ConfigError(f"{KIND}: url {self.url!r} has a query or fragment", hint="give only the site's base URL")
        if parts.scheme == "http" and not is_loopback(parts.hostname) and not self.allow_insecure:
            raise ConfigError(f"{KIND}: http:// would send the API key unencrypted to {parts.hostname}",
                              hint="use https://; set allow_insecure = true only on a network you trust")
        object.__setattr__(self, "url", self.url.strip().rstrip("/"))
        if not isinstance(self.username, str) or not self.username.strip():
            raise ConfigError(f"{KIND}: username is empty", hint="set username to the bot account's username")
        if not isinstance(self.api_key, str) or not self.api_key:
            raise ConfigError(f"{KIND}: no API key",
                              hint=f"export {API_KEY_ENV} or set api_key_file; never put it in pbp.toml")
        flaw = key_flaw(self.api_key)
        if flaw:   # sent as a header, it would fail in httpx with the key in the message
            raise ConfigError(f"{KIND}: the API key {flaw} (the key is not shown)",
                              hint=f"a Discourse API key is one word of letters and digits: write it again into "
                                   f"{API_KEY_ENV} or the api_key_file without quotes, spaces or line breaks")
        if isinstance(self.categories, (str, bytes)) or not all(
                isinstance(c, int) and not isinstance(c, bool) and c > 0 for c in self.categories):
            raise ConfigError(f"{KIND}: categories must be a list of category ids, not {self.categories!r}",
                              hint="e.g. categories = [5, 12]; a category's id is in its URL, /c/slug/ID")
        object.__setattr__(self, "categories", tuple(self.categories))
        for name in ("timeout", "poll_interval", "backoff_base", "backoff_cap", "max_wait"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
                raise ConfigError(f"{KIND}: {name} must be a positive number of seconds, not {value!r}")
        for name, least in (("max_pages", 1), ("retries", 0)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < least:
                raise ConfigError(f"{KIND}: {name} must be an integer of at least {least}, not {value!r}")
        port = self.webhook_port
        if port is not None and (isinstance(port, bool) or not isinstance(port, int) or not 0 <= port < 65536):
            raise ConfigError(f"{KIND}: webhook_port must be a port number, not {port!r}", hint="e.g. webhook_port = 8787")
        if port is not None and not self.webhook_secret:
            raise ConfigError(f"{KIND}: webhook_port is set but there is no webhook secret to check deliveries with",
                              hint=f"set the webhook's secret on the forum and export {WEBHOOK_SECRET_ENV} "
                                   "(or set webhook_secret_file)")
        if self.ca_file is not None:
            object.__setattr__(self, "ca_file", checked_ca_file(KIND, self.ca_file, peer="forum"))

    @property
    def site(self) -> str:
        """The host that names the forum in an ``InboundPost`` (``forum.example.org``)."""
        return urlsplit(self.url).netloc.lower()

    @property
    def backoff(self) -> RetryPolicy:
        return RetryPolicy(retries=self.retries, base=self.backoff_base, cap=self.backoff_cap,
                       max_wait=self.max_wait)

    @classmethod
    def from_config(cls, table: Mapping[str, Any],
                    environ: Mapping[str, str] | None = None) -> "DiscourseSettings":
        """Build from a config table; the key from ``api_key_env`` (default
        ``PBP_DISCOURSE_API_KEY``) or ``api_key_file``; the webhook secret, when
        ``webhook_secret_env`` or ``webhook_secret_file`` is given, or ``PBP_DISCOURSE_WEBHOOK_SECRET``
        is set."""
        if not isinstance(table, Mapping):
            raise ConfigError(f"{KIND}: the settings must be a table, not {type(table).__name__}")
        for secret in ("api_key", "webhook_secret"):
            if secret in table:
                raise ConfigError(f"{KIND}: a {secret} in the config file is not read",
                                  hint=f"remove it; export {API_KEY_ENV if secret == 'api_key' else WEBHOOK_SECRET_ENV}"
                                  f" or set {secret}_file to a file only the daemon's user can read")
        known = {f.name for f in fields(cls)} - {"api_key", "webhook_secret"}
        unknown = sorted(set(table) - known - cls.SECRET_KEYS)
        if unknown:
            raise ConfigError(f"{KIND}: unknown setting(s): {', '.join(unknown)}",
                              hint=did_you_mean(unknown[0], known | cls.SECRET_KEYS))
        values = {key: value for key, value in table.items() if key in known}
        for required, example in (("url", '"https://forum.example.org"'), ("username", '"pbp-bot"')):
            if required not in values:
                raise ConfigError(f"{KIND}: {required} is missing", hint=f"set {required} = {example}")
        if "categories" in values and isinstance(values["categories"], list):
            values["categories"] = tuple(values["categories"])
        values["api_key"] = resolve_secret(table.get("api_key_env", API_KEY_ENV), table.get("api_key_file"),
                                           environ=environ, what="API key", file_key="api_key_file")
        env = os.environ if environ is None else environ
        secret_env = table.get("webhook_secret_env", WEBHOOK_SECRET_ENV)
        if "webhook_secret_env" in table or "webhook_secret_file" in table or env.get(secret_env):
            values["webhook_secret"] = resolve_secret(
                secret_env, table.get("webhook_secret_file"), environ=env,
                what="webhook secret", file_key="webhook_secret_file")
        return cls(**values)
