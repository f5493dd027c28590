"""Whole posts through the pipeline that both `pbp process` and the daemon use, on a real
SQLite database with fixed dice."""
from __future__ import annotations

import email
from email import policy

import pytest

from pbp.pipeline import process_message
from pbp.store import models as m
from pbp.store import repo
from tests.helpers import FIXED_NOW, counting_queries, eml, make_ctx, plain_text


def sheet(campaign, name):
    return repo.load_table(campaign).character(name)


def snapshot_db():
    """Everything a message could change, to prove that a refused one changed nothing."""
    return (
        [(c.name, c.fate_points, c.stress, c.consequences, c.taken_out) for c in m.Character.select().order_by(m.Character.id)],
        [(a.name, a.owner, a.free_invokes, a.active, a.hidden) for a in m.Aspect.select().order_by(m.Aspect.id)],
        m.RollRecord.select().count(),
    )


def reply_text(outcome) -> str:
    row = m.OutboxMail.get(m.OutboxMail.message_id == outcome.replies[0]["message_id"])
    return plain_text(email.message_from_string(row.raw, policy=policy.default))


def test_charles_investigates_antarctica(chicago, config):
    """Fate Condensed, Overcome (003): Charles rolls [0][0][+][+] + Investigate Average (+1)
    against Fair (+2): effort Good (+3), a success."""
    out = process_message(eml("/overcome Investigate vs Fair\n", sender="charles@pbp.localhost"),
                          make_ctx(config, "00++"))
    assert out.status == "applied", out.errors
    (res,) = out.results
    assert (res["dice"], res["effort"], res["opposition"]["value"], res["shifts"], res["outcome"]) == (
        [0, 0, 1, 1], 3, 2, 1, "success")
    text = reply_text(out)
    assert "[0] [0] [+] [+]" in text and "+3 Good" in text and "success, 1 shift" in text
    assert m.RollRecord.select().count() == 1


def test_molotov_creates_on_fire_with_a_free_invoke(chicago, config):
    """Create an advantage (003): Ethan, Crafts Average (+1), rolls [0][+][+][+] = Great (+4)
    against Good (+3): the Shoggoth is On Fire and Ethan holds one free invoke."""
    out = process_message(eml('/advantage Crafts "On Fire" on Shoggoth vs Good\n', sender="ethan@pbp.localhost"),
                          make_ctx(config, "0+++"))
    assert out.status == "applied", out.errors
    assert out.results[0]["effort"] == 4 and out.results[0]["outcome"] == "success"
    on_fire = repo.load_table(chicago).find_aspect("On Fire")
    assert on_fire.owner == "Shoggoth" and on_fire.free_invokes == {"Ethan": 1}
    assert "On Fire" in reply_text(out)

    # the free invoke is spent by a later post, and the sheet diff says so
    out2 = process_message(eml('/overcome Athletics vs Great +invoke "On Fire" free\n',
                               sender="ethan@pbp.localhost", message_id="post-2@pbp.test"), make_ctx(config, "0000"))
    assert out2.status == "applied", out2.errors
    assert out2.results[0]["effort"] == 2 + 2
    assert repo.load_table(chicago).find_aspect("On Fire").free_for("Ethan") == 0
    assert "1 -> 0" in reply_text(out2) or "1 -> gone" in reply_text(out2)


def test_ruth_punches_the_corpse_two_shift_hit(chicago, config):
    """Attack (003): Ruth, Fight Great (+4), rolls [-][-][0][0] = Fair (+2); the defender
    rolls [-][0][0][+] on Athletics Mediocre (+0): a two-shift hit. (The sample's Masked
    Acolyte has Athletics Average, so the corpse is imported here.)"""
    from pbp.campaigns import import_character
    from pbp.rules.systems import get_system
    from pbp.sheetfile import parse_sheet

    import_character(chicago, parse_sheet({"name": "Corpse", "kind": "minor", "aspects": {"other": ["Animated Corpse"]},
                                           "skills": {"Shambling Menace": 1}, "stress": {"boxes": 2}}, get_system("fate-condensed")))
    out = process_message(eml("/attack Corpse with Fight\n"), make_ctx(config, "--00,-00+"))
    assert out.status == "applied", out.errors
    res = out.results[0]
    assert res["effort"] == 2 and res["opposition"]["value"] == 0 and res["shifts"] == 2
    assert any(e["kind"] == "hit" for e in res["effects"])


