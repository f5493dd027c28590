"""Fate points outside of invokes: spending one for a story detail or a stunt, and the GM
giving or taking points. Pure: changes the table and reports every change."""
from __future__ import annotations

from pbp.errors import RulesError
from pbp.rules.results import Change
from pbp.rules.state import Character


def spend_fate_point(ch: Character, reason: str = "") -> Change:
    """Spend one point; refused (RulesError) at zero, never below."""
    if ch.fate_points <= 0:
        raise RulesError(
            f"{ch.name} has no fate points to spend",
            expected="a fate point in hand",
            example="/fp (to see your points); earn points by accepting compels",
        )
    before = ch.fate_points
    ch.fate_points -= 1
    return Change("fate_points", ch.name, before, ch.fate_points, reason or "spent")


def adjust_fate_points(ch: Character, delta: int, reason: str = "") -> Change:
    """The GM gives (delta > 0) or takes (delta < 0) points; a sheet never goes below zero."""
    before = ch.fate_points
    if before + delta < 0:
        raise RulesError(
            f"{ch.name} has {before} fate point{'s' if before != 1 else ''}; cannot take {-delta}",
            expected=f"at most {before}",
            example=f'/fp take "{ch.name}" {max(before, 1)}',
        )
    ch.fate_points = before + delta
    return Change("fate_points", ch.name, before, ch.fate_points, reason)
