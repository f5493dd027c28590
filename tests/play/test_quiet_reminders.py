"""Quiet hours hold the conflict's and the compels' reminders too (issue 24, item 2: "never
during a member's quiet hours"), by mail through the pipeline on the clock: Ruth's
reminder to defend, due at 02:00 UTC, waits until her quiet hours in Lisbon end at 08:00;
the GM's reminder to approve a compel waits for the GM's; the deadline job is not due again
before then, and a member with no quiet hours is reminded on time."""
from __future__ import annotations

from datetime import datetime

from pbp.play.state import load_play
from pbp.store import models as m
from tests.play.table import MailTable

RUTH, CHARLES, GM = "ruth@pbp.localhost", "charles@pbp.localhost", "gm@pbp.localhost"


def next_deadline(chicago):
    return m.Campaign.get_by_id(chicago.id).next_deadline


def reminders(step, who):
    return [r for r in step.replies if r.to == [who] and "Reminder" in r.subject]


def test_a_defence_reminder_waits_for_the_players_quiet_hours(chicago, config):
    mt = MailTable(config)
    assert mt.post("Ruth", "/settings tz=Europe/Lisbon quiet=23-08", at=datetime(2026, 11, 30, 9, 0)).status == "applied"
    scene = mt.post("GM", '/scene start "Warehouse"\n/conflict start Ruth, Charles, Ghoul first Ghoul',
                    subject="The warehouse", at=datetime(2026, 11, 30, 13, 0))
    attack = mt.post("GM", "/as Ghoul attack Ruth with Fight\n/as Ghoul next Charles", dice="0000", reply_to=scene,
                     at=datetime(2026, 11, 30, 14, 0))
    assert attack.status == "applied", attack.outcome.errors
    defence = next(p for p in load_play(m.Campaign.get_by_id(chicago.id).play).pending if p.target == "Ruth")
    assert defence.deadline == datetime(2026, 12, 2, 14, 0)           # 48 hours; reminder 12 hours before
    assert next_deadline(chicago) <= datetime(2026, 12, 2, 2, 0)
    night = mt.tick(datetime(2026, 12, 2, 2, 0))                       # 02:00 in Lisbon: Ruth is asleep
    assert reminders(night, RUTH) == []
    assert next_deadline(chicago) == datetime(2026, 12, 2, 8, 0)       # due again when her quiet hours end
    assert mt.tick(datetime(2026, 12, 2, 7, 59)).replies == []
    morning = mt.tick(datetime(2026, 12, 2, 8, 0))
    [mail] = reminders(morning, RUTH)
    assert mail.subject.startswith("[Chicago Nights] Reminder: Ruth, defend by")
    assert "Wed 2 Dec 14:00 WET (in 6 hours)" in mail.text              # her zone
    assert reminders(mt.tick(datetime(2026, 12, 2, 9, 0)), RUTH) == []   # once


def test_a_member_without_quiet_hours_is_reminded_on_time(chicago, config):
    mt = MailTable(config)
    scene = mt.post("GM", '/scene start "Warehouse"\n/conflict start Ruth, Charles, Ghoul first Ghoul',
                    subject="The warehouse", at=datetime(2026, 11, 30, 13, 0))
    mt.post("GM", "/as Ghoul attack Ruth with Fight\n/as Ghoul next Charles", dice="0000", reply_to=scene,
            at=datetime(2026, 11, 30, 14, 0))
    night = mt.tick(datetime(2026, 12, 2, 2, 0))
    assert len(reminders(night, RUTH)) == 1


def test_the_gms_approval_reminder_waits_for_the_gms_quiet_hours(chicago, config):
    mt = MailTable(config)
    assert mt.post("GM", "/settings quiet=22-07", at=datetime(2026, 11, 30, 9, 0)).status == "applied"
    offer = mt.post("Charles", '/compel Ruth "Hair-Trigger Temper" event "The bouncer\'s jibe sets her off"',
                    subject="The bar", at=datetime(2026, 11, 30, 12, 0))
    assert offer.status == "applied", offer.outcome.errors
    compel = load_play(m.Campaign.get_by_id(chicago.id).play).compels[-1]
    assert compel.state.value == "awaiting_gm" and compel.deadline is not None
    assert compel.deadline == datetime(2026, 12, 2, 12, 0)             # its reminder is due at midnight
    night = mt.tick(datetime(2026, 12, 2, 0, 0))
    assert reminders(night, GM) == []
    assert next_deadline(chicago) == datetime(2026, 12, 2, 7, 0)
    [mail] = reminders(mt.tick(datetime(2026, 12, 2, 7, 0)), GM)
    assert "Compel #" in mail.subject and "needs your approval" in mail.subject
