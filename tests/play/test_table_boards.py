"""The boards on the table's view (issue 11, items 2 and 3): an open challenge and an open
contest in ``pbp table --json`` and in ``/table``, whole for the GM and, with an NPC's skill
ratings left out (unless the campaign has ``show_npc_skills``), for the players.

Rules: Fate Condensed, "Challenges" and "Contests" (001_0095f60d590caa10.txt): a challenge
is "a series of overcome actions"; in a contest each side makes one overcome each
exchange, "the highest effort marks a victory" and a tie for it is a twist. The ratings here
are the sample sheets' (pbp/samples/chicago): Ruth's Athletics Good (+3), Cassandra's
Athletics Fair (+2), the Ghoul's Stealth Fair (+2) and Physique Good (+3)."""
from __future__ import annotations

import json

from pbp.campaigns import set_campaign
from pbp.cli import main
from pbp.demo import sample_dir
from pbp.flow.commit import read_post
from pbp.flow.context import Context
from pbp.play.overview import overview, to_json
from pbp.rules.dice import FixedDice
from pbp.store import models as m
from tests.helpers import eml
from tests.play.test_hidden import GM, assert_players_never_told, for_players, mails_of

VAULT = "/challenge start Vault tasks Burglary vs Good, Notice vs Ghoul, Athletics vs Fair for Ethan, Ruth\n"
CHASE = ('/contest start Chase Ruth, Charles "escape" vs Cassandra "catch them" '
         "threat Ghoul with Physique threat Flood Fair\n")


def view(config, chicago, *, gm: bool) -> dict:
    """The overview as ``pbp table --json`` writes it (``gm``) or as a player's view has it,
    through JSON and back."""
    post = read_post(m.Campaign.get_by_id(chicago.id), Context(config=config, dice=FixedDice("")))
    return json.loads(json.dumps(to_json(overview(post, gm=gm))))


def test_a_challenge_on_the_table(mt, chicago, config):
    assert mt.post("GM", VAULT).status == "applied"
    took = mt.post("Ethan", "/overcome Burglary\n", dice="0000")
    assert took.status == "applied", took.text
    roll = took.outcome.results[0]["roll_id"]

    board = view(config, chicago, gm=True)["challenge"]
    assert board["name"] == "Vault" and board["who"] == ["Ethan", "Ruth"] and board["taken"] == 1
    assert board["deadline"].startswith("2026-") and "_deadline" not in board
    first, second, third = board["tasks"]
    assert {k: first[k] for k in ("n", "skill", "difficulty", "opponent", "state", "by", "helpers", "roll",
                                  "outcome", "cost")} == \
        {"n": 1, "skill": "Burglary", "difficulty": 3, "opponent": None, "state": "done", "by": "Ethan",
         "helpers": [], "roll": roll, "outcome": "success", "cost": None}
    assert first["text"] == "done by Ethan (success)"
    assert (second["difficulty"], second["opponent"], second["state"], second["roll"]) == (None, "Ghoul", "open", None)
    assert second["opposed_with"] == {"skill": "Stealth", "rating": 2}         # the GM's: an NPC's rating
    assert (third["skill"], third["difficulty"], third["state"]) == ("Athletics", 2, "open")
    players = view(config, chicago, gm=False)["challenge"]
    assert "opposed_with" not in players["tasks"][1]
    assert players["tasks"][0] == first

    seen = mt.post("Ruth", "/table\n")
    assert seen.status == "applied", seen.text
    text = seen.text
    assert 'Challenge "Vault": tasks for Ethan and Ruth.' in text and f"Rolls: task 1 #{roll}." in text
    assert "1. Burglary vs Good (+3): done by Ethan (success)" in text          # the board, in the footer
    assert "opposed by Ghoul" not in text
    gm = mt.post("GM", "/table\n")
    (mail,) = mails_of(gm)
    assert list(mail.to) == [GM] and "Task 2 is opposed by Ghoul: Stealth, Fair (+2)." in gm.text
    assert_players_never_told("opposed by Ghoul")


