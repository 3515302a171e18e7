"""`python -m evaluator gate`: exit 0 better or within noise, 1 worse, 2 refused or bad input."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from evaluator.__main__ import main
from tests.reports._world import World

TASKS = tuple(f"t{i:02d}" for i in range(1, 17))
HALF = dict.fromkeys(TASKS[:8], "R")


def run(w: World, *args: str) -> int:
    return main(["gate", "--set", "mini", "--store", str(w.store.root), "--tasks",
                 str(w.tasks_root), "--lock-dir", str(w.lock_dir), "--evals", str(w.evals_root),
                 "--agents", str(w.agents_root), *args])


@pytest.fixture
def world(tmp_path: Path) -> World:
    w = World(tmp_path, TASKS, agents=("base", "good", "bad", "same", "slip", "near"))
    w.outcomes("base", dict.fromkeys(TASKS, "F") | HALF)  # 8 of 16
    w.outcomes("good", dict.fromkeys(TASKS, "R"))  # ahead on 8, behind on none
    w.outcomes("bad", dict.fromkeys(TASKS, "F"))  # behind on 8
    w.outcomes("same", dict.fromkeys(TASKS, "R") | dict.fromkeys(TASKS[:8], "F"))  # 8 and 8
    w.outcomes("slip", dict.fromkeys(TASKS, "F") | dict.fromkeys(TASKS[:2], "R"))  # behind on 6
    w.outcomes("near", dict.fromkeys(TASKS, "F") | dict.fromkeys(TASKS[:4], "R"))  # behind on 4
    return w


def test_exit_codes(world: World, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(world, "--candidate", "good") == 0  # baseline from evals/mini.yaml
    assert "BETTER" in capsys.readouterr().out
    assert run(world, "--candidate", "same") == 0
    assert "WITHIN NOISE" in capsys.readouterr().out
    assert run(world, "--candidate", "bad") == 1
    out = capsys.readouterr().out
    assert "gate: FAIL, bad is significantly worse than base" in out
    assert "decided by mcnemar_exact: p=0.0078, alpha 0.05" in out
    assert run(world, "--candidate", "good", "--baseline", "bad") == 0


def test_four_tasks_behind_is_within_noise_with_mcnemar_deciding(
        world: World, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(world, "--candidate", "near") == 0
    out = capsys.readouterr().out
    assert "WITHIN NOISE" in out and "decided by mcnemar_exact: p=0.1250" in out
    assert "joined with zero" in out and "gate: pass (within noise)" in out


def test_sequential_gate_needs_the_always_valid_test_too(
        world: World, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(world, "--candidate", "slip") == 1  # fixed: p = 2/64
    capsys.readouterr()
    assert run(world, "--candidate", "slip", "--sequential") == 0  # e = 14.4 < 20
    assert "decided by mixture_sprt (always valid) and mcnemar_exact" in capsys.readouterr().out
    assert run(world, "--candidate", "bad", "--sequential") == 1  # e = 50.3


def test_refusals_and_bad_input_exit_2(world: World, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(world, "--candidate", "nobody") == 2
    assert "agent 'nobody'" in capsys.readouterr().out
    (world.tasks_root / "mini" / "t01" / "problem.md").write_text("edited\n")
    assert run(world, "--candidate", "good") == 2
    assert "is stale" in capsys.readouterr().out


def test_the_module_runs_as_a_command() -> None:
    done = subprocess.run([sys.executable, "-m", "evaluator", "gate", "--help"],
                          capture_output=True, text=True, cwd=Path(__file__).parents[2])
    assert done.returncode == 0 and "--candidate" in done.stdout
