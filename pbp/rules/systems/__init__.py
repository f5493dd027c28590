"""The registry of game systems: each system is its own module, found here by name or alias.

A new system is a module in this package (a ``System`` value overriding the hooks where it
differs, see ``base``) and one ``register`` line; the engine, the grammar and the pipeline
do not change. Registering a name or alias twice is an error.
"""
from __future__ import annotations

from types import MappingProxyType
from typing import Mapping

from pbp.errors import ConfigError
from pbp.i18n import language_code
from pbp.rules.system import (AttackKind, EscalatingBoxes, FateDice, FateTiers, OnePointBoxes, Recovery,
                              StressTable, System, Words, four_fate_dice, or_words)
from pbp.rules.systems.fate_condensed import FATE_CONDENSED
from pbp.rules.systems.fate_core import FATE_CORE
from pbp.rules.systems.d10_pool import D10_POOL
from pbp.rules.systems.early_fate import EARLY_FATE
from pbp.rules.systems.dresden_condensed import DRESDEN_FILES_CONDENSED
from pbp.rules.systems.speaking import speaking

__all__ = ["AttackKind", "DEFAULT_SYSTEM", "D10_POOL", "DRESDEN_FILES_CONDENSED", "EARLY_FATE", "EscalatingBoxes", "FATE_CONDENSED", "FATE_CORE", "FateDice", "FateTiers",
           "OnePointBoxes", "Recovery", "SYSTEMS", "StressTable", "System", "UnknownSystem", "Words", "four_fate_dice",
           "campaign_system", "get_system", "or_words", "register", "vocabulary"]

#: The product's default campaign system: what ``pbp campaign create``, ``pbp roll`` and
#: ``create_campaign`` use when no ``--system`` is given, and the words of a reply written
#: before a post is routed to a campaign (a stranger's mail, a post no campaign takes).
DEFAULT_SYSTEM = "fate-condensed"

_SYSTEMS: dict[str, System] = {}
_ALIASES: dict[str, str] = {}
SYSTEMS: Mapping[str, System] = MappingProxyType(_SYSTEMS)


def register(system: System, *aliases: str) -> System:
    """Add a system under its name and aliases (compared case-insensitively)."""
    for key in (system.name, *aliases):
        key = key.casefold()
        if key in _SYSTEMS or key in _ALIASES:
            raise ValueError(f"game system name {key!r} is registered twice")
    _SYSTEMS[system.name.casefold()] = system
    _ALIASES.update({a.casefold(): system.name.casefold() for a in aliases})
    return system


register(FATE_CONDENSED, "fc", "condensed")
register(FATE_CORE, "fate core", "core")
register(EARLY_FATE, "early fate", "early", "sotc")
register(D10_POOL, "d10", "d10 pool", "dice-pool")
register(DRESDEN_FILES_CONDENSED, "dfc", "dresden", "dresden files condensed")


class UnknownSystem(ConfigError, KeyError):
    """A campaign names a game system pbp does not know (also a ``KeyError``)."""


def get_system(name: str) -> System:
    """The system a campaign names (case-insensitively, by name or alias)."""
    key = name.strip().casefold()
    try:
        return _SYSTEMS[_ALIASES.get(key, key)]
    except KeyError:
        known = ", ".join(sorted(_SYSTEMS))
        raise UnknownSystem(f"unknown game system {name!r}", hint=f"known systems: {known}") from None


def campaign_system(campaign) -> System:
    """The system a campaign plays, with the options its settings choose
    (``System.options``: Dresden Files Condensed's free stunts and escalating stress), in
    the campaign's language (its skills and ladder words, ``speaking``)."""
    settings = getattr(campaign, "settings", None) or {}
    return speaking(get_system(campaign.system).configured(settings), language_code(settings.get("language")))


def vocabulary() -> Words:
    """The words of every registered system, in registration order: what the grammar accepts
    where a track, a severity or the stress unit is written (``pbp.parser.grammar``)."""
    words = Words((), (), ())
    for system in _SYSTEMS.values():
        words = words.merged(system.words)
    return words
