"""``pbp init --oauth microsoft|google``: sign a table's mailbox in once, so that the daemon
can log in to IMAP and SMTP by XOAUTH2 (docs/oauth.md).

The config's ``[oauth]`` section says whom to ask (``pbp init --imap HOST --oauth PROVIDER
--client-id ID`` writes it; run again on an existing config, it signs in again and keeps the
file). The device authorization grant (RFC 8628): pbp asks the provider for a code, prints
the page to open and the code to type there (on any device: the server pbp runs on needs
no browser), polls until the mailbox's owner approves, and keeps the refresh token in
``token_file`` (mode 0600). Every access token after that is made from it by the daemon
(:class:`pbp.transport.oauth.TokenSource`).
"""
from __future__ import annotations

import time
from typing import Callable

from pbp.config import Config
from pbp.errors import CommandError, ConfigError
from pbp.transport.oauth import poll_device_flow, start_device_flow

#: The provider's own servers, for ``pbp init --oauth PROVIDER`` without ``--imap``.
PROVIDER_HOSTS = {"microsoft": ("outlook.office365.com", "smtp.office365.com"),
                  "google": ("imap.gmail.com", "smtp.gmail.com")}
EXAMPLE = "pbp init --oauth microsoft --username table@contoso.com --client-id 8f2a5c1e-0b7d-4c3e-9a61-2f4d8e7b3c90"


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
    code = start_device_flow(tokens.provider, tokens.client_id)
    minutes = max(1, code.expires_in // 60)
    out(f"To let pbp read and send mail as {user}, open\n\n    {code.verification_uri}\n\n"
        f"in a browser (on any device), enter the code\n\n    {code.user_code}\n\n"
        f"and sign in as {user} (within {minutes} minutes). Waiting...")
    response = poll_device_flow(tokens.provider, tokens.client_id, code, sleep=sleep,
                                client_secret=tokens.client_secret)
    tokens.save(response)
    out(f"signed in: the refresh token is kept in {tokens.token_file} (mode 0600, readable by this user only)")
