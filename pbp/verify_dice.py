#!/usr/bin/env python3
"""Check a table's committed dice from its saved mails: ``python verify_dice.py DIR``.

This file is the scheme's definition (docs/verify.md explains it) and its checker at once.
It uses the Python standard library only and imports nothing of pbp, so a player can copy
it out of the package, read it whole and run it on the mails pbp sent them (``.eml`` files,
any folder depth). Scheme ``pbp-dice/1``:

* At ``/scene start`` pbp draws a secret 32-byte **seed** and publishes its **commitment**
  ``SHA-256("pbp-dice/1 commit" 0x00 CAMPAIGN 0x00 SCENE 0x00 SEED)`` (CAMPAIGN the
  campaign's slug, SCENE the scene's number in decimal, UTF-8; after a ``/reveal`` in the
  middle of scene 3 its next seed is SCENE "3.2", then "3.3"...).
* The post that asks for dice is named by its id (the Message-ID without ``<>``, or the
  forum's post id) and the SHA-256 of its text as read (:func:`text_digest`). Its throws are
  numbered 0, 1, 2... in the order the rules engine throws them (a re-roll is a new throw).
* Throw ``I`` of post ``P`` with text digest ``T`` reads the byte stream
  ``HMAC-SHA-256(KEY, "pbp-dice/1 throw" 0x00 P 0x00 T 0x00 I 0x00 COUNTER)`` for COUNTER =
  0, 1, 2... (4 bytes, big-endian), concatenated. KEY is the seed, or, when a beacon was
  mixed in (:func:`mix_beacon`), ``HMAC-SHA-256(SEED, "pbp-dice/1 beacon" 0x00 ROUND 0x00
  RANDOMNESS)``.
* A die of S sides (Fate dice: S = 3) takes one byte B at a time (4 bytes, big-endian, when
  S > 256) and keeps it only when ``B < LIMIT``, ``LIMIT`` the largest multiple of S the
  unit holds (255 for Fate dice, 250 for d10): no modulo bias. The face is ``B mod S``: 0, 1,
  2 are the Fate faces -, 0, + and a numbered die shows ``B mod S + 1``.
* At ``/scene end`` pbp publishes the seed; anyone can then check the commitment and
  recompute every throw.

Every reply that carries committed dice ends in lines starting ``pbp-dice/1``:
``commit scene=SLUG/N c=HEX [beacon=drand:ROUND]`` (the scene's first reply), ``scene=SLUG/N
post=ID text=HEX t0=#12:4dF:+0-+ t1=#13:3d10:8.9.10`` (a post's throws, each with its roll
number), ``secret scene=SLUG/N post=ID text=HEX t0=#14:4dF:?`` (dice kept from the table),
``fixed by=PBP_DICE rolls=#3,#4`` (dice the operator fixed: nothing to check),
``reveal-roll scene=SLUG/N post=ID text=HEX t0=#14:4dF:+-0+`` (a secret roll's dice, at the
scene's end), ``reveal scene=SLUG/N seed=HEX [beacon=drand:ROUND:HEX]`` (the scene's end).
"""
from __future__ import annotations

import email
import email.policy
import email.utils
import hashlib
import hmac
import html as html_
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

VERSION = "pbp-dice/1"
#: the mark at the start of pbp's own lines in a reply that relays a post (pbp.render.MARK)
RELAY_MARK = "\u2503"
FATE_CHARS = "-0+"


# --------------------------------------------------------------------------- the derivation


def commitment(seed: bytes, campaign: str, scene: int | str) -> str:
    """The published hash of a scene's seed (hex). ``scene`` is its number, or after a
    ``/reveal`` in the middle of it "NUMBER.SEGMENT" ("3.2": scene 3's second seed)."""
    body = b"\x00".join([f"{VERSION} commit".encode(), campaign.encode("utf-8"), str(scene).encode(), seed])
    return hashlib.sha256(body).hexdigest()


def normal_text(text: str) -> str:
    """A post's text as its digest covers it: line ends as LF, no spaces at line ends, no
    blank lines around it."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return "\n".join(line.rstrip() for line in lines).strip("\n")


def text_digest(text: str) -> str:
    """SHA-256 (hex) of the post's normalised text, UTF-8."""
    return hashlib.sha256(normal_text(text).encode("utf-8")).hexdigest()


