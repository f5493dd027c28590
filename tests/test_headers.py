"""Nothing anyone types reaches a header: every reply pbp writes, read back from the outbox
with the standard parser, has exactly the headers pbp means to write, no line over RFC
5322's 998 characters, only ASCII, and only valid recipients; whatever the subject, the
threading headers, the campaign name or the addresses in the database hold."""
from __future__ import annotations

import email
from email import policy

import pytest

from pbp.parser import parse_command
from pbp.pipeline import process_message
from pbp.store import models as m
from tests.helpers import eml, make_ctx, plain_text
from tests.test_pipeline import snapshot_db

BASE = {"from", "to", "subject", "date", "message-id", "auto-submitted", "x-pbp-campaign", "mime-version",
        "content-type"}
THREADED = BASE | {"in-reply-to", "references"}
#: the table's mail (to every member) also says it is a list's (docs/operating.md, "Bounces and list headers")
LIST = {"list-id", "list-post", "list-unsubscribe"}
MEMBERS = sorted(["cassandra@pbp.localhost", "charles@pbp.localhost", "ethan@pbp.localhost", "gm@pbp.localhost",
                  "ruth@pbp.localhost"])


def replies(outcome) -> list[tuple[email.message.EmailMessage, str]]:
    """Each reply of an outcome as the standard parser reads it from the outbox, with its raw text."""
    out = []
    for r in outcome.replies:
        row = m.OutboxMail.get(m.OutboxMail.message_id == r["message_id"])
        out.append((email.message_from_string(row.raw, policy=policy.default), row.raw))
    return out


def check(msg, raw: str, names: set[str], to: list[str]) -> None:
    """The RFC 5322 limits and exactly the header names and recipients expected."""
    assert raw.isascii()
    head = raw.split("\n\n", 1)[0]
    assert all(len(line) <= 998 for line in raw.splitlines())
    assert all(len(line) <= 998 for line in head.split("\n"))
    if sorted(to) == MEMBERS:   # the table's mail
        names = names | LIST
    assert {k.lower() for k in msg.keys()} == names, sorted(msg.keys())
    assert len(msg.keys()) == len(names)  # no header twice
    assert sorted(a.addr_spec for a in msg["To"].addresses) == sorted(to)
    assert not msg.defects and all(not msg[k].defects for k in msg.keys())
    assert msg["From"].addresses[0].addr_spec == "table+chicago@pbp.localhost"


def raw_post(head: bytes, body: bytes = b"/overcome Investigate vs Fair\n") -> bytes:
    return (b"From: ruth@pbp.localhost\nTo: table+chicago@pbp.localhost\nDate: Sun, 29 Nov 2026 18:00:00 +0000\n"
            b"MIME-Version: 1.0\nContent-Type: text/plain; charset=utf-8\n" + head + b"\n" + body)


def test_an_ordinary_reply_has_exactly_its_headers(chicago, config):
    out = process_message(eml("/overcome Investigate vs Fair\n"), make_ctx(config, "0000"))
    assert out.status == "applied"
    ((msg, raw),) = replies(out)
    check(msg, raw, THREADED, MEMBERS)
    assert msg["Subject"] == "Re: [Chicago Nights] The warehouse"
    assert msg["In-Reply-To"] == "<post-1@pbp.test>" and msg["References"] == "<post-1@pbp.test>"


@pytest.mark.parametrize("subject", [
    "The warehouse " * 360,                                        # 5,000 characters, ASCII with spaces
    "x" * 5000,                                                    # one 5,000-character word
    "Café " * 1000,                                                # non-ASCII, raw UTF-8
    "=?utf-8?b?" + "w5w=" * 300 + "?=",                            # an encoded word of 300 "Ü"
    "=?utf-8?q?a=0D=0AReply-To:_evil@x.org?=",                     # CR LF inside an encoded word
    "=?utf-8?q?rtl=E2=80=AEevil=00nul=0Bvt?=",                     # bidi override, NUL, vertical tab
])
def test_any_subject_gives_a_short_clean_subject(chicago, config, subject):
    head = f"Subject: {subject}\nMessage-ID: <s-1@pbp.test>\n".encode("utf-8")
    out = process_message(raw_post(head), make_ctx(config, "0000"))
    assert out.status == "applied", out.errors
    ((msg, raw),) = replies(out)
    check(msg, raw, THREADED, MEMBERS)
    got = msg["Subject"]
    assert got.startswith("Re: [Chicago Nights] ") and len(got) <= 400
    assert not any(ch in got for ch in "\r\n\0\x0b\u202e") and "Reply-To" not in msg