def test_second_command_invalid_changes_nothing_and_gets_one_reply(chicago, config):
    before = snapshot_db()
    body = """\
        Ruth goes for the ghoul.
        /fp spend "for luck"
        /atack Ghoul with Fight
        """
    out = process_message(eml(body), make_ctx(config, "0000"))
    assert out.status == "rejected"
    assert len(out.replies) == 1 and out.replies[0]["to"] == ["ruth@pbp.localhost"]
    assert snapshot_db() == before
    text = reply_text(out)
    assert "line 3" in text and "atack" in text and "/attack" in text
    assert out.errors[0]["line"] == 3


def test_rules_error_in_second_command_rolls_back_the_first(chicago, config):
    """The first command resolves (and rolls) but the second is refused: nothing persists."""
    before = snapshot_db()
    body = """\
        /overcome Investigate vs Fair
        /overcome Juggling vs Fair
        """
    out = process_message(eml(body), make_ctx(config, "0000,0000"))
    assert out.status == "rejected"
    assert snapshot_db() == before
    assert "Juggling" in reply_text(out)


def test_only_quoted_commands_change_nothing(chicago, config):
    before = snapshot_db()
    body = """\
        Sounds good, see you next week!

        On Sun, 29 Nov 2026 at 18:00, Chicago Nights <table+chicago@pbp.localhost> wrote:
        > Ruth keeps to the shadows.
        > /overcome Investigate vs Fair
        > /fp spend
        """
    out = process_message(eml(body, message_id="quote-only@pbp.test"), make_ctx(config))
    assert out.status == "applied" and out.results == []
    assert snapshot_db() == before


def test_a_resent_copy_never_rolls_again(chicago, config):
    post = eml("/overcome Investigate vs Fair\n")
    first = process_message(post, make_ctx(config, "00++"))
    again = process_message(post, make_ctx(config, "----"))
    assert again.status == "duplicate"
    assert again.results == first.results
    assert m.RollRecord.select().count() == 1
    assert again.replies and again.replies[0]["to"] == ["ruth@pbp.localhost"]
    assert "already handled" in reply_text(again)


def test_fate_point_spend_refused_at_zero(chicago, config):
    for i in range(3):
        assert process_message(eml("/fp spend\n", message_id=f"fp{i}@t"), make_ctx(config)).status == "applied"
    assert sheet(chicago, "Ruth").fate_points == 0
    out = process_message(eml("/fp spend\n", message_id="fp4@t"), make_ctx(config))
    assert out.status == "rejected" and "no fate points" in reply_text(out)
    assert sheet(chicago, "Ruth").fate_points == 0


def test_stranger_gets_one_polite_reply_a_day(chicago, config):
    out1 = process_message(eml("/fp\n", sender="eve@evil.test", message_id="s1@t"), make_ctx(config))
    out2 = process_message(eml("/fp\n", sender="eve@evil.test", message_id="s2@t"), make_ctx(config))
    assert out1.status == out2.status == "rejected"
    assert len(out1.replies) == 1 and out2.replies == []
    assert "not registered" in reply_text(out1)


@pytest.mark.parametrize("header", [
    "Auto-Submitted: auto-replied\n",
    "X-Autoreply: yes\n",
    "Return-Path: <>\n",
])
def test_auto_replies_and_bounces_are_ignored(chicago, config, header):
    out = process_message(eml("/fp spend\n", extra=header, message_id="auto@t"), make_ctx(config))
    assert out.status == "ignored" and out.replies == []
    assert sheet(chicago, "Ruth").fate_points == 3


def test_mailer_daemon_is_ignored(chicago, config):
    out = process_message(eml("/fp spend\n", sender="MAILER-DAEMON@mx.test", message_id="b@t"), make_ctx(config))
    assert out.status == "ignored" and out.replies == []


