"""Fair play by default, from the player's side: a player's plain +N waits for the GM (the
roll falls at once without it and the GM's approval re-runs it), bonuses are bounded for
everyone, a sheet aspect renamed by its player waits for the GM, and campaign settings
refuse nonsense."""
from __future__ import annotations

import pytest

from pbp.campaigns import set_campaign
from pbp.cli import main
from pbp.errors import ConfigError
from pbp.store import models as m
from pbp.store import repo
from tests.play.conftest import state_snapshot
from tests.play.table import address


def _gm_tell(step, subject_part):
    found = [r for r in step.replies if subject_part in r.subject]
    assert len(found) == 1, [r.subject for r in step.replies]
    assert found[0].to == [address("GM")]
    return found[0]


def _settings(campaign):
    return m.Campaign.get_by_id(campaign.id).settings or {}


def test_a_huge_bonus_is_refused_for_players_and_the_gm_alike(mt, chicago):
    before = state_snapshot(chicago)
    for who, line in (("Ruth", "/overcome Athletics vs Legendary +99"),
                      ("GM", "/as Ghoul overcome Athletics vs Fair +5"),
                      ("Ruth", "/attack Ghoul with Fight -7")):
        step = mt.post(who, line + "\n", dice="0000")
        assert step.status == "rejected", step.text
        assert "too big: an action takes at most" in step.text
        # the GM's example keeps the /as that says whose roll it is (issue 21: it must play)
        assert ("example:  /as Ghoul overcome Athletics vs Fair +1" if who == "GM" else
                "example:  /overcome Athletics vs Fair +1") in step.text
        assert step.replies[0].to == [address(who)]
    assert state_snapshot(chicago) == before
    step = mt.post("Ruth", "/roll 3d6+10\n", dice="6 6 6")   # a plain roll decides nothing
    assert step.status == "applied" and step.outcome.results[0]["effort"] == 28


def test_the_docs_show_the_real_refusal(mt, chicago):
    from pathlib import Path

    docs = (Path(__file__).resolve().parents[2] / "docs" / "commands.md").read_text(encoding="utf-8")
    block = docs.split("```refused\n", 1)[1].split("```", 1)[0].splitlines()
    step = mt.post("Ruth", block[0] + "\n", dice="0000")
    error = step.outcome.errors[0]
    assert block[1:] == [f"  message:  {error['message']}", f"  expected: {error['expected']}",
                         f"  example:  {error['example']}"]


def test_a_players_bonus_waits_and_the_gms_bare_approve_reruns_the_roll(mt, chicago):
    # Athletics Good (+3), dice 0000: +3 against Great (+4) fails; with the +2 it succeeds.
    step = mt.post("Ruth", "/overcome Athletics vs Great +2\n", dice="0000")
    assert step.status == "applied", step.text
    result = step.outcome.results[0]
    assert (result["effort"], result["outcome"]) == (3, "fail")
    table_reply = step.replies[0]
    assert "Bonus request #2" in table_reply.text and "waits for the GM" in table_reply.text
    ask = _gm_tell(step, "Bonus request #2 needs your approval")
    assert "/overcome Athletics vs Great +2" in ask.text

    approved = mt.post("GM", "approve\n", reply_to=type(step)(None, [ask]))
    assert approved.status == "applied", approved.text
    again = approved.outcome.results[0]
    assert (again["effort"], again["outcome"]) == (5, "success")
    assert again["dice"] == [0, 0, 0, 0]                       # the same dice, never a new roll
    assert "The GM approves bonus request #2" in approved.text
    assert (m.Campaign.get_by_id(chicago.id).play or {}).get("details") == []


def test_a_denied_bonus_leaves_the_roll_as_it_fell(mt, chicago):
    mt.post("Ruth", "/overcome Athletics vs Great +2\n", dice="0000")
    denied = mt.post("GM", '/deny #2 "no high ground here"\n')
    assert denied.status == "applied", denied.text
    assert "denies bonus request #2: no high ground here; the roll stands without it" in denied.text
    late = mt.post("GM", "/approve #2\n")
    assert late.status == "rejected" and "bonus request #2 is already denied" in late.text


def test_a_bonus_approved_after_the_roll_closed_does_not_apply(mt, chicago):
    mt.post("Ruth", "/overcome Athletics vs Great +2\n", dice="0000")
    rolls = m.RollRecord.select().count()
    assert mt.post("Ruth", "/done\n").status == "applied"
    late = mt.post("GM", "/approve #2\n")
    assert late.status == "applied", late.text
    assert "can no longer apply" in late.text and "the roll stands as it fell" in late.text
    assert late.outcome.results[0]["outcome"] is None
    assert m.RollRecord.select().count() == rolls


def test_only_the_gm_approves_a_bonus(mt, chicago):
    mt.post("Ruth", "/overcome Athletics vs Great +2\n", dice="0000")
    before = state_snapshot(chicago)
    step = mt.post("Ruth", "/approve #2\n")
    assert step.status == "rejected"
    assert state_snapshot(chicago) == before


def test_the_gms_own_bonus_and_a_players_penalty_apply_at_once(mt, chicago):
    step = mt.post("GM", "/as Ruth overcome Athletics vs Great +2\n", dice="0000")
    assert step.outcome.results[0]["effort"] == 5 and "Bonus request" not in step.text
    step = mt.post("Ruth", "/overcome Athletics vs Great -1\n", dice="0000")
    assert step.outcome.results[0]["effort"] == 2 and "Bonus request" not in step.text


