"""`python -m evaluator gate`: exit 0 better or within noise, 1 worse, 2 refused or bad input."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from evaluator.__main__ import main
from tests.reports._world import World

TASKS = tuple(f"t{i}" for i in range(1, 9))


def run(w: World, *args: str) -> int:
    return main(["gate", "--task-set", "mini", "--store", str(w.store.root), "--tasks",
                 str(w.tasks_root), "--lock-dir", str(w.lock_dir), "--evals", str(w.evals_root),
                 "--agents", str(w.agents_root), *args])


@pytest.fixture
def world(tmp_path: Path) -> World:
    w = World(tmp_path, TASKS, agents=("base", "good", "bad", "same"))
    w.outcomes("base", dict.fromkeys(TASKS, "F") | {"t1": "R", "t2": "R", "t3": "R", "t4": "R"})
    w.outcomes("good", dict.fromkeys(TASKS, "R"))
    w.outcomes("bad", dict.fromkeys(TASKS, "F"))
    w.outcomes("same", dict.fromkeys(TASKS, "F") | {"t5": "R", "t6": "R", "t7": "R", "t8": "R"})
    return w


def test_exit_codes(world: World, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(world, "--candidate", "good") == 0  # baseline from evals/mini.yaml
    assert "BETTER" in capsys.readouterr().out
    assert run(world, "--candidate", "same") == 0
    assert "WITHIN NOISE" in capsys.readouterr().out
    assert run(world, "--candidate", "bad") == 1
    out = capsys.readouterr().out
    assert "gate: FAIL, bad is significantly worse than base" in out
    assert "borderline: the interval excludes zero but mcnemar_exact gives p=0.125" in out
    assert run(world, "--candidate", "good", "--baseline", "bad") == 0


def test_refusals_and_bad_input_exit_2(world: World, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(world, "--candidate", "nobody") == 2
    assert "agent 'nobody'" in capsys.readouterr().out
    (world.tasks_root / "mini" / "t1" / "problem.md").write_text("edited\n")
    assert run(world, "--candidate", "good") == 2
    assert "is stale" in capsys.readouterr().out


def test_the_module_runs_as_a_command() -> None:
    done = subprocess.run([sys.executable, "-m", "evaluator", "gate", "--help"],
                          capture_output=True, text=True, cwd=Path(__file__).parents[2])
    assert done.returncode == 0 and "--candidate" in done.stdout
