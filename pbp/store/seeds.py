"""Committed dice, scene by scene (issue 25; the scheme is :mod:`pbp.verify_dice`).

``/scene start`` draws a secret seed (:mod:`secrets`), keeps it in the scene's own row
(:class:`pbp.store.models.SceneSeed`, never in the play state, a mail or a reply) and
publishes its commitment; every die thrown in the scene is derived from the seed and the
post that asked for it (:class:`pbp.rules.dice.CommittedDice`); ``/scene end`` publishes
the seed. Commitments and reveals go into the hash-chained ledger in order
(:func:`pbp.store.repo.record_event`).

:class:`SceneDice` is what one post (or deadline round) holds: the play layer calls
:meth:`SceneDice.start` and :meth:`SceneDice.reveal` from ``/scene start`` and ``/scene
end`` and knows nothing of the store. Fixed dice (``--dice``, ``PBP_DICE``) override all of
this: the pipeline then makes no ``SceneDice``, and for the operator's fixed dice a
:class:`FixedNotice`, so the replies say the dice were fixed.
"""
from __future__ import annotations

import secrets
from datetime import datetime
from typing import Protocol

from pbp import verify_dice
from pbp.rules.dice import CommittedDice
from pbp.store import models as m

VERSION = verify_dice.VERSION


class Beacon(Protocol):
    """A public randomness source mixed into a scene's seed after its commitment (docs/verify.md,
    "A beacon"): the commitment names a round still in the future; its value, once public,
    is mixed into the seed (:func:`pbp.verify_dice.mix_beacon`)."""

    name: str

    def round_after(self, when: datetime) -> int: ...

    def randomness(self, round_: int) -> bytes | None: ...


