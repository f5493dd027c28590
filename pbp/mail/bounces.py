"""Delivery status notifications (RFC 3464) read from a bounce: which recipients failed,
how (``Action``, ``Status``, ``Diagnostic-Code``), and the Message-ID of the mail that
bounced, from the returned message or its headers (``message/rfc822`` or
``text/rfc822-headers``). Only a ``multipart/report; report-type=delivery-status`` is
read (RFC 6522); a bounce in any other form is no report (it stays ignored, as before).

A report never raises: a malformed one is None. It is data about pbp's own mail, not a
post: :mod:`pbp.bounces` records it against the member, with Mailman's bounce score."""
from __future__ import annotations

import email
import email.policy
import re
from email.message import Message

from pbp.posts import DeliveryReport, RecipientStatus
from pbp.textsafety import is_addr_spec

#: a report no larger than this is read (a bounce carries the original; pbp's are small)
MAX_REPORT_BYTES = 512 * 1024
_STATUS = re.compile(r"^[245]\.\d{1,3}\.\d{1,3}$")
_ID = re.compile(r"<([^<>\s]+)>")


def is_report(content_type: str | None) -> bool:
    """Whether a Content-Type header is a delivery status report's (cheap, before parsing)."""
    value = (content_type or "").lower()
    return "multipart/report" in value and "delivery-status" in value


def read_report(raw: bytes) -> DeliveryReport | None:
    """The report a bounce carries, or None when it is none (or cannot be read)."""
    if len(raw) > MAX_REPORT_BYTES:
        return None
    try:
        msg = email.message_from_bytes(raw, policy=email.policy.compat32)
        if msg.get_content_type() != "multipart/report" or (msg.get_param("report-type") or "").lower() \
                != "delivery-status":
            return None
        parts = msg.get_payload()
        if not isinstance(parts, list):
            return None
        status = next((p for p in parts if p.get_content_type() == "message/delivery-status"), None)
        if status is None:
            return None
        recipients = tuple(r for r in (_recipient(block) for block in _blocks(status)[1:]) if r is not None)
        original = next((p for p in parts if p.get_content_type() in ("message/rfc822", "text/rfc822-headers")), None)
        return DeliveryReport(original_id=_original_id(original), recipients=recipients,
                              reporter=_field(_blocks(status)[0], "Reporting-MTA") if _blocks(status) else "")
    except Exception:   # a report pbp cannot read is no report: the bounce stays ignored
        return None


def _blocks(part: Message) -> list[Message]:
    """The per-message block first, then one block per recipient (RFC 3464, 2.1): the
    standard library parses message/delivery-status into a list of header blocks."""
    payload = part.get_payload()
    if isinstance(payload, list):
        return [b for b in payload if isinstance(b, Message)]
    text = payload if isinstance(payload, str) else ""
    return [email.message_from_string(block) for block in re.split(r"\r?\n\r?\n", text.strip()) if block.strip()]


def _field(block: Message, name: str) -> str:
    return " ".join(str(block.get(name) or "").split())


def _recipient(block: Message) -> RecipientStatus | None:
    """One recipient's fields: ``Final-Recipient: rfc822; ADDR`` (``Original-Recipient``
    when it names an rfc822 address and the final one does not), ``Action``, ``Status``."""
    address = ""
    for name in ("Original-Recipient", "Final-Recipient"):
        kind, _, value = _field(block, name).partition(";")
        value = value.strip().strip("<>").lower()
        if kind.strip().lower() == "rfc822" and is_addr_spec(value):
            address = value
            if name == "Final-Recipient" or not address:
                break
    action = _field(block, "Action").lower()
    status = _field(block, "Status").split(" ")[0]
    if not address or action not in ("failed", "delayed", "delivered", "relayed", "expanded"):
        return None
    return RecipientStatus(address=address, action=action, status=status if _STATUS.match(status) else "",
                           diagnostic=_field(block, "Diagnostic-Code")[:300])


def _original_id(part: Message | None) -> str | None:
    """The Message-ID of the returned mail (its headers, or the whole message)."""
    if part is None:
        return None
    payload = part.get_payload()
    if isinstance(payload, list) and payload and isinstance(payload[0], Message):
        value = payload[0].get("Message-ID")
    else:
        text = payload if isinstance(payload, str) else ""
        value = email.message_from_string(text.split("\n\n", 1)[0] + "\n").get("Message-ID")
    found = _ID.search(str(value or ""))
    return found.group(1) if found else None
