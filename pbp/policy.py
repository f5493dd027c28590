"""Which mail pbp must never answer: its own, auto-replies and bounces (so loops cannot
start), and when a stranger may be answered."""
from __future__ import annotations

from pbp.config import Config
from pbp.mail.reading import Mail, decode_header_value

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


#: ``Precedence`` values that mark an automatic or bulk mail from anyone, members too: an
#: out-of-office often carries only ``Precedence: bulk`` (RFC 3834 section 3.1.8 asks
#: responders to look at it). ``list`` is not among them: a table that plays on a mailing
#: list gets its members' posts with ``Precedence: list``.
AUTO_PRECEDENCE = {"bulk", "junk", "auto_reply"}


def auto_reply_reason(mail: Mail) -> str:
    """Non-empty reason when the mail is an auto-reply or a bounce (RFC 3834 and the
    common vendor headers, ``Precedence: bulk``, ``junk`` or ``auto_reply``)."""
    auto = (mail.header("Auto-Submitted") or "").strip().lower()
    if auto and auto != "no":
        return f"Auto-Submitted: {auto}"
    for name in ("X-Autoreply", "X-Autorespond", "X-Auto-Response-Suppress"):
        if mail.header(name):
            return f"{name} header"
    precedence = (mail.header("Precedence") or "").strip().lower()
    if precedence in AUTO_PRECEDENCE:
        return f"Precedence: {precedence} (an automatic or bulk mail)"
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


def our_authentication_results(mail: Mail, authserv_id: str) -> list[str]:
    """The ``Authentication-Results`` headers the receiving server added, topmost first.

    RFC 8601 has each checking server prepend its header, and the border server delete any
    incoming one that bears its own authserv-id (section 5). Anything a sender writes sits
    below everything the receiving side prepended, so only the first contiguous run counts:
    from the topmost header bearing ``authserv_id`` down to the first header field of any
    other kind (a Received, a DKIM-Signature, another server's results). Fields above that
    run (Delivered-To, Return-Path, Received, ARC-*) are skipped; one of ours below the run
    is the sender's and ignored. ``authserv_id`` may name several servers, separated by
    commas (a provider whose receiving hosts each write their own name)."""
    wanted = {name.strip().lower() for name in authserv_id.split(",") if name.strip()}
    found: list[str] = []
    for key, raw in mail.raw_headers:
        ours = False
        if key.lower() == "authentication-results":
            value = decode_header_value(raw)
            words = value.partition(";")[0].split()
            ours = bool(words) and words[0].lower() in wanted
        if ours:
            found.append(value)
        elif found:
            break
    return found


def sender_unverified(mail: Mail, authserv_id: str) -> str:
    """Why pbp cannot vouch for the mail's author (a clause: "this mail says it is from
    X, but ..."), or "". Whatever the settings: a From that is not one well-formed address
    (:attr:`pbp.mail.reading.Mail.from_problem`). With ``[security] trust_authserv_id`` set: non-empty unless the receiving server's
    own ``Authentication-Results`` (:func:`our_authentication_results`) show DKIM or SPF
    passing for a domain aligned with the From address (the same domain or a parent of it,
    as DMARC's relaxed alignment). For each method only the topmost header that reports it
    decides, so a forged ``dkim=pass`` that slipped in right below the server's real
    ``dkim=fail`` changes nothing. Headers from other servers are ignored: anyone can
    write one."""
    if mail.from_problem:
        return mail.from_problem
    if not authserv_id:
        return ""
    from_domain = mail.from_addr.rpartition("@")[2].lower()
    decided: set[str] = set()
    for header in our_authentication_results(mail, authserv_id):
        reported: set[str] = set()
        for clause in _without_comments(header).partition(";")[2].split(";"):
            words = clause.split()
            if not words or "=" not in words[0]:
                continue
            method, _, result = words[0].partition("=")
            method = method.lower()
            if method not in ("dkim", "spf") or method in decided:
                continue
            reported.add(method)
            if result.lower() != "pass":
                continue
            props = dict(w.split("=", 1) for w in words[1:] if "=" in w)
            if method == "dkim":
                domain = props.get("header.d", "") or props.get("header.i", "").rpartition("@")[2]
            else:
                domain = props.get("smtp.mailfrom", "").rpartition("@")[2] or props.get("smtp.helo", "")
            if _aligned(from_domain, domain.lower().strip(".")):
                return ""
        decided |= reported
    return f"the receiving mail server did not confirm it (no DKIM or SPF pass for {from_domain} from {authserv_id.strip()})"


def _without_comments(value: str) -> str:
    """``value`` without its RFC 5322 comments, which may nest and hold semicolons
    (OpenDKIM writes ``dkim=pass (2048-bit key; unprotected) header.d=...``)."""
    if "(" not in value:
        return value
    out, depth, quoted, escaped = [], 0, False, False
    for ch in value:
        if escaped:
            escaped = False
            if depth == 0:
                out.append(ch)
            continue
        if ch == "\\":
            escaped = True
        elif ch == '"' and depth == 0:
            quoted = not quoted
        elif ch == "(" and not quoted:
            depth += 1
            continue
        elif ch == ")" and depth and not quoted:
            depth -= 1
            if depth == 0:
                out.append(" ")
            continue
        if depth == 0:
            out.append(ch)
    return "".join(out)


def _aligned(from_domain: str, auth_domain: str) -> bool:
    """Relaxed alignment without a public-suffix list: the authenticated domain must have
    two labels at least (so "org" never vouches for "example.org")."""
    if "." not in auth_domain:
        return False
    return from_domain == auth_domain or from_domain.endswith("." + auth_domain)
