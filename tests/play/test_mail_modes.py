"""Mail people can bear (issue 24, item 5): each member's delivery mode over a week of play
by mail through the pipeline, on the fixed clock, counting the mails each member receives
and reading them from each member's side.

Ruth reads only what concerns her (``mail=mine``); Ethan a daily digest at 07:00 in
Lisbon, moved past his quiet hours (22-08) to 08:00; Cassandra mutes the Warehouse scene
once it opens; Charles and the GM read every mail. The deadline job runs every morning and
evening of the week (Mon 30 Nov - Sun 6 Dec 2026); Wednesday nothing happens.
"""
from __future__ import annotations

from collections import Counter
from datetime import datetime

import pytest

from pbp.campaigns import set_member
from pbp.errors import ConfigError
from pbp.play.state import load_play
from pbp.store import models as m
from tests.play.table import MailTable, _read

RUTH, ETHAN, CHARLES, CASSANDRA, GM = (f"{n}@pbp.localhost" for n in ("ruth", "ethan", "charles", "cassandra", "gm"))
PLAYERS = (RUTH, ETHAN, CHARLES, CASSANDRA)
HIDDEN = "Trap Door"        # the GM's hidden aspect: never in a player's mail
PRIVATE = "tz=UTC quiet=off mail=mine"    # Ruth's answer to /settings: hers alone


def day(d: int, hour: int, minute: int = 0) -> datetime:
    """Day ``d`` of the week: 0 is Monday 30 November 2026."""
    return datetime(2026, 11, 30, hour, minute) if d == 0 else datetime(2026, 12, d, hour, minute)


def play(chicago):
    return load_play(m.Campaign.get_by_id(chicago.id).play)


def sent_since(first_id: int) -> list[m.OutboxMail]:
    return list(m.OutboxMail.select().where(m.OutboxMail.id > first_id).order_by(m.OutboxMail.id))


def last_id() -> int:
    row = m.OutboxMail.select(m.OutboxMail.id).order_by(m.OutboxMail.id.desc()).first()
    return row.id if row else 0


@pytest.fixture
def week(chicago, config):
    """The week by mail: the steps by name, and every mail sent from Monday on."""
    mt = MailTable(config)
    s = {}
    s["ruth_set"] = mt.post("Ruth", "/settings mail=mine", at=datetime(2026, 11, 29, 18, 0))
    s["ethan_set"] = mt.post("Ethan", "/settings tz=Europe/Lisbon quiet=22-08 mail=digest digest_at=7",
                             at=datetime(2026, 11, 29, 18, 5))
    start = last_id()
    s["mon_am"] = mt.tick(day(0, 8))                       # Ethan's first digest is due: nothing to read
    s["scene"] = mt.post("GM", '/scene start "Warehouse"\nThe warehouse smells of rot.', subject="The warehouse",
                         at=day(0, 12, 0))
    s["mute"] = mt.post("Cassandra", "/mute", reply_to=s["scene"], at=day(0, 12, 5))
    s["conflict"] = mt.post("GM", "/conflict start Ruth, Cassandra, Ethan, Ghoul first Ghoul\n"
                            f'/aspect add "{HIDDEN}" hidden', reply_to=s["scene"], at=day(0, 12, 10))
    s["attack"] = mt.post("GM", "The ghoul lunges at Ruth.\n/as Ghoul attack Ruth with Fight", dice="0000",
                          reply_to=s["conflict"], at=day(0, 12, 20))
    s["defend"] = mt.post("Ruth", "Ruth twists away.\n/defend Athletics", dice="++++", reply_to=s["attack"],
                          at=day(0, 13, 0))
    s["handoff"] = mt.post("GM", "/as Ghoul next Cassandra", reply_to=s["defend"], at=day(0, 13, 30))
    s["mon_pm"] = mt.tick(day(0, 19))
    s["tue_am"] = mt.tick(day(1, 8))
    s["cass"] = mt.post("Cassandra", "Cassandra chants.\n/overcome Lore vs Fair\n/next Ruth", dice="0000",
                        reply_to=s["handoff"], at=day(1, 9, 0))
    s["charles"] = mt.post("Charles", "Charles watches from the roof.", reply_to=s["cass"], at=day(1, 10, 0))
    s["ruth"] = mt.post("Ruth", "Ruth waves up at him.\n/overcome Athletics vs Fair\n/next Ethan", dice="0000",
                        reply_to=s["charles"], at=day(1, 11, 0))
    s["tue_pm"] = mt.tick(day(1, 19))
    s["wed_am"] = mt.tick(day(2, 8))
    s["wed_pm"] = mt.tick(day(2, 19))                      # Wednesday: nobody posts
    s["thu_am"] = mt.tick(day(3, 8))
    s["end"] = mt.post("GM", "((sorry, busy week))\nThe ghoul flees.\n/conflict end\n/scene end",
                       reply_to=s["ruth"], at=day(3, 12, 0))
    for d in (3, 4, 5, 6):
        s[f"pm{d}"] = mt.tick(day(d, 19))
        if d < 6:
            s[f"am{d + 1}"] = mt.tick(day(d + 1, 8))
    for name, step in s.items():
        if step.outcome is not None:
            assert step.status == "applied", (name, step.outcome.errors, step.text)
    return s, sent_since(start)


