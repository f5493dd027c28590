"""No roll twice by copy: an edited copy or a forward of a post gets the original result
back, and never rolls again.

A re-sent mail keeps its Message-ID and is caught by it (``pbp.pipeline``). A player who
edits a post and sends it anew ("edit as new", a typo fixed) or forwards it makes a new
Message-ID, so a post also has a *fingerprint*: what makes two mails the same move at the
table. Two keys of it are kept with every applied post that had commands:

- ``copy_key``: the campaign, the author, the command lines and the mail the post answers
  (``In-Reply-To``). The same commands in answer to the same mail are a copy. A post that
  answers no mail has none: two new threads with the same command are two moves (nothing
  but the clock could tell an edited copy of one from a second attempt).
- ``forward_key``: the campaign, the author and the command lines. An inline forward
  carries the original's commands but not the mail it answered, and names its author on
  its From line; a post attached whole (``message/rfc822``) is found by its Message-ID.

A copy need not answer the same mail: pasted into a new mail (no ``In-Reply-To``), sent as
"edit as new" by a client that drops the thread, forwarded by a client whose forward header
pbp does not know. So a post that answers no mail is also compared with the author's
latest posts of the *copy window* (:data:`COPY_WINDOW`) that had the same command lines
(the ``forward_key``): when its prose (the lines that are not commands) is nearly the same
(:func:`similar`), it is a copy (kind ``retyped``). Only a post with words of its own
(:data:`MIN_PROSE` characters besides its commands) is compared so: a bare command sent
again in a new mail is what a table does all the time (the GM's next ``/approve``, the
next ``/done``), while a copy of a post carries the post's words. The prose is kept only as a small sketch
(``text_sketch``: the smallest hashes of its four-character shingles, a bottom-k MinHash),
never as text.

Command lines count as the same when they differ only in white space, case or invisible
characters. The keys are hashes in indexed columns: one lookup per post, and the window's
look-up reads at most :data:`RECENT` rows by the ``forward_key`` index, whatever the length
of the campaign's history.

A repeat is not a copy when it answers a different mail (the next attack's ``/defend
Athletics``, an ``/overcome`` in reply to the GM's new description): that is the thread
moving on. Answering the *same* mail with the same commands again takes an explicit
``/again`` line; Fate does not let a failed overcome simply be retried (Fate Condensed,
"Failure": the failure changes the situation, and the character faces a new choice), so
the line may say what changed: ``/again "the guards have gone"``. The line needs no
special case here: it is one of the post's command lines, so the post's fingerprint differs
from the earlier one's, and an edited copy of the ``/again`` post is caught in turn (a
third attempt says what changed this time, or answers a newer mail).

Posts that only read (``/sheet``, ``/fp``, ``/table``) change nothing, so they are never held back.
"""
from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from datetime import datetime, timedelta

from pbp import commands as c
from pbp.posts import NeutralPost
from pbp.store import models as m
from pbp.store.prepared import Select
from pbp.textsafety import strip_invisible

_SPACE = re.compile(r"\s+")

_BY_COPY_KEY = Select(lambda key: m.Message.select(m.Message.id).where(m.Message.copy_key == key)
                      .order_by(m.Message.id.desc()).limit(1))
_BY_FORWARD_KEY = Select(lambda key: m.Message.select(m.Message.id).where(m.Message.forward_key == key)
                         .order_by(m.Message.id.desc()).limit(1))
_BY_KEY = Select(lambda key: m.Message.select(m.Message.id).where(m.Message.post_key == key))

#: How long after a post a new mail with its commands and nearly its words is taken for a
#: copy of it when it answers no mail (a copy answering the same mail is one at any time).
COPY_WINDOW = timedelta(hours=24)
#: The most earlier posts with the same commands that the window's look-up compares.
RECENT = 5
#: How many hashes a prose sketch keeps, and how alike two sketches must be (the share of
#: the smallest hashes of both that both have: an estimate of the shingles' Jaccard index).
SKETCH_SIZE = 16
NEAR = 0.5
#: The most prose, in characters, a sketch is made of; the least a post needs to be
#: compared by its words at all.
SKETCH_TEXT = 4000
MIN_PROSE = 12

_RECENT_BY_FORWARD_KEY = Select(lambda key, since: m.Message.select(m.Message.id, m.Message.text_sketch)
                                .where((m.Message.forward_key == key) & (m.Message.received_at >= since))
                                .order_by(m.Message.id.desc()).limit(RECENT))


@dataclass(frozen=True)
class Copy:
    """An earlier post that this one repeats. ``kind``: ``copy`` (an edited copy),
    ``retyped`` (the same commands and nearly the same words in a mail that answers no
    mail, within the copy window), ``forward`` (the author forwards it) or ``forward_of_other`` (someone else's post,
    forwarded: its commands are not the forwarder's to run)."""

    original: m.Message
    kind: str


def normal_line(line: str) -> str:
    return _SPACE.sub(" ", strip_invisible(line)).strip().casefold()


def _hash(*parts: str) -> str:
    return hashlib.sha256("\x00".join(parts).encode("utf-8", "surrogatepass")).hexdigest()[:40]


def _forward_key(campaign_id: int, author: str, lines: list[str]) -> str:
    return _hash("forward", str(campaign_id), author, *lines)


