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

Command lines count as the same when they differ only in white space, case or invisible
characters. Both keys are hashes in indexed columns: one lookup per post, whatever the
length of the campaign's history.

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
_BY_ID = Select(lambda message_id: m.Message.select(m.Message.id).where(m.Message.message_id == message_id))


@dataclass(frozen=True)
class Copy:
    """An earlier post that this one repeats. ``kind``: ``copy`` (an edited copy),
    ``forward`` (the author forwards it) or ``forward_of_other`` (someone else's post,
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


def fingerprint(campaign_id: int, author: str, post: NeutralPost, lines: list[tuple[int, str]],
                commands: list[c.Command]) -> dict:
    """The ``copy_key`` and ``forward_key`` columns for a post about to be applied (None
    for a post without commands that count)."""
    if not lines or not counts(commands):
        return {"copy_key": None, "forward_key": None}
    texts = [normal_line(text) for _, text in lines]
    parent = post.replied_to
    copy_key = _hash("copy", str(campaign_id), author, parent, *texts) if parent else None
    return {"copy_key": copy_key, "forward_key": _forward_key(campaign_id, author, texts)}


def find_copy(campaign_id: int, author: str, post: NeutralPost, lines: list[tuple[int, str]],
              keys: dict) -> Copy | None:
    """The earlier applied post that this one copies or forwards, if any. ``keys`` is its
    :func:`fingerprint`; what the post carries of others is its adapter's
    (``post.forwarded``: :func:`pbp.mail.forwards.forwarded_inline`, ``attached_ids``)."""
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
    for message_id in post.forwarded.attached:
        found = _BY_ID(message_id)
        if not found:
            continue
        row = m.Message.get_by_id(found[0]["id"])
        same_post = row.forward_key is not None and (not lines or row.forward_key == keys["forward_key"])
        if row.campaign_id == campaign_id and row.author == author and row.status == "applied" and same_post:
            return Copy(row, "forward")
    return None
