"""Names the package uses are defined: pyflakes over every module of pbp/, failing on an
undefined name (a merge or a move that left a caller of a name its module no longer imports
would otherwise fail only on the path that reaches it; one did, in rules/actions.py)."""
from __future__ import annotations

from pathlib import Path

from pyflakes import api, messages
from pyflakes.reporter import Reporter

PACKAGE = Path(__file__).resolve().parents[1] / "pbp"
UNDEFINED = (messages.UndefinedName, messages.UndefinedLocal, messages.UndefinedExport)


class _Collect(Reporter):
    def __init__(self) -> None:
        self.found: list[str] = []

    def flake(self, message) -> None:
        if isinstance(message, UNDEFINED):
            self.found.append(str(message))

    def syntaxError(self, filename, msg, lineno, offset, text) -> None:
        self.found.append(f"{filename}:{lineno}: {msg}")

    def unexpectedError(self, filename, msg) -> None:
        self.found.append(f"{filename}: {msg}")


def test_no_module_uses_an_undefined_name():
    report = _Collect()
    modules = sorted(PACKAGE.rglob("*.py"))
    assert len(modules) > 50
    for path in modules:
        api.checkPath(str(path), report)
    assert report.found == []
