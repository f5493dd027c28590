"""A campaign's secret skills (issue 25, "a campaign default for some skills"; docs/commands.md,
"Secret and blind rolls"): ``pbp campaign set secret_skills=Notice,Empathy`` makes those
overcomes and skill rolls secret (the GM's) or blind (a player's) without the word, outside a
conflict. Probed from the players' side: their mails and /table never show the dice or the
outcome until the scene ends; the GM's mail does; the reveal and the verifier cover them."""
from __future__ import annotations

import re

import pytest

from pbp import verify_dice
from pbp.campaigns import set_campaign
from pbp.cli import build_parser
from pbp.demo import create_sample_campaign
from pbp.errors import ConfigError
from pbp.store import models as m
from tests.dice.test_committed import save_mails
from tests.dice.test_secret import OUTCOMES
from tests.play.table import MailTable, address


@pytest.fixture
def table(db, config):
    create_sample_campaign()
    set_campaign(m.Campaign.get(), "secret_skills", "notice, Empathy")
    mt = MailTable(config, committed=True)
    assert mt.post("GM", '/scene start "The Docks"\n').status == "applied"
    return mt


def _theirs(step, who):
    return [r for r in step.replies if address(who) in r.to]


def test_the_setting_is_checked_against_the_systems_skills(db):
    create_sample_campaign()
    chicago = m.Campaign.get()
    with pytest.raises(ConfigError) as e:
        set_campaign(chicago, "secret_skills", "Notice,Noticing")
    assert '"Noticing" is not a Fate Condensed skill' in str(e.value), str(e.value)
    assert "e.g. pbp campaign set secret_skills=" in e.value.hint, e.value.hint
    set_campaign(chicago, "secret_skills", "empathy,Notice,notice")
    assert m.Campaign.get().settings["secret_skills"] == ["Empathy", "Notice"]
    set_campaign(m.Campaign.get(), "secret_skills", "")
    assert m.Campaign.get().settings["secret_skills"] == []


def test_the_setting_is_in_the_help():
    sub = next(a for a in build_parser()._subparsers._group_actions[0].choices["campaign"]._subparsers
               ._group_actions[0].choices.values() if a.prog.endswith(" set"))
    assert "secret_skills" in sub.format_help() and "Notice,Empathy" in sub.format_help()


def test_the_gms_overcome_of_a_secret_skill_is_secret_without_the_word(table):
    step = table.post("GM", "The Ghoul listens.\n/as Ghoul overcome Notice vs Fair\n")
    assert step.status == "applied", step.text
    mine = _theirs(step, "Cassandra")
    assert len(mine) == 1, [r.text for r in step.replies]
    rid = re.search(r"Roll #(\d+): Ghoul rolled in secret \(overcome with Notice\)", mine[0].text)
    assert rid, mine[0].text
    assert not OUTCOMES.search(mine[0].text.split("pbp-dice/2")[0]), mine[0].text
    assert re.search(rf"pbp-dice/2 secret .* t0=#{rid.group(1)}:4dF:\?$", mine[0].text, re.M), mine[0].text
    gm = [r for r in step.replies if r.to == [address("GM")]]
    assert gm and "Ghoul overcomes with Notice" in gm[0].text and "dice " in gm[0].text, [r.text for r in step.replies]
    view = table.post("Cassandra", "/table\n")
    assert not OUTCOMES.search(view.text.split("pbp-dice/2")[0]), view.text


def test_a_players_roll_of_a_secret_skill_is_blind_and_another_skill_is_not(table):
    step = table.post("Cassandra", "I watch his face.\n/overcome Empathy vs Fair\n")
    assert step.status == "applied", step.text
    mine = _theirs(step, "Cassandra")
    assert len(mine) == 1 and "Cassandra rolled blind (overcome with Empathy)" in mine[0].text, mine[0].text
    assert "Rolled; the GM knows the result." in mine[0].text
    assert not OUTCOMES.search(mine[0].text.split("pbp-dice/2")[0]), mine[0].text
    gm = [r for r in step.replies if r.to == [address("GM")]]
    assert gm and "dice " in gm[0].text, [r.text for r in step.replies]
    plain = table.post("Cassandra", "/overcome Athletics vs Fair\n")
    assert plain.status == "applied" and "rolled blind" not in plain.text, plain.text
    assert "dice " in _theirs(plain, "Cassandra")[0].text, plain.text


def test_secret_skill_rolls_are_revealed_and_verified_at_the_scenes_end(table, tmp_path):
    assert table.post("GM", "/as Ghoul overcome Notice vs Fair\n").status == "applied"
    assert table.post("Cassandra", "/roll notice\n").status == "applied"
    good, bad = verify_dice.verify(save_mails(tmp_path / "before", address("Charles")))
    assert not bad and "not revealed yet" in " ".join(good), (good, bad)
    end = table.post("GM", "/scene end\n")
    assert end.status == "applied" and len(re.findall(r"Secret roll #", end.text)) == 2, end.text
    good, bad = verify_dice.verify(save_mails(tmp_path / "after", address("Charles")))
    assert not bad and re.search(r"[1-9]\d* throws recomputed", " ".join(good)), (good, bad)


def test_in_a_conflict_a_secret_skill_is_rolled_in_the_open(table):
    assert table.post("GM", "/conflict start Cassandra, Ghoul first Ghoul\n").status == "applied"
    step = table.post("GM", "/as Ghoul overcome Notice vs Fair\n")
    assert step.status == "applied", step.text
    mine = _theirs(step, "Cassandra")
    assert mine and "rolled in secret" not in mine[0].text and "dice " in mine[0].text, mine[0].text


def test_open_makes_one_roll_of_a_secret_skill_public(table):
    step = table.post("GM", "/as Ghoul overcome Notice vs Fair open\n")
    assert step.status == "applied", step.text
    mine = _theirs(step, "Cassandra")
    assert mine and "rolled in secret" not in mine[0].text and "dice " in mine[0].text, mine[0].text
    step = table.post("Cassandra", "/roll open Notice\n")
    assert step.status == "applied" and "rolled blind" not in step.text and "dice " in step.text, step.text
