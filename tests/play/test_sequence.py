"""Issue 9 item 6: what happens around an action is written once, in
``pbp.play.core.SEQUENCE``; registries map a command type to its one handler."""
import json
import subprocess
import sys

import pytest

import pbp.play  # noqa: F401  (every step given)
from pbp import commands as c
from pbp.play import core
from pbp.play.core import HANDLERS, SEQUENCE, STAGES, SYSTEM_STEPS, Stage, handles, step_name
from pbp.rules.systems import EARLY_FATE, SYSTEMS


def _written(stage: str, system) -> list[str]:
    """The order written in SEQUENCE, with the system's own steps in the slot."""
    return [key for slot in SEQUENCE[stage] for key in (system.steps.get(stage, ()) if slot == SYSTEM_STEPS else (slot,))]


@pytest.mark.parametrize("stage", sorted(SEQUENCE))
@pytest.mark.parametrize("system", sorted(SYSTEMS))
def test_each_stage_runs_its_steps_in_the_written_order(stage, system):
    assert [step_name(fn) for fn in STAGES[stage].of(SYSTEMS[system])] == _written(stage, SYSTEMS[system])


def test_an_action_reads_in_one_place():
    assert SEQUENCE["before_action"] == ("invoking._before", SYSTEM_STEPS)
    assert EARLY_FATE.steps["before_action"] == ("spin.use_spin",)
    assert SEQUENCE["after_action"][0] == "invoking._after"          # the roll is kept open first
    assert SEQUENCE["scene_end"][0] == "economy.scene_payout"        # rolls close before anything lapses


def _stage_with(name: str, order: tuple) -> Stage:
    SEQUENCE[name] = order
    try:
        return Stage(name)
    finally:
        del SEQUENCE[name]


def test_a_step_not_in_the_sequence_is_refused():
    stage = _stage_with("trial", ("test_sequence.named",))

    def unnamed(post):
        return []

    with pytest.raises(ValueError, match="test_sequence.unnamed is not a step of 'trial'"):
        stage.step(unnamed)


def test_a_step_given_twice_is_refused():
    stage = _stage_with("trial", ("test_sequence.named",))

    def named(post):
        return []

    stage.step(named)
    with pytest.raises(ValueError, match="given twice"):
        stage.step(named)


def test_a_named_step_never_given_is_refused_when_run():
    stage = _stage_with("trial", ("test_sequence.named", "test_sequence.other"))

    def named(post):
        return []

    stage.step(named)
    assert stage.missing() == ["test_sequence.other"]
    with pytest.raises(RuntimeError, match="never given: test_sequence.other"):
        list(stage)


def test_a_second_handler_for_a_command_type_is_refused():
    before = HANDLERS[c.Done]

    with pytest.raises(ValueError, match="Done already has a handler: exchanges.done"):
        @handles(c.Done)
        def other_done(post, cmd):
            return None

    assert HANDLERS[c.Done] is before


def test_the_order_does_not_follow_the_order_of_imports():
    """Importing the step modules the other way round changes nothing."""
    script = (
        "import json, importlib\n"
        "for m in ['spin', 'overview', 'costs', 'contests', 'challenges', 'teamwork', 'compels', 'invoking',"
        " 'economy', 'scenes', 'conflict']:\n"
        "    importlib.import_module('pbp.play.' + m)\n"
        "import pbp.play\n"
        "from pbp.play.core import STAGES, step_name\n"
        "from pbp.rules.systems import SYSTEMS\n"
        "print(json.dumps({n: {k: [step_name(f) for f in s.of(x)] for k, s in STAGES.items()}"
        " for n, x in SYSTEMS.items()}))\n")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True,
                         cwd=str(__import__("pathlib").Path(core.__file__).parents[2]))
    assert json.loads(out.stdout) == {n: {k: _written(k, x) for k in SEQUENCE} for n, x in SYSTEMS.items()}