def mails_of(sent, who):
    return [row for row in sent if who in row.recipients]


def text_of(row) -> str:
    return _read(row.message_id).text


def test_each_member_counts_the_mails_of_their_mode(week, chicago):
    s, sent = week
    got = Counter(addr for row in sent for addr in row.recipients)
    # Charles reads every table mail: the 9 posts that had one; the GM those and 2 copies for the GM
    table = [row for row in sent if CHARLES in row.recipients]
    assert len(table) == 9 and got[CHARLES] == 9
    assert all(GM in row.recipients for row in table) and got[GM] == 11
    # Ruth (mine): the attack on her, her own two posts, the GM's and Cassandra's that pass
    # the turn to her or answer her post, the scene's end answering her post
    ruth = [row.id for row in mails_of(sent, RUTH)]
    assert ruth == [_row(s[k]).id
                    for k in ("attack", "defend", "handoff", "cass", "ruth", "end")]
    assert got[RUTH] == 6
    # Cassandra (Warehouse muted): her /mute's answer, the handoff to her, her own post,
    # Charles's answer to it; nothing else of the Warehouse
    assert [row.id for row in mails_of(sent, CASSANDRA)] == [_row(s[k]).id for k in
                                                             ("scene", "mute", "handoff", "cass", "charles")]
    assert got[CASSANDRA] == 5
    # Ethan (digest): Ruth's post that passed the turn to him came at once, the turn clock's
    # reminder (his alone, Thursday), and three digests: Tuesday's, Wednesday's and Friday's, at 08:00
    ethan = mails_of(sent, ETHAN)
    assert [row.subject for row in ethan] == [
        "[Chicago Nights] Your digest: 5 mails of the table", "Re: [Chicago Nights] The warehouse",
        "[Chicago Nights] Your digest: 2 mails of the table", "[Chicago Nights] Reminder: Ethan, your turn",
        "[Chicago Nights] Your digest: 1 mail of the table"]
    assert got == {GM: 11, CHARLES: 9, RUTH: 6, CASSANDRA: 5, ETHAN: 5}
    assert [[r.subject.split("] ")[1] for r in s[k].replies] for k in ("tue_am", "wed_am", "thu_am", "am4")] == [
        ["Your digest: 5 mails of the table"], ["Your digest: 2 mails of the table"],
        ["Reminder: Ethan, your turn"], ["Your digest: 1 mail of the table"]]
    assert all(r.to == [ETHAN] for k in ("tue_am", "wed_am", "thu_am", "am4") for r in s[k].replies)


def _row(step) -> m.OutboxMail:
    """The step's first mail (its table mail, or its only one)."""
    return m.OutboxMail.get(m.OutboxMail.message_id == step.replies[0].message_id)


def test_no_player_reads_what_is_not_theirs(week, chicago):
    s, sent = week
    for who in PLAYERS:
        for row in mails_of(sent, who):
            text = text_of(row)
            assert HIDDEN not in text and "For the GM only" not in text, (who, row.subject)
            assert "Your settings" not in text and PRIVATE not in text, (who, row.subject)
            if row.subject.endswith(f'Muted "Warehouse"'):
                assert row.recipients == [CASSANDRA]


