"""A whole early Fate conflict by mail (tests/golden/early_fate_conflict), on the sample table
of ``pbp demo --system early-fate`` (pbp/samples/early_fate), created with
``system="early-fate"`` and its sheets imported under its rules.

It shows, citing 002_3a4e52a093e280aa.txt: spin earned ("3 or more shifts") and used by
another player ("another player's [action]"), one-box-per-shift stress, consequences in order
to taken out ("beyond severe"), the taken-out player spending all fate points on another
outcome, a concession refused by the winner and ruled reasonable by the GM (+1 and -1 fate
point), and clearing (stress and mild at scene end, moderate when the GM says)."""
from __future__ import annotations

import pytest

from pbp.demo import create_sample_campaign
from pbp.errors import SheetError
from pbp.campaigns import import_character
from pbp.demo import sample_dir
from tests.play import golden


@pytest.fixture
def docks(db):
    return create_sample_campaign("early-fate")


def test_a_whole_early_fate_conflict(docks, config, update):
    table, _ = golden.check("early_fate_conflict", config, update)
    steps = table.steps
    assert len(steps) >= 20
    assert [n for n, s in enumerate(steps, start=1) if s.status == "rejected"] == [14]
    text = [s.text for s in steps]
    # "If a character gets 3 or more shifts on an action, he gets to spin that action"
    assert "Jet's spin #1, held until" in text[1]
    # "... +1 to either his own next action, or another player's": Mara uses Jet's spin
    assert "spin   spin #1" in text[2] and "+1" in text[2].split("spin #1")[1].splitlines()[0]
    # "Each shift that the winner gets inflicts one box of stress": 4 shifts, 4 boxes
    assert "Brute absorbs 4 shifts with 4 stress boxes" in text[1]
    # a consequence "instead" of boxes, and in order: mild, moderate (severe refused), severe
    assert "Jet takes the mild consequence Split Lip" in text[5]
    assert "consequences come in order, one per hit: Jet's next is moderate" in text[13]
    assert "Jet takes the moderate consequence Cracked Ribs" in text[14]
    assert "Jet takes the severe consequence Shattered Jaw" in text[23]
    # "A character who takes a consequence beyond severe is taken out"
    assert "Jet is taken out" in text[25]
    # "... can spend all of his remaining fate points to demand a different outcome"
    assert "Jet spends all 3 fate points to demand another outcome" in text[27]
    assert golden.sheet("Jet").fate_points == 0
    # "The character inflicting the stress can refuse the concession; it the GM rules that the
    # terms ... were reasonable, the conceding character gains 1 fate point, and the refusing
    # character loses one fate point."
    assert "Mara refuses Knifeman's concession (#17)" in text[16] and "Knifeman is back in the conflict" in text[16]
    assert "Knifeman gains a fate point and Mara loses one" in text[17]
    assert (golden.sheet("Mara").fate_points, golden.sheet("Knifeman").carried_points) == (2, 1)
    # "Stress tracks clear automatically at the end of the stress scene ... Mild consequences
    # usually clear at the end of the current scene"; moderate and severe "when the GM says"
    assert "Jet's Split Lip has healed" in text[29] and 'moderate "Cracked Ribs"' in text[29]
    assert "Cracked Ribs clears: the GM says so" in text[30]
    # the spin Mara earned and did not use lapses at the scene's end
    assert "#28 (Mara) spin held -> lapsed" in text[29]


def test_a_fate_condensed_sheet_is_refused_under_early_fate(docks):
    """Physique and Will are not early Fate skills (Endurance and Resolve size its tracks)."""
    with pytest.raises(SheetError) as info:
        import_character(docks, str(sample_dir() / "ruth.toml"), replace=True)
    assert any('"Physique", which is not an early Fate skill' in p for p in info.value.problems)
