"""The config files ``pbp init`` writes, made from ``config.example.toml`` (shipped inside the
package; the repository's top-level ``config.example.toml`` links to it), so that every
option a written file does not set is still there, commented, with its explanation.
"""
from __future__ import annotations

import re
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parent / "config.example.toml"


def example_text() -> str:
    return EXAMPLE.read_text(encoding="utf-8")


def _set(text: str, key: str, value: str, *, section: str | None = None) -> str:
    """Set ``key = value`` (uncommenting it) within ``section`` (or the first occurrence)."""
    if section is not None:
        head = re.search(rf"(?m)^(# )?\[{re.escape(section)}\]", text)
        start = head.end()
        end = re.search(r"(?m)^(# )?\[", text[start:])
        end = start + end.start() if end else len(text)
    else:
        start, end = 0, len(text)
    part = text[start:end]
    part, n = re.subn(rf"(?m)^(# )?{re.escape(key)} = [^\n#]*?(\s*#.*)?$",
                      lambda mt: f"{key} = {value}" + (mt.group(2) or ""), part, count=1)
    if n != 1:
        raise KeyError(f"{key} not in the example's {section or 'file'}")
    return text[:start] + part + text[end:]


def _uncomment_header(text: str, header: str) -> str:
    return re.sub(rf"(?m)^# {re.escape(header)}(\s|$)", lambda mt: header + mt.group(1), text, count=1)


def _quote(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def config_text(*, domain: str = "pbp.localhost", database: str | None = None, imap: str | None = None,
                smtp: str | None = None, username: str | None = None, poll_seconds: float | None = None,
                oauth: dict | None = None) -> str:
    """The example with these settings made. ``imap`` (a host) switches to IMAP + SMTP with
    ``username`` for both logins, passwords from PBP_IMAP_PASSWORD / PBP_SMTP_PASSWORD, or
    with ``oauth`` (``provider``, ``client_id``, ``tenant``, ``token_file``) by OAuth 2.0: ``auth = "oauth2"``
    in both and the ``[oauth]`` section set."""
    text = example_text()
    text = _set(text, "domain", _quote(domain), section="mail")
    text = _set(text, "from_address", _quote(username or f"table@{domain}"), section="mail")
    if database:
        text = _set(text, "url", _quote(database), section="database")
    if poll_seconds is not None:
        text = _set(text, "poll_seconds", f"{poll_seconds:g}", section="daemon")
    if imap:
        text = _set(text, "transport", '"imap"', section="mail")
        for section, host in (("imap", imap), ("smtp", smtp or imap)):
            text = _uncomment_header(text, f"[{section}]")
            text = _set(text, "host", _quote(host), section=section)
            text = _set(text, "username", _quote(username or f"table@{domain}"), section=section)
            if oauth:
                text = _set(text, "auth", '"oauth2"', section=section)
            else:
                text = _set(text, "password_env", _quote(f"PBP_{section.upper()}_PASSWORD"), section=section)
        if oauth:
            text = _uncomment_header(text, "[oauth]")
            text = _set(text, "provider", _quote(oauth["provider"]), section="oauth")
            text = _set(text, "client_id", _quote(oauth["client_id"]), section="oauth")
            text = _set(text, "token_file", _quote(oauth.get("token_file") or "oauth-token.json"), section="oauth")
            if oauth.get("tenant"):
                text = _set(text, "tenant", _quote(oauth["tenant"]), section="oauth")
        text = _uncomment_header(text, "[[mailboxes]]")
        text = _set(text, "name", '"INBOX"', section="[mailboxes]")
        text = _set(text, "campaign", '""', section="[mailboxes]")
    return text
