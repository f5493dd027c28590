"""The secret-roll tests' table: the sample campaign by mail with committed dice, a scene open."""
from __future__ import annotations

import pytest

from pbp.demo import create_sample_campaign
from tests.play.table import MailTable


@pytest.fixture
def table(db, config):
    create_sample_campaign()
    mt = MailTable(config, committed=True)
    assert mt.post("GM", '/scene start "The Docks"\n').status == "applied"
    return mt
