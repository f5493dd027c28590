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

import contextlib
import secrets
from datetime import datetime
from typing import Protocol

from pbp import verify_dice
from pbp.rules.dice import CommittedDice
from pbp.store import models as m
from pbp.store.prepared import Select

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
        self.taken: dict[str, int] = {}               # pbp-dice/2: the next secret key of each seed

    # -- the play layer's calls
    def attach(self, post) -> None:
        """Give the post the open scene's committed dice, if it has a seed not yet revealed."""
        scene = post.play.scene
        row = _row(self.campaign, scene.number) if scene is not None else None
        if row is not None and row.revealed_at is None:
            self._use(post, row)

    def start(self, post, number: int) -> str:
        """A new scene's seed (and, ``pbp-dice/2``, its secret keys' seed): drawn, kept,
        committed to; returns the sentence for the table."""
        seed, keyseed = secrets.token_bytes(32), secrets.token_bytes(32)
        last = _row(self.campaign, number)
        segment = last.segment + 1 if last is not None else 1
        label = _label(number, segment)
        root = verify_dice.keys_root(keyseed, self.campaign.slug, label)
        commit = verify_dice.commitment(seed, self.campaign.slug, label, root)
        beacon = None
        if self.beacon is not None:
            beacon = {"name": self.beacon.name, "round": self.beacon.round_after(post.now), "randomness": None}
        row = m.SceneSeed.create(campaign=self.campaign, scene=number, segment=segment, seed=seed.hex(),
                                 keyseed=keyseed.hex(), commitment=commit, beacon=beacon, created_at=post.now)
        self._use(post, row)
        name = f"{self.campaign.slug}/{label}"
        mixed = f" beacon={beacon['name']}:{beacon['round']}" if beacon else ""
        self.lines.append(f"{VERSION} commit scene={name} c={commit}{mixed}")
        self.events.append(("commit", {"scene": label, "commitment": commit, **({"beacon": beacon} if beacon else {})}))
        also = f", mixed with {beacon['name']} round {beacon['round']}" if beacon else ""
        return (f"Dice: committed to {commit[:16]} ({VERSION}{also}); every roll of this scene follows from it "
                "and the post that asks, and the seed is shown when the scene ends (docs/verify.md).")

    def reveal(self, post, number: int) -> str | None:
        """The scene's seed made public (its end), with its secret rolls but those the GM
        holds; returns the sentence for the table."""
        row = _row(self.campaign, number)
        if row is None or row.revealed_at is not None:
            return None
        row.revealed_at = post.now
        label = _label(row.scene, row.segment)
        name = f"{self.campaign.slug}/{label}"
        version = _version(row)
        beacon = row.beacon or {}
        mixed = (f" beacon={beacon['name']}:{beacon['round']}:{beacon.get('randomness') or 'none'}"
                 if beacon else "")
        told, held = [], []
        for kept in row.secrets or []:
            if kept.get("shown"):
                continue            # revealed already (/reveal #N)
            if kept.get("held"):
                held.append(kept["roll"])
                self.lines.append(f"{version} held scene={name} roll=#{kept['roll']} key={kept['key']}")
                told.append(f"Roll #{kept['roll']} stays secret: the GM holds it past the scene "
                            f"(/reveal #{kept['roll']} shows it).")
                continue
            self.lines.append(_reveal_roll_line(row, name, kept))
            told.append(f"Secret {kept['told']}.")
        keys = f" keys={verify_dice.keys_root(bytes.fromhex(row.keyseed), self.campaign.slug, label)}" \
            if row.keyseed else ""
        self.lines.append(f"{version} reveal scene={name} seed={row.seed}{keys}{mixed}")
        row.secrets = [{**k, "shown": True} if not k.get("held") else k for k in row.secrets or []]
        row.save()
        self.events.append(("reveal", {"scene": label, "commitment": row.commitment, "seed": row.seed,
                                       "secrets": [k["roll"] for k in row.secrets or [] if not k.get("held")],
                                       **({"held": held} if held else {})}))
        post.dice, self.dice, self.scene = self.fallback, None, None
        return (f"Dice: the seed of scene {label} is {row.seed}; check its rolls with pbp verify --mails "
                "(docs/verify.md)." + "".join(f"\n  {t}" for t in told))

    def hold(self, roll_id: int) -> str:
        """Keep secret roll ``roll_id`` of the open scene secret past its end (``/hold #N``);
        LookupError says why it cannot be."""
        row, kept = _secret_roll(self.campaign, roll_id)
        if row.revealed_at is not None or kept.get("shown"):
            raise LookupError(f"roll #{roll_id} has been revealed already")
        if not row.keyseed:
            raise LookupError(f"roll #{roll_id} was rolled under {verify_dice.VERSIONS[0]}, whose seed reveals every "
                              "die of its scene: it is revealed when the scene ends")
        row.secrets = [{**k, "held": True} if k["roll"] == roll_id else k for k in row.secrets]
        row.save()
        return (f"Roll #{roll_id} stays secret past the scene's end: its dice have a key of their own, which "
                f"/reveal #{roll_id} shows when you choose.")

    def reveal_roll(self, post, roll_id: int) -> str:
        """A secret roll revealed on its own (``/reveal #N``): its dice, its result and its
        key with the key's path to the scene's commitment; LookupError says why not."""
        row, kept = _secret_roll(self.campaign, roll_id)
        if kept.get("shown") or (row.revealed_at is not None and not kept.get("held")):
            raise LookupError(f"roll #{roll_id} has been revealed already")
        if not row.keyseed:
            raise LookupError(f"roll #{roll_id} was rolled under {verify_dice.VERSIONS[0]}: it is revealed with its "
                              "scene's seed (/reveal, /scene end)")
        label = _label(row.scene, row.segment)
        self.lines.append(_reveal_roll_line(row, f"{self.campaign.slug}/{label}", kept))
        row.secrets = [{**k, "shown": True, "held": False} if k["roll"] == roll_id else k for k in row.secrets]
        row.save()
        key = verify_dice.secret_key(bytes.fromhex(row.keyseed), kept["key"])
        self.events.append(("reveal", {"scene": label, "commitment": row.commitment, "roll": roll_id,
                                       "key": kept["key"], "secret_key": key.hex()}))
        return f"Secret {kept['told']}. Its key is shown below, so anyone can check it (docs/verify.md)."

    def latest_secret(self) -> int | None:
        """The latest secret roll not revealed yet (for an error's example)."""
        return max(hidden_rolls(self.campaign), default=None)

    def secretly(self):
        """The secret roll about to be thrown takes the next secret key of the scene's seed
        (``pbp-dice/2``): a context for its throws; None when the seed's keys are used up. A
        ``pbp-dice/1`` scene's secret rolls throw with the seed, as before."""
        row = self.rows.get(self.scene) if self.scene is not None else None
        if row is None or not row.keyseed or self.dice is None:
            return contextlib.nullcontext()
        j = self.taken.setdefault(self.scene, len(row.secrets or []))
        if j >= verify_dice.KEYS:
            return None
        self.taken[self.scene] = j + 1
        return self._secretly(row, j)

    @contextlib.contextmanager
    def _secretly(self, row: m.SceneSeed, j: int):
        dice = self.dice
        dice.secretly(j, lambda: self._mixed(row, verify_dice.secret_key(bytes.fromhex(row.keyseed), j)))
        try:
            yield
        finally:
            dice.secretly(None, None)

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
        return self._mixed(row, bytes.fromhex(row.seed))

    def _mixed(self, row: m.SceneSeed, key: bytes) -> bytes:
        """``key`` (the seed, or a secret roll's key) mixed with the scene's beacon round."""
        beacon = row.beacon or None
        if not beacon:
            return key
        if beacon.get("randomness") is None:
            value = self.beacon.randomness(beacon["round"]) if self.beacon is not None else None
            row.beacon = {**beacon, "randomness": value.hex() if value is not None else ""}
            row.save()
            beacon = row.beacon
        if not beacon["randomness"]:
            return key
        return verify_dice.mix_beacon(key, beacon["round"], bytes.fromhex(beacon["randomness"]))

    def footer(self, shown_rolls: set[int] | None = None, secret_rolls: set[int] = frozenset()) -> list[str]:
        """The reply's machine-readable lines: commitments, the post's throws with their
        roll numbers (only the rolls in ``shown_rolls``, those the table's mail shows), the
        secret rolls' throws without their faces (under ``pbp-dice/2`` a line per roll, with
        the number of its key), then reveals."""
        lines = [line for line in self.lines if line.split(" ")[1] == "commit"]
        for scene, dice in self.used:
            version = _version(self.rows[scene])
            head = f"scene={self.campaign.slug}/{scene} post={self.post_id} text={dice.digest}"
            items = [f"t{i}=#{roll}:{verify_dice.throw_text(kind, faces)}"
                     for i, (roll, kind, faces) in enumerate(dice.throws)
                     if roll not in secret_rolls and (shown_rolls is None or roll in shown_rolls)]
            if items:
                lines.append(f"{version} {head} " + " ".join(items))
            hidden: dict[tuple, list[str]] = {}
            for i, (roll, kind, faces) in enumerate(dice.throws):
                if roll in secret_rolls:
                    hidden.setdefault((roll, dice.keys.get(i)), []).append(f"t{i}=#{roll}:{kind}:?")
            by_key = [(f" key={key}" if key is not None else "", items) for (roll, key), items in hidden.items()]
            if by_key and by_key[0][0]:
                lines += [f"{version} secret {head}{key} " + " ".join(items) for key, items in by_key]
            elif by_key:
                lines.append(f"{version} secret {head} " + " ".join(i for _, items in by_key for i in items))
        return lines + [line for line in self.lines if line.split(" ")[1] != "commit"]

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
                                              "text": proof["text"], "throws": proof["throws"],
                                              **({"key": proof["key"]} if "key" in proof else {})}]
        row.save()

    def proof(self, roll_id: int) -> dict | None:
        """What the ledger keeps of a roll's committed dice (under the hash chain)."""
        for scene, dice in self.used:
            throws = [[i, kind, list(faces)] for i, (roll, kind, faces) in enumerate(dice.throws) if roll == roll_id]
            if throws:
                keys = {dice.keys[i] for i, _, _ in throws if i in dice.keys}
                return {"v": _version(self.rows[scene]), "scene": scene, "commitment": self.commitments[scene],
                        "post": self.post_id, "text": dice.digest, "throws": throws,
                        **({"key": keys.pop()} if keys else {})}
        return None


