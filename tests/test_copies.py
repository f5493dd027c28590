"""No roll twice by copy (issue 8, item 4) and a re-sent Message-ID (item 1), from the
player's side: a mail in through the real pipeline, every reply and its recipients read
back from the outbox, the dice ledger and the table checked."""
from __future__ import annotations

import email
import json
from email import policy

import pytest

from pbp.pipeline import process_message
from pbp.store import models as m
from tests.helpers import eml, make_ctx, plain_text
from tests.test_pipeline import snapshot_db

RUTH, CHARLES, CASSANDRA = "ruth@pbp.localhost", "charles@pbp.localhost", "cassandra@pbp.localhost"
GM_MAIL = "gm-scene-1@pbp.test"        # the GM's mail that the posts answer
POST = "Ruth goes through the crates.\n/overcome Investigate vs Fair\n"


def replies(outcome) -> list[tuple[list[str], str]]:
    """(recipients, the whole mail as text: headers, plain and HTML parts) of each reply."""
    out = []
    for r in outcome.replies:
        row = m.OutboxMail.get(m.OutboxMail.message_id == r["message_id"])
        msg = email.message_from_string(row.raw, policy=policy.default)
        parts = [(plain_text(msg) if p.get_content_subtype() == "plain" else p.get_content())
                  for p in msg.walk() if p.get_content_maintype() == "text"]
        out.append((list(row.recipients), "\n".join([str(msg["Subject"]), *parts])))
    return out


def as_json(outcome) -> dict:
    """The ``pbp process --json`` line, read back as a client would."""
    return json.loads(json.dumps(outcome.to_dict()))


def reply_to(message_id: str) -> str:
    return f"In-Reply-To: <{message_id}>\nReferences: <{message_id}>\n"


def first_post(config, body=POST, message_id="post-1@pbp.test", dice="00++", answering=GM_MAIL):
    out = process_message(eml(body, message_id=message_id, extra=reply_to(answering) if answering else ""),
                          make_ctx(config, dice))
    assert out.status == "applied", out.errors
    return out


def assert_nothing_rolled_since(before):
    assert snapshot_db() == before


# --------------------------------------------------------------------------- edited copies


def test_an_edited_copy_returns_the_original_result_and_never_rolls(chicago, config):
    first = first_post(config)
    before = snapshot_db()
    edited = ("Ruth goes through the crates, slowly this time (typo fixed).\n"
              "  /Overcome   investigate VS fair\n")
    copy = process_message(eml(edited, message_id="post-1-edited@pbp.test", extra=reply_to(GM_MAIL)),
                           make_ctx(config, "----"))
    assert copy.status == "duplicate"
    assert copy.results == first.results and copy.results[0]["dice"] == [0, 0, 1, 1]
    assert_nothing_rolled_since(before)
    ((to, text),) = replies(copy)
    assert to == [RUTH]
    assert "edited copy" in text and "nothing was rolled" in text and "Sun 29 Nov 2026 18:00 UTC" in text
    assert "[0] [0] [+] [+]" in text          # the original result, as the table got it
    assert '/again "the guards have gone"' in text
    doc = as_json(copy)
    assert doc["status"] == "duplicate" and doc["duplicate_of"] == "post-1@pbp.test"
    assert doc["message_id"] == "post-1-edited@pbp.test" and doc["author"] == RUTH
    assert doc["results"][0]["roll_id"] == first.results[0]["roll_id"]

    # the copy, resent with its own Message-ID, is a duplicate in turn
    again = process_message(eml(edited, message_id="post-1-edited@pbp.test", extra=reply_to(GM_MAIL)),
                            make_ctx(config, "----"))
    assert again.status == "duplicate" and replies(again)[0][0] == [RUTH]
    assert_nothing_rolled_since(before)


def test_the_same_command_in_answer_to_another_mail_rolls(chicago, config):
    """The next attack's /defend, or an overcome in reply to the GM's new description, is a
    new move: the thread moved on."""
    first_post(config)
    out = process_message(eml(POST, message_id="post-2@pbp.test", extra=reply_to("gm-scene-2@pbp.test")),
                          make_ctx(config, "----"))
    assert out.status == "applied" and out.results[0]["dice"] == [-1, -1, -1, -1]
    assert m.RollRecord.select().count() == 2
    assert "duplicate_of" not in as_json(out)


