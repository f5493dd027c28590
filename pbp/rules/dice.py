"""Where the faces come from. The rules engine never calls ``random`` itself: it is handed a
``DiceSource`` so the daemon can use the operating system's randomness and tests and demos
can fix the faces (``pbp process --dice "0++-,+0-0"``).
"""
from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import Iterable, Protocol, runtime_checkable

from pbp import verify_dice
from pbp.errors import DiceExhausted

FATE_FACES = (-1, 0, 1)
_FACE_CHAR = {-1: "-", 0: "0", 1: "+"}
_CHAR_FACE = {"-": -1, "0": 0, "+": 1}

_FATE_GROUP = re.compile(r"^(?:\s*(?:\[\s*[-+0]\s*\]|[-+0]))+\s*$")
_NUMBER_GROUP = re.compile(r"^\s*\d+(?:\s+\d+)*\s*$")


@runtime_checkable
class DiceSource(Protocol):
    """A source of dice faces. ``fate`` gives -1/0/+1 faces, ``die`` numbered faces 1..sides."""

    def fate(self, n: int = 4) -> tuple[int, ...]: ...

    def die(self, sides: int, n: int) -> tuple[int, ...]: ...


def _check_counts(n: int, sides: int | None = None) -> None:
    if n < 1:
        raise ValueError(f"cannot throw {n} dice")
    if sides is not None and sides < 2:
        raise ValueError(f"a die needs at least 2 sides, not {sides}")


class RandomDice:
    """Real dice. The default generator is ``random.SystemRandom`` (the OS source), because
    players who never meet must be able to trust the faces; pass a seeded ``random.Random``
    for reproducible simulations."""

    __slots__ = ("_rng",)

    def __init__(self, rng: random.Random | None = None) -> None:
        self._rng = rng if rng is not None else random.SystemRandom()

    def fate(self, n: int = 4) -> tuple[int, ...]:
        _check_counts(n)
        randint = self._rng.randint
        return tuple(randint(-1, 1) for _ in range(n))

    def die(self, sides: int, n: int) -> tuple[int, ...]:
        _check_counts(n, sides)
        randint = self._rng.randint
        return tuple(randint(1, sides) for _ in range(n))


@dataclass(frozen=True)
class Throw:
    """One group of a fixed-dice spec: the faces of one throw, Fate ("F") or numbered ("N")."""

    kind: str
    faces: tuple[int, ...]
    text: str


class DiceMismatch(DiceExhausted):
    """The next fixed throw does not fit the roll asked for (wrong kind or number of dice)."""


def parse_group(text: str, position: int = 1) -> Throw:
    """Read one group: Fate faces ``0++-`` / ``[+] [-] [0]`` or numbered faces ``8 9 10 1``."""
    if _FATE_GROUP.match(text):
        faces = tuple(_CHAR_FACE[c] for c in text if c in _CHAR_FACE)
        return Throw("F", faces, text.strip())
    if _NUMBER_GROUP.match(text):
        faces = tuple(int(part) for part in text.split())
        if 0 in faces:
            raise ValueError(f"dice group {position} {text.strip()!r}: numbered dice show 1 or more")
        return Throw("N", faces, text.strip())
    raise ValueError(
        f"dice group {position} {text.strip()!r} is neither Fate faces (like 0++- or [+] [-] [0]) "
        f"nor numbers (like 8 9 10 1)"
    )


def parse_spec(spec: str) -> list[Throw]:
    """Split a ``--dice`` spec into throws; an empty spec supplies no throws at all."""
    if not spec.strip():
        return []
    return [parse_group(group, i) for i, group in enumerate(spec.split(","), start=1)]


def fate_group(faces: Iterable[int]) -> str:
    """Write Fate faces as a spec group: (0, 1, 1, -1) -> "0++-"."""
    return "".join(_FACE_CHAR[f] for f in faces)


def number_group(faces: Iterable[int]) -> str:
    """Write numbered faces as a spec group: (8, 9, 10, 1) -> "8 9 10 1"."""
    return " ".join(str(f) for f in faces)