def _reveal_roll_line(row: m.SceneSeed, name: str, kept: dict) -> str:
    """A secret roll's throws with their faces; under ``pbp-dice/2`` with its key and the
    key's path to the root the scene's commitment binds (``key=J:KEY:PATH``)."""
    items = " ".join(f"t{i}=#{kept['roll']}:{verify_dice.throw_text(kind, faces)}" for i, kind, faces in kept["throws"])
    key = ""
    if row.keyseed and "key" in kept:
        keyseed, label = bytes.fromhex(row.keyseed), _label(row.scene, row.segment)
        own = verify_dice.secret_key(keyseed, kept["key"]).hex()
        path = ".".join(verify_dice.key_path(keyseed, row.campaign.slug, label, kept["key"]))
        key = f" key={kept['key']}:{own}:{path}"
    return f"{_version(row)} reveal-roll scene={name} post={kept['post']} text={kept['text']}{key} {items}"


def _secret_roll(campaign: m.Campaign, roll_id: int) -> tuple[m.SceneSeed, dict]:
    """The scene seed that keeps secret roll ``roll_id``, and the roll as kept there."""
    rows = m.SceneSeed.select().where(m.SceneSeed.campaign == campaign).order_by(m.SceneSeed.id.desc())
    for row in rows:
        for kept in row.secrets or []:
            if kept["roll"] == roll_id:
                return row, kept
    raise LookupError(f"roll #{roll_id} is not a secret roll of this campaign's committed dice")


