"""Typed command objects: what the grammar produces and the pipeline resolves.

A post is cut into command lines (lines starting with ``/``); each line becomes exactly one
of the dataclasses below. They are plain values with no behaviour, so the parser, the
rules engine and the renderer can each be tested alone. ``line`` is the 1-based line of
the command in the author's new text and ``source`` the line as written.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum


class InvokeMode(str, Enum):
    BONUS = "bonus"        # +2 to your own effort (the default)
    REROLL = "reroll"      # reroll all four dice
    OPPOSE = "oppose"      # +2 to the difficulty someone else faces


class Payment(str, Enum):
    AUTO = "auto"          # a free invoke (or boost) if the invoker holds one, else a fate point
    FREE = "free"          # must be a free invoke or a boost
    FATE_POINT = "fp"      # pay a fate point even when holding free invokes


@dataclass(frozen=True)
class Invoke:
    """``+invoke "Aspect" [reroll|oppose] [free|fp] [if needed] [xN]``."""

    aspect: str
    mode: InvokeMode = InvokeMode.BONUS
    payment: Payment = Payment.AUTO
    if_needed: bool = False
    times: int = 1         # only free invokes may be repeated on one roll


@dataclass(frozen=True)
class StuntUse:
    """``+stunt "Name"``: names a stunt whose circumstance the engine cannot see."""

    name: str


@dataclass(frozen=True)
class Opposition:
    """``vs Fair`` / ``vs +3`` (passive) or ``vs Ghoul [using Athletics]`` (active).

    Exactly one of ``rating`` and ``character`` is set.
    """

    rating: int | None = None
    character: str | None = None
    skill: str | None = None


@dataclass(frozen=True)
class Choice:
    """``on tie boost`` / ``on fail cost`` / ``on style boost``: how to take a branch of the
    outcome table that the rules leave to the player."""

    outcome: str           # "fail" | "tie" | "style"
    take: str              # "boost" | "cost"


@dataclass(frozen=True)
class Command:
    line: int
    source: str

    @property
    def name(self) -> str:
        return type(self).__name__.lower()


@dataclass(frozen=True)
class ActionCommand(Command):
    """Shared parts of the four actions. ``actor`` is set by ``/as NAME ...`` (GM) and
    otherwise filled in by the pipeline from the author's character."""

    skill: str = ""
    opposition: Opposition | None = None
    invokes: tuple[Invoke, ...] = ()
    stunts: tuple[StuntUse, ...] = ()
    modifier: int = 0      # a plain +N/-N the GM allows ("/overcome Athletics vs Fair +1")
    choices: tuple[Choice, ...] = ()
    actor: str | None = None


@dataclass(frozen=True)
class Overcome(ActionCommand):
    pass


@dataclass(frozen=True)
class Advantage(ActionCommand):
    """Create an advantage.

    ``aspect`` names a new aspect or an existing known one; ``target`` is the character it is
    placed on (None = the scene). ``discover`` is set for ``/advantage Notice discover on
    Ghoul``: look for an unknown aspect of the target.
    """

    aspect: str | None = None
    target: str | None = None
    discover: bool = False


@dataclass(frozen=True)
class Attack(ActionCommand):
    target: str = ""


@dataclass(frozen=True)
class Defend(ActionCommand):
    pass


@dataclass(frozen=True)
class Roll(Command):
    """``/roll 4dF+2``, ``/roll Fight``, ``/roll 3d6``, ``/roll 2d10+1``, ``/roll 4dF+Fight+1``."""

    count: int = 4
    sides: str = "F"       # "F" or a number as a string ("6", "10")
    skill: str | None = None
    modifier: int = 0
    actor: str | None = None


@dataclass(frozen=True)
class Sheet(Command):
    character: str | None = None


@dataclass(frozen=True)
class FatePoints(Command):
    """``/fp`` shows; ``/fp spend [reason]`` and, for the GM, ``/fp give NAME N`` /
    ``/fp take NAME N``."""

    op: str = "show"       # "show" | "spend" | "give" | "take"
    character: str | None = None
    amount: int = 1
    reason: str = ""


ACTION_COMMANDS = (Overcome, Advantage, Attack, Defend)