class FixedDice:
    """Dice whose faces were decided in advance, one group per throw, in order.

    A throw must match its group exactly (kind and count), so a test or demo that asks for
    the wrong dice fails loudly instead of drifting out of step with its spec.
    """

    __slots__ = ("_throws", "_next", "announce")

    def __init__(self, spec: str, *, announce: str = "") -> None:
        """``announce``: where the operator fixed them (``--dice``, ``PBP_DICE``); the table's
        replies then say the dice were fixed (:class:`pbp.store.seeds.FixedNotice`)."""
        self._throws = parse_spec(spec)
        self._next = 0
        self.announce = announce

    @property
    def remaining(self) -> int:
        """How many throws are left."""
        return len(self._throws) - self._next

    def _take(self, kind: str, n: int, wanted: str) -> Throw:
        if self._next >= len(self._throws):
            raise DiceExhausted(
                f"the fixed dice ran out: {wanted} was asked for after all "
                f"{len(self._throws)} given throws were used",
                hint="add another group to --dice / PBP_DICE",
            )
        throw = self._throws[self._next]
        if throw.kind != kind or len(throw.faces) != n:
            raise DiceMismatch(
                f"fixed dice group {self._next + 1} {throw.text!r} does not fit {wanted}",
                hint="give a group with exactly that many faces of that kind",
            )
        self._next += 1
        return throw

    def fate(self, n: int = 4) -> tuple[int, ...]:
        _check_counts(n)
        return self._take("F", n, f"{n} Fate dice").faces

    def die(self, sides: int, n: int) -> tuple[int, ...]:
        _check_counts(n, sides)
        throw = self._take("N", n, f"{n}d{sides}")
        if any(face > sides for face in throw.faces):
            self._next -= 1
            raise DiceMismatch(f"fixed dice group {self._next + 1} {throw.text!r} has a face above {sides}")
        return throw.faces


class CommittedDice:
    """Dice derived from a scene's committed seed and the post that asked for them
    (:mod:`pbp.verify_dice`, scheme ``pbp-dice/1``): throw ``i`` of the post is fixed by
    the seed, the post's id and its text, so nobody can choose or redo it, and anyone can
    recompute it once the seed is revealed. ``throws`` keeps each throw, as
    ``[roll id or None, kind, faces]``, for the reply's footer and the ledger. Under
    ``pbp-dice/2`` a secret roll throws with a key of its own (:meth:`secretly`); ``keys``
    says which throw used which (throw index -> key number)."""

    __slots__ = ("_key", "post_id", "digest", "throws", "keys", "_secret")

    def __init__(self, key, post_id: str, text: str) -> None:
        """``key``: the derivation key, or a function that gives it at the first throw (a
        beacon's round is read only when the dice are needed: :mod:`pbp.store.seeds`)."""
        self._key, self.post_id, self.digest = key, post_id, verify_dice.text_digest(text)
        self.throws: list[list] = []
        self.keys: dict[int, int] = {}
        self._secret: tuple[int, object] | None = None

    def secretly(self, number: int | None, key) -> None:
        """Throw with secret key ``number`` (``key``: its bytes, or a function giving them)
        until called again with None."""
        self._secret = None if number is None else (number, key)

    def _current(self) -> bytes:
        if self._secret is None:
            return self.key
        number, key = self._secret
        if callable(key):
            key = key()
            self._secret = (number, key)
        self.keys[len(self.throws)] = number
        return key

    @property
    def key(self) -> bytes:
        if callable(self._key):
            self._key = self._key()
        return self._key

    def fate(self, n: int = 4) -> tuple[int, ...]:
        _check_counts(n)
        faces = verify_dice.fate_faces(self._current(), self.post_id, self.digest, len(self.throws), n)
        self.throws.append([None, f"{n}dF", faces])
        return faces

    def die(self, sides: int, n: int) -> tuple[int, ...]:
        _check_counts(n, sides)
        faces = verify_dice.die_faces(self._current(), self.post_id, self.digest, len(self.throws), sides, n)
        self.throws.append([None, f"{n}d{sides}", faces])
        return faces

    def claim(self, roll_id: int) -> None:
        """The throws made since the last claim belong to roll ``roll_id``."""
        for throw in self.throws:
            if throw[0] is None:
                throw[0] = roll_id