def test_a_digest_holds_the_days_mails_in_order_and_an_empty_day_sends_none(week, chicago):
    s, sent = week
    # Monday 08:00, Thursday 08:00 (Wednesday nobody posted: only his turn's reminder),
    # Saturday and Sunday: no digest
    for empty in ("mon_am", "thu_am", "am5", "am6"):
        assert not [r for r in s[empty].replies if "digest" in r.subject], empty
    tuesday = s["tue_am"].replies[0].text
    assert tuesday.startswith("Chicago Nights: 5 mails of the table since your last digest, in order.")
    order = ["The warehouse smells of rot.", "A physical conflict begins", "The ghoul lunges at Ruth.",
             "Ruth twists away.", "Ghoul hands the turn to Cassandra."]
    at = [tuesday.index(line) for line in order]
    assert at == sorted(at)
    assert "--- The warehouse · Mon 30 Nov 12:00 WET ---" in tuesday      # his zone (Lisbon, winter)
    assert "The table now:\n  Turn: Cassandra." in tuesday
    assert tuesday.rstrip().endswith("/settings mail=every brings every mail back.")
    assert "What you owe:\n  nothing" in tuesday
    wednesday = s["wed_am"].replies[0].text
    assert "Cassandra chants." in wednesday and "Charles watches from the roof." in wednesday
    assert "Ruth waves up at him." not in wednesday         # it came at once: it passed him the turn
    assert "What you owe:\n  Ethan: it is your turn" in wednesday
    friday = s["am4"].replies[0].text
    assert "The ghoul flees." in friday and "sorry, busy week" in friday
    assert not m.DigestItem.select().exists()               # each digest took its mails
    assert play(chicago).people[ETHAN].digest_due == datetime(2026, 12, 7, 8, 0)


def test_settings_mute_and_unmute_by_mail_and_by_the_cli(mt, chicago):
    scene = mt.post("GM", '/scene start "Docks"', subject="The docks")
    step = mt.post("Cassandra", "/mute", reply_to=scene)
    assert step.status == "applied" and [r.to for r in step.replies] == [[CASSANDRA]]
    assert 'Muted "Docks"' in step.text
    assert play(chicago).people[CASSANDRA].muted == ["Docks"]
    quiet = mt.post("GM", "The tide turns.", reply_to=scene)
    assert CASSANDRA not in {a for r in quiet.replies for a in r.to}
    bad = mt.post("Cassandra", '/unmute "Dock Street"', reply_to=scene)
    assert bad.status == "rejected" and '/unmute "Docks"' in bad.text
    step = mt.post("Cassandra", '/unmute "docks"', reply_to=scene)
    assert step.status == "applied" and play(chicago).people.get(CASSANDRA) is None
    loud = mt.post("GM", "The tide rises.", reply_to=scene)
    assert CASSANDRA in loud.replies[0].to
    bad = mt.post("Ruth", "/settings mail=digets")
    assert bad.status == "rejected" and "did you mean digest?" in bad.text and "/settings mail=digest" in bad.text
    bad = mt.post("Ruth", "/settings digest_at=25")
    assert bad.status == "rejected" and "/settings mail=digest digest_at=18" in bad.text
    assert set_member(chicago, ETHAN, ["mail=digest", "digest_at=7"]) == "tz=UTC quiet=off mail=digest digest_at=07"
    assert play(chicago).people[ETHAN].digest_due is not None
    assert m.Campaign.get_by_id(chicago.id).next_deadline <= play(chicago).people[ETHAN].digest_due
    with pytest.raises(ConfigError, match="known: digest, every, mine"):
        set_member(chicago, ETHAN, ["mail=some"])
    assert set_member(chicago, ETHAN, ["mail=every"]) == "tz=UTC quiet=off"
    assert play(chicago).people[ETHAN].digest_due is not None      # what it holds goes at the next tick