def mix_beacon(seed: bytes, round_: int, randomness: bytes) -> bytes:
    """The key of a scene whose seed was mixed with a public beacon's round after the
    commitment (a drand round's randomness): neither pbp nor the beacon alone chose it."""
    return hmac.new(seed, b"\x00".join([f"{VERSION} beacon".encode(), str(round_).encode(), randomness]),
                    hashlib.sha256).digest()


def _stream(key: bytes, post_id: str, digest: str, index: int):
    prefix = b"\x00".join([f"{VERSION} throw".encode(), post_id.encode("utf-8"), digest.encode(),
                           str(index).encode(), b""])
    counter = 0
    while True:
        yield hmac.new(key, prefix + counter.to_bytes(4, "big"), hashlib.sha256).digest()
        counter += 1


def draw(key: bytes, post_id: str, digest: str, index: int, sides: int, n: int) -> tuple[int, ...]:
    """``n`` values 0..sides-1 for throw ``index`` of a post, by rejection sampling."""
    if sides < 2 or n < 1:
        raise ValueError(f"cannot throw {n} dice of {sides} sides")
    width = 1 if sides <= 256 else 4
    limit = (256 ** width) - (256 ** width) % sides
    out: list[int] = []
    buffer = b""
    blocks = _stream(key, post_id, digest, index)
    while len(out) < n:
        if len(buffer) < width:
            buffer += next(blocks)
        unit, buffer = int.from_bytes(buffer[:width], "big"), buffer[width:]
        if unit < limit:
            out.append(unit % sides)
    return tuple(out)


def fate_faces(key: bytes, post_id: str, digest: str, index: int, n: int = 4) -> tuple[int, ...]:
    """Fate dice: -1, 0, +1."""
    return tuple(v - 1 for v in draw(key, post_id, digest, index, 3, n))


def die_faces(key: bytes, post_id: str, digest: str, index: int, sides: int, n: int) -> tuple[int, ...]:
    """Numbered dice: 1..sides."""
    return tuple(v + 1 for v in draw(key, post_id, digest, index, sides, n))


def throw_text(kind: str, faces) -> str:
    """A throw as the footer writes it: ``4dF:+0-+``, ``3d10:8.9.10``."""
    if kind.endswith("dF"):
        return f"{kind}:" + "".join(FATE_CHARS[f + 1] for f in faces)
    return f"{kind}:" + ".".join(str(f) for f in faces)


def faces_of(key: bytes, post_id: str, digest: str, index: int, kind: str):
    """The faces the scheme gives throw ``index`` of ``kind`` (``4dF``, ``3d10``)."""
    m = re.fullmatch(r"(\d+)d(F|\d+)", kind)
    if not m:
        raise ValueError(f"unknown kind of throw {kind!r}")
    n = int(m.group(1))
    if m.group(2) == "F":
        return fate_faces(key, post_id, digest, index, n)
    return die_faces(key, post_id, digest, index, int(m.group(2)), n)


# --------------------------------------------------------------------------- reading mails


def unflow(text: str) -> str:
    """format=flowed (RFC 3676, DelSp=No) back to its lines."""
    out: list[str] = []
    joining = False
    for line in text.split("\n"):
        if line.startswith(" "):
            line = line[1:]
        if joining:
            out[-1] += line
        else:
            out.append(line)
        joining = line.endswith(" ") and line != "-- "
    return "\n".join(out)


def mail_text(msg) -> str:
    """The plain text of a saved mail (its flowed text part; else its HTML without tags)."""
    part = msg.get_body(("plain",)) if hasattr(msg, "get_body") else None
    if part is not None:
        text = part.get_content().replace("\r\n", "\n")
        return unflow(text) if (part.get_param("format") or "").lower() == "flowed" else text
    part = msg.get_body(("html",))
    if part is None:
        return ""
    markup = re.sub(r"<br\s*/?>|</p>|</div>", "\n", part.get_content())
    return html_.unescape(re.sub(r"<[^>]+>", "", markup))


@dataclass
class ThrowLine:
    scene: str
    post: str
    digest: str
    index: int
    roll: str
    kind: str
    shown: str          # faces as the mail shows them; "?" for a secret throw
    source: str         # the file it was read from
    order: int          # the order it was read in (mails by Date, then lines)


@dataclass
class SceneLines:
    name: str
    commits: set = field(default_factory=set)
    beacon_round: str | None = None
    seeds: set = field(default_factory=set)
    beacons: set = field(default_factory=set)
    throws: dict = field(default_factory=dict)     # (post, index) -> Throw


