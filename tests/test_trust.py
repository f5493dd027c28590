"""Sender checks that cannot be forged, from the player's side: with ``trust_authserv_id``
set, only the receiving server's own Authentication-Results count; a member's post that
fails the check is refused with a reply to the registered address; a member's
out-of-office never rolls."""
from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

import pytest

from pbp.flow.context import Context
from pbp.pipeline import process_message
from pbp.rules.dice import FixedDice
from pbp.store import models as m
from tests.helpers import FIXED_NOW, eml, make_ctx, plain_text
from tests.test_headers import THREADED, check, replies
from tests.test_pipeline import sheet, snapshot_db

MX = "mx.pbp.localhost"
GIVE = "/fp give Ruth 1\n"

# The receiving server's real verdict on a mail that claims to be from the GM but was sent
# by a player from elsewhere: DKIM and SPF fail.
REAL_FAIL = (f"Authentication-Results: {MX};\n dkim=fail (bad signature) header.d=pbp.localhost;\n"
             " spf=fail smtp.mailfrom=gm@pbp.localhost\n")
FORGED_PASS = f"Authentication-Results: {MX}; dkim=pass header.d=pbp.localhost header.s=s1\n"
RECEIVED = ("Received: from evil.example (evil.example [192.0.2.66])\n by mx.pbp.localhost with ESMTPS;"
            " Sun, 29 Nov 2026 18:00:01 +0000\n")


def post(config, body: str, head: str, *, sender: str = "gm@pbp.localhost", message_id: str = "t-1@pbp.test",
         at=FIXED_NOW, dice: str = ""):
    """A mail whose header section starts with ``head`` (what the receiving side prepended),
    then the sender's own headers."""
    raw = head.encode() + eml(body, sender=sender, message_id=message_id)
    return process_message(raw, Context(config=config, dice=FixedDice(dice), clock=lambda: at))


@pytest.fixture
def strict(config):
    return replace(config, trust_authserv_id=MX)


@pytest.mark.parametrize("head", [
    REAL_FAIL + RECEIVED + FORGED_PASS,       # the forgery below the border Received
    REAL_FAIL + FORGED_PASS + RECEIVED,       # the forgery right below the real header
    RECEIVED + REAL_FAIL + FORGED_PASS,       # Gmail's order: the results below the border Received
    "",                                       # no results at all (the server strips them)
    FORGED_PASS.replace(MX, "mx.evil.example") + RECEIVED,   # another server's word
])
def test_a_forged_pass_does_not_let_a_player_give_fate_points_as_the_gm(chicago, strict, head):
    """Today's hole: a player writes From: the GM and adds his own ``dkim=pass`` below the
    server's real ``dkim=fail``; the /fp give went through. Now nothing applies and the GM
    (the registered address, not whoever sent it) is told why."""
    fp, before = sheet(chicago, "Ruth").fate_points, snapshot_db()
    out = post(strict, GIVE, head)
    assert out.status == "rejected" and sheet(chicago, "Ruth").fate_points == fp and snapshot_db() == before
    assert "did not confirm" in out.errors[0]["message"] and "DKIM or SPF" in out.errors[0]["message"]
    ((msg, raw),) = replies(out)
    check(msg, raw, THREADED, ["gm@pbp.localhost"])
    text = plain_text(msg)
    assert "Nothing in your post was applied" in text and "did not confirm" in text


