"""The long campaign by mail (issue 24, items 1-3), through the pipeline on the injected
clock: members' time zones and quiet hours, deadlines read in each reader's zone across a
change of summer time, a week's holiday in the middle of a conflict under each away
policy, and the pace of a free scene (a posting order, a pass, reminders, a stall nudge)."""
from __future__ import annotations

from datetime import datetime

import pytest

from pbp.campaigns import set_campaign, set_member
from pbp.errors import ConfigError
from pbp.play.dates import for_reader
from pbp.play.people import zone
from pbp.play.state import load_play
from pbp.store import models as m

RUTH, CHARLES, GM_ = "ruth@pbp.localhost", "charles@pbp.localhost", "gm@pbp.localhost"


def play_state(campaign):
    return load_play(m.Campaign.get_by_id(campaign.id).play)


def mails_to(step, who):
    return [r for r in step.replies if who in r.to]


# ------------------------------------------------------------------ time people read


def test_a_date_reads_in_the_readers_zone_and_relative_across_summer_time():
    now = datetime(2027, 3, 12, 12, 0)
    text = "defend by Sun 14 Mar 12:00 UTC; it was due Fri 12 Mar 06:00 UTC"
    assert for_reader(text, now) == "defend by Sun 14 Mar 12:00 UTC (in 2 days); it was due Fri 12 Mar 06:00 UTC"
    # New York moves to summer time on 14 March 2027 at 07:00 UTC: 12:00 UTC is 08:00 EDT
    assert for_reader(text, now, zone("America/New_York")).startswith("defend by Sun 14 Mar 08:00 EDT (in 2 days)")
    assert for_reader(text, now, zone("Europe/Lisbon")).startswith("defend by Sun 14 Mar 12:00 WET (in 2 days)")
    assert for_reader("by Sun 28 Mar 12:00 UTC", datetime(2027, 3, 27, 20, 0), zone("Europe/Lisbon")) == \
        "by Sun 28 Mar 13:00 WEST (in 16 hours)"


def test_settings_by_mail_and_by_the_cli(mt, chicago):
    step = mt.post("Ruth", "/settings tz=europe/lisbon quiet=23-08\n")
    assert step.status == "applied", step.text
    assert [r.to for r in step.replies] == [[RUTH]] or all(RUTH in r.to for r in step.replies)
    mine = [r for r in step.replies if r.to == [RUTH]]
    assert "Your settings: tz=Europe/Lisbon quiet=23-08." in mine[0].text
    assert play_state(chicago).people[RUTH].tz == "Europe/Lisbon"
    # a near miss is refused with what it could be, and nothing changes
    bad = mt.post("Ruth", "/settings tz=Europe/Lisbn\n")
    assert bad.status == "rejected"
    assert "did you mean Europe/Lisbon?" in bad.text and "/settings tz=Europe/Lisbon" in bad.text
    bad = mt.post("Ruth", "/settings quiet=25-08\n")
    assert bad.status == "rejected" and "/settings quiet=23-08" in bad.text
    bad = mt.post("Ruth", "/settings tzz=UTC\n")
    assert bad.status == "rejected" and "did you mean tz?" in bad.text
    assert play_state(chicago).people[RUTH].quiet == (23 * 60, 8 * 60)
    assert set_member(chicago, "Charles@pbp.localhost", ["tz=America/New_York"]) == "tz=America/New_York quiet=off"
    with pytest.raises(ConfigError, match="did you mean America/New_York"):
        set_member(chicago, CHARLES, ["tz=America/NewYork"])
    with pytest.raises(ConfigError, match="not a member"):
        set_member(chicago, "nobody@pbp.localhost", ["tz=UTC"])


def test_deadlines_in_two_members_zones_across_a_change_of_summer_time(mt, chicago):
    mt.post("Ruth", "/settings tz=Europe/Lisbon\n", at=datetime(2027, 3, 1, 9, 0))
    mt.post("Charles", "/settings tz=America/New_York\n", at=datetime(2027, 3, 1, 9, 0))
    mt.post("GM", "/scene start Harbour\n", at=datetime(2027, 3, 12, 11, 0))
    for at, ruth_reads, charles_reads, table_reads in (
            # New York changes on 14 March (EST -> EDT), Lisbon on 28 March (WET -> WEST)
            (datetime(2027, 3, 12, 12, 0), "Sun 14 Mar 12:00 WET (in 2 days)", "Sun 14 Mar 08:00 EDT (in 2 days)",
             "Sun 14 Mar 12:00 UTC (in 2 days)"),
            (datetime(2027, 3, 26, 12, 0), "Sun 28 Mar 13:00 WEST (in 2 days)", "Sun 28 Mar 08:00 EDT (in 2 days)",
             "Sun 28 Mar 12:00 UTC (in 2 days)")):
        step = mt.post("GM", '/compel Ruth "Hair-Trigger Temper" event "The bouncer sneers"\n'
                             '/compel Charles "Curiosity Will Be My Death" event "A locked door"\n', at=at)
        assert step.status == "applied", step.text
        ruth = [r for r in step.replies if r.to == [RUTH]]
        charles = [r for r in step.replies if r.to == [CHARLES]]
        table = [r for r in step.replies if len(r.to) > 2]
        assert ruth and ruth_reads in ruth[0].subject + ruth[0].text and "UTC" not in ruth[0].text
        assert charles and charles_reads in charles[0].subject + charles[0].text and "UTC" not in charles[0].text
        assert table_reads in table[0].text
        for answer in ("Ruth", "Charles"):
            assert mt.post(answer, "/accept\n", at=at).status == "applied"


