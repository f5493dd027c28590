"""Advancement by mail, checked against its transcript (tests/golden/advancement)."""
from __future__ import annotations

from pbp.play.state import load_play
from pbp.sheethistory import history, undo
from pbp.store import models as m
from pbp.store import repo
from tests.play import golden


def test_advancement_by_mail(chicago, config, update):
    table, _ = golden.check("advancement", config, update)
    steps = table.steps
    assert [s.status for s in steps[:7]] == ["applied", "rejected", "applied", "applied", "applied", "applied",
                                             "applied"]
    refused = steps[1].text
    assert "4 skills at Fair (+2) but only 3 at Average (+1)" in refused
    assert "raise another skill Mediocre (+0) -> Average (+1) instead" in refused
    assert "or save the skill point for a later milestone" in refused
    assert "example:  /advance skills.Academics=Average" in refused
    assert "The GM approves advancement #1" in steps[3].text
    assert "skills       Athletics +4, Fight +3," in steps[4].text
    assert "3 skill points" in steps[5].text                       # 1 saved + 1 + the power-up's 1
    assert "Contacts Average (+1) -> Fair (+2)" in steps[6].text and "Lore Mediocre (+0) -> Average (+1)" in steps[6].text
    assert "Reminder: Ruth asked for advancement #2" in steps[7].replies[0].text
    denied = steps[8].replies[0].text
    assert "Advancement #2 was not approved by Tue 22 Dec 18:10 UTC: it is denied" in denied
    campaign = m.Campaign.get_by_id(chicago.id)
    ruth = repo.load_table(campaign).character("Ruth")
    assert (ruth.skills["Athletics"], ruth.skills["Fight"], ruth.skills["Contacts"]) == (4, 3, 1)
    assert load_play(campaign.play).advances["Ruth"]["skill_points"] == 3
    # the approved change is in the sheet history, from the GM's post, and undoable
    rows = [r for r in history(campaign, "Ruth") if r.how == "play" and r.before.get("skills") != r.after.get("skills")]
    assert len(rows) == 1 and rows[0].who == "gm@pbp.localhost" and rows[0].message_id
    undo(campaign, "Ruth", who="gm")
    ruth = repo.load_table(m.Campaign.get_by_id(chicago.id)).character("Ruth")
    assert (ruth.skills["Athletics"], ruth.skills["Fight"]) == (3, 4)
