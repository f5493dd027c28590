"""A whole conflict by mail under the d10 dice-pool hack (tests/golden/d10_pool_conflict), on a
campaign created with ``system="d10-pool"`` and sheets imported under its rules
(004_c619695e1641b466.txt)."""
from __future__ import annotations

import pytest

from pbp.campaigns import create_campaign, import_character
from tests.play import golden

SHEETS = golden.GOLDEN / "d10_pool_conflict" / "sheets"


@pytest.fixture
def scrapyard(db):
    campaign = create_campaign("scrap", "The Scrapyard", system="d10-pool", address="table+scrap@pbp.localhost",
                               gms=["gm@pbp.localhost"])
    for sheet in sorted(SHEETS.glob("*.toml")):
        import_character(campaign, str(sheet))
    return campaign


def test_a_whole_d10_pool_conflict(scrapyard, config, update):
    table, _ = golden.check("d10_pool_conflict", config, update)
    assert len(table.steps) >= 20