# ------------------------------------------------------------------ away


def start_conflict(mt):
    step = mt.post("GM", "/scene start Alley\n/conflict start Ruth, Cassandra, Ghoul first Ghoul\n",
                   at=datetime(2026, 11, 30, 12, 0))
    assert step.status == "applied", step.text


@pytest.mark.parametrize("policy", ["pause", "ally", "default"])
def test_a_weeks_holiday_in_the_middle_of_a_conflict(mt, chicago, policy):
    set_campaign(chicago, "away_policy", policy)
    start_conflict(mt)
    ally = " ally Charles" if policy == "ally" else ""
    away = mt.post("Ruth", f'/away until 2026-12-08{ally} "a week in Crete"\n', at=datetime(2026, 12, 1, 9, 0))
    assert away.status == "applied", away.text
    assert 'Ruth is away until Tue 8 Dec 00:00 UTC (in 7 days) ("a week in Crete")' in away.text
    assert all(r.to != [RUTH] for r in away.replies[1:])
    table = mt.post("Cassandra", "/table\n", at=datetime(2026, 12, 1, 10, 0))
    assert "Away: Ruth until Tue 8 Dec 00:00 UTC" in table.text

    attack = mt.post("GM", "/as Ghoul attack Ruth with Fight\n", dice="++++", at=datetime(2026, 12, 2, 12, 0))
    assert attack.status == "applied", attack.text
    assert "is away" not in attack.text                    # the table was told once
    (pending,) = play_state(chicago).pending
    if policy == "pause":
        # the defence waits for her return, plus the usual 48 hours
        assert pending.deadline == datetime(2026, 12, 10, 0, 0)
        assert "by Thu 10 Dec 00:00 UTC" in attack.text
        old = mt.tick(datetime(2026, 12, 4, 12, 0))      # the old deadline: the Ghoul's handoff only
        assert "Ruth did not answer" not in old.text and "Ghoul did not hand the turn on" in old.text, old.text
        assert mt.tick(datetime(2026, 12, 8, 0, 0)).replies == []       # she is back; nothing due yet
        assert play_state(chicago).away == []
        reminder = mt.tick(datetime(2026, 12, 9, 12, 0))
        assert [r.to for r in reminder.replies] == [[RUTH]]
        due = mt.tick(datetime(2026, 12, 10, 0, 0), dice="----")
        assert "Ruth did not answer by Thu 10 Dec 00:00 UTC: Ruth defends with" in due.text
    elif policy == "ally":
        assert pending.deadline == datetime(2026, 12, 4, 12, 0)
        reminder = mt.tick(datetime(2026, 12, 4, 0, 30))
        (to_ruth,) = mails_to(reminder, RUTH)
        assert sorted(to_ruth.to) == [CHARLES, RUTH] and "Sent to the ally too" in to_ruth.text
        # Charles's player answers for her; Cassandra's may not
        refused = mt.post("Cassandra", "/as Ruth defend Athletics\n", at=datetime(2026, 12, 4, 1, 0))
        assert refused.status == "rejected" and "Ruth is not your character" in refused.text
        answered = mt.post("Charles", "/as Ruth defend Athletics\n", dice="0000", at=datetime(2026, 12, 4, 1, 0))
        assert answered.status == "applied", answered.text
        assert "Ruth defends with Athletics" in answered.text
    else:
        # pbp does not wait for her: at the next round the default applies, with a note
        due = mt.tick(datetime(2026, 12, 2, 12, 1), dice="----")
        assert "Ruth's player is away until Tue 8 Dec 00:00 UTC (in 5 days): pbp takes the default for Ruth." in due.text
        assert "Ruth defends with Fight" in due.text
        (hit,) = play_state(chicago).pending
        assert hit.kind == "absorb"
        later = mt.tick(datetime(2026, 12, 2, 12, 2))
        assert "the cheapest absorption applies" in later.text
    assert mt.post("Ruth", "/back\n", at=datetime(2026, 12, 10, 1, 0)).status == "rejected"   # not away any more


