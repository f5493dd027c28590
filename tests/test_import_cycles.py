"""Issue 22 (style habit 12): no import circles in the package, and no function-level import
to hide one. The import graph of every module of ``pbp`` is read from the source with
``ast`` (nothing is imported), imports inside functions included, imports under
``if TYPE_CHECKING:`` left out (they never run). Its strongly connected components are
computed; any component of more than one module is a circle, and the failure names its
modules and the import lines inside it that close it.

Edges: ``import pbp.a.b`` is an edge to ``pbp.a.b``; ``from pbp.a import b`` is an edge to
``pbp.a.b`` when ``b`` is a submodule and to ``pbp.a`` otherwise; relative imports are
resolved against the importing module's package; a name that is not a module ties to the
nearest enclosing module (``import pbp.a.missing`` is about ``pbp.a``)."""
import ast
from pathlib import Path

import pbp

ROOT = Path(pbp.__file__).parent


def _module_name(root: Path, path: Path) -> str:
    parts = (root.name,) + path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _absolute(module: str, is_package: bool, level: int, name: str | None) -> str:
    if not level:
        return name or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[: len(base) - (level - 1)]
    return ".".join(base + ([name] if name else []))


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skip.update(id(n) for n in ast.walk(node) if n is not node.test)
            skip.difference_update(id(n) for branch in node.orelse for n in ast.walk(branch))
    return skip


def import_graph(root: Path) -> dict[str, dict[str, list[str]]]:
    """Each module to the modules it imports, each with the import lines that do it
    (``path:line: source``)."""
    modules = {_module_name(root, p): p for p in sorted(root.rglob("*.py"))}

    def owner(name: str) -> str:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name

    graph: dict[str, dict[str, list[str]]] = {}
    for module, path in modules.items():
        edges = graph.setdefault(module, {})
        source = path.read_text(encoding="utf-8")
        tree = ast.parse(source)
        skip = _type_checking_nodes(tree)
        lines = source.splitlines()
        for node in ast.walk(tree):
            if id(node) in skip:
                continue
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = _absolute(module, path.name == "__init__.py", node.level, node.module)
                names = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base
                         for a in node.names]
            else:
                continue
            where = f"{path.relative_to(root.parent)}:{node.lineno}: {lines[node.lineno - 1].strip()}"
            for name in names:
                target = owner(name)
                if target and target != module and where not in edges.get(target, ()):
                    edges.setdefault(target, []).append(where)
    return graph


def circles(graph: dict[str, dict[str, list[str]]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(graph[start]))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, targets = work[-1]
            for target in targets:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(graph[target])))
                    break
                if target in on_stack:
                    low[node] = min(low[node], index[target])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


def describe(graph: dict[str, dict[str, list[str]]], component: list[str]) -> str:
    inside = set(component)
    closing = [f"    {a} -> {b}: {where}" for a in component for b in sorted(graph[a])
               if b in inside for where in graph[a][b]]
    return f"circle of {len(component)}: {', '.join(component)}\n" + "\n".join(closing)


GRAPH = import_graph(ROOT)


def test_no_import_circles():
    found = circles(GRAPH)
    assert not found, f"{len(found)} import circle(s) in pbp:\n" + "\n".join(
        describe(GRAPH, c) for c in found)


def test_the_check_can_fail(tmp_path):
    """A circle closed by an import inside a function is found, through a relative import and
    a ``from package import submodule``; an import under TYPE_CHECKING is no edge; a module
    that only reads a name from a package ties to the package."""
    pkg = tmp_path / "toy"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from .sub import b\n")
    (pkg / "sub" / "__init__.py").write_text("VALUE = 1\n")
    (pkg / "sub" / "b.py").write_text("def f():\n    import toy.c\n")
    (pkg / "c.py").write_text("def g():\n    from toy import a\n")
    (pkg / "d.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                              "    from toy import e\nfrom toy.sub import VALUE\n")
    (pkg / "e.py").write_text("from . import d\n")
    graph = import_graph(pkg)
    assert circles(graph) == [["toy.a", "toy.c", "toy.sub.b"]]
    assert "toy/c.py:2: from toy import a" in describe(graph, circles(graph)[0])
    assert set(graph["toy.d"]) == {"toy.sub"}
    assert "pbp.demo" in GRAPH["pbp.cli"]      # cli imports demo inside its demo command


def test_compels_have_their_own_module():
    from pbp import commands as c
    from pbp.play import compels
    from pbp.play.core import HANDLERS

    assert HANDLERS[c.Compel] is compels.compel and HANDLERS[c.Accept] is compels.answer