def test_gm_must_name_the_npc_and_players_cannot_act_for_others(chicago, config):
    out = process_message(eml("/overcome Fight vs Fair\n", sender="gm@pbp.localhost", message_id="g1@t"), make_ctx(config, "0000"))
    assert out.status == "rejected" and "/as" in reply_text(out)
    out = process_message(eml("/as Ghoul attack Ruth with Fight\n", sender="gm@pbp.localhost", message_id="g2@t"),
                          make_ctx(config, "00++,0000"))
    assert out.status == "applied", out.errors
    assert out.results[0]["actor"] == "Ghoul"
    out = process_message(eml("/as Charles overcome Lore vs Fair\n", message_id="g3@t"), make_ctx(config, "0000"))
    assert out.status == "rejected" and "not your character" in reply_text(out)


def test_reply_threads_and_goes_to_the_whole_table(chicago, config):
    out = process_message(eml("/overcome Investigate vs Fair\n"), make_ctx(config, "0000"))
    row = m.OutboxMail.get(m.OutboxMail.message_id == out.replies[0]["message_id"])
    msg = email.message_from_string(row.raw, policy=policy.default)
    assert msg["In-Reply-To"] == "<post-1@pbp.test>"
    assert "<post-1@pbp.test>" in msg["References"]
    assert msg["Subject"] == "Re: [Chicago Nights] The warehouse"
    assert msg["Auto-Submitted"] == "auto-replied"
    assert msg["Message-ID"].endswith("@pbp.test>")
    assert set(row.recipients) == {"gm@pbp.localhost", "ruth@pbp.localhost", "charles@pbp.localhost",
                                   "cassandra@pbp.localhost", "ethan@pbp.localhost"}
    assert msg.get_body(("html",)) is not None


def test_ledger_is_hash_chained_and_tamper_evident(chicago, config):
    for i in range(3):
        process_message(eml("/overcome Investigate vs Fair\n", message_id=f"l{i}@t"), make_ctx(config))
    assert repo.verify_ledger(chicago) == []
    row = m.RollRecord.select().order_by(m.RollRecord.id).first()
    m.RollRecord.update(effort=row.effort + 5).where(m.RollRecord.id == row.id).execute()
    assert repo.verify_ledger(chicago) == [f"roll #{row.id}: contents do not match its hash"]


@pytest.mark.slow
def test_message_cost_does_not_grow_with_history(chicago, config):
    """The queries one post makes are the same after 1 and after 60 earlier posts."""
    counts = []
    with counting_queries(counts):
        for i in range(61):
            counts.append(0)
            process_message(eml("/overcome Investigate vs Fair\n", message_id=f"h{i}@t"), make_ctx(config, "0+00"))
    assert counts[1] == counts[60], counts


def test_list_member_mode_replies_to_the_list_with_results_only(chicago, config):
    chicago.delivery = "list"
    chicago.save()
    out = process_message(eml("Ruth looks around.\n/overcome Investigate vs Fair\n"), make_ctx(config, "0000"))
    assert out.replies[0]["to"] == ["table+chicago@pbp.localhost"]
    text = reply_text(out)
    assert "Ruth overcomes with Investigate" in text and "Ruth looks around." not in text


def test_plus_address_routes_to_its_campaign(chicago, config):
    from pbp.campaigns import add_member, create_campaign

    other = create_campaign("other", "Other Table", gms=["gm@pbp.localhost"])
    add_member(other, "ruth@pbp.localhost")
    out = process_message(eml("/fp\n", to="table+other@pbp.localhost"), make_ctx(config))
    assert out.campaign == "other"
    out = process_message(eml("/fp\n", to="table+chicago@pbp.localhost", message_id="x2@t"), make_ctx(config))
    assert out.campaign == "chicago"


def test_size_and_command_limits_are_answered(chicago, config):
    from dataclasses import replace

    from pbp.config import Limits

    small = replace(config, limits=Limits(max_message_bytes=400, max_commands=2))
    out = process_message(eml("/fp\n" + "word " * 200), make_ctx(small))
    assert out.status == "rejected" and "at most 400" in reply_text(out)
    out = process_message(eml("/fp\n/fp\n/fp\n", message_id="many@t"), make_ctx(small))
    assert out.status == "rejected" and "at most 2 in one post" in reply_text(out)