@pytest.mark.parametrize("head", [
    # Postfix with OpenDMARC and OpenDKIM milters: several of ours above the border Received,
    # comments with semicolons in them
    (f"Authentication-Results: {MX}; dmarc=pass (p=none dis=none) header.from=pbp.localhost\n"
     f"Authentication-Results: {MX};\n dkim=pass (2048-bit key; unprotected) header.d=pbp.localhost"
     " header.i=@pbp.localhost header.b=AbCdEf12\n" + RECEIVED),
    # Gmail: Delivered-To, internal Received, ARC results, then the border Received, Received-SPF
    # and the results; DKIM named by header.i only
    ("Delivered-To: table@pbp.localhost\nReceived: by 2002:a05:6a10:1234 with SMTP id x;"
     " Sun, 29 Nov 2026 18:00:02 -0800 (PST)\n"
     f"ARC-Authentication-Results: i=1; {MX};\n dkim=pass header.i=@pbp.localhost\n"
     "Return-Path: <gm@pbp.localhost>\n" + RECEIVED +
     "Received-SPF: pass (google.com: domain of gm@pbp.localhost designates 192.0.2.1 as permitted sender)\n"
     f"Authentication-Results: {MX};\n dkim=pass header.i=@pbp.localhost header.s=20230601 header.b=Xy;\n"
     " spf=pass (google.com: domain of gm@pbp.localhost designates 192.0.2.1 as permitted sender)"
     " smtp.mailfrom=gm@pbp.localhost;\n dmarc=pass (p=NONE sp=NONE dis=NONE) header.from=pbp.localhost\n"),
    # the real pass with a forged fail below it: the real one decides
    f"Authentication-Results: {MX}; spf=pass smtp.mailfrom=gm@pbp.localhost\n" + RECEIVED
    + REAL_FAIL,
])
def test_the_servers_own_pass_lets_the_gm_play(chicago, strict, head):
    fp = sheet(chicago, "Ruth").fate_points
    out = post(strict, GIVE, head)
    assert out.status == "applied", out.errors
    assert sheet(chicago, "Ruth").fate_points == fp + 1


def test_the_notice_to_an_unverified_member_is_rate_limited(chicago, strict):
    """Forged posts in a member's name cannot turn the table into a mail bomb: one notice
    an hour to that member, the posts are still refused and recorded."""
    sent = []
    for i, minutes in enumerate([0, 5, 59, 61, 65]):
        out = post(strict, GIVE, REAL_FAIL, message_id=f"bomb-{i}@pbp.test", at=FIXED_NOW + timedelta(minutes=minutes))
        assert out.status == "rejected"
        sent.append(len(out.replies))
    assert sent == [1, 0, 0, 1, 0]
    # another member has a limit of their own
    out = post(strict, "/fp\n", REAL_FAIL, sender="ruth@pbp.localhost", message_id="ruth-1@pbp.test")
    assert [r["to"] for r in out.replies] == [["ruth@pbp.localhost"]]


def test_an_unverified_stranger_gets_no_reply(chicago, strict):
    """A stranger whose mail the server did not authenticate is not answered: the From
    could be anyone's, and a notice would be backscatter."""
    out = post(strict, "hello\n", REAL_FAIL.replace("gm@", "someone@"), sender="someone@example.org")
    assert out.status == "ignored" and out.replies == [] and "DKIM or SPF" in out.reason
    assert m.OutboxMail.select().count() == 0


def test_a_members_out_of_office_with_only_precedence_bulk_never_rolls(chicago, config):
    """An auto-reply that quotes a post (so holds a command line) and says only
    ``Precedence: bulk``: nothing rolls, nothing is relayed, no reply."""
    body = "I am away until Monday.\n\n/overcome Investigate vs Fair\n"
    for i, value in enumerate(["bulk", "Bulk", "junk", "auto_reply"]):
        out = process_message(eml(body, sender="charles@pbp.localhost", message_id=f"ooo-{i}@pbp.test",
                                  subject="Out of office", extra=f"Precedence: {value}\n"), make_ctx(config, "0000"))
        assert out.status == "ignored" and out.replies == [] and "Precedence" in out.reason
    assert m.RollRecord.select().count() == 0 and m.OutboxMail.select().count() == 0


def test_a_members_post_through_a_mailing_list_still_plays(chicago, config):
    out = process_message(eml("/overcome Investigate vs Fair\n", sender="charles@pbp.localhost",
                              extra="Precedence: list\nList-Id: <chicago.lists.example.org>\n"), make_ctx(config, "00++"))
    assert out.status == "applied" and m.RollRecord.select().count() == 1
    # a stranger's list mail is still ignored
    out = process_message(eml("hello\n", sender="someone@example.org", message_id="list-2@pbp.test",
                              extra="Precedence: list\n"), make_ctx(config))
    assert out.status == "ignored" and out.replies == []