def test_the_gm_sends_a_player_away_and_the_yearly_budget(mt, chicago):
    set_campaign(chicago, "away_days_per_year", "10")
    step = mt.post("GM", "/away Ruth until 2026-12-07\n", at=datetime(2026, 11, 30, 12, 0))
    assert step.status == "applied", step.text
    assert "Days away this year: 7 of 10." in step.text
    refused = mt.post("Ruth", "/away until 2026-12-20\n", at=datetime(2026, 12, 1, 12, 0))
    assert refused.status == "rejected"
    assert "(8 left this year)" in refused.text and "/away until 2026-12-09" in refused.text   # her week is given back first
    assert mt.post("Charles", "/away Ruth until 2026-12-07\n").status == "rejected"
    back = mt.post("Ruth", "/back\n", at=datetime(2026, 12, 2, 12, 0))
    assert back.status == "applied" and "Ruth is back." in back.text
    assert play_state(chicago).people[RUTH].away_days == {"2026": 3}    # 2.5 days taken, a part day counted whole
    past = mt.post("Ruth", "/away until 2026-11-01\n", at=datetime(2026, 12, 2, 13, 0))
    assert past.status == "rejected" and "/away until 2026-12-09" in past.text
    with pytest.raises(ConfigError, match="pause, ally or default"):
        set_campaign(chicago, "away_policy", "wait")
    with pytest.raises(ConfigError, match="did you mean away_policy"):
        set_campaign(chicago, "away_polcy", "pause")


# ------------------------------------------------------------------ pace outside a conflict


def test_a_free_scene_with_a_posting_order_a_pass_reminders_a_stall_and_quiet_hours(mt, chicago):
    t0 = datetime(2026, 12, 1, 12, 0)
    mt.post("Ruth", "/settings tz=Europe/Lisbon quiet=23-08\n", at=t0)
    mt.post("GM", "/scene start Harbour\n", at=t0)
    order = mt.post("GM", "/pace order Ruth, Charles, GM\n", at=t0)
    assert order.status == "applied", order.text
    assert "Posting order: Ruth, Charles, GM." in order.text
    assert "Next to post: Ruth (by Thu 3 Dec 12:00 UTC (in 2 days)" in order.text
    assert mt.post("Charles", "/pace round\n", at=t0).status == "rejected"          # the GM's

    # Ruth's reminder falls due at 00:00 UTC on the 3rd, in her quiet hours (23-08 Lisbon): it waits
    assert mt.tick(datetime(2026, 12, 3, 0, 0)).replies == []
    assert mt.tick(datetime(2026, 12, 3, 7, 59)).replies == []
    reminder = mt.tick(datetime(2026, 12, 3, 8, 0))
    assert [r.to for r in reminder.replies] == [[RUTH]]
    assert "Thu 3 Dec 12:00 WET (in 4 hours)" in reminder.replies[0].subject
    assert mt.tick(datetime(2026, 12, 3, 9, 0)).replies == []                        # once

    posted = mt.post("Ruth", "Ruth walks along the quay, watching the boats.\n", at=datetime(2026, 12, 3, 10, 0))
    assert "Next to post: Charles (by Sat 5 Dec 10:00 UTC" in posted.text
    passed = mt.post("Charles", '/pass "Charles waits in the car"\n', at=datetime(2026, 12, 3, 11, 0))
    assert 'Charles passes this round ("Charles waits in the car").' in passed.text
    assert "Next to post: GM (by Sat 5 Dec 11:00 UTC" in passed.text

    # the GM's own post is owed: reminded, then the turn passes on at the deadline
    gm = mt.tick(datetime(2026, 12, 4, 23, 0))
    assert [r.to for r in gm.replies] == [[GM_]]
    late = mt.tick(datetime(2026, 12, 5, 11, 0))
    assert "GM did not post by Sat 5 Dec 11:00 UTC: the turn passes on. Next: Ruth." in late.text
    assert "Round 2 of the scene begins." in late.text

    # no post for stall_hours (72 from Charles's pass): the table is nudged once, but not
    # while Ruth is in her quiet hours (08 Dec 11:00 UTC is 11:00 in Lisbon: not quiet)
    set_campaign(chicago, "stall_hours", "72")
    set_campaign(chicago, "post_deadline_hours", "200")
    mt.post("GM", "The harbour goes quiet.\n", at=datetime(2026, 12, 5, 23, 30))
    assert mt.tick(datetime(2026, 12, 8, 23, 30)).replies == []    # 72 hours, but 23:30 in Lisbon
    nudge = mt.tick(datetime(2026, 12, 9, 8, 0))
    assert len(nudge.replies) == 1 and len(nudge.replies[0].to) > 2
    assert "The scene has had no post since Sat 5 Dec 23:30 UTC." in nudge.text
    assert mt.tick(datetime(2026, 12, 9, 12, 0)).replies == []     # once per stall

    # everyone once per round: the GM, then each player in any order
    mt.post("GM", "/pace round\n", at=datetime(2026, 12, 9, 13, 0))
    step = mt.post("Ruth", "Ruth hails a boat.\n", at=datetime(2026, 12, 9, 14, 0))
    assert "Round 2: still to post: Cassandra, Charles, Ethan, GM" in step.text
