"""A Portuguese table: the sample campaign played with ``language=pt-BR``."""
from __future__ import annotations

import pytest

from pbp.campaigns import set_campaign
from tests.play.table import MailTable


@pytest.fixture
def mesa(chicago):
    """The sample campaign in Portuguese (``pbp campaign set language=pt-BR``)."""
    set_campaign(chicago, "language", "pt-BR")
    return chicago


@pytest.fixture
def mt_pt(mesa, config):
    return MailTable(config)


@pytest.fixture
def mt(chicago, config):
    return MailTable(config)


@pytest.fixture
def update(request):
    """Whether ``pytest --update-golden`` asks the golden tests to rewrite their transcripts."""
    return request.config.getoption("--update-golden")