def test_unverified_member_post_is_refused_with_a_reply_when_a_trusted_authserv_is_set(chicago, config):
    from dataclasses import replace

    strict = replace(config, trust_authserv_id="mx.pbp.localhost")
    forged = eml("/fp spend\n", message_id="forged@t")
    before = snapshot_db()
    out = process_message(forged, make_ctx(strict))
    assert out.status == "rejected" and "DKIM or SPF" in out.errors[0]["message"]
    assert [r["to"] for r in out.replies] == [["ruth@pbp.localhost"]]
    assert "did not confirm it" in reply_text(out) and snapshot_db() == before
    signed = eml("/fp spend\n", message_id="signed@t",
                 extra="Authentication-Results: mx.pbp.localhost; dkim=pass header.d=pbp.localhost\n")
    assert process_message(signed, make_ctx(strict)).status == "applied"


@pytest.mark.slow
def test_play_state_does_not_grow_with_history(chicago, config):
    """The per-campaign play document (read and written by every post) stays the same size
    over a long run of posts: closed rolls leave the thread map, old records are bounded
    (the newest kept)."""
    import json
    import re

    cycle = [("gm", '/scene start "Warehouse"\n'), ("ruth", "/overcome Investigate vs Fair\n"),
             ("ruth", "/attack Ghoul with Fight\n"), ("ethan", '/advantage Notice "Loose Boards" vs Fair\n'),
             ("charles", "/overcome Athletics vs Fair\n"), ("gm", "/scene end\n")]
    sizes = []
    for i in range(240):
        who, body = cycle[i % len(cycle)]
        out = process_message(eml(body, sender=f"{who}@pbp.localhost", message_id=f"grow-{i}@t"),
                              make_ctx(config, "0+00,0000"))
        assert out.status == "applied", out.errors
        if i % 60 == 59:
            # every number as one character: ids grow longer (more digits) as the campaign
            # goes on, and only that may grow; entries must not pile up
            sizes.append(len(re.sub(r"\d+", "#", json.dumps(m.Campaign.get_by_id(chicago.id).play))))
    assert sizes[-1] <= sizes[1] + 16, sizes
    closed = m.Campaign.get_by_id(chicago.id).play["closed_rolls"]
    assert len(closed) <= 50 and max(map(int, closed)) == m.Campaign.get_by_id(chicago.id).play["next_id"] - 1


def test_a_bug_on_one_post_changes_nothing_and_does_not_block_the_next(chicago, config, monkeypatch, caplog):
    """An unexpected error is logged, the post recorded (so it is not retried forever) and
    its author told; the transaction rolled back; the next post is handled as usual."""
    from pbp.commands import Overcome
    from pbp.play import core

    before = snapshot_db()

    def broken(post, cmd):
        post.table.character("Ruth").fate_points = 99   # a change that must not persist
        raise RuntimeError("boom")

    monkeypatch.setitem(core.HANDLERS, Overcome, broken)
    out = process_message(eml("/overcome Investigate vs Fair\n", message_id="bug@t"), make_ctx(config, "0000"))
    assert out.status == "rejected" and out.errors[0]["type"] == "InternalError"
    assert "could not process this post" in reply_text(out)
    assert snapshot_db() == before
    assert "boom" in caplog.text
    assert m.Message.get(m.Message.message_id == "bug@t").status == "rejected"
    monkeypatch.undo()
    again = process_message(eml("/overcome Investigate vs Fair\n", message_id="next@t"), make_ctx(config, "0000"))
    assert again.status == "applied"


def test_a_deadline_answers_in_the_thread_of_the_mail_that_asked(chicago, config):
    from datetime import timedelta

    from pbp.flow.deadlines import apply_deadlines

    out = process_message(eml("/as Ghoul attack Ruth with Fight\n", sender="gm@pbp.localhost"),
                          make_ctx(config, "00++"))
    asked = out.replies[0]["message_id"]
    later = make_ctx(config, "0000")
    later.clock = lambda: FIXED_NOW + timedelta(hours=config.reaction_deadline_hours, minutes=1)
    assert apply_deadlines(later) == 1
    row = m.OutboxMail.select().order_by(m.OutboxMail.id.desc()).first()
    msg = email.message_from_string(row.raw, policy=policy.default)
    assert msg["In-Reply-To"] == f"<{asked}>" and asked in msg["References"]
    assert msg["Subject"].startswith("Re: [Chicago Nights] The warehouse")
    assert "Ruth did not answer" in plain_text(msg)