class SceneDice:
    """The committed dice of one post: the open scene's seed (if the scene has one) made
    into the post's dice source, and what the post's reply and the ledger must say."""

    def __init__(self, campaign: m.Campaign, post_id: str, text: str, fallback, *, beacon: Beacon | None = None):
        self.campaign, self.post_id, self.text, self.fallback, self.beacon = campaign, post_id, text, fallback, beacon
        self.scene: str | None = None      # the label of the seed in use: "3", or "3.2" after a /reveal
        self.dice: CommittedDice | None = None
        self.events: list[tuple[str, dict]] = []      # ("commit" | "reveal", what the ledger records)
        self.lines: list[str] = []                    # footer lines of the reply: commitments, reveals
        self.used: list[tuple[str, CommittedDice]] = []   # each scene's dice this post threw, in order
        self.commitments: dict[str, str] = {}
        self.rows: dict[str, m.SceneSeed] = {}

    # -- the play layer's calls
    def attach(self, post) -> None:
        """Give the post the open scene's committed dice, if it has a seed not yet revealed."""
        scene = post.play.scene
        row = _row(self.campaign, scene.number) if scene is not None else None
        if row is not None and row.revealed_at is None:
            self._use(post, row)

    def start(self, post, number: int) -> str:
        """A new scene's seed: drawn, kept, committed to; returns the sentence for the table."""
        seed = secrets.token_bytes(32)
        last = _row(self.campaign, number)
        segment = last.segment + 1 if last is not None else 1
        label = _label(number, segment)
        commit = verify_dice.commitment(seed, self.campaign.slug, label)
        beacon = None
        if self.beacon is not None:
            beacon = {"name": self.beacon.name, "round": self.beacon.round_after(post.now), "randomness": None}
        row = m.SceneSeed.create(campaign=self.campaign, scene=number, segment=segment, seed=seed.hex(),
                                 commitment=commit, beacon=beacon, created_at=post.now)
        self._use(post, row)
        name = f"{self.campaign.slug}/{label}"
        mixed = f" beacon={beacon['name']}:{beacon['round']}" if beacon else ""
        self.lines.append(f"{VERSION} commit scene={name} c={commit}{mixed}")
        self.events.append(("commit", {"scene": label, "commitment": commit, **({"beacon": beacon} if beacon else {})}))
        also = f", mixed with {beacon['name']} round {beacon['round']}" if beacon else ""
        return (f"Dice: committed to {commit[:16]} ({VERSION}{also}); every roll of this scene follows from it "
                "and the post that asks, and the seed is shown when the scene ends (docs/verify.md).")

    def reveal(self, post, number: int) -> str | None:
        """The scene's seed made public (its end); returns the sentence for the table."""
        row = _row(self.campaign, number)
        if row is None or row.revealed_at is not None:
            return None
        row.revealed_at = post.now
        row.save()
        label = _label(row.scene, row.segment)
        name = f"{self.campaign.slug}/{label}"
        beacon = row.beacon or {}
        mixed = (f" beacon={beacon['name']}:{beacon['round']}:{beacon.get('randomness') or 'none'}"
                 if beacon else "")
        for kept in row.secrets or []:
            items = " ".join(f"t{i}=#{kept['roll']}:{verify_dice.throw_text(kind, faces)}"
                             for i, kind, faces in kept["throws"])
            self.lines.append(f"{VERSION} reveal-roll scene={name} post={kept['post']} text={kept['text']} {items}")
        self.lines.append(f"{VERSION} reveal scene={name} seed={row.seed}{mixed}")
        self.events.append(("reveal", {"scene": label, "commitment": row.commitment, "seed": row.seed,
                                       "secrets": [k["roll"] for k in row.secrets or []]}))
        post.dice, self.dice, self.scene = self.fallback, None, None
        told = "".join(f"\n  Secret {kept['told']}." for kept in row.secrets or [])
        return (f"Dice: the seed of scene {label} is {row.seed}; check its rolls with pbp verify --mails "
                f"(docs/verify.md).{told}")

    # -- what the pipeline reads
    def _use(self, post, row: m.SceneSeed) -> None:
        self.scene = label = _label(row.scene, row.segment)
        self.dice = CommittedDice(lambda: self._key(row), self.post_id, self.text)
        self.used.append((label, self.dice))
        self.commitments[label] = row.commitment
        self.rows[label] = row
        post.dice = self.dice

    def _key(self, row: m.SceneSeed) -> bytes:
        """The scene's derivation key, at its first throw in this post: the seed, mixed with
        the beacon round its commitment named. A round that cannot be read when the scene's
        first die is thrown is given up for the whole scene (``randomness`` ""), so every
        throw of a scene uses one key; the reveal says so."""
        seed = bytes.fromhex(row.seed)
        beacon = row.beacon or None
        if not beacon:
            return seed
        if beacon.get("randomness") is None:
            value = self.beacon.randomness(beacon["round"]) if self.beacon is not None else None
            row.beacon = {**beacon, "randomness": value.hex() if value is not None else ""}
            row.save()
            beacon = row.beacon
        if not beacon["randomness"]:
            return seed
        return verify_dice.mix_beacon(seed, beacon["round"], bytes.fromhex(beacon["randomness"]))

    def footer(self, shown_rolls: set[int] | None = None, secret_rolls: set[int] = frozenset()) -> list[str]:
        """The reply's machine-readable lines: commitments, the post's throws with their
        roll numbers (only the rolls in ``shown_rolls``, those the table's mail shows), the
        secret rolls' throws without their faces, then reveals."""
        lines = [line for line in self.lines if line.startswith(f"{VERSION} commit ")]
        for scene, dice in self.used:
            head = f"scene={self.campaign.slug}/{scene} post={self.post_id} text={dice.digest}"
            items = [f"t{i}=#{roll}:{verify_dice.throw_text(kind, faces)}"
                     for i, (roll, kind, faces) in enumerate(dice.throws)
                     if roll not in secret_rolls and (shown_rolls is None or roll in shown_rolls)]
            hidden = [f"t{i}=#{roll}:{kind}:?" for i, (roll, kind, faces) in enumerate(dice.throws)
                      if roll in secret_rolls]
            if items:
                lines.append(f"{VERSION} {head} " + " ".join(items))
            if hidden:
                lines.append(f"{VERSION} secret {head} " + " ".join(hidden))
        return lines + [line for line in self.lines if line.startswith(f"{VERSION} reveal")]

    def keep_secret(self, result, what: str) -> None:
        """Keep a secret roll, whole, in its scene's row for the reveal (never in a mail before)."""
        proof = self.proof(result.roll_id)
        if proof is None:
            return
        row = self.rows[proof["scene"]]
        d = result.to_dict()
        opposition = d.get("opposition") or {}
        told = (f"roll #{result.roll_id}, {result.actor} ({what}): dice "
                + " ".join(verify_dice.throw_text(kind, faces).partition(":")[2] for _, kind, faces in proof["throws"])
                + f", total {d.get('effort'):+d}"
                + (f" vs {opposition.get('label') or opposition.get('value')}" if opposition else "")
                + (f": {str(d['outcome']).replace('_', ' ')}" if d.get("outcome") else ""))
        row.secrets = [*(row.secrets or []), {"roll": result.roll_id, "told": told, "post": proof["post"],
                                              "text": proof["text"], "throws": proof["throws"]}]
        row.save()

    def proof(self, roll_id: int) -> dict | None:
        """What the ledger keeps of a roll's committed dice (under the hash chain)."""
        for scene, dice in self.used:
            throws = [[i, kind, list(faces)] for i, (roll, kind, faces) in enumerate(dice.throws) if roll == roll_id]
            if throws:
                return {"v": VERSION, "scene": scene, "commitment": self.commitments[scene], "post": self.post_id,
                        "text": dice.digest, "throws": throws}
        return None


class FixedNotice:
    """What replies say when the operator fixed the dice (``--dice``, ``PBP_DICE``): no seed,
    nothing to check, and every reply with rolls says so (the same calls as
    :class:`SceneDice`)."""

    scene = None

    def __init__(self, where: str) -> None:
        self.where, self.events = where, []

    def attach(self, post) -> None:
        pass

    def start(self, post, number: int) -> str:
        return (f"Dice: fixed by the operator ({self.where}); this scene's dice are not committed and cannot be "
                "checked (docs/verify.md).")

    def reveal(self, post, number: int) -> None:
        return None

    def keep_secret(self, result, what: str) -> None:
        pass

    def proof(self, roll_id: int) -> None:
        return None

    def footer(self, shown_rolls=None, secret_rolls=frozenset()) -> list[str]:
        rolls = sorted((shown_rolls or set()) | set(secret_rolls))
        return [f"{VERSION} fixed by={self.where} rolls=" + ",".join(f"#{r}" for r in rolls)] if rolls else []


def _row(campaign: m.Campaign, number: int) -> m.SceneSeed | None:
    """The scene's latest seed (its last segment)."""
    return (m.SceneSeed.select().where((m.SceneSeed.campaign == campaign) & (m.SceneSeed.scene == number))
            .order_by(m.SceneSeed.segment.desc()).first())


def _label(scene: int, segment: int) -> str:
    """How lines and commitments name a seed: "3", or "3.2" for scene 3's second seed."""
    return str(scene) if segment == 1 else f"{scene}.{segment}"
