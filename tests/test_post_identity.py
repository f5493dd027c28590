"""A post's identity cannot be claimed by someone else (issue 30, item 1), from the
player's side: every mail goes in through the real pipeline, every reply is read back from
the outbox. A post is its campaign, its author and its Message-ID: a stranger, another
campaign's member or a forger who sends the id that Ruth's client will use next does not
make her real post a "duplicate"; her post is applied once, and her own resend of it is the
only duplicate."""
from __future__ import annotations

from dataclasses import replace

import pytest

from pbp.campaigns import create_campaign
from pbp.pipeline import process_message
from pbp.store import models as m
from tests.helpers import eml, make_ctx
from tests.test_copies import POST, RUTH, replies
from tests.test_trust import MX, REAL_FAIL

GUESSED = "CAF1234.5678@mail.pbp.localhost"     # the id Ruth's client will give her next mail
PASS = f"Authentication-Results: {MX}; dkim=pass header.d=pbp.localhost header.s=s1\n"


def rolls() -> int:
    return m.RollRecord.select().count()


def assert_ruths_post_applies_once(config, head: str = "", dice: str = "00++"):
    """Ruth's real post with the guessed id: applied, its result to the whole table with
    her dice; then her own resend is a duplicate that rolls nothing and answers her alone."""
    ctx = make_ctx(config, dice)
    before = rolls()
    out = process_message(head.encode() + eml(POST, message_id=GUESSED), ctx)
    assert out.status == "applied", (out.status, out.reason, out.errors)
    assert out.results[0]["dice"] == [0, 0, 1, 1] and rolls() == before + 1
    ((to, text),) = replies(out)
    assert RUTH in to and "gm@pbp.localhost" in to and "Ruth overcomes with Investigate" in text
    again = process_message(head.encode() + eml(POST, message_id=GUESSED), make_ctx(config, "----"))
    assert again.status == "duplicate" and rolls() == before + 1
    ((to, text),) = replies(again)
    assert to == [RUTH] and "already handled" in text and "[0] [0] [+] [+]" in text
    return out


def test_a_stranger_who_sends_the_guessed_id_first_does_not_shadow_the_real_post(chicago, config):
    first = process_message(eml("hello, anyone here?\n/overcome Investigate vs Fair\n", sender="mallory@evil.example",
                                message_id=GUESSED), make_ctx(config, "++++"))
    assert first.status == "rejected" and rolls() == 0
    ((to, text),) = replies(first)
    assert to == ["mallory@evil.example"]                # the stranger's notice, to the stranger
    assert_ruths_post_applies_once(config)


def test_another_member_who_sends_the_guessed_id_first_plays_his_own_post(chicago, config):
    """Charles's mail with Ruth's next id is his post (his command, his roll); hers,
    arriving after, is hers."""
    his = process_message(eml("/overcome Athletics vs Fair\n", sender="charles@pbp.localhost", message_id=GUESSED),
                          make_ctx(config, "++++"))
    assert his.status == "applied" and his.results[0]["actor"] == "Charles"
    ruths = assert_ruths_post_applies_once(config)
    assert ruths.results[0]["actor"] == "Ruth"
    (to, text), = replies(ruths)
    assert "Athletics" not in text                     # nothing of his in her result


def test_a_forgery_in_ruths_name_with_her_next_id_does_not_shadow_her_real_post(chicago, config):
    """With sender authentication on, Mallory's forged From: Ruth is refused (one notice,
    to Ruth's registered address); her real, authenticated post with the same id applies.
    Resending the forgery makes no more mail."""
    strict = replace(config, trust_authserv_id=MX)
    forged = REAL_FAIL.replace("gm@", "ruth@")
    out = process_message(forged.encode() + eml("/fp give Ruth 1\n", message_id=GUESSED), make_ctx(strict))
    assert out.status == "rejected" and [r["to"] for r in out.replies] == [[RUTH]]
    for _ in range(3):
        again = process_message(forged.encode() + eml("/fp give Ruth 1\n", message_id=GUESSED), make_ctx(strict))
        assert again.status == "duplicate" and again.replies == []
    assert_ruths_post_applies_once(strict, head=PASS)


def test_the_same_message_id_in_two_campaigns_is_two_posts(chicago, config):
    """A Boston post and a Chicago post with one id (a client that numbers its mails, or
    someone who read the id) are each applied in their own campaign."""
    boston = create_campaign("boston", "Boston Harbour", address="table+boston@pbp.localhost",
                             gms=["gm@pbp.localhost"], players=[RUTH])
    there = process_message(eml('/aspect add "Thick Fog"\n', sender="gm@pbp.localhost", message_id=GUESSED,
                                to="table+boston@pbp.localhost"), make_ctx(config))
    assert there.status == "applied" and there.campaign == "boston"
    assert m.Aspect.select().where((m.Aspect.campaign == boston) & (m.Aspect.name == "Thick Fog")).exists()
    out = assert_ruths_post_applies_once(config)
    assert out.campaign == "chicago"
    assert not m.Aspect.select().where((m.Aspect.campaign == chicago) & (m.Aspect.name == "Thick Fog")).exists()
    assert m.Message.select().where(m.Message.message_id == GUESSED).count() == 2


@pytest.mark.parametrize("first_sender", ["mallory@evil.example", "charles@pbp.localhost"])
def test_the_real_posts_record_is_its_own(chicago, config, first_sender):
    """Whoever sent the id first, Ruth's post is recorded under her key, applied."""
    process_message(eml("/fp\n", sender=first_sender, message_id=GUESSED), make_ctx(config))
    assert_ruths_post_applies_once(config)
    row = m.Message.get(m.Message.post_key == m.post_key(chicago.id, RUTH, GUESSED))
    assert row.status == "applied" and row.author == RUTH