_TOKEN = re.compile(r"(\w+)=(\S+)")


def read_lines(directory: Path):
    """Every ``pbp-dice/1`` line of every mail under ``directory``, with its file, in the
    order the mails were sent (their Date header); then those of text files (``.md``,
    ``.txt``: a forum topic's posts saved as text, e.g. Discourse's ``/raw/TOPIC``), by name."""
    mails = []
    for path in sorted([*directory.rglob("*.md"), *directory.rglob("*.txt")]):
        mails.append((float("inf"), str(path), path.read_text(encoding="utf-8", errors="replace")))
    for path in sorted(directory.rglob("*.eml")):
        msg = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
        try:
            when = email.utils.parsedate_to_datetime(msg["Date"]).timestamp() if msg["Date"] else 0.0
        except (TypeError, ValueError):
            when = 0.0
        mails.append((when, str(path), mail_text(msg)))
    mails.sort(key=lambda t: (t[0], t[1]))
    for _, name, text in mails:
        lines = text.splitlines()
        # A reply that relays a post marks every line of pbp's own with RELAY_MARK, and no
        # line of the player's prose can start with it: in such a mail only marked lines are
        # pbp's, so a dice line typed into the prose is never read as one.
        marked = any(line.startswith(RELAY_MARK) for line in lines)
        for line in lines:
            if marked and not line.startswith(RELAY_MARK):
                continue
            line = line.lstrip(RELAY_MARK).strip().strip("`")
            if line.startswith(VERSION + " "):
                yield name, line


def collect(directory: Path) -> tuple[dict[str, SceneLines], list[str], list[str]]:
    """The scenes the lines name, the problems found reading them, and the notes on fixed dice."""
    scenes: dict[str, SceneLines] = {}
    problems: list[str] = []
    fixed: list[str] = []
    order = 0
    for name, line in read_lines(directory):
        words = line.split()
        kind = words[1] if len(words) > 1 and "=" not in words[1] else "throws"
        tokens = dict(_TOKEN.findall(line))
        if kind == "fixed":
            fixed.append(f"rolls {tokens.get('rolls', '?').replace(',', ', ')} had dice fixed by the operator "
                         f"({tokens.get('by', '?')}): not committed, nothing to check")
            continue
        scene = scenes.setdefault(tokens.get("scene", "?"), SceneLines(tokens.get("scene", "?")))
        if kind == "commit":
            scene.commits.add(tokens.get("c", ""))
            if "beacon" in tokens:
                scene.beacon_round = tokens["beacon"]
        elif kind == "reveal":
            scene.seeds.add(tokens.get("seed", ""))
            if "beacon" in tokens:
                scene.beacons.add(tokens["beacon"])
        elif kind in ("throws", "secret", "reveal-roll"):
            for key, value in _TOKEN.findall(line):
                if not re.fullmatch(r"t\d+", key):
                    continue
                roll, _, rest = value.partition(":")
                dice, _, shown = rest.partition(":")
                throw = ThrowLine(scene.name, tokens.get("post", ""), tokens.get("text", ""), int(key[1:]), roll, dice,
                              shown, name, order)
                order += 1
                seen = scene.throws.get((throw.post, throw.index))
                if seen is None or seen.shown == "?":
                    scene.throws[(throw.post, throw.index)] = throw
                elif throw.shown != "?" and (seen.shown, seen.kind, seen.roll) != (throw.shown, throw.kind, throw.roll):
                    problems.append(f"scene {scene.name}: roll {throw.roll} (post {throw.post}, throw {throw.index}) "
                                    f"shows {seen.kind}:{seen.shown} in {seen.source} but {throw.kind}:{throw.shown} "
                                    f"in {throw.source}")
    return scenes, problems, fixed