# --------------------------------------------------------------------------- copies sent as new mails


@pytest.mark.parametrize("answering", [GM_MAIL, None])
def test_a_copy_pasted_into_a_new_mail_returns_the_original_result(chicago, config, answering):
    """Issue 30, item 2: Ruth fixes a typo and pastes her post into a new mail, which has a
    new Message-ID and no In-Reply-To (the original answered the GM's mail, or nothing).
    Same author, same commands, nearly the same words, within the copy window: a copy."""
    first = first_post(config, body="Ruth goes thruogh the crates by the door.\n/overcome Investigate vs Fair\n",
                       answering=answering)
    before = snapshot_db()
    copy = process_message(eml("Ruth goes through the crates by the door.\n/overcome  Investigate vs Fair\n",
                               message_id="pasted@pbp.test"), make_ctx(config, "----"))
    assert copy.status == "duplicate", (copy.status, copy.errors)
    assert copy.results == first.results
    assert_nothing_rolled_since(before)
    ((to, text),) = replies(copy)
    assert to == [RUTH] and "nearly all of its words" in text and "[0] [0] [+] [+]" in text
    assert '/again "the guards have gone"' in text
    assert as_json(copy)["duplicate_of"] == "post-1@pbp.test"


def test_a_forward_in_a_form_pbp_does_not_know_is_caught_by_its_words(chicago, config):
    """A client that forwards with a header pbp does not read as a forward (the words of
    the original end up as the new text): the same commands and nearly the same words."""
    first_post(config, body="Ruth goes through the crates by the door, lamp held high.\n"
                            "/overcome Investigate vs Fair\n", answering=None)
    before = snapshot_db()
    body = ("Ruth goes through the crates by the door, lamp held high.\n/overcome Investigate vs Fair\n")
    out = process_message(eml(body, subject="WG: The warehouse", message_id="fwd-x@pbp.test"),
                          make_ctx(config, "----"))
    assert out.status == "duplicate" and as_json(out)["duplicate_of"] == "post-1@pbp.test"
    assert_nothing_rolled_since(before)


def test_posts_in_new_mails_with_other_words_or_after_the_window_roll(chicago, config):
    """The same command in a new mail is a new move when its words are others, or when the
    copy window has passed."""
    from datetime import timedelta

    from pbp.copies import COPY_WINDOW
    from pbp.flow.context import Context
    from pbp.rules.dice import FixedDice
    from tests.helpers import FIXED_NOW

    first_post(config, answering=None)
    out = process_message(eml("The lamp gutters; Ruth tries the office desk instead.\n/overcome Investigate vs Fair\n",
                              message_id="post-2@pbp.test"), make_ctx(config, "----"))
    assert out.status == "applied" and m.RollRecord.select().count() == 2
    later = Context(config=config, dice=FixedDice("++++"), clock=lambda: FIXED_NOW + COPY_WINDOW + timedelta(minutes=1))
    out = process_message(eml(POST, message_id="post-3@pbp.test"), later)
    assert out.status == "applied" and m.RollRecord.select().count() == 3


def test_again_in_a_new_mail_rolls(chicago, config):
    first_post(config, answering=None)
    out = process_message(eml('/again "the guards have gone"\n' + POST, message_id="again-new@pbp.test"),
                          make_ctx(config, "+++0"))
    assert out.status == "applied" and out.results[1]["dice"] == [1, 1, 1, 0]
    ((to, text),) = replies(out)
    assert RUTH in to and "Ruth tries again: the guards have gone" in text


def test_the_prose_sketch_tells_near_from_other_words():
    from pbp.copies import similar, sketch

    a = sketch("ruth goes through the crates by the door.")
    assert len(a) == 128 and similar(a, sketch("ruth goes thruogh the crates by the door."))
    assert similar(a, sketch("ruth goes through the crates by the door, slowly."))
    assert not similar(a, sketch("the lamp gutters; ruth tries the office desk instead."))
    assert not similar("", "") and not similar(a, "") and not similar(None, a)
    assert sketch("ruth hides.") == ""      # too few words to tell a copy by


@pytest.mark.parametrize("text", ["ruth goes through the crates by the door.",
                                  "Rute vasculha as caixas junto à porta, devagar.",
                                  "the lamp gutters \udcff; ruth tries the office desk instead."])
