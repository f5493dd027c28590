"""The offline demo transport: Maildir folders (stdlib ``mailbox``) instead of a mail account.

Drop ``.eml`` files into ``INBOX/new/`` (or ``cur/``), run the daemon, read the replies from
the outbox Maildir. ``MaildirInbox`` and ``MaildirSender`` implement the same ``Inbox`` and
``Sender`` protocols as IMAP and SMTP, so the daemon cannot tell the difference.

Maildir names messages by unique file-name keys, not by number; to give the daemon the
same ``(uidvalidity, uid)`` identity as IMAP, the inbox keeps a small UID list
(``pbp-uidlist.json``, written atomically) like Dovecot's ``dovecot-uidlist``. Deleting
that file starts a new UIDVALIDITY, exactly what a recreated IMAP mailbox would do.
"""
from __future__ import annotations

import json
import mailbox
import os
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from email.message import EmailMessage
from pathlib import Path

from .base import FetchResult, InboundMessage, OutboundMessage, SendReceipt, message_bytes, parse_action
from .errors import TransportError

__all__ = ["MaildirInbox", "MaildirSender"]

UIDLIST = "pbp-uidlist.json"
SEEN = "S"
#: how much of an oversized message is read: its header block (pbp.mail.reading reads at most this)
HEADER_BYTES = 256 * 1024


@dataclass(frozen=True)
class _Entry:
    key: str
    path: Path
    flags: str

    @property
    def seen(self) -> bool:
        return SEEN in self.flags


class MaildirInbox:
    """Reads posts from a Maildir: messages in ``new/`` and unseen ones in ``cur/``.

    ``mark_handled(uids, "seen")`` moves a message to ``cur/`` with the S flag (what a mail
    client does when you read it); ``"move:Folder"`` moves it, seen, into the Maildir++
    sub-folder ``.Folder`` (created if missing). Seen messages are never returned again.
    """

    supports_idle = False

    def __init__(self, path: str | os.PathLike, *, poll_interval: float = 0.5, create: bool = True) -> None:
        self.path = Path(path).absolute()
        if not create and not (self.path / "cur").is_dir():
            raise TransportError(
                f"{self.path} is not a Maildir (no cur/ folder)",
                hint="point the inbox at a Maildir, or let pbp create it",
            )
        self._maildir = mailbox.Maildir(self.path, factory=None, create=create)
        self.poll_interval = poll_interval
        self._known_uid = 0

    @property
    def mailbox(self) -> str:
        return f"maildir:{self.path}"

    @property
    def label(self) -> str:
        return f"Maildir {self.path}"

    # ---- reading -------------------------------------------------------------------------

    def fetch_new(
        self, last_uid: int = 0, uidvalidity: int | None = None, *, limit: int | None = None,
        max_bytes: int | None = None,
    ) -> FetchResult:
        """Unseen messages with a UID above ``last_uid``, in UID order (see ``ImapInbox.fetch_new``)."""
        entries = self._scan()
        state = self._uids(entries)
        current = state["uidvalidity"]
        changed = uidvalidity is not None and uidvalidity != current
        since = 0 if changed else max(0, int(last_uid or 0))
        uids = state["uids"]
        waiting = sorted((uids[key], entry) for key, entry in entries.items() if uids[key] > since and not entry.seen)
        more = limit is not None and len(waiting) > limit
        if more:
            waiting = waiting[:limit]
        messages = []
        for uid, entry in waiting:
            try:
                size = entry.path.stat().st_size
                if max_bytes is not None and size > max_bytes:  # the headers only, never the whole file
                    with entry.path.open("rb") as handle:
                        raw = handle.read(HEADER_BYTES)
                    messages.append(InboundMessage(self.mailbox, current, uid, raw, size=size))
                    continue
                raw = entry.path.read_bytes()
            except FileNotFoundError:  # taken away in between: gone, nothing to do
                continue
            messages.append(InboundMessage(self.mailbox, current, uid, raw))
        self._known_uid = messages[-1].uid if messages else since
        return FetchResult(current, messages, changed, uidvalidity if changed else None, more)

    def recent_headers(self, count: int = 20) -> list[bytes]:
        """The header blocks of the newest ``count`` messages, handled or not (nothing is
        marked or given a UID): what ``pbp check-config`` reads."""
        entries = sorted(self._scan().values(), key=lambda e: _mtime(e.path))[-count:] if count > 0 else []
        out = []
        for entry in entries:
            try:
                with entry.path.open("rb") as handle:
                    out.append(handle.read(HEADER_BYTES))
            except FileNotFoundError:
                continue
        return out

    # ---- marking -------------------------------------------------------------------------

    def mark_handled(self, uids: Iterable[int], action: str = "seen") -> None:
        kind, folder = parse_action(action)
        wanted = {int(uid) for uid in uids}
        if kind == "none" or not wanted:
            return
        entries = self._scan()
        by_uid = {uid: entries[key] for key, uid in self._uids(entries)["uids"].items() if uid in wanted}
        target = self.path / "cur"
        if kind == "move":
            if folder not in self._maildir.list_folders():
                self._maildir.add_folder(folder)
            target = self.path / f".{folder}" / "cur"  # Maildir++ layout, as add_folder made it
        for entry in by_uid.values():
            flags = "".join(sorted(set(entry.flags) | {SEEN}))
            os.replace(entry.path, target / f"{entry.key}{mailbox.Maildir.colon}2,{flags}")

    # ---- waiting -------------------------------------------------------------------------

    def idle_wait(self, timeout: float, last_uid: int | None = None) -> bool:
        """Poll every ``poll_interval`` seconds until an unseen message newer than ``last_uid``
        (default: the last one fetched) or a new file shows up; False after ``timeout``."""
        known = self._known_uid if last_uid is None else last_uid
        deadline = time.monotonic() + max(0.0, timeout)
        while True:
            if self._has_new(known):
                return True
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            time.sleep(min(self.poll_interval, remaining))

    def _has_new(self, known: int) -> bool:
        entries = self._scan()
        uids = self._load()["uids"]
        return any(not entry.seen and uids.get(key, known + 1) > known for key, entry in entries.items())

    def close(self) -> None:
        """Nothing to release; here for the ``Inbox`` protocol."""

    # ---- the folder and the UID list -----------------------------------------------------

    def _scan(self) -> dict[str, _Entry]:
        """Every message file in new/ and cur/ by key (the file name up to ':2,')."""
        found: dict[str, _Entry] = {}
        for sub in ("new", "cur"):
            with os.scandir(self.path / sub) as listing:
                for item in listing:
                    if item.name.startswith(".") or not item.is_file():
                        continue
                    key, _, info = item.name.partition(mailbox.Maildir.colon)
                    flags = info[2:] if info.startswith("2,") else ""
                    found[key] = _Entry(key, Path(item.path), "" if sub == "new" else flags)
        return found

    def _load(self) -> dict:
        try:
            state = json.loads((self.path / UIDLIST).read_text())
            if isinstance(state.get("uids"), dict) and int(state["uidvalidity"]) > 0:
                return state
        except (OSError, ValueError, KeyError, TypeError):
            pass
        return {"uidvalidity": int(time.time()), "next_uid": 1, "uids": {}}

    def _uids(self, entries: dict[str, _Entry]) -> dict:
        """The UID list, with UIDs given to keys seen for the first time (oldest first)."""
        state = self._load()
        uids: dict[str, int] = state["uids"]
        before = dict(uids)
        for key in [key for key in uids if key not in entries]:
            del uids[key]
        fresh = [key for key in entries if key not in uids]
        for key in sorted(fresh, key=lambda k: (_mtime(entries[k].path), k)):
            uids[key] = state["next_uid"]
            state["next_uid"] += 1
        if uids != before or not (self.path / UIDLIST).exists():
            _write_atomically(self.path / UIDLIST, json.dumps(state, indent=0, sort_keys=True))
        return state