def test_a_campaign_with_free_bonuses_applies_a_players_bonus_at_once(mt, chicago):
    set_campaign(chicago, "free_bonuses", "yes")
    step = mt.post("Ruth", "/overcome Athletics vs Great +2\n", dice="0000")
    assert step.outcome.results[0]["effort"] == 5
    assert all("approval" not in r.subject for r in step.replies)
    set_campaign(chicago, "free_bonuses", "no")
    step = mt.post("Ruth", "/overcome Athletics vs Great +2\n", dice="0000")
    assert step.outcome.results[0]["effort"] == 3


def test_a_bonus_nobody_approves_is_denied_at_the_deadline(mt, chicago, config):
    from datetime import timedelta

    step = mt.post("Ruth", "/overcome Athletics vs Great +2\n", dice="0000")
    tick = mt.tick(mt.now + timedelta(hours=config.reaction_deadline_hours, minutes=1))
    assert any("Bonus request #2 was not approved" in r.text for r in tick.replies)
    assert step.outcome.results[0]["effort"] == 3


def test_a_high_concept_rename_waits_for_the_gm_but_a_consequence_does_not(mt, chicago):
    old, new = "Ex-Cop Turned Occult Investigator", "Occult Investigator With a Badge"
    step = mt.post("Ruth", f'/aspect rename "{old}" to "{new}"\n')
    assert step.status == "applied", step.text
    assert "Aspect change #1" in step.text and "once the GM approves" in step.text
    names = {a.name for a in repo.load_table(chicago).aspects if a.owner == "Ruth"}
    assert old in names and new not in names
    ask = _gm_tell(step, "Aspect change #1 needs your approval")
    approved = mt.post("GM", "approve\n", reply_to=type(step)(None, [ask]))
    assert approved.status == "applied", approved.text
    names = {a.name for a in repo.load_table(chicago).aspects if a.owner == "Ruth"}
    assert new in names and old not in names

    trouble = mt.post("Ruth", '/aspect rename "Hair-Trigger Temper" to "Calm as a Lake"\n')
    assert "Aspect change #2" in trouble.text
    denied = mt.post("GM", "/deny #2\n")
    assert "the aspect keeps its name" in denied.text
    assert "Hair-Trigger Temper" in {a.name for a in repo.load_table(chicago).aspects}


def test_a_player_renames_a_boost_at_once(mt, chicago):
    # A tie on an overcome, taken as a boost (rules 002); Ruth names it as she likes.
    step = mt.post("Ruth", "/overcome Athletics vs Good on tie boost\n", dice="0000")
    boost = next(a for a in repo.load_table(chicago).aspects if a.kind == "boost")
    step = mt.post("Ruth", f'/aspect rename "{boost.name}" to "Right Behind You"\n')
    assert step.status == "applied", step.text
    assert "Aspect change" not in step.text
    assert "Right Behind You" in {a.name for a in repo.load_table(chicago).aspects}


@pytest.mark.parametrize("key", ["reaction_deadline_hours", "invoke_window_hours", "reminder_hours"])
@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "1e400", "-1", "1e9", "9000", "soon", ""])
def test_campaign_settings_refuse_nonsense_naming_the_key(chicago, key, value):
    before = _settings(chicago)
    with pytest.raises(ConfigError) as err:
        set_campaign(chicago, key, value)
    assert key in str(err.value) and f"pbp campaign set {key}=24" in err.value.hint
    assert _settings(chicago) == before


def test_zero_is_no_window_but_no_deadline(chicago):
    set_campaign(chicago, "invoke_window_hours", "0")
    assert _settings(chicago)["invoke_window_hours"] == 0
    with pytest.raises(ConfigError, match="reaction_deadline_hours"):
        set_campaign(chicago, "reaction_deadline_hours", "0")
    with pytest.raises(ConfigError, match="free_bonuses = 'maybe' is not yes or no"):
        set_campaign(chicago, "free_bonuses", "maybe")


def test_the_cli_says_one_clear_line_for_a_bad_setting(chicago, config, capsys, monkeypatch, tmp_path):
    cfg = tmp_path / "pbp.toml"
    cfg.write_text(f'[database]\nurl = "{config.database_url}"\n')
    assert main(["-c", str(cfg), "campaign", "set", "reaction_deadline_hours=nan", "--campaign", "chicago"]) == 3
    err = capsys.readouterr().err
    assert "reaction_deadline_hours = 'nan' is not a finite number of hours" in err
    assert "Traceback" not in err


def test_the_config_file_refuses_nonsense_hours(tmp_path):
    from pbp.config import config_from_dict

    with pytest.raises(ConfigError, match="reminder_hours"):
        config_from_dict({"play": {"reminder_hours": float("nan")}}, base=tmp_path)


def test_an_approved_bonus_on_a_defence_changes_the_hit_waiting_to_be_absorbed(mt, chicago):
    attack = mt.post("GM", "/as Ghoul attack Ruth with Fight\n", dice="++00")
    assert attack.status == "applied", attack.text
    defence = mt.post("Ruth", "/defend Athletics +2\n", dice="0000")
    assert defence.status == "applied", defence.text
    pending = (m.Campaign.get_by_id(chicago.id).play or {})["pending"]
    assert [p["kind"] for p in pending] == ["absorb"]
    shifts = pending[0]["shifts"]
    assert shifts == 1
    request = (m.Campaign.get_by_id(chicago.id).play or {})["details"][0]
    roll = defence.outcome.results[0]["roll_id"]      # the defence's roll, which the bonus would change
    assert request["kind"] == "bonus" and request["data"] == {"bonus": 2, "roll": roll}
    approved = mt.post("GM", f"/approve #{request['id']}\n")
    assert approved.status == "applied", approved.text
    assert (m.Campaign.get_by_id(chicago.id).play or {})["pending"] == []   # +2: the 1-shift hit is gone
    assert f"Roll #{roll} revised" in approved.text and "Ruth no longer has a hit to absorb" in approved.text
