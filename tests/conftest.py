"""Shared fixtures: a fresh real SQLite database per test, the sample table, and a
pipeline context with fixed dice and a fixed clock."""
from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest

from pbp.config import config_from_dict
from pbp.store.db import open_database
from pbp.store import models as m

pytest_plugins = ["tests.rig.fixtures"]

REPO = Path(__file__).resolve().parent.parent
FIXED_NOW = datetime(2026, 11, 29, 18, 0, 0)


def pytest_addoption(parser):
    parser.addoption("--update-golden", action="store_true", help="rewrite tests/golden/*/expected files")


@pytest.fixture
def db(tmp_path):
    """A real SQLite file database bound to the models, new for each test."""
    database = open_database(f"sqlite:///{tmp_path / 'pbp.db'}")
    yield database
    database.close()


@pytest.fixture
def config(tmp_path):
    return config_from_dict({"database": {"url": f"sqlite:///{tmp_path / 'pbp.db'}"},
                             "mail": {"domain": "pbp.test", "from_address": "table@pbp.test"},
                             "maildir": {"inbox": str(tmp_path / "in"), "outbox": str(tmp_path / "out")}},
                            base=tmp_path)


@pytest.fixture
def chicago(db):
    """The bundled sample campaign with its seven characters."""
    from pbp.demo import create_sample_campaign

    return create_sample_campaign()