def test_threading_ids_never_copied_raw_and_references_trimmed(chicago, config):
    many = b" ".join(b"<r-%d@pbp.test>" % i for i in range(500))
    head = (b"Subject: long thread\nMessage-ID: <caf\xc3\xa9-\xff@pbp.test>\n"
            b"In-Reply-To: <r-499@pbp.test>\nReferences: " + many + b" <8bit-\xe9t\xe9@x> <" + b"y" * 5000 + b"@x>\n")
    out = process_message(raw_post(head), make_ctx(config, "0000"))
    assert out.status == "applied"
    ((msg, raw),) = replies(out)
    # the post's own id is 8-bit: no In-Reply-To can be written, so no threading headers at all
    check(msg, raw, BASE, MEMBERS)

    head = b"Subject: long thread\nMessage-ID: <last@pbp.test>\nReferences: " + many + b" <8bit-\xe9t\xe9@x>\n"
    out = process_message(raw_post(head), make_ctx(config, "0000"))
    ((msg, raw),) = replies(out)
    check(msg, raw, THREADED, MEMBERS)
    refs = msg["References"].split()
    assert len(refs) == 20 and refs[0] == "<r-0@pbp.test>" and refs[-1] == "<last@pbp.test>"
    assert refs[-2] == "<r-499@pbp.test>" and msg["In-Reply-To"] == "<last@pbp.test>"


def test_bad_values_in_the_database_never_make_a_header(chicago, config):
    """Defence in depth: a campaign name and a member address with a header in them, put
    straight into the database (as an old version or a careless script might), do not
    add a header; the bad address gets nothing, the others get the reply."""
    m.Campaign.update(name="Evil\r\nReply-To: evil@x.org\r\nBcc: all@x.org").where(m.Campaign.id == chicago.id).execute()
    m.Member.create(campaign=chicago, email="mallory@x.org\r\nReply-To: evil@x.org", role="player")
    m.Member.create(campaign=chicago, email="Mallory <mallory@x.org>", role="player")
    out = process_message(eml("/overcome Investigate vs Fair\n"), make_ctx(config, "0000"))
    assert out.status == "applied"
    ((msg, raw),) = replies(out)
    check(msg, raw, THREADED, MEMBERS)
    assert "Reply-To" not in msg and "Bcc" not in msg
    assert "\r" not in msg["From"] and "\n" not in msg["Subject"]


def test_a_tell_to_a_player_whose_address_is_broken_is_not_written(chicago, config):
    """The GM's private mail to a PC's player goes to the player's address only when it is
    an addr-spec; the table reply still goes out."""
    m.Character.update(player="ruth@pbp.localhost\nReply-To: evil@x.org").where(
        (m.Character.campaign == chicago) & (m.Character.name == "Ruth")).execute()
    body = '/compel Ruth "Hair-Trigger Temper" event "The ghoul taunts you"\n'
    out = process_message(eml(body, sender="gm@pbp.localhost"), make_ctx(config))
    assert out.status == "applied", out.errors
    for msg, raw in replies(out):
        names = {k.lower() for k in msg.keys()}
        assert names in (THREADED, BASE, THREADED | LIST) and "reply-to" not in names
        assert all(len(line) <= 998 for line in raw.splitlines())
        assert all("evil" not in a.addr_spec for a in msg["To"].addresses)


@pytest.mark.parametrize("sender", ["rüth@example.org", "a\x01b@example.org", "x@-bad-.org"])
def test_a_stranger_whose_from_is_no_addr_spec_gets_no_reply(chicago, config, sender):
    raw = raw_post(b"Subject: hi\nMessage-ID: <st-1@pbp.test>\n", b"hello\n").replace(
        b"From: ruth@pbp.localhost", b"From: " + sender.encode("utf-8"))
    out = process_message(raw, make_ctx(config))
    assert out.replies == [] and m.OutboxMail.select().count() == 0
    assert "not one well-formed address" in out.reason


def test_a_stranger_with_a_valid_address_gets_one_clean_notice(chicago, config):
    out = process_message(eml("hello\n", sender="someone@example.org", subject="y" * 3000), make_ctx(config))
    ((msg, raw),) = replies(out)
    check(msg, raw, THREADED, ["someone@example.org"])


