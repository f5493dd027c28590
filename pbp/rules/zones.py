"""Zones: the quick map of a conflict, who stands where, and what is in reach.

Fate Condensed, "Zones" and "Movement": a scene is split into a few zones; anyone in a zone
can interact with everyone and everything in it; a character may move to an adjacent zone
in addition to their action each exchange, as long as nothing is in the way (an impeded or
longer move takes the action: an overcome roll the GM sets). Ranged attacks reach adjacent
zones "or maybe further, if the zones are clear enough", so how far a shot reaches is a
GM-set policy here:

* ``"same"``: only the shooter's own zone;
* ``"adjacent"`` (the default): the own zone and the zones bordering it;
* ``"any"``: anywhere on the map.

Zone aspects are ordinary aspects in ``Table.aspects`` with kind "zone" and the zone's name
as owner. A ``ZoneMap`` is a value: ``place`` and ``move`` return a new map.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Iterable, Mapping

from pbp.errors import RulesError
from pbp.rules.state import Aspect, Table

RANGE_POLICIES = ("same", "adjacent", "any")

SCENE_EXAMPLE = '/scene start "Warehouse" zones "Dock", "Floor", "Office" borders "Dock"-"Floor", "Floor"-"Office"'


@dataclass(frozen=True)
class ZoneMap:
    """The zones of a scene, their borders (undirected) and where each character stands."""

    zones: tuple[str, ...]
    border_pairs: frozenset[frozenset[str]] = frozenset()
    positions: Mapping[str, str] = field(default_factory=dict)   # character -> zone

    # -- building ---------------------------------------------------------------------------
    @classmethod
    def build(cls, zones: Iterable[str], borders: Iterable[tuple[str, str]] = ()) -> "ZoneMap":
        """A checked map: at least one zone, no zone twice, borders between two known zones."""
        names = tuple(z.strip() for z in zones)
        if not names or any(not z for z in names):
            raise RulesError("a zone map needs at least one named zone", expected="zones \"NAME\", ...",
                             example=SCENE_EXAMPLE)
        seen: dict[str, str] = {}
        for z in names:
            if z.casefold() in seen:
                raise RulesError(f'the zone "{z}" is listed twice', expected="each zone once",
                                 example=SCENE_EXAMPLE)
            seen[z.casefold()] = z
        m = cls(names)
        pairs = set()
        for a, b in borders:
            za, zb = m.zone(a), m.zone(b)
            if za == zb:
                raise RulesError(f'"{za}" cannot border itself', expected='two different zones: "A"-"B"',
                                 example=SCENE_EXAMPLE)
            pairs.add(frozenset((za, zb)))
        return cls(names, frozenset(pairs))

    # -- names ------------------------------------------------------------------------------
    def zone(self, name: str) -> str:
        """The map's spelling of a zone named case-insensitively; unknown zones are refused
        with the list of zones."""
        key = name.strip().casefold()
        for z in self.zones:
            if z.casefold() == key:
                return z
        listed = ", ".join(f'"{z}"' for z in self.zones)
        raise RulesError(f'there is no zone "{name}" in this scene (zones: {listed})',
                         expected=f"one of {listed}", example=f'/move "{self.zones[0]}"')

    # -- geometry ---------------------------------------------------------------------------
    def borders(self, a: str, b: str) -> bool:
        """True when zones ``a`` and ``b`` share a border (a zone does not border itself)."""
        return frozenset((self.zone(a), self.zone(b))) in self.border_pairs

    def neighbours(self, a: str) -> tuple[str, ...]:
        za = self.zone(a)
        return tuple(z for z in self.zones if frozenset((za, z)) in self.border_pairs)

    def can_move(self, a: str, b: str) -> bool:
        """The free move that comes with a turn: from ``a`` to a bordering zone ``b``."""
        return self.borders(a, b)

    def check_move(self, a: str, b: str) -> None:
        """Refuse a free move that does not cross exactly one border, naming where one can go."""
        za, zb = self.zone(a), self.zone(b)
        if self.can_move(za, zb):
            return
        near = ", ".join(f'"{z}"' for z in self.neighbours(za)) or "nowhere (no zone borders it)"
        why = "you are already there" if za == zb else f'"{zb}" does not border "{za}"'
        raise RulesError(
            f"a free move goes to a bordering zone: {why}; from \"{za}\" you can move to {near}",
            expected=f"a zone bordering \"{za}\": {near}",
            example=f'/move "{self.neighbours(za)[0]}"' if self.neighbours(za) else "",
            hint="moving further, or past an obstacle, takes your action (an overcome the GM sets)",
        )

    def in_melee_range(self, a: str, b: str) -> bool:
        """Close combat reaches only one's own zone."""
        return self.zone(a) == self.zone(b)

    def in_ranged_range(self, a: str, b: str, policy: str = "adjacent") -> bool:
        """A shot from zone ``a`` reaches zone ``b`` under the GM's ``policy`` (see module doc)."""
        if policy not in RANGE_POLICIES:
            raise RulesError(f'unknown range policy "{policy}"', expected=" | ".join(RANGE_POLICIES),
                             example="adjacent")
        za, zb = self.zone(a), self.zone(b)
        if policy == "any" or za == zb:
            return True
        return policy == "adjacent" and self.borders(za, zb)

    # -- positions --------------------------------------------------------------------------
    def zone_of(self, who: str) -> str | None:
        key = who.casefold()
        return next((z for name, z in self.positions.items() if name.casefold() == key), None)

    def place(self, who: str, zone: str) -> "ZoneMap":
        """The GM puts a character in a zone (no border check)."""
        positions = {n: z for n, z in self.positions.items() if n.casefold() != who.casefold()}
        positions[who] = self.zone(zone)
        return replace(self, positions=positions)

    def move(self, who: str, to: str) -> "ZoneMap":
        """A character's free move to a bordering zone; refused (RulesError) otherwise."""
        here = self.zone_of(who)
        if here is None:
            raise RulesError(f"{who} has not been placed in a zone yet; the GM places them first",
                             expected="a character placed in a zone",
                             example=f'/place {who} in "{self.zones[0]}"')
        self.check_move(here, to)
        return self.place(who, to)


def zone_aspects(table: Table, zone: str) -> list[Aspect]:
    """The aspects on a zone (kind "zone", owner = the zone's name)."""
    key = zone.casefold()
    return [a for a in table.aspects if a.kind == "zone" and a.owner is not None and a.owner.casefold() == key]
