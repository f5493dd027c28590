"""Seeing the table: ``/table`` from a player's and from the GM's side, the GM's pool with
``/fp``, the "could invoke" line under a player's roll, and ``pbp table``.

Every mail pbp wrote is read with its recipients; a hidden aspect never reaches a mail
with a player among its recipients (tests.play.test_hidden's reader)."""
from __future__ import annotations

import json

from pbp.cli import main
from pbp.demo import sample_dir
from pbp.store import models as m
from tests.helpers import eml
from tests.play.test_hidden import GM, assert_players_never_told, mails_of, outbox

EVERYONE = sorted(["cassandra@pbp.localhost", "charles@pbp.localhost", "ethan@pbp.localhost", GM,
                   "ruth@pbp.localhost"])

SETUP = ('/scene start Cellar zones Stairs, Vault borders Stairs-Vault\n'
         '/aspect add "Deep Shadows" free 1\n/aspect add "Slick Steps" on Stairs\n'
         '/aspect add "Trip Wire" hidden\n/aspect add "Loose Step" on Stairs hidden\n'
         '/conflict start Ruth, Charles, Ghoul first Ruth\n/place Ruth in Stairs\n/place Ghoul in Stairs\n')


def _scene(mt):
    step = mt.post("GM", SETUP)
    assert step.status == "applied", step.text
    return step


def test_a_players_table_shows_what_the_table_knows_and_nothing_hidden(mt, chicago):
    _scene(mt)
    # Ruth's attack ties (a boost); the Ghoul's attack waits for Charles's defence
    mt.post("Ruth", "/attack Ghoul with Fight\n/next Ghoul\n", dice="-000,+000")
    attack = mt.post("GM", "/as Ghoul attack Charles with Fight\n", dice="++00")
    before = m.Campaign.get_by_id(chicago.id).play
    step = mt.post("Cassandra", "/table\n")
    assert step.status == "applied", step.text
    (mail,) = mails_of(step)                    # the table's mail, and nothing for the GM alone
    assert sorted(mail.to) == EVERYONE
    text = step.text
    for words in ('Scene 1: "Cellar" (physical conflict, exchange 1).',
                  "Zones: Stairs (Ghoul, Ruth) · Vault.", "Not on the map yet: Charles.",
                  "Borders: Stairs - Vault.",
                  "\"Deep Shadows\" on the scene (the GM's side: 1 free invoke)",
                  '"Slick Steps" on Stairs',
                  "\"Ruth's Boost\" (a boost, held by Ruth)",
                  # the footer: whose turn, who still acts, the defence waited for and by when
                  "Turn: Ghoul has acted and hands off next (/next NAME). Still to act this exchange: Charles.",
                  "Waiting for Charles to defend against Ghoul's attack with Fight"):
        assert words in text, (words, text)
    roll = attack.outcome.results[0]["roll_id"]
    assert f"Roll #{roll}, Ghoul's attack on Charles with Fight, is open for invokes until" in text
    assert "GM's pool" not in text                      # the pool is the GM's business
    assert_players_never_told("Trip Wire", "Loose Step")
    assert m.Campaign.get_by_id(chicago.id).play == before      # reading changes nothing


def test_the_gms_table_goes_to_the_gm_alone_whole(mt, chicago):
    _scene(mt)
    compel = mt.post("GM", '/compel Ruth "Hair-Trigger Temper" event "The ghoul taunts you"\n')
    assert compel.status == "applied", compel.text
    n = len(outbox())
    step = mt.post("GM", "/table\n")
    assert step.status == "applied", step.text
    (mail,) = mails_of(step)
    assert mail.to == (GM,) and len(outbox()) == n + 1
    text = step.text
    for words in ('"Trip Wire" on the scene (hidden)', '"Loose Step" on Stairs (hidden)',
                  "Turn: Ruth. Still to act this exchange: Charles, Ghoul.",
                  "Waiting for Ruth to accept or refuse compel #",
                  "The GM's pool: 4 fate points."):
        assert words in text, (words, text)
    assert_players_never_told("Trip Wire", "Loose Step")


def test_table_with_no_scene_says_so(mt, chicago):
    step = mt.post("Ruth", "/table\n")
    assert step.status == "applied", step.text
    assert "No scene is open." in step.text and "No situation aspects or boosts are in play." in step.text


def test_the_gm_sees_the_pool_and_an_npcs_carried_points(mt, chicago):
    _scene(mt)
    row = m.Character.get(m.Character.name == "Ghoul")
    row.carried_points = 2
    row.save()
    step = mt.post("GM", "/fp\n/fp Ghoul\n")
    assert step.status == "applied", step.text
    (mail,) = mails_of(step)
    assert mail.to == (GM,)
    assert "The GM's pool: 4 fate points; NPCs carry Ghoul 2 for a later scene." in step.text
    assert "Ghoul has 0 fate points (refresh 0); carries 2 points into a later scene's GM pool" in step.text
    # a player's /fp Ghoul is answered to the table, without the GM's carried points
    step = mt.post("Ruth", "/fp Ghoul\n")
    assert step.status == "applied", step.text
    for mail in mails_of(step):
        assert not mail.says("carries") and not mail.says("pool")
    assert "Ghoul has 0 fate points" in step.text


