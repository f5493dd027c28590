"""``+scale after`` on an attack defended in a later mail, on the sample table of ``pbp demo
--system dfc`` (000_7ba3f797fc1d45d3.txt, "Scale": the higher side gets "+2 per level of
difference to the result after the roll, if the roll succeeds").

By mail the attacker rolls first and the player defends later, so the attack keeps the
chosen benefit and the levels, and the defence settles it: the attack takes +2 per level only
if it beats the defence (a tie is not a success). The Lake Thing is Otherworldly (Fight Good
(+3)), Nora Supernatural (one level below), Marcus Mundane (two).
"""
from __future__ import annotations

import pytest

from pbp.demo import create_sample_campaign
from pbp.store import models as m
from tests.play import golden
from tests.play.table import MailTable


@pytest.fixture
def basement(db, config):
    create_sample_campaign("dfc")
    mt = MailTable(config)
    assert mt.post("GM", '/scene start "The Basement" with "Lake Thing"\n'
                         '/conflict start Nora, Marcus, "Lake Thing" first "Lake Thing"\n').status == "applied"
    return mt


def _attack(mt: MailTable, target: str, dice: str):
    step = mt.post("GM", f'/as "Lake Thing" attack {target} with Fight +scale after', dice=dice)
    assert step.status == "applied", step.text
    return step


def test_the_attack_that_beats_the_defence_takes_two_per_level(basement):
    """Fight Good (+3) ++00 = Superb (+5), no scale before the roll; Nora's Athletics Fair (+2)
    0000: the attack succeeds, +2 (one level) = Epic (+7): a 5-shift hit."""
    step = _attack(basement, "Nora", "++00")
    assert "scale  " not in step.text                     # nothing before the roll
    assert ("Nora defends against an effort of 5; scale after the roll (Otherworldly over Supernatural): +2 if "
            "the attack beats the defence, nothing on a tie") in step.text
    assert "Lake Thing's attack with Fight, Superb (+5) (+2 scale after the roll if it beats the defence)" in step.text
    pending = m.Campaign.get().play["pending"]
    assert [(p["attack_scale_after"], p["attack_scale_label"]) for p in pending] == [
        (2, "Otherworldly over Supernatural")]
    defended = basement.post("Nora", "/defend Athletics", dice="0000")
    assert defended.status == "applied", defended.text
    assert ("vs     Lake Thing's attack (Fight), Superb (+5) +2 scale after the roll (Otherworldly over "
            "Supernatural) = Epic (+7)") in defended.text
    assert ("scale after the roll (Otherworldly over Supernatural): Lake Thing's attack beats Nora's defence, so "
            "it takes +2 (2 per level), Epic (+7)") in defended.text
    assert "=> fail, 5 shifts short" in defended.text and "Nora takes a hit of 5 shifts" in defended.text


def test_two_levels_give_four(basement):
    """Marcus is Mundane, two levels below: ++00 = Superb (+5) against his Athletics Good (+3)
    0000: the attack succeeds and takes +4 after the roll, +9: a 6-shift hit."""
    basement.post("GM", '/conflict end\n/conflict start Nora, Marcus, "Lake Thing" first "Lake Thing"')
    _attack(basement, "Marcus", "++00")
    defended = basement.post("Marcus", "/defend Athletics", dice="0000")
    assert defended.status == "applied", defended.text
    assert "+4 scale after the roll (Otherworldly over Mundane)" in defended.text
    assert "so it takes +4 (2 per level)" in defended.text and "Marcus takes a hit of 6 shifts" in defended.text


def test_a_tie_is_not_a_success(basement):
    """Fight Good (+3) 0000 = Good (+3) against Nora's Athletics Fair (+2) +000 = Good (+3): a
    tie; the attack takes nothing after the roll, and the tie's boost is the attacker's."""
    _attack(basement, "Nora", "0000")
    defended = basement.post("Nora", "/defend Athletics", dice="+000")
    assert defended.status == "applied", defended.text
    assert ("scale after the roll (Otherworldly over Supernatural): Lake Thing's attack does not beat Nora's "
            "defence, so it takes nothing") in defended.text
    assert "=> tie" in defended.text and "takes a hit" not in defended.text


def test_a_defence_that_holds_takes_nothing(basement):
    _attack(basement, "Nora", "0000")
    defended = basement.post("Nora", "/defend Athletics", dice="++00")
    assert "does not beat Nora's defence, so it takes nothing" in defended.text and "takes a hit" not in defended.text


def test_an_invoke_after_the_dice_that_stops_the_attack_takes_the_bonus_back(basement):
    """Fight +3 +000 = Great (+4) against Athletics +2 0000: the attack succeeds, +2 = Fantastic
    (+6), a 4-shift hit; Nora invokes "Reads Every Footnote" after the dice (+2, a fate point):
    Great (+4) against Great (+4), a tie: the re-run takes the bonus back, and the hit."""
    _attack(basement, "Nora", "+000")
    defended = basement.post("Nora", "/defend Athletics", dice="0000")
    assert "Nora takes a hit of 4 shifts" in defended.text
    roll = defended.text.split("roll #")[1].split()[0]
    again = basement.post("Nora", f'/invoke "Reads Every Footnote" on #{roll}')
    assert again.status == "applied", again.text
    assert "does not beat Nora's defence, so it takes nothing" in again.text
    assert "Nora no longer has a hit to absorb." in again.text
    assert golden.sheet("Nora").fate_points == 2


def test_the_deadline_default_defence_settles_scale_after_too(basement):
    from datetime import timedelta

    _attack(basement, "Nora", "++00")
    tick = basement.tick(basement.now + timedelta(days=2), dice="0000")
    text = "\n".join(r.text for r in tick.replies)
    assert "Nora did not answer by" in text
    assert "Lake Thing's attack beats Nora's defence, so it takes +2 (2 per level)" in text
