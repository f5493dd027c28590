"""Outcome objects: they keep every die, modifier, invoke and change so a reply can
explain the roll and a test can assert on it."""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum


class Outcome(str, Enum):
    FAIL = "fail"
    TIE = "tie"
    SUCCESS = "success"
    STYLE = "style"          # success with style


@dataclass(frozen=True)
class DiceRoll:
    """One throw of the dice. For Fate dice the faces are -1/0/+1."""

    faces: tuple[int, ...]
    sides: str = "F"         # "F" or "6", "10", ...
    value: int | None = None  # what the throw counts for when it is not the sum (a pool's hits)

    @property
    def total(self) -> int:
        return sum(self.faces) if self.value is None else self.value


@dataclass(frozen=True)
class Modifier:
    """One term of an effort and where it came from."""

    source: str              # "skill" | "invoke" | "stunt" | "modifier" | "teamwork"
    label: str               # "Fight", "Distracted (free, held by Ruth)", ...
    value: int


@dataclass(frozen=True)
class InvokeUse:
    """An invoke that was spent (or skipped, for ``if needed``)."""

    aspect: str
    mode: str                # "bonus" | "reroll" | "oppose"
    paid_with: str           # "free" | "boost" | "fp" | "skipped"
    invoker: str
    holder: str | None = None  # whose free invoke was used
    hostile_owner: str | None = None  # set when the aspect is another character's
    if_needed: bool = False
    reroll: DiceRoll | None = None


@dataclass
class Effort:
    """Dice + skill + modifiers. ``rolls`` keeps every throw; the last is the one that counts."""

    roller: str
    skill: str | None
    rolls: list[DiceRoll] = field(default_factory=list)
    modifiers: list[Modifier] = field(default_factory=list)
    invokes: list[InvokeUse] = field(default_factory=list)
    # False where the rating sizes the dice instead of adding to them (a d10 pool): the
    # skill term is kept for the reply but not summed.
    rating_counts: bool = True

    @property
    def dice(self) -> DiceRoll:
        return self.rolls[-1]

    @property
    def total(self) -> int:
        return self.dice.total + sum(m.value for m in self.modifiers if self.rating_counts or m.source != "skill")


@dataclass
class OppositionResult:
    """A passive difficulty (``effort`` None) or an active defence roll."""

    value: int
    label: str = ""          # "Fair (+2)" / "Ghoul: Athletics"
    effort: Effort | None = None
    character: str | None = None


@dataclass(frozen=True)
class Effect:
    """Something the outcome did to the story or the sheets, in the game's words.

    ``kind`` is machine-readable ("boost", "aspect_created", "free_invoke", "hit",
    "cost_minor", "cost_major", "enemy_free_invoke", "revealed", ...); ``text`` is for
    people; ``data`` carries names and numbers.
    """

    kind: str
    text: str
    data: dict = field(default_factory=dict, hash=False, compare=False)


@dataclass(frozen=True)
class Change:
    """One change to a sheet or to the aspects in play: ``what`` of ``subject`` went from
    ``before`` to ``after`` (e.g. ("fate_points", "Ruth", 3, 2))."""

    what: str
    subject: str
    before: object
    after: object
    detail: str = ""


@dataclass
class ActionResult:
    command: str             # the command line as written
    actor: str
    action: str              # "overcome" | "advantage" | "attack" | "defend" | "roll"
    skill: str | None
    effort: Effort
    opposition: OppositionResult | None
    shifts: int | None
    outcome: Outcome | None
    effects: list[Effect] = field(default_factory=list)
    changes: list[Change] = field(default_factory=list)
    # The #N players see and type, taken from the campaign's one counter when the roll is
    # made (pbp.play.core.number_roll); None for a roll nothing numbers (``pbp roll``).
    roll_id: int | None = None
    # A re-run after the dice (an invoke after the roll) takes an id of its own for its
    # ledger row (roll_id) but is still the roll players know: the id of the roll it revises,
    # which its reply and results name (docs/commands.md, "Ids").
    revises: int | None = None

    @property
    def shown_id(self) -> int | None:
        """The roll's id as players see it: the revised roll's for a re-run."""
        return self.revises if self.revises is not None else self.roll_id

    def to_dict(self) -> dict:
        """The JSON shape of ``pbp process --json`` (see docs)."""
        return {
            "command": self.command,
            "actor": self.actor,
            "action": self.action,
            "skill": self.skill,
            "dice": list(self.effort.dice.faces),
            "rolls": [list(r.faces) for r in self.effort.rolls],
            "modifiers": [{"source": m.source, "label": m.label, "value": m.value} for m in self.effort.modifiers],
            "effort": self.effort.total,
            "opposition": None if self.opposition is None else {
                "value": self.opposition.value,
                "label": self.opposition.label,
                "character": self.opposition.character,
                "dice": list(self.opposition.effort.dice.faces) if self.opposition.effort else None,
            },
            "shifts": self.shifts,
            "outcome": None if self.outcome is None else self.outcome.value,
            "effects": [{"kind": e.kind, "text": e.text, **({"data": e.data} if e.data else {})} for e in self.effects],
            "changes": [{"what": c.what, "subject": c.subject, "before": c.before, "after": c.after} for c in self.changes],
            **({"roll_id": self.shown_id} if self.roll_id is not None else {}),
            **({"ledger_id": self.roll_id} if self.revises is not None else {}),
        }