def test_a_contest_on_the_table(mt, chicago, config):
    assert mt.post("GM", CHASE).status == "applied"
    rolled = mt.post("Ruth", "/overcome Athletics\n", dice="0000")
    assert rolled.status == "applied", rolled.text
    roll = rolled.outcome.results[0]["roll_id"]

    co = view(config, chicago, gm=True)["contest"]
    assert (co["name"], co["exchange"], co["needed"], co["difficulty"], co["twist"]) == ("Chase", 1, 3, 2, None)
    ours, theirs = co["sides"]
    assert ours == {"members": ["Ruth", "Charles"], "intent": "escape", "victories": 0, "standing": True,
                    "owes": False, "rolled": {"by": "Ruth", "effort": 3, "outcome": "success", "roll": roll,
                                              "helpers": []},
                    "forfeited": None, "text": "rolled: Ruth, Good (+3)"}
    assert (theirs["members"], theirs["owes"], theirs["rolled"]) == (["Cassandra"], True, None)
    assert co["owing"] == [["Cassandra"]]
    assert co["threats"] == [{"name": "Ghoul", "rating": None, "skill": "Physique", "side": None, "skill_rating": 3},
                             {"name": "Flood", "rating": 2, "skill": None, "side": None}]
    players = view(config, chicago, gm=False)["contest"]
    assert players["threats"][0] == {"name": "Ghoul", "rating": None, "skill": "Physique", "side": None}
    assert players["sides"] == co["sides"]

    seen = mt.post("Charles", "/table\n")
    text = seen.text
    assert "Threat: Ghoul, attacking with Physique." in text and "Threat: Flood, Fair (+2)." in text
    assert f"Rolls this exchange: #{roll} (Ruth and Charles)." in text
    assert 'Cassandra ("catch them"): 0 victories; this exchange: owes an overcome' in text    # the footer's tally
    gm = mt.post("GM", "/table\n")
    assert "Threat: Ghoul, attacking with Physique, Good (+3)." in gm.text
    assert_players_never_told("attacking with Physique, Good")

    # a tie for the highest effort: no victory, a twist owed (the Ghoul's attack roll, 3, hits no one)
    tie = mt.post("Cassandra", "/overcome Athletics\n", dice="+000,0000")
    assert tie.status == "applied", tie.text
    co = view(config, chicago, gm=False)["contest"]
    assert co["exchange"] == 2 and co["twist"]["exchange"] == 1
    assert co["twist"]["default"] == "Unexpected Twist (to be named)" and co["twist"]["deadline"]
    assert [s["owes"] for s in co["sides"]] == [True, True] and [s["victories"] for s in co["sides"]] == [0, 0]


def test_show_npc_skills_shows_the_threats_rating_to_the_players(mt, chicago, config):
    set_campaign(chicago, "show_npc_skills", "true")
    mt.post("GM", CHASE)
    step = mt.post("Ruth", "/table\n")
    assert "Threat: Ghoul, attacking with Physique, Good (+3)." in step.text
    assert all(mail.to_players for mail in for_players(step))
    assert view(config, chicago, gm=False)["contest"]["threats"][0]["skill_rating"] == 3


def test_no_boards_no_keys(mt, chicago, config):
    gm = view(config, chicago, gm=True)
    assert gm["challenge"] is None and gm["contest"] is None


def test_pbp_table_json_has_the_boards(tmp_path, monkeypatch, capsys):
    """``pbp table --json`` on the server: the GM's view, with the challenge's board."""
    monkeypatch.chdir(tmp_path)
    assert main(["init"]) == 0
    assert main(["campaign", "create", "chicago", "--name", "Chicago Nights", "--gm", GM,
                 "--address", "table+chicago@pbp.localhost"]) == 0
    sheets = [str(p) for p in sorted(sample_dir().glob("*.toml")) if p.name != "campaign.toml"]
    assert main(["character", "import", *sheets, "--campaign", "chicago"]) == 0
    post = tmp_path / "setup.eml"
    post.write_bytes(eml(VAULT + CHASE.replace("Ruth, ", ""), sender=GM, subject="Vault"))
    assert main(["process", str(post), "--no-send"]) == 0
    capsys.readouterr()
    assert main(["table", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [t["skill"] for t in out["challenge"]["tasks"]] == ["Burglary", "Notice", "Athletics"]
    assert out["challenge"]["tasks"][1]["opposed_with"] == {"skill": "Stealth", "rating": 2}
    assert out["contest"]["threats"][0]["skill_rating"] == 3
    assert main(["table"]) == 0
    text = capsys.readouterr().out
    assert 'Challenge "Vault": 0 of 3 tasks taken' in text and "Task 2 is opposed by Ghoul: Stealth, Fair (+2)." in text
