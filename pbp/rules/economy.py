"""Kept for its importers: fate points outside of invokes now live in
:mod:`pbp.rules.fate_points`."""
from pbp.rules.fate_points import adjust_fate_points, spend_fate_point

__all__ = ["adjust_fate_points", "spend_fate_point"]
