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


def sender_unverified(mail: Mail, authserv_id: str) -> str:
    """With ``[security] trust_authserv_id`` set: non-empty unless an
    ``Authentication-Results`` header from that server (RFC 8601) shows DKIM or SPF
    passing for a domain aligned with the From address (the same domain or a parent of it,
    as DMARC's relaxed alignment). Headers from other servers are ignored: anyone can write
    one."""
    if not authserv_id:
        return ""
    from_domain = mail.from_addr.rpartition("@")[2].lower()
    for header in mail.header_all("Authentication-Results"):
        server, _, rest = header.partition(";")
        words = server.split()
        if not words or words[0].lower() != authserv_id.lower():
            continue
        for clause in rest.split(";"):
            words = clause.split()
            if not words or "=" not in words[0]:
                continue
            method, _, result = words[0].partition("=")
            props = dict(w.split("=", 1) for w in words[1:] if "=" in w)
            if result.lower() != "pass":
                continue
            if method.lower() == "dkim":
                domain = props.get("header.d", "")
            elif method.lower() == "spf":
                domain = props.get("smtp.mailfrom", "").rpartition("@")[2] or props.get("smtp.helo", "")
            else:
                continue
            if _aligned(from_domain, domain.lower().strip(".")):
                return ""
    return f"no DKIM or SPF pass for {from_domain} from {authserv_id}"


def _aligned(from_domain: str, auth_domain: str) -> bool:
    """Relaxed alignment without a public-suffix list: the authenticated domain must have
    two labels at least (so "org" never vouches for "example.org")."""
    if "." not in auth_domain:
        return False
    return from_domain == auth_domain or from_domain.endswith("." + auth_domain)