@pytest.mark.parametrize("authserv", ["", MX])
@pytest.mark.parametrize("head", [
    "From: gm@pbp.localhost <evil@x.example>\n",          # an address where the name goes
    "From: <gm@pbp.localhost>evil@x.example\n",
    "From: gm@pbp.localhost evil@x.example\n",
    "From: gm@pbp.localhost, evil@x.example\n",            # two authors
    "From: GM <gm@pbp.localhost> <evil@x.example>\n",
    "From: Admins: gm@pbp.localhost;\n",                  # a group
    "From: gm@pbp.localhost\nFrom: evil@x.example\n",     # two From headers
])
def test_a_from_that_is_not_one_address_is_never_the_gm(chicago, config, authserv, head):
    """Issue 30, item 4: whatever the authentication settings, a From that is not one
    well-formed address is nobody's: the GM's /fp give does nothing, and the only mail that
    may go out is one notice to the GM's registered address (never to evil@x.example):
    when the lenient reading of the From names the GM, the GM is told; when it names
    nobody (``gm@x evil@y`` reads as "@y"), nobody is."""
    settings = replace(config, trust_authserv_id=authserv)
    fp, before = sheet(chicago, "Ruth").fate_points, snapshot_db()
    raw = (head + "To: table+chicago@pbp.localhost\nSubject: points\nMessage-ID: <bad-from@pbp.test>\n"
           "Date: Sun, 29 Nov 2026 18:00:00 +0000\nContent-Type: text/plain; charset=utf-8\n\n" + GIVE).encode()
    if authserv:
        raw = FORGED_PASS.encode() + raw       # even with a "pass" the sender wrote at the top
    out = process_message(raw, Context(config=settings, dice=FixedDice(""), clock=lambda: FIXED_NOW))
    assert sheet(chicago, "Ruth").fate_points == fp and snapshot_db() == before
    if out.status == "ignored":
        assert out.replies == [] and "not one well-formed address" in out.reason
        assert out.author != "gm@pbp.localhost" and m.OutboxMail.select().count() == 0
        return
    assert out.status == "rejected"
    assert "not one well-formed address" in out.errors[0]["message"] or "From headers" in out.errors[0]["message"]
    ((msg, raw_reply),) = replies(out)
    check(msg, raw_reply, THREADED, ["gm@pbp.localhost"])
    assert "evil" not in raw_reply.split("\n\n", 1)[0]       # no header of the reply names the sender's address
    assert "Nothing in your post was applied" in plain_text(msg)


def test_an_address_in_the_display_name_is_only_a_name(chicago, config):
    """``"gm@pbp.localhost" <evil@x.example>`` is one well-formed address: evil's. It is a
    stranger's mail (the one notice a day goes to evil), and the GM's points stay."""
    fp = sheet(chicago, "Ruth").fate_points
    out = process_message(eml(GIVE, sender='"gm@pbp.localhost" <evil@x.example>'), make_ctx(config))
    assert out.status == "rejected" and out.author == "evil@x.example" and sheet(chicago, "Ruth").fate_points == fp
    assert [r["to"] for r in out.replies] == [["evil@x.example"]]


def test_check_config_warns_when_the_maildir_inbox_has_no_results_of_the_trusted_server(tmp_path, monkeypatch,
                                                                                      capsys):
    """The Maildir transport gets the same check as IMAP (tests/test_trust_live.py)."""
    from pbp.cli import main
    from tests.helpers import cli_table

    cli_table(tmp_path, monkeypatch)
    toml = tmp_path / "pbp.toml"
    toml.write_text(toml.read_text().replace('trust_authserv_id = ""', f'trust_authserv_id = "{MX}"'))
    inbox = tmp_path / "maildir" / "inbox"
    (inbox / "new").mkdir(parents=True, exist_ok=True)
    (inbox / "cur").mkdir(exist_ok=True)
    (inbox / "new" / "1.eml").write_bytes(FORGED_PASS.replace(MX, "mx.other.test").encode() + eml(GIVE))
    capsys.readouterr()
    assert main(["check-config"]) == 0
    out = capsys.readouterr().out
    assert "WARN  trust_authserv_id in maildir inbox: none of the 1 newest mails in the inbox carries" in out, out
    (inbox / "new" / "2.eml").write_bytes(FORGED_PASS.encode() + eml(GIVE, message_id="t-2@pbp.test"))
    assert main(["check-config"]) == 0
    out = capsys.readouterr().out
    assert "ok    trust_authserv_id in maildir inbox: 1 of the 2 newest mails in the inbox carry" in out, out
