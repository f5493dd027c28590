"""The rules core sits under the game systems (issue 22, item 2: "The system interface and
Fate's default strategies in one core module; the five systems and the registry above the
core; every core function that needs the system takes it"). Computed from the source: no
module of the core imports the registry or a system, and every call in pbp of a core
function that looks at the system's layered aspects passes the system."""
from __future__ import annotations

import ast
from pathlib import Path

import pbp

PACKAGE = Path(pbp.__file__).parent
RULES = PACKAGE / "rules"
CORE = sorted(p for p in RULES.glob("*.py"))      # pbp/rules/*.py: the core; pbp/rules/systems/: above it


def _imports(path: Path) -> list[tuple[int, str]]:
    """Every module a file imports, function-level imports included, with its line."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            found += [(node.lineno, node.module)]
            found += [(node.lineno, f"{node.module}.{a.name}") for a in node.names]
    return found


def test_the_core_imports_no_system_and_no_registry():
    below = [f"{p.relative_to(PACKAGE.parent)}:{line}: {name}" for p in CORE for line, name in _imports(p)
             if name == "pbp.rules.systems" or name.startswith("pbp.rules.systems.")]
    assert below == []


#: Core functions that take the system as a keyword (None: a system that layers no aspects,
#: which only a test of plain Fate may rely on); every call in pbp passes it.
TAKES_SYSTEM = {"aspects_in_play", "find_aspect", "invoke_right", "compellable", "give_free_invokes",
                "remove_aspect", "rename_aspect"}


def test_every_call_in_pbp_passes_the_system():
    missing = []
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        # bookkeeping's own remove_aspect (a row out of the table) is another function
        other = {a.asname or a.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
                 and node.module == "pbp.rules.bookkeeping" for a in node.names}
        if path.name == "bookkeeping.py":
            other.add("remove_aspect")
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", None)
            if isinstance(node.func, ast.Name) and name in other:
                continue
            if name in TAKES_SYSTEM and not any(k.arg == "system" for k in node.keywords):
                missing.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno}: {name}")
    assert missing == []
