"""The sample tables ``pbp demo --system`` sets up: one folder per registered system, each
with its ``campaign.toml``, character sheets and ``first-post.eml``. Kept here, light, so
``pbp --help`` can list them without importing the demo (:mod:`pbp.demo` uses them)."""
from __future__ import annotations

SAMPLES = {"fate-condensed": "chicago", "fate-core": "fate_core", "early-fate": "early_fate",
           "d10-pool": "d10_pool", "dresden-files-condensed": "dresden"}
"""The sample table of each registered system (``pbp demo --system``), by the system's name:
the folder under ``pbp/samples`` with its ``campaign.toml``, sheets and ``first-post.eml``."""

#: What ``pbp demo --help`` says of each sample table.
TITLES = {"chicago": "Chicago Nights", "fate_core": "The Crypt Under St. Agnes", "early_fate": "The Docks of Shanghai",
          "d10_pool": "The Scrapyard", "dresden": "Lakeshore After Dark"}


def samples_help() -> str:
    """The systems with a sample table and each table's name, for ``pbp demo --help``."""
    return "; ".join(f"{system}: {TITLES.get(folder, folder)}" for system, folder in SAMPLES.items())
