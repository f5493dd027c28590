"""A campaign's members: their addresses and forum names as kept, and adding one.

A leaf under :mod:`pbp.campaigns` (setting up a table) and :mod:`pbp.sheetedit` (a sheet
that names a new player makes them a member)."""
from __future__ import annotations

import re

from pbp.errors import ConfigError
from pbp.store import models as m
from pbp.textsafety import is_addr_spec, visible

#: a Discourse username: letters, digits, dashes, dots and underscores (its own rule)
FORUM_USERNAME = re.compile(r"[\w.-]{1,60}")


def _checked_address(address: str, what: str = "the campaign address") -> str:
    """A table or member address as kept: a bare addr-spec, lower-cased (it is written
    into From, To and the SMTP envelope)."""
    address = address.strip().lower()
    if not is_addr_spec(address):
        raise ConfigError(f'{what} "{visible(address, 80)}" is not a '
                          "plain mail address", hint="e.g. table+chicago@example.org (no name, no <>, no spaces)")
    return address


def add_member(campaign: m.Campaign, email: str, role: str = "player", display_name: str = "",
               forum_username: str | None = None) -> m.Member:
    """A member by their address; ``forum_username`` is their name on the campaign's forum
    (posts there are theirs when the poster's name is it); given again, it is changed."""
    if role not in ("player", "gm"):
        raise ConfigError(f'role "{role}" is not player or gm')
    email = _checked_address(email, "the GM address" if role == "gm" else "the player address")
    username = _checked_username(forum_username) if forum_username else None
    member, created = m.Member.get_or_create(campaign=campaign, email=email,
                                              defaults={"role": role, "display_name": display_name,
                                                        "forum_username": username})
    if not created and (member.role != role or (username and member.forum_username != username)):
        member.role = role
        member.forum_username = username or member.forum_username
        member.save()
    return member


def _checked_username(name: str) -> str:
    name = name.strip().lstrip("@")
    if not FORUM_USERNAME.fullmatch(name):
        raise ConfigError(f'forum username "{visible(name, 80)}" is not a Discourse username',
                          hint="letters, digits, dashes, dots and underscores, e.g. --forum-username ruth_k")
    return name
