"""Secret and blind rolls (issue 25; docs/verify.md, "Secret and blind rolls"), probed from
the players' side: their mails say that roll #N was made, by whom and on what, never its dice
or outcome, until the scene ends; the GM is told all of it in a mail of their own."""
from __future__ import annotations

import re

import pytest

from pbp import verify_dice
from pbp.demo import create_sample_campaign
from pbp.store import models as m
from tests.dice.test_committed import SYSTEMS, decoded, save_mails
from tests.play.table import MailTable, address

OUTCOMES = re.compile(r"success|fail|tie|=>|dice\s+\[|total|Superb|Great|Mediocre|Terrible", re.I)


def test_the_gms_secret_roll_shows_the_table_only_that_it_was_made(table):
    step = table.post("GM", "The Ghoul listens.\n/as Ghoul overcome Notice vs Fair secret\n")
    assert step.status == "applied", step.text
    table_mail, gm_copy = step.replies[0], step.replies[-1]
    assert address("Cassandra") in table_mail.to and address("Cassandra") not in gm_copy.to
    rid = re.search(r"Roll #(\d+): Ghoul rolled in secret \(overcome with Notice\) under this scene's dice "
                    r"commitment\. The GM knows the result\.", table_mail.text)
    assert rid, table_mail.text
    shown = table_mail.text.split("pbp-dice/2")[0]
    assert not OUTCOMES.search(shown), shown
    assert re.search(rf"pbp-dice/2 secret scene=chicago/1 post=\S+ text=\w+ key=0 t0=#{rid.group(1)}:4dF:\?$",
                     table_mail.text, re.M), table_mail.text
    assert "dice " in gm_copy.text and "Ghoul overcomes with Notice" in gm_copy.text, gm_copy.text
    # an invoke would show its total: the roll is closed
    asked = table.post("Cassandra", f'/invoke "Ghoul\'s Boost" on #{rid.group(1)}\n')
    assert asked.status == "rejected" and "secret roll" in asked.text, asked.text
    # nor does the table view tell
    view = table.post("Cassandra", "/table\n")
    assert not OUTCOMES.search(view.text.split("pbp-dice/2")[0]) and "Boost" not in view.text, view.text


def test_a_blind_roll_tells_the_player_rolled_the_gm_knows(table):
    step = table.post("Cassandra", "I watch his face.\n/roll blind Notice\n")
    assert step.status == "applied", step.text
    mine = [r for r in step.replies if address("Cassandra") in r.to]
    assert len(mine) == 1 and "Roll #" in mine[0].text and "Rolled; the GM knows the result." in mine[0].text
    assert not OUTCOMES.search(mine[0].text.split("pbp-dice/2")[0]), mine[0].text
    gm = [r for r in step.replies if r.to == [address("GM")]]
    assert gm and "Cassandra rolls" in gm[0].text and "dice " in gm[0].text, [r.text for r in step.replies]


@pytest.mark.parametrize("system, who, skill", SYSTEMS)
def test_secret_rolls_are_revealed_and_checked_at_the_scenes_end(db, config, tmp_path, system, who, skill):
    create_sample_campaign(system)
    mt = MailTable(config, committed=True)
    assert mt.post("GM", '/scene start "The Docks"\n').status == "applied"
    blind = mt.post(who, f"/roll blind {skill}\n")
    assert blind.status == "applied", blind.text
    dice = "5d10" if system == "d10-pool" else "4dF"
    secret = mt.post("GM", f'/as "{who}" roll secret {dice}\n')
    assert secret.status == "applied", secret.text
    before = save_mails(tmp_path / "before", address(who))
    raw = "\n".join(decoded(p.read_text()) for p in before.glob("*.eml"))
    assert "reveal" not in raw and m.SceneSeed.get().seed not in raw
    good, bad = verify_dice.verify(before)
    assert not bad and "not revealed yet" in " ".join(good), (good, bad)
    end = mt.post("GM", "/scene end\n")
    assert end.status == "applied" and "Secret roll #" in end.text, end.text
    good, bad = verify_dice.verify(save_mails(tmp_path / "after", address(who)))
    assert not bad, bad
    assert re.search(r"[1-9]\d* throws recomputed", " ".join(good)), good


def test_no_secret_plain_roll_in_a_conflict(table):
    """A conflict's secret rolls are overcomes and advantages against a difficulty
    (tests/dice/test_secret_conflict.py); a plain roll is refused, naming the form that works."""
    assert table.post("GM", "/conflict start Cassandra, Ghoul first Ghoul\n").status == "applied"
    step = table.post("GM", "/as Ghoul roll secret Notice\n")
    assert step.status == "rejected", step.text
    assert "cannot be made during a conflict" in step.text, step.text
    assert "example:  /as Ghoul overcome Notice vs Fair secret" in step.text, step.text
