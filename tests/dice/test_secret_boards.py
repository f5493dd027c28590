"""A challenge's and a contest's boards are in every reply's footer and show each task's and
each side's result, so a secret or blind roll that would count on one is refused, and a
secret skill's roll there is made in the open (issue 25: nothing of a secret roll's outcome
reaches the table). Probed from the players' side: the board never shows a secret result."""
from __future__ import annotations

from pbp.store import models as m


def test_a_blind_task_of_a_challenge_is_refused_naming_the_open_form(table):
    assert table.post("GM", "/challenge start Yacht tasks Notice vs Good, Athletics vs Fair\n").status == "applied"
    step = table.post("Cassandra", "/overcome Notice vs Good blind\n")
    assert step.status == "rejected", step.text
    assert 'it would take task 1 of the challenge "Yacht", whose board shows its result' in step.text, step.text
    assert "example:  /overcome Notice vs Good\n" in step.text, step.text
    # an overcome of a skill no task has stays blind, and the board does not move
    other = table.post("Cassandra", "/overcome Contacts vs Fair blind\n")
    assert other.status == "applied" and "rolled blind" in other.text and "1 of 2 tasks taken" not in other.text


def test_a_secret_roll_of_a_contest_side_is_refused(table):
    started = table.post("GM", '/contest start Chase Cassandra "escape" vs Ghoul "a meal"\n')
    assert started.status == "applied", started.text
    step = table.post("GM", "/as Ghoul overcome Athletics vs Fair secret\n")
    assert step.status == "rejected", step.text
    assert "Ghoul is in the contest \"Chase\", whose board shows each side's roll" in step.text, step.text
    assert "example:  /as Ghoul overcome Athletics vs Fair\n" in step.text, step.text
    assert "rolled:" not in table.post("Cassandra", "/table\n").text


def test_a_secret_skills_task_is_rolled_in_the_open(table):
    campaign = m.Campaign.get()
    campaign.settings = {**(campaign.settings or {}), "secret_skills": ["Notice"]}
    campaign.save()
    assert table.post("GM", "/challenge start Yacht tasks Notice vs Good\n").status == "applied"
    step = table.post("Cassandra", "/overcome Notice vs Good\n")
    assert step.status == "applied" and "rolled blind" not in step.text, step.text
    assert "1 of 1 tasks taken" in step.text or "by Cassandra" in step.text, step.text
