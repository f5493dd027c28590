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
               forum_username: str | None = None, forum_name: str | None = None) -> m.Member:
    """A member by their address; ``forum_username`` is their username on the campaign's
    forum and ``forum_name`` their full name there (a forum's mail shows either, see
    docs/forum.md); given again, they are changed. A forum name another member already
    answers to is refused: a post under it could be either's."""
    if role not in ("player", "gm"):
        raise ConfigError(f'role "{role}" is not player or gm')
    email = _checked_address(email, "the GM address" if role == "gm" else "the player address")
    username = _checked_username(forum_username) if forum_username else None
    full_name = _checked_forum_name(forum_name) if forum_name else None
    _refuse_shared_forum_names(campaign, email, [n for n in (username, full_name) if n])
    member, created = m.Member.get_or_create(campaign=campaign, email=email,
                                              defaults={"role": role, "display_name": display_name,
                                                        "forum_username": username, "forum_name": full_name})
    if not created and (member.role != role or (username and member.forum_username != username)
                        or (full_name and member.forum_name != full_name)):
        if username and (member.forum_username or "").casefold() != username.casefold():
            member.forum_user_id = None   # another account: bound again when it first posts
        member.role = role
        member.forum_username = username or member.forum_username
        member.forum_name = full_name or member.forum_name
        member.save()
    return member


def forum_names(member: m.Member) -> set[str]:
    """The names a member answers to on the forum, case-folded: their username and their
    full name (``forum_name``, else pbp's display name of them)."""
    return {n.strip().casefold() for n in (member.forum_username, member.forum_name or member.display_name)
            if n and n.strip()}


def _refuse_shared_forum_names(campaign: m.Campaign, email: str, names: list[str]) -> None:
    wanted = {n.casefold() for n in names}
    for other in m.Member.select().where((m.Member.campaign == campaign) & (m.Member.email != email)):
        shared = wanted & forum_names(other)
        if shared:
            raise ConfigError(f'the forum name "{visible(sorted(shared)[0], 80)}" is already {other.email}\'s in '
                              f"{campaign.slug}: a post under it could be either's",
                              hint="give each member a username and full name no other member has, "
                                   "e.g. --forum-username ruth_k --forum-name \"Ruth Kim\"")


#: a full name as Discourse keeps it: one line, no angle brackets or quotes that would
#: make it something else in a mail header
FORUM_NAME = re.compile(r"[^\x00-\x1f\x7f<>\"@]{1,255}")


def _checked_forum_name(name: str) -> str:
    name = " ".join(name.split())
    if not FORUM_NAME.fullmatch(name):
        raise ConfigError(f'forum name "{visible(name, 80)}" is not a full name as a forum shows it',
                          hint='one line without <, >, " or @, e.g. --forum-name "Ruth Kim"')
    return name


def _checked_username(name: str) -> str:
    name = name.strip().lstrip("@")
    if not FORUM_USERNAME.fullmatch(name):
        raise ConfigError(f'forum username "{visible(name, 80)}" is not a Discourse username',
                          hint="letters, digits, dashes, dots and underscores, e.g. --forum-username ruth_k")
    return name
