"""Issue 22: one name per concept. No two classes in the package share a name, so a reader
(and a grep) never has to ask which ``Post`` or ``Outcome`` a line means. Read from the
source with ``ast``; a class nested in a class (peewee's ``class Meta``) is that class's
own business and is not counted."""
import ast
from collections import defaultdict
from pathlib import Path

import pbp

ROOT = Path(pbp.__file__).parent

#: Pairs not renamed yet, each with what the two are. The list may only shrink: a new
#: pair fails, and so does one listed here that no longer shares its name.
NOT_YET = {
    "Aspect": "pbp.rules.state (an aspect in play) and pbp.store.models (its row)",
    "Character": "pbp.rules.state (a character in play) and pbp.store.models (its row)",
}


def class_names(root: Path) -> dict[str, list[str]]:
    """Each class name to where it is defined (``path:line``), nested classes left out."""
    found: dict[str, list[str]] = defaultdict(list)
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        nested = {id(inner) for outer in ast.walk(tree) if isinstance(outer, ast.ClassDef)
                  for inner in ast.walk(outer) if isinstance(inner, ast.ClassDef) and inner is not outer}
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef) and id(node) not in nested:
                found[node.name].append(f"{path.relative_to(root.parent)}:{node.lineno}")
    return found


def shared(found: dict[str, list[str]]) -> dict[str, list[str]]:
    return {name: places for name, places in found.items() if len(places) > 1}


def test_no_two_classes_share_a_name():
    twice = shared(class_names(ROOT))
    new = {name: places for name, places in twice.items() if name not in NOT_YET}
    assert not new, "classes sharing a name: " + "; ".join(f"{n} ({', '.join(p)})" for n, p in new.items())
    assert set(NOT_YET) <= set(twice), f"no longer shared, take off NOT_YET: {set(NOT_YET) - set(twice)}"


def test_the_check_can_fail(tmp_path):
    (tmp_path / "toy").mkdir()
    (tmp_path / "toy" / "a.py").write_text("class Post:\n    class Meta:\n        pass\n")
    (tmp_path / "toy" / "b.py").write_text("class Post:\n    pass\nclass Meta:\n    pass\n")
    assert shared(class_names(tmp_path / "toy")) == {"Post": ["toy/a.py:1", "toy/b.py:1"]}
