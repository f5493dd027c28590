"""What a wheel ships: every package of pbp, the grammar, the templates and the samples."""
from __future__ import annotations

import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def test_every_package_is_listed_in_pyproject():
    config = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(config["packages"])
    found = {".".join(p.parent.relative_to(REPO).parts) for p in (REPO / "pbp").rglob("__init__.py")}
    assert found <= listed, f"add to [tool.setuptools] packages: {sorted(found - listed)}"
    assert config["package-dir"] == {"pbp.grammar": "grammar", "pbp.templates": "templates"}
    data = config["package-data"]
    assert data["pbp.grammar"] == ["*.lark"] and data["pbp.templates"] == ["*.j2"]
