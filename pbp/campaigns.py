"""Setting up a table: campaigns, their members and their characters."""
from __future__ import annotations

import re

from pbp.errors import ConfigError
from pbp.rules.systems import get_system
from pbp.settingvalues import flag_value, hours_value
from pbp.sheetfile import SheetFile, load_sheet
from pbp.store import models as m
from pbp.store import repo

SLUG = re.compile(r"^[a-z0-9][a-z0-9-]{0,62}$")


def create_campaign(slug: str, name: str, *, system: str = "fate-condensed", address: str | None = None,
                    delivery: str = "relay", gms: list[str] = (), players: list[str] = ()) -> m.Campaign:
    if not SLUG.match(slug):
        raise ConfigError(f'campaign slug "{slug}" must be lower-case letters, digits and dashes',
                          hint="e.g. chicago-nights (it is also the plus-address: table+chicago-nights@...)")
    get_system(system)  # raises for an unknown system
    if delivery not in ("relay", "list"):
        raise ConfigError(f'delivery "{delivery}" is not relay or list')
    if m.Campaign.get_or_none(m.Campaign.slug == slug):
        raise ConfigError(f'a campaign "{slug}" exists already')
    with m.db.atomic():
        campaign = m.Campaign.create(slug=slug, name=name, system=system, address=address and address.lower(),
                                     delivery=delivery)
        for email in gms:
            add_member(campaign, email, "gm")
        for email in players:
            add_member(campaign, email, "player")
    return campaign


def add_member(campaign: m.Campaign, email: str, role: str = "player", display_name: str = "") -> m.Member:
    if role not in ("player", "gm"):
        raise ConfigError(f'role "{role}" is not player or gm')
    email = email.strip().lower()
    member, created = m.Member.get_or_create(campaign=campaign, email=email,
                                              defaults={"role": role, "display_name": display_name})
    if not created and member.role != role:
        member.role = role
        member.save()
    return member


def get_campaign(slug: str | None) -> m.Campaign:
    """The named campaign, or the only one when no name is given."""
    if slug:
        found = m.Campaign.get_or_none(m.Campaign.slug == slug)
        if found is None:
            known = ", ".join(c.slug for c in m.Campaign.select()) or "none yet"
            raise ConfigError(f'no campaign "{slug}" (known: {known})', hint="pbp campaign create SLUG --name NAME")
        return found
    campaigns = list(m.Campaign.select().limit(2))
    if len(campaigns) == 1:
        return campaigns[0]
    raise ConfigError("say which campaign with --campaign SLUG" if campaigns else "no campaign yet",
                      hint="pbp campaign create SLUG --name NAME")


def import_character(campaign: m.Campaign, sheet: SheetFile | str, *, replace: bool = False) -> m.Character:
    """Store a validated sheet; a PC's player becomes a member of the campaign."""
    if not isinstance(sheet, SheetFile):
        sheet = load_sheet(sheet, get_system(campaign.system))
    ch = sheet.character
    with m.db.atomic():
        existing = m.Character.get_or_none((m.Character.campaign == campaign) & (m.Character.name == ch.name))
        if existing is not None:
            if not replace:
                raise ConfigError(f'{campaign.slug} already has a character "{ch.name}"', hint="add --replace to overwrite it")
            m.Aspect.update(active=False).where((m.Aspect.campaign == campaign) & (m.Aspect.owner == ch.name)
                                                & (m.Aspect.kind.in_(["high_concept", "trouble", "character"]))).execute()
            existing.delete_instance()
        table = repo.load_table(campaign)
        before = repo.snapshot(table)
        table.characters[ch.name] = ch
        table.aspects.extend(sheet.aspects)
        repo.save_table(campaign, before, table)
        row = m.Character.get_by_id(ch.id)
        if sheet.description:
            row.description = sheet.description
            row.save()
        if ch.player and not m.Member.select().where((m.Member.campaign == campaign) & (m.Member.email == ch.player)).exists():
            add_member(campaign, ch.player, "player")
    return row


SETTINGS = {
    "name": "the campaign's name, as in [Name] in subjects",
    "address": "the table's address (To: of posts, From: of replies)",
    "delivery": "relay (pbp sends each result to every member) or list (pbp replies to the list)",
    "reaction_deadline_hours": "hours to answer a /defend, /absorb, turn or compel before its default",
    "invoke_window_hours": "hours a roll stays open for /invoke after the dice",
    "reminder_hours": "hours before a deadline that its reminder goes out",
    "ranged_reach": "how far shots and Provoke reach: same, adjacent or any (zones)",
    "free_bonuses": "yes: a player's plain +N applies at once; no (default): it waits for the GM",
}


def set_campaign(campaign: m.Campaign, key: str, value: str) -> None:
    """Change one campaign setting (``pbp campaign set``); each is checked first."""
    if key not in SETTINGS:
        raise ConfigError(f'no campaign setting "{key}"',
                          hint="settings: " + ", ".join(f"{k} ({v})" for k, v in SETTINGS.items()))
    if key == "name":
        campaign.name = value
    elif key == "address":
        campaign.address = value.lower() or None
    elif key == "delivery":
        if value not in ("relay", "list"):
            raise ConfigError(f'delivery "{value}" is not relay or list')
        campaign.delivery = value
    elif key == "ranged_reach":
        if value not in ("same", "adjacent", "any"):
            raise ConfigError(f'ranged_reach "{value}" is not same, adjacent or any')
        campaign.settings = {**(campaign.settings or {}), key: value}
    elif key == "free_bonuses":
        campaign.settings = {**(campaign.settings or {}), key: flag_value(key, value)}
    else:
        campaign.settings = {**(campaign.settings or {}), key: hours_value(key, value)}
    campaign.save()
