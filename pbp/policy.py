"""Which mail pbp must never answer: its own, auto-replies and bounces (so loops cannot
start), and when a stranger may be answered."""
from __future__ import annotations

from pbp.config import Config
from pbp.mail.reading import Mail

BULK_PRECEDENCE = {"bulk", "junk", "list", "auto_reply"}


def is_own_mail(mail: Mail, config: Config) -> str:
    """Non-empty reason when the mail was sent by this daemon."""
    if mail.from_addr and mail.from_addr == config.from_address.lower():
        return "sent by pbp itself"
    if mail.message_id.endswith("@" + config.domain) and mail.message_id.startswith("pbp."):
        return "sent by pbp itself (Message-ID)"
    if mail.header("X-PBP-Campaign"):
        return "sent by a pbp daemon"
    return ""


def auto_reply_reason(mail: Mail) -> str:
    """Non-empty reason when the mail is an auto-reply or a bounce (RFC 3834 and the
    common vendor headers)."""
    auto = (mail.header("Auto-Submitted") or "").strip().lower()
    if auto and auto != "no":
        return f"Auto-Submitted: {auto}"
    for name in ("X-Autoreply", "X-Autorespond", "X-Auto-Response-Suppress"):
        if mail.header(name):
            return f"{name} header"
    local = mail.from_addr.split("@", 1)[0]
    if local in ("mailer-daemon", "postmaster") or local.startswith("mailer-daemon"):
        return "a bounce (MAILER-DAEMON)"
    return_path = mail.header("Return-Path")
    if return_path is not None and return_path.strip() in ("<>", ""):
        return "empty Return-Path (a bounce)"
    return ""


def bulk_reason(mail: Mail) -> str:
    """Non-empty for list or bulk mail. Only checked for non-members: a table that plays
    on a mailing list gets its members' posts with ``Precedence: list``."""
    precedence = (mail.header("Precedence") or "").strip().lower()
    return f"Precedence: {precedence}" if precedence in BULK_PRECEDENCE else ""
