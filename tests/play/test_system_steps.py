"""A system owns its differences (issue 22, item 4): the steps a system adds around an
action (early Fate's spin, 002_3a4e52a093e280aa.txt "Spin"; the d10 hack's costs named by
reply, 004_c619695e1641b466.txt "Interpreting Results") are declared on the system
(``System.steps``) and run in the sequence's system slot for its campaigns only, as
python-chess's variants declare their hooks on the one board. A Fate Condensed campaign runs
none of them."""
from __future__ import annotations

import pytest

import pbp.play  # noqa: F401  (every step given)
from pbp.demo import create_sample_campaign
from pbp.play.sequence import SEQUENCE, STAGES, SYSTEM_STEPS, step_name
from pbp.rules.systems import D10_POOL, EARLY_FATE, FATE_CONDENSED, SYSTEMS
from tests.play.table import MailTable

SETUP = """\
/scene start "Warehouse" zones Dock, Floor borders Dock-Floor
/place Ruth in Dock
/place Cassandra in Dock
/place "Masked Acolyte" in Dock
/place Ghoul in Floor
"""


def _declared(system) -> set[str]:
    return {key for keys in system.steps.values() for key in keys}


def _of_others(system) -> set[str]:
    return {key for other in SYSTEMS.values() if other is not system for key in _declared(other)} - _declared(system)


def test_spin_and_costs_are_their_systems_own():
    assert _declared(EARLY_FATE) == {"spin.own_spin", "spin.use_spin", "spin.hold_spin", "spin.spin_follows",
                                     "spin.spins_lapse"}
    assert _declared(D10_POOL) == {"costs.cost_due", "costs.cost_after_revision", "costs.costs_lapse"}
    assert _declared(FATE_CONDENSED) == set()
    assert not any(key.startswith(("spin.", "costs.")) for order in SEQUENCE.values() for key in order)


@pytest.mark.parametrize("name", sorted(SYSTEMS))
def test_each_point_runs_the_campaigns_systems_steps_in_its_slot(name):
    system = SYSTEMS[name]
    for point, stage in STAGES.items():
        if SYSTEM_STEPS not in SEQUENCE[point]:
            assert point not in system.steps
            continue
        ran = [step_name(fn) for fn in stage.of(system)]
        at = SEQUENCE[point].index(SYSTEM_STEPS)
        own = list(system.steps.get(point, ()))
        assert ran == list(SEQUENCE[point][:at]) + own + list(SEQUENCE[point][at + 1:])
        assert not set(ran) & _of_others(system)


def test_a_point_with_a_slot_is_not_run_without_the_system():
    with pytest.raises(TypeError, match="of\\(post.system\\)"):
        list(STAGES["after_action"])


@pytest.fixture
def spied(monkeypatch):
    """Every step some system declares, replaced by one that notes its name and runs it."""
    ran: list[str] = []
    declared = {key for system in SYSTEMS.values() for key in _declared(system)}
    for stage in STAGES.values():
        for key, fn in list(stage._given.items()):
            if key in declared:
                def spy(*args, _key=key, _fn=fn, **kwargs):
                    ran.append(_key)
                    return _fn(*args, **kwargs)
                monkeypatch.setitem(stage._given, key, spy)
        monkeypatch.setattr(stage, "_of", {})
    return ran


def test_a_fate_condensed_campaign_runs_none_of_another_systems_steps(chicago, config, spied):
    """A conflict in Fate Condensed: a roll of 3+ shifts (early Fate would hold a spin), a tie
    (the d10 hack would open a cost), an invoke after the dice (a re-run) and the scene's end
    (where spins and costs lapse): not one of their steps runs."""
    table = MailTable(config)
    assert table.post("GM", SETUP).status == "applied"
    step = table.post("Ruth", "/overcome Athletics vs Good\n", dice="0000")
    assert step.status == "applied", step.text
    step = table.post("GM", '/conflict start Ruth, Cassandra, "Masked Acolyte", Ghoul first Ruth\n')
    assert step.status == "applied", step.text
    step = table.post("Ruth", '/attack "Masked Acolyte" with Fight\n', dice="++++,----")
    assert step.status == "applied", step.text
    step = table.post("GM", "/conflict end\n/scene end\n")
    assert step.status == "applied", step.text
    assert spied == []


def test_an_early_fate_campaign_runs_spins_steps(db, config, spied):
    """The spy sees what it should: early Fate's roll of 4 shifts runs spin's steps (and none
    of the d10 hack's costs)."""
    create_sample_campaign("early-fate")
    table = MailTable(config)
    assert table.post("GM", '/scene start "Pier 9"\n/conflict start Jet, Mara, Brute, Knifeman first Jet\n').status == "applied"
    step = table.post("Jet", "/attack Brute with Fists\n/next Mara", dice="++0+,0000")
    assert "Jet's spin #1, held until" in step.text
    assert {"spin.own_spin", "spin.use_spin", "spin.hold_spin"} <= set(spied)
    assert not any(key.startswith("costs.") for key in spied)
