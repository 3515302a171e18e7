"""One bad file fails only what it concerns: every other set, eval and command keeps working, and
a set name doit does not know gets a target that says what it expected."""

from __future__ import annotations

import pytest
import yaml

from tests.helpers import make_set
from tests.pipeline.support import Project

pytestmark = pytest.mark.docker


def _break_agent(p: Project, name: str) -> None:
    adir = p.root / "agents" / name
    # A nested namespace package (no __init__.py): its lookup raised KeyError inside doit's task
    # loading, which took every command of every set down; it is valid and followed now.
    (adir / "plugins" / "shells").mkdir(parents=True)
    (adir / "plugins" / "shells" / "bash.py").write_text("x = 1\n")
    spec = yaml.safe_load((adir / "agent.yaml").read_text())
    spec["extra_modules"] = ["plugins.shells.bash", "nosuch.helper"]
    (adir / "agent.yaml").write_text(yaml.safe_dump(spec))


def test_a_broken_agent_fails_only_the_eval_that_names_it(gated: Project) -> None:
    make_set(gated.root / "tasks", "solo", ("add-bug",), gold_reps=1)
    (gated.root / "evals" / "solo.yaml").write_text(yaml.safe_dump(
        {"task_set": "solo", "agents": ["sim-b"], "samples": 1, "prices": "prices.yaml"}))
    _break_agent(gated, "sim-a")
    assert gated.doit("list").returncode == 0
    lock = gated.doit("lock:mini", "lock:solo")
    assert lock.returncode == 0, lock.stdout + lock.stderr
    other = gated.doit("gold:solo", "plan:solo")
    assert other.returncode == 0, other.stdout + other.stderr
    assert "1 of 1 attempts would run" in other.stdout
    broken = gated.doit("plan:mini")
    assert broken.returncode != 0
    assert "sim-a/agent.yaml: field 'extra_modules.1': no module 'nosuch.helper'" in broken.stdout


@pytest.mark.parametrize("target", ["lock", "gold", "plan", "eval", "report"])
def test_an_empty_set_folder_says_what_it_expected(project: Project, target: str) -> None:
    (project.root / "tasks" / "empty").mkdir()
    out = project.doit(f"{target}:empty")
    assert out.returncode != 0
    assert "tasks/empty has no set.yaml" in out.stdout and "Invalid parameter" not in out.stderr


def test_a_misnamed_set_names_the_known_ones(project: Project) -> None:
    out = project.doit("eval:mnii")
    assert "no task set 'mnii'" in out.stdout and "known sets: mini" in out.stdout


def test_a_simulated_config_that_does_not_validate_fails_its_attempts_in_one_line(
        gated: Project) -> None:
    """Found by benchmarks/check_faults.py: a bad simulated-endpoint config failed doit's task
    loading with a traceback; now each simulated attempt is not started, saying why, and no
    error note counts against its retry budget."""
    config = gated.root / "sim.yaml"
    config.write_text(yaml.safe_dump({"colour": "blue"}))
    gated.env["EVAL_SIMULATED_CONFIG"] = str(config)
    out = gated.doit("eval:mini")
    assert out.returncode != 0 and "Traceback" not in out.stdout + out.stderr
    assert f"error: the simulated endpoint could not start: {config}" in out.stderr
    assert out.stdout.count("not started: the simulated endpoint could not start") == 4
    assert not (gated.root / "store" / "errors").exists() or not any(
        (gated.root / "store" / "errors").rglob("*.json"))
