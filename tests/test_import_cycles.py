"""Issue 9 item 8: modules that must not import each other, even lazily (an import inside a
function is still a cycle a reader has to untangle). Each pair is checked on the import
graph of the whole package, read from the source: they do not import each other, in either
direction at once. ``from pbp.play import conflict`` is an edge to ``conflict``, not to the
package that gathers every handler module."""
import ast
from pathlib import Path

import pytest

import pbp

ROOT = Path(pbp.__file__).parent


def _module_name(path: Path) -> str:
    parts = ("pbp",) + path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _graph() -> dict[str, set[str]]:
    modules = {_module_name(p): p for p in ROOT.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        edges = graph.setdefault(name, set())
        package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1] + ([base] if base else []))
                subs = [f"{base}.{a.name}" for a in node.names if f"{base}.{a.name}" in modules]
                targets = subs or [base]     # "from pbp.play import conflict" is about conflict
            edges.update(t for t in targets if t in modules and t != name)
    return graph


def _mutual(graph: dict[str, set[str]], one: str, other: str) -> bool:
    return other in graph[one] and one in graph[other]


GRAPH = _graph()


@pytest.mark.parametrize("one, other", [
    ("pbp.play.economy", "pbp.play.invoking"),
    ("pbp.play.compels", "pbp.play.invoking"),
    ("pbp.play.economy", "pbp.play.scenes"),
    ("pbp.play.invoking", "pbp.play.conflict"),
    ("pbp.cli", "pbp.demo"),
])
def test_no_import_cycle(one, other):
    assert one in GRAPH and other in GRAPH
    assert not _mutual(GRAPH, one, other), f"{one} and {other} import each other"


def test_the_check_can_fail():
    """An import inside a function is an edge (cli imports demo in its demo command), and a
    pair importing each other is seen."""
    assert "pbp.demo" in GRAPH["pbp.cli"]
    assert _mutual({"a": {"b"}, "b": {"a"}}, "a", "b") and not _mutual({"a": {"b"}, "b": set()}, "a", "b")


def test_compels_have_their_own_module():
    from pbp import commands as c
    from pbp.play import compels
    from pbp.play.core import HANDLERS

    assert HANDLERS[c.Compel] is compels.compel and HANDLERS[c.Accept] is compels.answer