def test_a_gm_on_mine_still_gets_what_the_gm_must_act_on(mt, chicago):
    """The GM reads only what concerns them, and what they must act on: the turn handed to
    an NPC, a player's compel to approve; a player's prose does not come, and a digest that
    holds a secret roll's table mail says only what the table read."""
    assert mt.post("GM", "/settings mail=mine").status == "applied"
    assert mt.post("Ethan", "/settings mail=digest digest_at=9", at=datetime(2026, 11, 30, 8, 0)).status == "applied"
    scene = mt.post("GM", '/scene start "Warehouse"\n/conflict start Ruth, Ethan, Ghoul first Ruth',
                    subject="The warehouse", at=datetime(2026, 11, 30, 10, 0))
    # a new mail, not a reply to the GM's (that would be "a reply to me")
    prose = mt.post("Ruth", "Ruth looks around the warehouse.", subject="Warehouse", at=datetime(2026, 11, 30, 10, 10))
    assert prose.status == "applied" and GM not in {a for r in prose.replies for a in r.to}
    handoff = mt.post("Ruth", "/next Ghoul", reply_to=prose, at=datetime(2026, 11, 30, 10, 20))
    assert GM in handoff.replies[0].to                          # the turn came to the GM's NPC
    secret = mt.post("GM", "The ghoul sniffs the air.\n/as Ghoul overcome Notice vs Fair secret", dice="++++",
                     reply_to=handoff, at=datetime(2026, 11, 30, 10, 30))
    assert secret.status == "applied", secret.outcome.errors
    assert ETHAN not in {a for r in secret.replies for a in r.to}          # held for his digest
    onward = mt.post("GM", "/as Ghoul next Ethan", reply_to=secret, at=datetime(2026, 11, 30, 10, 35))
    assert ETHAN in onward.replies[0].to                                    # his turn: at once
    offer = mt.post("Charles", '/compel Ruth "Hair-Trigger Temper" event "The ghoul\'s taunt"',
                    subject="The bar", at=datetime(2026, 11, 30, 10, 40))
    assert any(r.to == [GM] and "needs your approval" in r.subject for r in offer.replies)
    digest = mt.tick(datetime(2026, 12, 1, 9, 0))
    [mail] = [r for r in digest.replies if r.to == [ETHAN]]
    assert "Ruth looks around the warehouse." in mail.text and "Ghoul hands the turn to Ethan." not in mail.text
    assert "The ghoul sniffs the air." in mail.text
    gm_view = next(r.text for r in secret.replies if r.to == [GM])
    assert "[+] [+] [+] [+]" in gm_view                          # the GM's copy has the dice
    assert "[+] [+] [+] [+]" not in mail.text and "+6" not in mail.text
    assert "Ethan: it is your turn" in mail.text


def test_the_digest_hour_is_the_members_own(chicago):
    from pbp.play.people import MemberSettings, next_digest

    ny = MemberSettings(tz="America/New_York", mail="digest", digest_at=7)
    assert next_digest(ny, datetime(2026, 12, 1, 11, 0)) == datetime(2026, 12, 1, 12, 0)     # 07:00 EST
    assert next_digest(ny, datetime(2026, 12, 1, 12, 0)) == datetime(2026, 12, 2, 12, 0)     # a day later
    summer = MemberSettings(tz="America/New_York", mail="digest", digest_at=7)
    assert next_digest(summer, datetime(2027, 3, 15, 0, 0)) == datetime(2027, 3, 15, 11, 0)  # 07:00 EDT
    quiet = MemberSettings(tz="Europe/Lisbon", quiet=(22 * 60, 9 * 60), mail="digest", digest_at=23)
    assert next_digest(quiet, datetime(2026, 12, 1, 12, 0)) == datetime(2026, 12, 2, 9, 0)   # past the quiet hours


def test_a_removed_member_leaves_no_mail_held_for_them(mt, chicago):
    from pbp.members import add_member
    from pbp.sheetedit import remove_member

    add_member(chicago, "watcher@pbp.localhost")
    set_member(chicago, "watcher@pbp.localhost", ["mail=digest"])
    step = mt.post("GM", '/scene start "Warehouse"\nThe warehouse smells of rot.', subject="The warehouse")
    assert "watcher@pbp.localhost" not in step.replies[0].to
    assert m.DigestItem.select().where(m.DigestItem.email == "watcher@pbp.localhost").count() == 1
    remove_member(chicago, "watcher@pbp.localhost")
    assert not m.DigestItem.select().exists()


def test_leaving_the_digest_sends_what_it_holds_at_once(mt, chicago):
    assert mt.post("Ethan", "/settings mail=digest", at=datetime(2026, 11, 30, 8, 0)).status == "applied"
    mt.post("GM", '/scene start "Warehouse"\nThe warehouse smells of rot.', subject="The warehouse",
            at=datetime(2026, 11, 30, 9, 0))
    back = mt.post("Ethan", "/settings mail=every", at=datetime(2026, 11, 30, 10, 0))
    assert back.status == "applied" and "mail=" not in back.text
    last = mt.tick(datetime(2026, 11, 30, 10, 1))
    [mail] = [r for r in last.replies if r.to == [ETHAN]]
    assert "Your digest: 1 mail of the table" in mail.subject and "The warehouse smells of rot." in mail.text
    assert play(chicago).people[ETHAN].digest_due is None and not m.DigestItem.select().exists()
    assert mt.tick(datetime(2026, 12, 1, 18, 0)).replies == []