@pytest.mark.parametrize("line,sender", [
    ('/npc add "Gh\u202eoul"', "gm@pbp.localhost"),
    ('/npc add Grue aspects "Hun\u0001gry"', "gm@pbp.localhost"),  # (a NUL never reaches a line)
    ('/aspect add "Deep\u2062Shadows"', "gm@pbp.localhost"),
    ('/aspect add "Deep Shadows\u2066"', "ruth@pbp.localhost"),
    ('/scene start "The \u202dWarehouse"', "gm@pbp.localhost"),
    ('/aspect rename "Nasty Bite" to "Bandaged\u0007 Bite"', "ruth@pbp.localhost"),
    ('/detail "The sewer grate\u202e is loose"', "ruth@pbp.localhost"),
    ('/as Gh\u2063oul roll Fight', "gm@pbp.localhost"),
])
def test_a_command_with_a_control_bidi_or_zero_width_character_is_refused(chicago, config, line, sender):
    before = snapshot_db()
    out = process_message(eml(f"Prose first.\n{line}\n", sender=sender), make_ctx(config))
    assert out.status == "rejected" and snapshot_db() == before
    (err,) = out.errors
    assert err["line"] == 2 and "U+" in err["message"] and err["expected"]
    parse_command(err["example"])  # the example itself parses
    ((msg, raw),) = replies(out)
    check(msg, raw, THREADED, [sender])
    text = plain_text(msg)
    assert "cannot be part of a command" in text
    assert not any(ch in text for ch in "\u202e\u202d\u2066\u2062\u2063\0\x07")  # the echo shows "?" instead


@pytest.mark.parametrize("invisible", ["\u200b", "\u200d", "\u2060", "\ufeff", "\u00ad", "\u200e"])
def test_the_invisible_characters_mail_clients_insert_are_removed_not_refused(chicago, config, invisible):
    """Issue 8 item 5: BOM, zero-width space and joiners, word joiner, soft hyphen and LRM/RLM
    are dropped before parsing, so the aspect is named as it reads on screen."""
    out = process_message(eml(f'/aspect add "Deep{invisible}Shadows"\n', sender="gm@pbp.localhost"), make_ctx(config))
    assert out.status == "applied", out.errors
    assert m.Aspect.select().where(m.Aspect.name == "DeepShadows").exists()


def test_a_5000_character_message_id_or_from_is_not_kept_or_copied(chicago, config):
    """Neither fits a database column (PostgreSQL refused the post with a traceback) nor a
    header line: the post plays under the synthetic id of its bytes, with no threading
    headers, and a second copy is still a duplicate; an over-long From is nobody."""
    raw = eml("/overcome Investigate vs Fair\n", message_id="x" * 5000 + "@pbp.test")
    out = process_message(raw, make_ctx(config, "0000"))
    assert out.status == "applied" and out.message_id.endswith("@pbp.invalid")
    ((msg, raw_reply),) = replies(out)
    check(msg, raw_reply, BASE, MEMBERS)
    assert process_message(raw, make_ctx(config, "0000")).status == "duplicate"
    queued = m.OutboxMail.select().count()
    out = process_message(eml("hello\n", sender="a" * 300 + "@example.org", message_id="long-from@pbp.test"),
                          make_ctx(config))
    assert out.status == "ignored" and out.replies == [] and m.OutboxMail.select().count() == queued
    assert "not one well-formed address" in out.reason


from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_header_bytes = st.binary(min_size=0, max_size=300).map(lambda b: b.replace(b"\r", b"").replace(b"\n", b""))
_numbers = iter(range(10**9))


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(subject=st.text(max_size=600),
       # the post's own id stays one id (no brackets or spaces: else copies collide as duplicates)
       msgid=_header_bytes.map(lambda b: bytes(c for c in b if c not in b"<> \t")), refs=st.lists(_header_bytes, max_size=30),
       irt=_header_bytes)
def test_random_subjects_and_threading_headers_give_clean_replies(chicago, config, subject, msgid, refs, irt):
    n = next(_numbers)
    head = (b"Subject: " + subject.encode("utf-8", "surrogatepass").replace(b"\r", b"").replace(b"\n", b"")
            + b"\nMessage-ID: <u%d." % n + msgid + b"@pbp.test>\nIn-Reply-To: " + irt
            + b"\nReferences: " + b" ".join(b"<" + r + b">" for r in refs) + b"\n")
    # a roll of its own each example (one campaign serves them all; the same command in
    # answer to the same In-Reply-To would be an edited copy, answered as a duplicate)
    out = process_message(raw_post(head, b"/roll %dd6\n" % (n % 100 + 1)), make_ctx(config))
    assert out.status == "applied", out.errors
    ((msg, raw),) = replies(out)
    names = {k.lower() for k in msg.keys()}
    check(msg, raw, THREADED if "in-reply-to" in names else BASE, MEMBERS)
    assert len(msg["Subject"]) <= 400 and msg["Subject"].startswith("Re: [Chicago Nights]")