def test_the_sketch_is_the_one_rows_written_before_hold(text):
    """Sketches are compared with those of earlier posts: the faster hashing gives the same
    value, ASCII or not (each shingle's BLAKE2b-32 digest as 8 hex digits, the 16 smallest)."""
    import hashlib

    from pbp.copies import sketch

    shingles = {text[i:i + 4] for i in range(len(text) - 3)}
    hashes = sorted({hashlib.blake2b(s.encode("utf-8", "surrogatepass"), digest_size=4).hexdigest() for s in shingles})
    assert sketch(text) == "".join(hashes[:16])


def test_a_bare_command_sent_again_in_a_new_mail_rolls(chicago, config):
    """No words besides the command: nothing tells a copy from the next attempt (the GM's
    next /approve, the next /done), so it runs."""
    first_post(config, body="/overcome Investigate vs Fair\n", answering=None)
    out = process_message(eml("/overcome Investigate vs Fair\n", message_id="bare-2@pbp.test"),
                          make_ctx(config, "----"))
    assert out.status == "applied" and m.RollRecord.select().count() == 2


def test_reading_commands_are_never_held_back(chicago, config):
    for n in (1, 2):
        out = process_message(eml("/sheet\n/fp\n", message_id=f"sheet-{n}@pbp.test", extra=reply_to(GM_MAIL)),
                              make_ctx(config))
        assert out.status == "applied" and out.results[0]["sheet"]["name"] == "Ruth"


def test_a_rejected_post_may_be_sent_again_once_mended(chicago, config):
    """Only applied posts have a fingerprint: a refused one changed nothing."""
    for n in range(3):
        first_post(config, body="/fp spend\n", message_id=f"fp-{n}@pbp.test", dice="", answering=f"gm-{n}@pbp.test")
    refused = process_message(eml("/fp spend\n", message_id="fp-x@pbp.test", extra=reply_to(GM_MAIL)),
                              make_ctx(config))
    assert refused.status == "rejected"
    gm = process_message(eml("/fp give Ruth 1\n", sender="gm@pbp.localhost", message_id="gm-fp@pbp.test"),
                         make_ctx(config))
    assert gm.status == "applied", gm.errors
    out = process_message(eml("Trying again.\n/fp spend\n", message_id="fp-y@pbp.test", extra=reply_to(GM_MAIL)),
                          make_ctx(config))
    assert out.status == "applied", out.errors


# --------------------------------------------------------------------------- /again


def test_again_says_a_repeat_is_meant_and_rolls(chicago, config):
    first_post(config)
    body = 'The guards have gone; Ruth tries the crates once more.\n/again "the guards have gone"\n' + POST
    out = process_message(eml(body, message_id="post-again@pbp.test", extra=reply_to(GM_MAIL)),
                          make_ctx(config, "+++0"))
    assert out.status == "applied", out.errors
    assert [r["action"] for r in out.results] == ["again", "overcome"]
    assert out.results[1]["dice"] == [1, 1, 1, 0] and m.RollRecord.select().count() == 2
    (to, text), = replies(out)
    assert RUTH in to and "Ruth tries again: the guards have gone" in text

    # an edited copy of the /again post is itself a copy
    before = snapshot_db()
    copy = process_message(eml(body + "(sorry, resent)\n", message_id="post-again-2@pbp.test",
                               extra=reply_to(GM_MAIL)), make_ctx(config, "----"))
    assert copy.status == "duplicate" and as_json(copy)["duplicate_of"] == "post-again@pbp.test"
    assert_nothing_rolled_since(before)


def test_a_bare_again_works_too(chicago, config):
    first_post(config)
    out = process_message(eml("/again\n" + POST, message_id="post-again@pbp.test", extra=reply_to(GM_MAIL)),
                          make_ctx(config, "0000"))
    assert out.status == "applied" and m.RollRecord.select().count() == 2


# --------------------------------------------------------------------------- forwards


FORWARD_HEADER = ("---------- Forwarded message ---------\n"
                  "From: Ruth Beaumont <{sender}>\n"
                  "Date: Sun, Nov 29, 2026 at 6:00 PM\n"
                  "Subject: The warehouse\n"
                  "To: <table+chicago@pbp.localhost>\n\n\n")