def counts(commands: list[c.Command]) -> bool:
    """Whether a post's commands may be held back as a copy: not when it only reads."""
    return any(not (isinstance(cmd, (c.Sheet, c.TableView, c.FpShow)) or isinstance(cmd, c.Recap) and not cmd.note)
               for cmd in commands)


def prose(post: NeutralPost, lines: list[tuple[int, str]]) -> str:
    """The post's own words without its command lines, as a sketch compares them."""
    commands = {number for number, _ in lines}
    words = " ".join(text for number, text in enumerate(post.new_text.splitlines(), start=1) if number not in commands)
    return normal_line(words)[:SKETCH_TEXT]


def sketch(text: str) -> str:
    """A bottom-k MinHash of ``text``: the :data:`SKETCH_SIZE` smallest 32-bit hashes of
    its four-character shingles, as hex ("" for less than :data:`MIN_PROSE` characters:
    too little to tell a copy by). 128 characters at most."""
    if len(text) < MIN_PROSE:
        return ""
    if text.isascii():          # a character is a byte: the shingles cut from the bytes, encoded once
        data = text.encode("ascii")
        shingles = {data[i:i + 4] for i in range(max(1, len(data) - 3))}
    else:
        shingles = {text[i:i + 4].encode("utf-8", "surrogatepass") for i in range(max(1, len(text) - 3))}
    # each hash a copy of one made BLAKE2b-32 (making one with digest_size=4 cost twice as
    # much: most of a post's fingerprint, issue 23); digests sort as their hex does, and a
    # 4-byte digest's hex is its 32-bit number as "%08x"
    digests = set()
    copy = _BLAKE2B_32.copy
    for shingle in shingles:
        h = copy()
        h.update(shingle)
        digests.add(h.digest())
    return "".join(d.hex() for d in sorted(digests)[:SKETCH_SIZE])


_BLAKE2B_32 = hashlib.blake2b(digest_size=4)


def _hashes(found: str) -> list[int]:
    return [int(found[i:i + 8], 16) for i in range(0, len(found), 8)]


def similar(a: str | None, b: str | None) -> bool:
    """Whether two prose sketches are nearly the same text: of the smallest hashes of both
    texts together, at least :data:`NEAR` are in both. A post with (almost) no prose is
    like no other."""
    if not a or not b:
        return False
    mine, theirs = set(_hashes(a)), set(_hashes(b))
    smallest = sorted(mine | theirs)[:SKETCH_SIZE]
    return sum(1 for h in smallest if h in mine and h in theirs) >= NEAR * len(smallest)


def fingerprint(campaign_id: int, author: str, post: NeutralPost, lines: list[tuple[int, str]],
                commands: list[c.Command]) -> dict:
    """The ``copy_key``, ``forward_key`` and ``text_sketch`` columns for a post about to be
    applied (None for a post without commands that count)."""
    if not lines or not counts(commands):
        return {"copy_key": None, "forward_key": None, "text_sketch": None}
    texts = [normal_line(text) for _, text in lines]
    # a source whose copies are its own doing (``answer_copies`` False: a forum) names each
    # post by an id of its own, and a new post with the same command is a new move; only a
    # copy of the same id is one (two posts by a player in one topic share In-Reply-To)
    parent = post.replied_to if post.answer_copies else None
    copy_key = _hash("copy", str(campaign_id), author, parent, *texts) if parent else None
    return {"copy_key": copy_key, "forward_key": _forward_key(campaign_id, author, texts),
            "text_sketch": sketch(prose(post, lines))}


def find_copy(campaign_id: int, author: str, post: NeutralPost, lines: list[tuple[int, str]],
              keys: dict, now: datetime) -> Copy | None:
    """The earlier applied post that this one copies or forwards, if any. ``keys`` is its
    :func:`fingerprint`, ``now`` the time it is read (the copy window ends there); what the
    post carries of others is its adapter's (``post.forwarded``:
    :func:`pbp.mail.forwards.forwarded_inline`, ``attached_ids``)."""
    if keys["copy_key"] and (found := _BY_COPY_KEY(keys["copy_key"])):
        return Copy(m.Message.get_by_id(found[0]["id"]), "copy")
    if keys["forward_key"]:
        inline, sender = post.forwarded.inline, post.forwarded.sender
        if inline:
            texts = [normal_line(text) for _, text in lines]
            key = keys["forward_key"] if sender in (None, author) else _forward_key(campaign_id, sender, texts)
            if found := _BY_FORWARD_KEY(key):
                row = m.Message.get_by_id(found[0]["id"])
                return Copy(row, "forward" if row.author == author else "forward_of_other")
    if lines and not keys["forward_key"]:
        return None  # only reading commands: never held back
    if keys["forward_key"] and post.replied_to is None:
        for row in _RECENT_BY_FORWARD_KEY(keys["forward_key"], now - COPY_WINDOW):
            if similar(row["text_sketch"], keys["text_sketch"]):
                return Copy(m.Message.get_by_id(row["id"]), "retyped")
    for message_id in post.forwarded.attached:     # the author's own post in this campaign, by its key
        found = _BY_KEY(m.post_key(campaign_id, author, message_id))
        if not found:
            continue
        row = m.Message.get_by_id(found[0]["id"])
        same_post = row.forward_key is not None and (not lines or row.forward_key == keys["forward_key"])
        if row.status == "applied" and same_post:
            return Copy(row, "forward")
    return None
