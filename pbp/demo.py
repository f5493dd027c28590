"""``pbp demo``: a sample table on local Maildirs, so a newcomer sees a post go in and a
reply come out with no mail account at all."""
from __future__ import annotations

import email
import email.utils
import logging
import tomllib
from email import policy
from importlib import resources
from pathlib import Path

from pbp.campaigns import create_campaign, import_character
from pbp.config import load_config
from pbp.config_template import config_text
from pbp.daemon import run
from pbp.rules.systems import DEFAULT_SYSTEM
from pbp.samples import SAMPLES, TITLES, samples_help  # noqa: F401  (demo.SAMPLES: each system's table)
from pbp.store import models as m
from pbp.store.db import open_database
from pbp.transport.maildir import ensure_maildir

log = logging.getLogger("pbp.demo")


def sample_dir(system: str | None = None) -> Path:
    """The folder of a sample table: Chicago Nights (Fate Condensed), or ``system``'s own."""
    if system is not None:
        from pbp.rules.systems import get_system

        name = get_system(system).name
        if name not in SAMPLES:
            known = ", ".join(sorted(SAMPLES))
            raise ValueError(f"no sample table for {name} (samples: {known})")
        return Path(str(resources.files("pbp.samples") / SAMPLES[name]))
    return Path(str(resources.files("pbp.samples") / SAMPLES[DEFAULT_SYSTEM]))


def create_sample_campaign(system: str | None = None):
    """A bundled sample campaign with its characters, in the open database: "Chicago Nights"
    (Fate Condensed), or ``system``'s own sample table."""
    samples = sample_dir(system)
    meta = tomllib.loads((samples / "campaign.toml").read_text(encoding="utf-8"))
    campaign = create_campaign(meta["slug"], meta["name"], system=meta["system"], address=meta["address"],
                               delivery=meta["delivery"], gms=meta["gms"])
    for sheet in sorted(samples.glob("*.toml")):
        if sheet.name != "campaign.toml":
            import_character(campaign, str(sheet))
    return campaign


def set_up(directory: Path, system: str | None = None):
    """Config, database, Maildirs and the sample campaign (idempotent: a demo directory
    set up before is used again as it is, and the newcomer is told how to start afresh).
    ``system``: set up that system's sample table instead of Chicago Nights."""
    config_path = directory / "pbp.toml"
    if config_path.exists():
        print(f"{directory}/ exists already: playing on with its campaign and mail "
              f"(for a fresh start: rm -r {directory} and run the demo again)")
    directory.mkdir(parents=True, exist_ok=True)
    if not config_path.exists():
        config_path.write_text(config_text(poll_seconds=2), encoding="utf-8")
    config = load_config(config_path)
    open_database(config.database_url)
    inbox = ensure_maildir(config.maildir.inbox)
    ensure_maildir(config.maildir.outbox)
    samples = sample_dir(system)
    meta = tomllib.loads((samples / "campaign.toml").read_text(encoding="utf-8"))
    if m.Campaign.get_or_none(m.Campaign.slug == meta["slug"]) is None:
        create_sample_campaign(system)
        post = (samples / "first-post.eml").read_bytes()
        inbox.add(post)
        sender = email.utils.parseaddr(email.message_from_bytes(post)["From"] or "")[0] or "a player"
        print(f"sample campaign {meta['name']!r} created; a first post from {sender} is waiting in {config.maildir.inbox}")
    return config


def print_reply(row: m.OutboxMail) -> None:
    msg = email.message_from_string(row.raw, policy=policy.default)
    print("\n" + "=" * 72)
    print(f"To: {msg['To']}\nSubject: {msg['Subject']}\n")
    from pbp.render import plain_text

    print(plain_text(msg).rstrip())
    print("=" * 72 + "\n")


def demo(directory: Path, *, once: bool = False, system: str | None = None) -> int:
    config = set_up(directory, system)
    inbox = config.maildir.inbox
    print(f"Replies are written to {config.maildir.outbox}/new and shown here.")
    if not once:
        first = sample_dir(system) / "first-post.eml"
        print(f"Drop more .eml files into {inbox}/new (see {first}); Ctrl-C stops.")
    return run(config, once=once, on_sent=print_reply)