FORWARD_HEADERS = {  # how clients write an inline forward
    "gmail": FORWARD_HEADER,
    "thunderbird": ("-------- Forwarded Message --------\nSubject: \tThe warehouse\n"
                    "Date: \tSun, 29 Nov 2026 18:00:00 +0000\nFrom: \tRuth <{sender}>\n"
                    "To: \ttable+chicago@pbp.localhost\n\n\n\n"),
    "apple-mail": ("Begin forwarded message:\n\nFrom: Ruth <{sender}>\nSubject: The warehouse\n"
                   "Date: 29 November 2026 at 18:00:00 GMT\nTo: table+chicago@pbp.localhost\n\n"),
    "thunderbird-de": ("-------- Weitergeleitete Nachricht --------\nBetreff: The warehouse\n"
                       "Datum: Sun, 29 Nov 2026 18:00:00 +0000\nVon: Ruth <{sender}>\n"
                       "An: table+chicago@pbp.localhost\n\n"),
}


@pytest.mark.parametrize("client", sorted(FORWARD_HEADERS))
def test_a_forward_with_the_original_as_text_returns_the_original_result(chicago, config, client):
    first = first_post(config)
    before = snapshot_db()
    body = FORWARD_HEADERS[client].format(sender=RUTH) + POST
    out = process_message(eml(body, subject="Fwd: The warehouse", message_id="fwd-1@pbp.test"),
                          make_ctx(config, "----"))
    assert out.status == "duplicate"
    assert out.results == first.results
    assert_nothing_rolled_since(before)
    ((to, text),) = replies(out)
    assert to == [RUTH] and "forwards your post" in text and "[0] [0] [+] [+]" in text
    assert as_json(out)["duplicate_of"] == "post-1@pbp.test"


def test_new_commands_written_above_a_forward_are_the_authors_and_run(chicago, config):
    """Text above the forward is the author's new text: the trimmer cuts the forwarded
    mail, and the author's own command is a new move."""
    first_post(config)
    body = "Forwarding this for the GM; and Ruth leans on the guard.\n/fp spend\n\n" + \
        FORWARD_HEADER.format(sender=RUTH) + POST
    out = process_message(eml(body, subject="Fwd: The warehouse", message_id="fwd-new@pbp.test"),
                          make_ctx(config))
    assert out.status == "applied", out.errors
    assert [r["command"] for r in out.results] == ["/fp spend"] and m.RollRecord.select().count() == 1


def test_a_forward_as_message_rfc822_returns_the_original_result(chicago, config):
    first = first_post(config)
    before = snapshot_db()
    original = eml(POST, message_id="post-1@pbp.test", extra=reply_to(GM_MAIL)).decode()
    raw = ("From: Ruth <ruth@pbp.localhost>\nTo: table+chicago@pbp.localhost\nSubject: Fwd: The warehouse\n"
           "Message-ID: <fwd-2@pbp.test>\nMIME-Version: 1.0\n"
           'Content-Type: multipart/mixed; boundary="b1"\n\n'
           "--b1\nContent-Type: text/plain; charset=utf-8\n\nDid this one reach you?\n\n"
           "--b1\nContent-Type: message/rfc822\nContent-Disposition: inline\n\n"
           f"{original}\n--b1--\n").encode()
    out = process_message(raw, make_ctx(config, "----"))
    assert out.status == "duplicate" and out.results == first.results
    assert_nothing_rolled_since(before)
    ((to, text),) = replies(out)
    assert to == [RUTH] and "forwards your post" in text
    assert as_json(out)["duplicate_of"] == "post-1@pbp.test"


def test_a_forward_of_pbps_mail_with_new_commands_above_rolls(chicago, config):
    """The Evolution fixture: Charles forwards the table's mail (as message/rfc822) and
    writes a command of his own above it: that command is his new move."""
    from tests.mail.test_reading import fixture

    raw = fixture("forwarded_rfc822.eml").replace(b"charles@whitmore.example", CHARLES.encode())
    out = process_message(raw, make_ctx(config, "++++"))
    assert out.status == "applied", out.errors
    assert [r["command"] for r in out.results] == ["/overcome Lore vs Great"]


