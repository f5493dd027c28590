"""How the rules write the names of those who take part: the GM's side, a name as a command
writes it, a list of names. A leaf: the systems' own tables and teamwork read these below
:mod:`pbp.rules.names` (which finds characters, skills and aspects by name, and sits above
the systems' registry)."""
from __future__ import annotations

from pbp.i18n import Names

GM = "GM"
"""The GM's side wherever a party, a payer, a holder or a viewer is named; as a viewer, the
one who knows every aspect, hidden or not (the rules modules all take it from here)."""


def quote(name: str) -> str:
    """A name as a command writes it: in quotes when it has spaces."""
    return f'"{name}"' if " " in name else name


def and_names(names) -> str:
    """"Ruth", "Ruth and Ethan", "Ruth, Ethan and Cassandra" (a :class:`pbp.i18n.Names`: in a
    sentence of pbp's, said with the campaign's language's "and")."""
    return Names(names)
