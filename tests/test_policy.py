"""Mail pbp must not answer, and the optional Authentication-Results sender check."""
from __future__ import annotations

import pytest

from pbp.mail.reading import read_message
from pbp.policy import auto_reply_reason, bulk_reason, sender_unverified
from tests.helpers import eml


def mail(extra: str = "", sender: str = "ruth@example.org"):
    return read_message(eml("hello\n", sender=sender, extra=extra))


@pytest.mark.parametrize("extra,expected", [
    ("Auto-Submitted: auto-replied\n", "Auto-Submitted"),
    ("Auto-Submitted: auto-generated\n", "Auto-Submitted"),
    ("X-Autoreply: yes\n", "X-Autoreply"),
    ("X-Auto-Response-Suppress: All\n", "X-Auto-Response-Suppress"),
    ("Return-Path: <>\n", "bounce"),
])
def test_auto_replies_and_bounces(extra, expected):
    assert expected in auto_reply_reason(mail(extra))


def test_ordinary_mail_passes():
    assert auto_reply_reason(mail("Auto-Submitted: no\nReturn-Path: <ruth@example.org>\n")) == ""
    assert auto_reply_reason(mail(sender="MAILER-DAEMON@mx.example.org")) != ""


@pytest.mark.parametrize("value", ["bulk", "junk", "list"])
def test_bulk_precedence(value):
    assert bulk_reason(mail(f"Precedence: {value}\n")) == f"Precedence: {value}"


AR = "Authentication-Results: {server}; {results}\n"


@pytest.mark.parametrize("server,results,ok", [
    ("mx.example.net", "dkim=pass header.d=example.org header.s=s1", True),
    ("mx.example.net", "spf=pass smtp.mailfrom=ruth@example.org", True),
    ("mx.example.net", "dkim=pass header.d=mail.other.test; spf=fail smtp.mailfrom=ruth@example.org", False),
    ("mx.example.net", "dkim=fail header.d=example.org", False),
    ("evil.test", "dkim=pass header.d=example.org", False),   # not our server: ignored
    ("mx.example.net", "dkim=pass header.d=org", False),      # a bare TLD is not aligned
])
def test_authentication_results_alignment(server, results, ok):
    m = mail(AR.format(server=server, results=results))
    assert (sender_unverified(m, "mx.example.net") == "") is ok


def test_subdomain_sender_aligns_with_parent_dkim_domain():
    m = mail(AR.format(server="mx.example.net", results="dkim=pass header.d=example.org"), sender="ruth@lists.example.org")
    assert sender_unverified(m, "mx.example.net") == ""


def test_check_is_off_without_a_trusted_server():
    assert sender_unverified(mail(), "") == ""


def test_only_the_topmost_run_of_our_results_counts():
    from pbp.policy import our_authentication_results

    ours = "Authentication-Results: mx.example.net; dkim=fail header.d=example.org\n"
    forged = "Authentication-Results: mx.example.net; dkim=pass header.d=example.org\n"
    other = "Authentication-Results: mx.other.test; dkim=pass header.d=example.org\n"
    received = "Received: from x by mx.example.net; Sun, 29 Nov 2026 18:00:00 +0000\n"
    m = read_message((ours + other + forged).encode() + eml("hi\n", sender="ruth@example.org"))
    assert our_authentication_results(m, "mx.example.net") == ["mx.example.net; dkim=fail header.d=example.org"]
    m = read_message((received + ours + ours.replace("fail", "none")).encode() + eml("hi\n"))
    assert len(our_authentication_results(m, "MX.example.net")) == 2
    # a forged pass next to the real one does not outvote it: the topmost report of a method decides
    m = read_message((ours + forged).encode() + eml("hi\n", sender="ruth@example.org"))
    assert sender_unverified(m, "mx.example.net") != ""
    m = read_message((forged + received + ours).encode() + eml("hi\n", sender="ruth@example.org"))
    assert sender_unverified(m, "mx.example.net") == ""


def test_comments_and_header_i():
    m = mail("Authentication-Results: mx.example.net;\n dkim=pass (2048-bit key; unprotected)"
             " header.i=@mail.example.org header.b=x\n", sender="ruth@mail.example.org")
    assert sender_unverified(m, "mx.example.net") == ""


def test_precedence_bulk_is_an_automatic_mail_but_list_is_not():
    assert "Precedence: bulk" in auto_reply_reason(mail("Precedence: bulk\n"))
    assert auto_reply_reason(mail("Precedence: list\n")) == ""


def test_several_trusted_servers():
    m = mail(AR.format(server="mx2.example.net", results="dkim=pass header.d=example.org"))
    assert sender_unverified(m, "mx1.example.net, mx2.example.net") == ""
    assert sender_unverified(m, "mx1.example.net") != ""
