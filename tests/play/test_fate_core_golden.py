"""A whole Fate Core conflict by mail (tests/golden/fate_core_conflict), on a campaign created
with ``system="fate-core"`` and sheets imported under its rules."""
from __future__ import annotations

import pytest

from pbp.campaigns import create_campaign, import_character
from tests.play import golden

SHEETS = golden.GOLDEN / "fate_core_conflict" / "sheets"


@pytest.fixture
def crypt(db):
    campaign = create_campaign("crypt", "The Crypt", system="fate-core", address="table+crypt@pbp.localhost",
                               gms=["gm@pbp.localhost"])
    for sheet in sorted(SHEETS.glob("*.toml")):
        import_character(campaign, str(sheet))
    return campaign


def test_a_whole_fate_core_conflict(crypt, config, update):
    table, _ = golden.check("fate_core_conflict", config, update)
    assert len(table.steps) >= 20
    statuses = [s.status for s in table.steps]
    assert [n for n, s in enumerate(statuses, start=1) if s == "rejected"] == [7, 8]
    # "stress 2" is Fate Condensed's; Fate Core names the box, with an example that parses
    assert 'marks stress as "box N", not "stress 2"' in table.steps[6].text
    assert "/absorb box 2" in table.steps[6].text
    # "check off a stress box with a value equal to the shift value of the hit"
    assert "box 2, not box 3" in table.steps[7].text and "example:  /absorb box 2" in table.steps[7].text
    assert "Ruth absorbs 2 shifts with the 2-point stress box" in table.steps[8].text
    # the deadline default is the cheapest absorption: Charles's 2-point box
    assert "Charles absorbs 2 shifts with the 2-point stress box" in table.steps[11].text
    # an invoke after the dice turns the tie into a hit, which checks the ghoul's 2-point box
    assert "the outcome goes from a tie to success" in table.steps[13].text
    assert "Ghoul absorbs 2 shifts with the 2-point stress box" in table.steps[13].text
    # boxes 2 and 4 checked, 4 shifts: no box is high enough alone, so a mild and box 3
    assert "Ghoul absorbs 4 shifts with mild + the 3-point stress box" in table.steps[23].text
    # 8 shifts with only box 1 free: no consequence with a box covers it, the ghoul is out
    assert "Ghoul is taken out: Ruth decides what happens to Ghoul" in table.steps[27].text
    assert "The conflict is over: Charles and Ruth win" in table.steps[28].text  # those still standing
    assert "Charles accepts the compel" in table.steps[15].text
    assert (golden.sheet("Charles").fate_points, golden.sheet("Ethan").fate_points) == (4, 4)

def test_a_fate_condensed_sheet_with_academics_is_refused_under_fate_core(crypt):
    """Fate Core has no Academics (Lore covers it): the Chicago Charles is refused, naming it."""
    from pbp.demo import sample_dir
    from pbp.errors import SheetError
    with pytest.raises(SheetError) as info:
        import_character(crypt, str(sample_dir() / "charles.toml"), replace=True)
    assert any('"Academics", which is not a Fate Core skill' in p for p in info.value.problems)
