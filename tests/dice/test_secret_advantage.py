"""A secret or blind create-an-advantage outside a conflict (issue 25; docs/commands.md, "Secret
and blind rolls"): the table is told that roll #N was made, by whom and with what skill, never
its dice, its outcome or the aspect it made (hidden like a hidden aspect; its free invokes the
roller's); the GM's mail tells it all; the scene's end reveals the roll and the verifier checks
it. Probed from the players' side."""
from __future__ import annotations

import re


from pbp import verify_dice
from pbp.store import models as m
from pbp.store import repo
from tests.dice.test_committed import save_mails
from tests.dice.test_secret import OUTCOMES
from tests.play.table import address

ASPECT = "Sharp Ears"


def _theirs(step, who):
    return [r for r in step.replies if address(who) in r.to]


def _gm(step):
    return [r for r in step.replies if r.to == [address("GM")]]


def test_the_gms_secret_advantage_hides_its_aspect_and_keeps_its_free_invoke(table):
    # a success with style, whatever the dice would have been (Fate Condensed, "Create an
    # Advantage": success gives the aspect with a free invoke, style two)
    step = table.post("GM", f'The Ghoul sniffs the air.\n/as Ghoul advantage Notice "{ASPECT}" vs Mediocre secret\n',
                      dice="++++")
    assert step.status == "applied", step.text
    mine = _theirs(step, "Cassandra")
    assert len(mine) == 1, [r.text for r in step.replies]
    assert re.search(r"Roll #\d+: Ghoul rolled in secret \(create an advantage with Notice\)", mine[0].text), mine[0].text
    assert ASPECT not in mine[0].text and not OUTCOMES.search(mine[0].text), mine[0].text
    gm = _gm(step)
    assert gm and ASPECT in gm[0].text and "dice " in gm[0].text, [r.text for r in step.replies]
    aspect = repo.load_table(m.Campaign.get()).find_aspect(ASPECT)
    assert aspect.hidden and aspect.free_invokes == {"Ghoul": 2}, aspect
    for who in ("Cassandra", "Charles"):
        view = table.post(who, "/table\n")
        assert ASPECT not in view.text and not OUTCOMES.search(view.text.split("pbp-dice/2")[0]), view.text


def test_a_players_blind_advantage_on_an_npc(table):
    step = table.post("Cassandra", f'/advantage Notice "Nervous Tell" on Ghoul blind\n', dice="0000,0000")
    assert step.status == "applied", step.text
    for who in ("Cassandra", "Charles"):
        mail = _theirs(step, who)
        assert len(mail) == 1 and "Cassandra rolled blind (create an advantage with Notice)" in mail[0].text, mail
        assert "Nervous Tell" not in mail[0].text and not OUTCOMES.search(mail[0].text), mail[0].text
    gm = _gm(step)
    assert gm and "Ghoul" in gm[0].text and "dice " in gm[0].text, [r.text for r in step.replies]


def test_no_secret_advantage_on_an_aspect_in_plain_sight_nor_resisted_in_a_conflict(table):
    assert table.post("GM", '/aspect add "Thick Fog"\n').status == "applied"
    step = table.post("GM", '/as Ghoul advantage Stealth "Thick Fog" secret\n')
    assert step.status == "rejected" and "in plain sight" in step.text, step.text
    assert 'example:  /as Ghoul advantage Stealth "Thick Fog"' in step.text, step.text
    assert table.post("GM", "/conflict start Cassandra, Ghoul first Ghoul\n").status == "applied"
    step = table.post("GM", f'/as Ghoul advantage Notice "{ASPECT}" on Cassandra secret\n')
    assert step.status == "rejected" and "Cassandra resists this actively" in step.text, step.text


def test_a_secret_advantage_is_revealed_and_verified_at_the_scenes_end(table, tmp_path):
    assert table.post("GM", f'/as Ghoul advantage Notice "{ASPECT}" vs Fair secret\n').status == "applied"
    before = save_mails(tmp_path / "before", address("Charles"))
    good, bad = verify_dice.verify(before)
    assert not bad and "not revealed yet" in " ".join(good), (good, bad)
    end = table.post("GM", "/scene end\n")
    assert end.status == "applied" and "Secret roll #" in end.text, end.text
    good, bad = verify_dice.verify(save_mails(tmp_path / "after", address("Charles")))
    assert not bad and re.search(r"[1-9]\d* throws recomputed", " ".join(good)), (good, bad)