def hidden_rolls(campaign: m.Campaign) -> set[int]:
    """The campaign's secret rolls not revealed yet: their scene is open, or the GM holds
    them past it (the players' archive leaves them out)."""
    out = set()
    for row in m.SceneSeed.select().where(m.SceneSeed.campaign == campaign):
        for kept in row.secrets or []:
            if not kept.get("shown") and (row.revealed_at is None or kept.get("held")):
                out.add(kept["roll"])
    return out


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

    def secretly(self):
        return contextlib.nullcontext()

    def latest_secret(self) -> None:
        return None

    def hold(self, roll_id: int) -> str:
        raise LookupError(f"this table's dice are fixed ({self.where}): nothing is committed, nothing to hold")

    def reveal_roll(self, post, roll_id: int) -> str:
        raise LookupError(f"this table's dice are fixed ({self.where}): nothing is committed, nothing to reveal")

    def proof(self, roll_id: int) -> None:
        return None

    def footer(self, shown_rolls=None, secret_rolls=frozenset()) -> list[str]:
        rolls = sorted((shown_rolls or set()) | set(secret_rolls))
        return [f"{VERSION} fixed by={self.where} rolls=" + ",".join(f"#{r}" for r in rolls)] if rolls else []


#: a scene's latest seed: the one query of a post with committed dice, its SQL made once (issue 23)
_LATEST = Select(lambda campaign_id, number: m.SceneSeed.select().where(
    (m.SceneSeed.campaign == campaign_id) & (m.SceneSeed.scene == number)).order_by(m.SceneSeed.segment.desc()).limit(1))


def _row(campaign: m.Campaign, number: int) -> m.SceneSeed | None:
    """The scene's latest seed (its last segment), as a row that can be saved."""
    found = _LATEST(campaign.id, number)
    return m.SceneSeed(**found[0]) if found else None


def _version(row: m.SceneSeed) -> str:
    """The scheme a seed was committed under: ``pbp-dice/2`` when it has secret keys."""
    return VERSION if row.keyseed else verify_dice.VERSIONS[0]


def _label(scene: int, segment: int) -> str:
    """How lines and commitments name a seed: "3", or "3.2" for scene 3's second seed."""
    return str(scene) if segment == 1 else f"{scene}.{segment}"