def test_a_players_roll_says_what_they_could_invoke(mt, chicago):
    _scene(mt)
    step = mt.post("Ruth", "/attack Ghoul with Fight\n", dice="-000,+000")
    assert step.status == "applied", step.text
    line = next(li for li in step.text.splitlines() if "could invoke" in li)
    # free ones first; as many as fit in a line that a phone shows whole, then how many more
    # (a relayed post: pbp's lines carry its mark, docs/commands.md "Reading the table's mail")
    assert line == "\u2503   Ruth could invoke: \"Ruth's Boost\" (1 free), \"Deep Shadows\", \"Slick Steps\"."
    assert_players_never_told("Trip Wire", "Loose Step")
    # the GM's roll for an NPC gets no such line
    gm = mt.post("GM", "/next Ghoul\n/as Ghoul attack Ruth with Fight\n", dice="0000")
    assert gm.status == "applied", gm.text
    assert "could invoke" not in gm.text


def test_a_zone_aspect_elsewhere_is_not_offered(mt, chicago):
    step = mt.post("GM", '/scene start Cellar zones Stairs, Vault borders Stairs-Vault\n'
                         '/aspect add "Slick Steps" on Stairs\n/aspect add "Cold Air" on Vault\n'
                         '/conflict start Ruth, Ghoul first Ruth\n/place Ruth in Vault\n/place Ghoul in Vault\n')
    assert step.status == "applied", step.text
    step = mt.post("Ruth", "/overcome Athletics vs Fair\n", dice="0000")
    assert step.status == "applied", step.text
    assert '  Ruth could invoke: "Cold Air".\n' in step.text


def test_the_could_invoke_line_names_what_fits():
    from pbp.play.overview import could_invoke_line

    names = ['"Shadows" (1 free)', '"Slick Steps"', '"Loose Boards"', '"Smoke"', '"Cold Air"']
    assert could_invoke_line("Ruth", names[:3]) == 'Ruth could invoke: "Shadows" (1 free), "Slick Steps", "Loose Boards".'
    line = could_invoke_line("Ruth", names)
    assert line == 'Ruth could invoke: "Shadows" (1 free), "Slick Steps" and 3 more (/table).'
    assert len(line) <= 76


def test_table_is_parsed_with_an_example_when_something_follows(mt, chicago):
    step = mt.post("Ruth", "/table please\n")
    assert step.status == "rejected"
    assert "/table" in step.text and "please" in step.text


def test_pbp_table_shows_the_gms_view(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["init"]) == 0
    assert main(["campaign", "create", "chicago", "--name", "Chicago Nights", "--gm", GM,
                 "--address", "table+chicago@pbp.localhost"]) == 0
    sheets = [str(p) for p in sorted(sample_dir().glob("*.toml")) if p.name != "campaign.toml"]
    assert main(["character", "import", *sheets, "--campaign", "chicago"]) == 0
    post = tmp_path / "setup.eml"
    post.write_bytes(eml(SETUP, sender=GM, subject="Cellar"))
    assert main(["process", str(post), "--no-send"]) == 0
    capsys.readouterr()
    assert main(["table", "--campaign", "chicago"]) == 0
    out = capsys.readouterr().out
    assert 'Scene 1: "Cellar" (physical conflict, exchange 1).' in out
    assert '"Trip Wire" on the scene (hidden)' in out and "Turn: Ruth." in out and "The GM's pool: 4" in out
    assert main(["table", "--json"]) == 0
    view = json.loads(capsys.readouterr().out)
    assert view["scene"]["name"] == "Cellar" and view["conflict"]["turn"] == "Ruth"
    assert {"name": "Trip Wire", "kind": "situation", "on": None, "free_invokes": {}, "hidden": True} in view["aspects"]
    assert view["gm_pool"]["points"] == 4


def test_asking_again_in_reply_to_the_same_mail_is_answered_again(mt, chicago):
    """/table only reads: a second one in answer to the same mail is not held back as a copy."""
    setup = _scene(mt)
    first = mt.post("Ruth", "/table\n", reply_to=setup)
    mt.post("GM", '/aspect add "Smoke" free 1\n')
    again = mt.post("Ruth", "/table\n", reply_to=setup)
    assert first.status == again.status == "applied", again.text
    assert '"Smoke"' not in first.text and "\"Smoke\" on the scene (the GM's side: 1 free invoke)" in again.text
