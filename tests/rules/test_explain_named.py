"""A reply is always explained under a named system, passed explicitly (issue 9: "no function
defaults to a system"; issue 22: "no ContextVar for the explainer or the ladder (the renderer
takes the system, as d20's stringifier is passed)"): the renderer's functions and templates
take the system, an explainer speaks its own system's ladder, and nothing under pbp/rules
holds a current system in a context variable."""
from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from pbp import render
from pbp.commands import Opposition
from pbp.rules import explain
from pbp.rules.actions import resolve
from pbp.rules.dice import FixedDice
from pbp.rules.ladder import LADDER, describe
from pbp.rules.systems import D10_POOL, DEFAULT_SYSTEM, EARLY_FATE, FATE_CONDENSED

from .builders import make_table, overcome

RULES = Path(render.__file__).parent / "rules"


def test_no_context_variable_in_the_rules():
    """Every module under pbp/rules takes the system (or its ladder) as an argument: none
    imports contextvars or makes a ContextVar."""
    found = [f"{path.relative_to(RULES.parent.parent)}:{n}" for path in sorted(RULES.rglob("*.py"))
             for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
             if re.search(r"\bcontextvars\b|\bContextVar\b", line)]
    assert found == []


def _result(system=FATE_CONDENSED):
    return resolve(overcome("Fight", opposition=Opposition(rating=2)), make_table(), FixedDice("+0-+"), "Ruth",
                   system)


@pytest.mark.parametrize("fn", [render.action_rows, render.headline, render.verdict])
def test_the_renderer_takes_the_system(fn):
    """No system is assumed: a result explained without one is a TypeError, a bug in pbp."""
    with pytest.raises(TypeError):
        fn(_result())
    assert fn(_result(), FATE_CONDENSED)


def test_a_template_reads_the_system_its_renderer_was_given():
    sheet = {"name": "Ruth", "kind": "pc", "aspects": [], "skills": {}, "stunts": [], "stress": {},
             "consequences": [], "fate_points": 3, "refresh": 3}
    with pytest.raises(TypeError):
        render.Renderer().sheet(sheet)


def test_each_systems_explainer_speaks_its_own_ladder():
    """Early Fate's ladder ends at Terrible (-2) (002, "the ladder"): its explainer shows -3
    as a number, Fate Condensed's as Catastrophic, in the same process and the same thread."""
    assert EARLY_FATE.explain.ladder is EARLY_FATE.ladder and FATE_CONDENSED.explain.ladder is LADDER
    assert EARLY_FATE.explain.passive(-3) == "-3" == describe(-3, EARLY_FATE.ladder)
    assert FATE_CONDENSED.explain.passive(-3) == "Catastrophic (-3)"
    assert type(D10_POOL.explain) is not explain.FateExplainer     # its own explainer, kept


def test_a_variant_with_another_ladder_is_explained_in_its_words():
    """A system made with ``dataclasses.replace`` and another ladder (a campaign's words in
    another language) gets an explainer speaking it; the original is untouched."""
    words = {**LADDER, 2: "Razoável"}
    variant = dataclasses.replace(FATE_CONDENSED, ladder=words)
    assert variant.explain.passive(2) == "Razoável (+2)" and variant.explain.amount(2) == "+2 Razoável"
    assert FATE_CONDENSED.explain.passive(2) == "Fair (+2)"
    rows = {r.label: r for r in render.action_rows(_result(variant), variant)}
    assert rows["vs"].text == "Razoável (+2)" and rows["effort"].value == "+5 Superb"


def test_the_default_campaign_system_is_named_once():
    """The CLI's, create_campaign's and the model's default are the one constant."""
    import inspect

    from pbp.campaigns import create_campaign
    from pbp.store import models as m
    assert inspect.signature(create_campaign).parameters["system"].default is DEFAULT_SYSTEM
    assert m.Campaign.system.default is DEFAULT_SYSTEM


def test_a_snapshot_names_its_system():
    from pbp.store.repo import Snapshot
    fields = {f.name: f for f in dataclasses.fields(Snapshot)}
    assert fields["system"].default is dataclasses.MISSING
    with pytest.raises(TypeError):
        Snapshot(characters={}, ids={}, aspects={})
