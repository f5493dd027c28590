"""Forwards: whether a mail forwards an older one, and which.

A forward of a post must not run the post's commands a second time (:mod:`pbp.copies`
decides what it is a copy of). Clients forward in two shapes:

- inline: the older mail as text below a marker (``---------- Forwarded message
  ---------``, ``Begin forwarded message:``) and a From/Date/Subject block. With nothing
  written above the marker the trimmer keeps the forwarded text as the new text (that is
  what the reply-trimmer data wants), so its commands reach the parser;
- attached: the older mail whole in a ``message/rfc822`` part. Reading never takes text
  from it, but its Message-ID names the forwarded post exactly.
"""
from __future__ import annotations

import email
import email.policy
import re

from pbp.mail.lines import header_name, is_forward_marker, is_sender_header
from pbp.mail.reading import Mail, _first_id

_RFC822 = re.compile(rb"message/rfc822", re.IGNORECASE)
_ADDRESS = re.compile(r"[\w.+\-=!#$%&'*^`{|}~]+@[\w\-]+(?:\.[\w\-]+)+")
#: a forward's header block is short; past this many lines below the marker, stop looking
_BLOCK_LINES = 8
#: attached mails looked at, at most (a real forward has one or a few)
MAX_ATTACHED = 10


def forwarded_inline(mail: Mail) -> tuple[bool, str | None]:
    """``(True, sender)`` when the mail's body opens with a forward marker (only blank
    lines above it), so its new text is the forwarded mail's text; ``sender`` is the
    address on the From line of the forwarded header block, when there is one."""
    lines = mail.body.splitlines()
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is None or not is_forward_marker(lines[first]):
        return False, None
    for line in lines[first + 1:first + 1 + _BLOCK_LINES]:
        if is_sender_header(header_name(line)):
            found = _ADDRESS.search(line)
            return True, found.group(0).lower() if found else None
    return True, None


def attached_ids(raw: bytes) -> list[str]:
    """The Message-IDs of the mails attached whole (``message/rfc822``), in order. The MIME
    tree is parsed again only for a mail that has such a part, so a plain post costs one
    byte scan."""
    if not _RFC822.search(raw):
        return []
    try:
        msg = email.message_from_bytes(raw, policy=email.policy.compat32)
        found = []
        for part in msg.walk():
            if part.get_content_type() != "message/rfc822":
                continue
            payload = part.get_payload()
            inner = payload[0] if isinstance(payload, list) and payload else None
            message_id = _first_id(str(inner.get("Message-ID") or "")) if inner is not None else None
            if message_id:
                found.append(message_id)
            if len(found) >= MAX_ATTACHED:
                break
        return found
    except Exception:  # a broken or absurdly nested tree: nothing attached that can be named
        return []