def test_a_forward_of_another_members_post_runs_nothing_and_shows_nothing(chicago, config):
    first_post(config)
    before = snapshot_db()
    body = FORWARD_HEADER.format(sender=RUTH) + POST
    out = process_message(eml(body, sender=CASSANDRA, subject="Fwd: The warehouse", message_id="fwd-3@pbp.test"),
                          make_ctx(config, "----"))
    assert out.status == "duplicate"
    doc = as_json(out)
    assert doc["results"] == [] and doc["errors"] == [] and "duplicate_of" not in doc
    assert_nothing_rolled_since(before)
    ((to, text),) = replies(out)
    assert to == [CASSANDRA] and "another member's post" in text
    assert "[0] [0] [+] [+]" not in text and "Investigate" not in text


# --------------------------------------------------------------------------- a re-sent Message-ID


def test_a_resent_message_id_from_its_author_gets_the_original_result(chicago, config):
    first = first_post(config)
    out = process_message(eml(POST, message_id="post-1@pbp.test", extra=reply_to(GM_MAIL)), make_ctx(config, "----"))
    assert out.status == "duplicate" and out.results == first.results
    ((to, text),) = replies(out)
    assert to == [RUTH] and "already handled" in text and "[0] [0] [+] [+]" in text
    assert as_json(out)["status"] == "duplicate"


def test_another_member_reusing_a_message_id_sees_nothing_of_the_original(chicago, config):
    """Ruth's refused post got a private error quoting her line; Charles, who read its
    Message-ID in References, sends a mail with the same id. It is a post of his own
    (issue 30: a post is its campaign, its author and its id): his command rolls, and his
    reply shows nothing of hers."""
    refused = process_message(eml("Ruth whispers the secret word.\n/overcome Investigte vs Fair\n",
                                  message_id="secret@pbp.test"), make_ctx(config))
    assert refused.status == "rejected"
    out = process_message(eml("/overcome Athletics vs Fair\n", sender=CHARLES, message_id="secret@pbp.test"),
                          make_ctx(config, "++++"))
    assert out.status == "applied", out.errors
    doc = as_json(out)
    assert doc["author"] == CHARLES and [r["command"] for r in doc["results"]] == ["/overcome Athletics vs Fair"]
    assert "duplicate_of" not in doc and m.RollRecord.select().count() == 1
    for to, text in replies(out):
        assert CHARLES in to
        for leaked in ("Investigte", "secret word", "not applied"):
            assert leaked not in text
    # the original author still gets her own reply back, and only hers
    mine = process_message(eml("x\n", message_id="secret@pbp.test"), make_ctx(config))
    ((to, text),) = replies(mine)
    assert mine.status == "duplicate" and to == [RUTH] and "Investigte" in text and "Athletics" not in text


def test_a_member_reusing_the_id_of_one_of_pbps_mails_is_ignored(chicago, config):
    """pbp's replies and deadline rounds carry ``pbp.…@domain`` ids; a mail with one is
    taken for pbp's own (so no loop can start): nothing is read, nobody is answered."""
    first = first_post(config)
    ours = first.replies[0]["message_id"]
    before = snapshot_db()
    out = process_message(eml(POST, sender=CHARLES, message_id=ours), make_ctx(config, "++++"))
    assert out.status == "ignored" and out.replies == [] and out.results == []
    assert_nothing_rolled_since(before)


def test_the_copy_lookups_use_their_index_and_no_scan(db):
    """A post's cost must not grow with the campaign: each lookup is one index probe (on
    SQLite: no SCAN, no sort of the matches)."""
    from pbp import copies

    from datetime import datetime

    from pbp import pipeline

    for name, lookup, args in (("copy_key", copies._BY_COPY_KEY, ()), ("forward_key", copies._BY_FORWARD_KEY, ()),
                               ("forward_key", copies._RECENT_BY_FORWARD_KEY, (datetime(2026, 1, 1),)),
                               ("post_key", pipeline._SEEN_KEY, ())):
        sql, params = lookup.build("k" * 40, *args).sql()
        plan = " | ".join(row[-1] for row in db.execute_sql("EXPLAIN QUERY PLAN " + sql, params).fetchall())
        assert f"INDEX message_{name}" in plan and "SCAN" not in plan and "TEMP B-TREE" not in plan, plan
