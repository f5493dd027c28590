"""A reply is always explained under a named system (issue 9: "no function defaults to a
system"): outside a system's ``explain.shown(system)`` block, asking for the explainer is an
error; a post not routed yet is explained under the product's default campaign system, which
the pipeline names (``UNROUTED``, docs/systems.md, "Before a campaign is known")."""
from __future__ import annotations

import contextvars
import dataclasses

import pytest

from pbp.rules import explain
from pbp.rules.ladder import describe
from pbp.rules.systems import D10_POOL, DEFAULT_SYSTEM, EARLY_FATE, FATE_CONDENSED, get_system


def _outside(fn):
    """Run ``fn`` in a fresh context, as a thread or an entry point without a block would."""
    return contextvars.Context().run(fn)


def test_explaining_outside_a_systems_block_raises():
    with pytest.raises(explain.NoSystemShown):
        _outside(explain.current)


def test_shown_takes_a_system_and_has_no_default():
    with pytest.raises(TypeError):
        explain.shown()


def test_inside_a_block_the_named_systems_explainer_and_ladder():
    def inside():
        with explain.shown(D10_POOL):
            d10 = explain.current()
        with explain.shown(EARLY_FATE):
            early = explain.current(), describe(-3)
        return d10, early
    d10, (early, beyond) = _outside(inside)
    assert d10 is D10_POOL.explain and early is EARLY_FATE.explain
    assert beyond == "-3"              # early Fate's ladder ends at Terrible (-2)


def test_leaving_the_block_leaves_no_system_behind():
    def after():
        with explain.shown(D10_POOL):
            pass
        return explain.current()
    with pytest.raises(explain.NoSystemShown):
        _outside(after)


def test_the_pipeline_names_the_default_campaign_system_before_routing():
    from pbp import pipeline
    assert DEFAULT_SYSTEM == "fate-condensed"
    assert pipeline.UNROUTED is get_system(DEFAULT_SYSTEM) is FATE_CONDENSED


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