class MaildirSender:
    """Writes outgoing mail into a Maildir (``new/``) instead of sending it.

    The envelope is kept in the message as ``Return-Path`` and ``X-Pbp-Envelope-To`` headers
    so that a reader of the demo outbox sees who each reply was for.
    """

    def __init__(self, path: str | os.PathLike) -> None:
        self.path = Path(path).absolute()
        self._maildir = mailbox.Maildir(self.path, factory=None, create=True)

    async def send(self, raw: bytes | EmailMessage, sender: str, recipients: Sequence[str]) -> SendReceipt:
        recipients = tuple(recipients)
        if not recipients:
            raise ValueError("a message needs at least one recipient")
        data = message_bytes(raw)
        newline = b"\r\n" if b"\r\n" in data.split(b"\n", 1)[0] + b"\n" else b"\n"
        envelope = (
            b"Return-Path: <" + sender.encode() + b">" + newline
            + b"X-Pbp-Envelope-To: " + ", ".join(recipients).encode() + newline
        )
        try:
            key = self._maildir.add(envelope + data)
        except OSError as exc:
            raise TransportError(
                f"cannot write to the outbox Maildir {self.path}: {exc.strerror or exc}",
                hint="check that the folder exists and is writable by the daemon's user",
            ) from exc
        return SendReceipt(250, f"stored in {self.path} as {key}", sender, recipients)

    async def send_many(self, messages: Iterable[OutboundMessage]) -> list[SendReceipt | TransportError]:
        results: list[SendReceipt | TransportError] = []
        for item in messages:
            try:
                results.append(await self.send(item.raw, item.sender, item.recipients))
            except TransportError as exc:
                results.append(exc)
        return results

    async def close(self) -> None:
        """Nothing to release; here for the ``Sender`` protocol."""


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def _write_atomically(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


def ensure_maildir(path: str | os.PathLike) -> mailbox.Maildir:
    """The Maildir at ``path``, created with its parents when missing."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    return mailbox.Maildir(path, create=True)
