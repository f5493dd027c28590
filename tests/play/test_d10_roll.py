"""``/roll`` under the d10 dice-pool hack rolls the hack's dice (004_c619695e1641b466.txt, "The
Core Mechanic": "roll that many TEN-SIDED DICE (d10). Each die that comes up 8 or higher counts
as a HIT. Each result of 10 counts as 2 hits; each result of 1 subtracts a hit"): ``/roll 6d10``
counts hits, ``/roll "Fight Boldly"`` rolls the pool of the skill and approach, and Fate's dice
are refused with what the hack rolls and a working example (docs/commands.md, "Rolls")."""
from __future__ import annotations

import pytest

from tests.play.conftest import state_snapshot
from tests.play.table import MailTable


def test_nd10_is_counted_as_hits(scrapyard, config):
    """8 and 9 a hit each, 10 two, 1 takes one away, 3 and 5 nothing: 3 hits, not the faces' sum."""
    t = MailTable(config)
    step = t.post("Ruth", "/roll 6d10\n", dice="8 9 3 10 1 5")
    assert step.status == "applied", step.text
    assert "[8+] [9+] [3] [10++] [1-] [5]" in step.text and "3 hits" in step.text
    assert "+30" not in step.text and "Legendary" not in step.text
    # the HTML dice mark the hits as the text does (issue 21: which d10s are hits)
    html = step.replies[0].html
    assert all(f">{g}</span>" in html for g in ("8+", "9+", "3", "10++", "1-", "5")), html


def test_a_bonus_adds_hits_and_negative_hits_show(scrapyard, config):
    t = MailTable(config)
    step = t.post("Ruth", "/roll 2d10+1\n", dice="8 1")
    assert step.status == "applied", step.text
    assert "1 hit" in step.text and "[8+] [1-]" in step.text
    step = t.post("Ruth", "/roll 2d10\n", dice="1 1")
    assert "-2 hits" in step.text


def test_a_skill_and_approach_roll_the_pool(scrapyard, config):
    """"ADD the number for your SKILL and the number for your APPROACH": Fight 3 + Boldly 3 is
    six d10s; a skill alone takes the roller's best approach (a plain roll has no action to
    choose one for)."""
    t = MailTable(config)
    step = t.post("Ruth", '/roll "Fight Boldly"\n', dice="8 9 3 4 5 2")
    assert step.status == "applied", step.text
    assert "Fight + Boldly, 6 dice" in step.text and "2 hits" in step.text
    step = t.post("Ruth", "/roll Fight-Carefully\n", dice="10 2 2 2")     # Fight 3 + Carefully 1
    assert "Fight + Carefully, 4 dice" in step.text and "2 hits" in step.text
    step = t.post("Ruth", "/roll Fight\n", dice="8 2 2 2 2 2")            # best approach: Boldly +3
    assert "Fight + Boldly, 6 dice" in step.text and "1 hit" in step.text


@pytest.mark.parametrize("line, message, example", [
    ("/roll 4dF+2", "the d10 dice-pool hack rolls ten-sided dice counted as hits, not 4dF", "/roll 6d10"),
    ("/roll 3d6", "the d10 dice-pool hack rolls ten-sided dice counted as hits, not 3d6", "/roll 6d10"),
    ("/roll", "has no dice of its own to roll without a pool", "/roll 6d10"),
    ("/roll 2d10+Fight", "sizes a pool by its skill and approach", '/roll "Fight Boldly"'),
])
def test_dice_the_hack_does_not_use_are_refused(scrapyard, config, line, message, example):
    t = MailTable(config)
    before = state_snapshot(scrapyard)
    step = t.post("Ruth", line + "\n")
    assert step.status == "rejected", step.text
    assert message in step.text, step.text
    assert 'expected: Nd10, a pool of N ten-sided dice counted as hits, or a skill and approach ("Fight Boldly")' \
        in step.text
    assert f"example:  {example}" in step.text
    assert state_snapshot(scrapyard) == before
    assert "Traceback" not in step.text
    ok = t.post("Ruth", example + "\n", dice="8 9 3 4 5 2")     # the example works
    assert ok.status == "applied", ok.text


def test_fate_condensed_still_rolls_any_dice(mt, chicago):
    step = mt.post("Ruth", "/roll 4dF+2\n", dice="+-0+")
    assert step.status == "applied" and "+3 Good" in step.text
