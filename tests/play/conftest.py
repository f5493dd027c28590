"""Fixtures for playing by mail: a MailTable on the sample campaign, and a snapshot of
everything a refused post must leave alone."""
from __future__ import annotations

import pytest

from pbp.campaigns import create_campaign, import_character
from pbp.store import models as m
from tests.play.golden import GOLDEN
from tests.play.table import MailTable


@pytest.fixture
def mt(chicago, config):
    return MailTable(config)


@pytest.fixture
def harbour(db):
    """The new GM's campaign of tests/golden/harbour_lights: three PCs, a minor and a major
    NPC, from the sheet files written there."""
    campaign = create_campaign("harbour", "Harbour Lights", address="table+harbour@pbp.localhost",
                               gms=["gm@pbp.localhost"])
    for sheet in sorted((GOLDEN / "harbour_lights" / "sheets").glob("*.toml")):
        import_character(campaign, str(sheet))
    return campaign


@pytest.fixture
def scrapyard(db):
    """The d10 hack's table of tests/golden/d10_pool_conflict (Ruth, Charles, the raiders)."""
    campaign = create_campaign("scrap", "The Scrapyard", system="d10-pool", address="table+scrap@pbp.localhost",
                               gms=["gm@pbp.localhost"])
    for sheet in sorted((GOLDEN / "d10_pool_conflict" / "sheets").glob("*.toml")):
        import_character(campaign, str(sheet))
    return campaign


@pytest.fixture
def update(request):
    """Whether ``pytest --update-golden`` asks the golden tests to rewrite their transcripts."""
    return request.config.getoption("--update-golden")


def state_snapshot(campaign):
    """Sheets, aspects, rolls and the play state (turn order, pending reactions...)."""
    return (
        [(c.name, c.fate_points, c.stress, c.consequences, c.taken_out) for c in m.Character.select().order_by(m.Character.id)],
        [(a.name, a.owner, a.free_invokes, a.active) for a in m.Aspect.select().order_by(m.Aspect.id)],
        m.RollRecord.select().count(),
        m.Campaign.get_by_id(campaign.id).play,
    )