def check_scene(scene: SceneLines) -> tuple[list[str], list[str]]:
    """(what checked out, the problems) for one scene."""
    good: list[str] = []
    bad: list[str] = []
    campaign, _, number = scene.name.rpartition("/")
    if len(scene.commits) != 1:
        bad.append(f"scene {scene.name}: " + ("no commitment in these mails" if not scene.commits
                                              else f"{len(scene.commits)} different commitments"))
        return good, bad
    if not scene.seeds:
        good.append(f"scene {scene.name}: not revealed yet; {len(scene.throws)} throws cannot be checked")
        return good, bad
    if len(scene.seeds) != 1:
        bad.append(f"scene {scene.name}: {len(scene.seeds)} different seeds revealed")
        return good, bad
    (commit,), (seed_hex,) = scene.commits, scene.seeds
    try:
        seed = bytes.fromhex(seed_hex)
    except ValueError:
        bad.append(f"scene {scene.name}: the revealed seed {seed_hex!r} is not hex")
        return good, bad
    if not re.fullmatch(r"\d+(\.\d+)?", number) or commitment(seed, campaign, number) != commit:
        bad.append(f"scene {scene.name}: the revealed seed does not match the commitment {commit[:16]}...")
        return good, bad
    key = seed
    if scene.beacon_round is not None:
        found = [b for b in scene.beacons if b.rpartition(":")[0] == scene.beacon_round]
        if len(found) != 1:
            bad.append(f"scene {scene.name}: committed to beacon {scene.beacon_round}, but "
                       + ("no value revealed" if not found else "different values revealed"))
            return good, bad
        value = found[0].rpartition(":")[2]
        if value == "none":
            good.append(f"scene {scene.name}: beacon {scene.beacon_round} could not be read when the scene's first "
                        "die was thrown; its dice follow from the seed alone")
        else:
            round_ = int(scene.beacon_round.rpartition(":")[2])
            key = mix_beacon(seed, round_, bytes.fromhex(value))
            good.append(f"scene {scene.name}: mixed with beacon {scene.beacon_round}, value {value[:16]}... "
                        "(compare it with the beacon's own record)")
    checked = 0
    secret = 0
    for throw in sorted(scene.throws.values(), key=lambda t: t.order):
        try:
            faces = faces_of(key, throw.post, throw.digest, throw.index, throw.kind)
        except ValueError as exc:
            bad.append(f"scene {scene.name}: roll {throw.roll}: {exc}")
            continue
        expected = throw_text(throw.kind, faces).partition(":")[2]
        if throw.shown == "?":
            secret += 1
            good.append(f"scene {scene.name}: roll {throw.roll} was secret; the seed gives {throw.kind}:{expected}")
            continue
        if throw.shown != expected:
            bad.append(f"scene {scene.name}: roll {throw.roll} (post {throw.post}, throw {throw.index}) shows "
                       f"{throw.kind}:{throw.shown}, but the seed gives {throw.kind}:{expected}")
        else:
            checked += 1
    numbers = [(int(t.roll.lstrip("#")), t) for t in sorted(scene.throws.values(), key=lambda t: t.order)
               if t.roll.lstrip("#").isdigit()]
    for (a, ta), (b, tb) in zip(numbers, numbers[1:]):
        if b < a:
            bad.append(f"scene {scene.name}: roll #{b} ({tb.source}) comes after roll #{a} ({ta.source}): "
                       "the rolls are out of order")
    good.append(f"scene {scene.name}: commitment matches; {checked} throws recomputed"
                + (f", {secret} secret" if secret else ""))
    return good, bad


def verify(directory: Path) -> tuple[list[str], list[str]]:
    """(what checked out, the problems) for every scene found in the mails under ``directory``."""
    scenes, problems, good = collect(Path(directory))
    for scene in scenes.values():
        g, b = check_scene(scene)
        good += g
        problems += b
    return good, problems


def report(directory: Path, out=None, err=None) -> int:
    """Check the mails under ``directory`` and print the verdict: one ``ok:`` line per thing
    that checks out, one ``PROBLEM:`` line per thing that does not, and, when there are
    problems, their count on ``err``. Returns the exit status: 0 when nothing is wrong, 1
    otherwise. ``python verify_dice.py DIR`` and ``pbp verify --mails DIR`` both print this."""
    out = sys.stdout if out is None else out
    err = sys.stderr if err is None else err
    good, bad = verify(Path(directory))
    for line in good:
        print("ok: " + line, file=out)
    for line in bad:
        print("PROBLEM: " + line, file=out)
    if not good and not bad:
        print(f"no {VERSION} lines in the mails under {directory}: no committed dice to check", file=out)
    if bad:
        print(f"error: {len(bad)} problem{'s' if len(bad) != 1 else ''} with the committed dice (listed above)",
              file=err)
    return 1 if bad else 0


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1 or not Path(args[0]).is_dir():
        print("usage: python verify_dice.py DIR   (a folder of saved .eml mails, or a forum topic's posts as "
              ".md or .txt)", file=sys.stderr)
        return 2
    return report(Path(args[0]))


if __name__ == "__main__":
    sys.exit(main())
