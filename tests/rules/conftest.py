"""A fresh table of the worked examples' characters for every test."""
from __future__ import annotations

import pytest

from pbp.rules.state import Table

from .builders import make_table


@pytest.fixture
def table() -> Table:
    return make_table()
