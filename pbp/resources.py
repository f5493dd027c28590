"""Find the data files that ship with pbp: the command grammar and the reply templates.

In an installed wheel setuptools maps the top-level ``grammar/`` and ``templates/`` folders
into the package (``pbp/grammar``, ``pbp/templates``); in a source checkout they sit next to
the package. Looking in both places keeps one code path for tests, the editable install and
the wheel.
"""
from __future__ import annotations

from pathlib import Path

import pbp

KINDS = ("grammar", "templates")


def resource_path(kind: str, name: str) -> Path:
    """The path of data file ``name`` of ``kind`` ("grammar" or "templates"); an empty
    ``name`` gives the folder itself (a template loader wants the folder).

    The installed package folder (``pbp/<kind>``) wins over the checkout (``<kind>/`` next
    to the package). Raises ``ValueError`` for an unknown kind and ``FileNotFoundError``,
    naming every place looked in, when neither has it.
    """
    if kind not in KINDS:
        raise ValueError(f"unknown resource kind {kind!r}: expected one of {', '.join(KINDS)}")
    package = Path(pbp.__file__).resolve().parent
    candidates = [base / kind / name if name else base / kind for base in (package, package.parent)]
    for candidate in candidates:
        if candidate.is_file() if name else candidate.is_dir():
            return candidate
    looked = ", ".join(str(c) for c in candidates)
    raise FileNotFoundError(f"{kind} {'file ' + repr(name) if name else 'folder'} not found (looked in {looked})")
