"""The request kinds (``DetailRequest.kind``) are dispatched from one registry,
``pbp.play.compels.REQUEST_KINDS``: each kind registers its rules once, in the module that
opens it, and the answers, deadlines, reminders and status lines all go through it."""
import ast
from pathlib import Path

import pytest

import pbp
import pbp.play  # noqa: F401  (registers every kind)
from pbp.play import compels
from pbp.play.compels import REQUEST_KINDS, GmRequest, StoryDetail, check_request_kinds, request_kind, request_rules
from pbp.rules.fate_points import REQUEST_LABELS, DetailRequest

VERBS = ("answerable", "settle", "expire", "remind", "waiting")


def _kinds_opened_in_source() -> set[str]:
    """Every literal ``kind=`` a ``DetailRequest(...)`` is opened with in the package."""
    kinds = set()
    for path in Path(pbp.__file__).parent.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "DetailRequest":
                for kw in node.keywords:
                    if kw.arg == "kind" and isinstance(kw.value, ast.Constant):
                        kinds.add(kw.value.value)
    return kinds


def test_every_kind_a_reply_can_name_is_registered():
    assert set(REQUEST_LABELS) == set(REQUEST_KINDS)
    assert {"detail", "bonus", "aspect", "cost", "advance", "concession", "taken_out"} <= set(REQUEST_KINDS)


def test_every_kind_the_code_opens_is_registered():
    opened = _kinds_opened_in_source()
    assert {"bonus", "aspect", "cost", "advance"} <= opened      # the scan does find them
    assert opened <= set(REQUEST_KINDS)
    # a DetailRequest without kind= is a story detail, registered too
    assert DetailRequest(1, "Ruth", "x", None).kind in REQUEST_KINDS


@pytest.mark.parametrize("kind", sorted(REQUEST_LABELS))
def test_each_kind_gives_the_whole_protocol(kind):
    rules = REQUEST_KINDS[kind]
    for verb in VERBS:
        assert callable(getattr(rules, verb, None)), f"{kind} has no {verb}"


def test_a_kind_registered_twice_is_an_error():
    before = dict(REQUEST_KINDS)
    with pytest.raises(ValueError, match="'detail' is registered twice"):
        request_kind("detail")(StoryDetail)
    assert REQUEST_KINDS == before


def test_a_new_kind_registers_once_and_is_dispatched(monkeypatch):
    monkeypatch.setattr(compels, "REQUEST_KINDS", dict(REQUEST_KINDS))

    @request_kind("test_kind")
    class TestKind(GmRequest):
        denied = "the test stands"

    assert isinstance(compels.REQUEST_KINDS["test_kind"], TestKind)
    assert request_rules(DetailRequest(1, "Ruth", "x", None, kind="test_kind")) is compels.REQUEST_KINDS["test_kind"]
    with pytest.raises(ValueError, match="registered twice"):
        request_kind("test_kind")(TestKind)


def test_an_unregistered_kind_is_an_error_not_a_default():
    with pytest.raises(RuntimeError, match="'nonesuch' has no rules"):
        request_rules(DetailRequest(1, "Ruth", "x", None, kind="nonesuch"))


def test_a_named_kind_without_rules_fails_at_import_check(monkeypatch):
    monkeypatch.setitem(REQUEST_LABELS, "nonesuch", "nonesuch request")
    with pytest.raises(RuntimeError, match="nonesuch"):
        check_request_kinds()
