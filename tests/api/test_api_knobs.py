"""EVAL_ONLY_AGENTS and EVAL_SAMPLES: how a run reaches `doit`, checked through real `doit plan`
(it plans like `doit eval` and runs nothing, so no Docker)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.api.support import world_env
from tests.pipeline.support import DOIT
from tests.reports._world import World


def plan(w: World, tmp_path: Path, **knobs: str) -> subprocess.CompletedProcess[str]:
    env = {**world_env(w, tmp_path), **knobs}
    return subprocess.run([*DOIT, "plan:mini"], env=env, cwd=w.root, text=True,
                          capture_output=True, timeout=120)


def test_the_knobs_narrow_the_plan_to_one_agent_and_set_its_samples(world: World,
                                                                    tmp_path: Path) -> None:
    everyone = plan(world, tmp_path)
    assert "6 of 6 attempts would run" in everyone.stdout  # 2 agents x 3 tasks x 1 sample
    one = plan(world, tmp_path, EVAL_ONLY_AGENTS="cand", EVAL_SAMPLES="2")
    assert one.returncode == 0, one.stdout + one.stderr
    assert "6 of 6 attempts would run" in one.stdout  # 1 agent x 3 tasks x 2 samples
    lines = [line for line in one.stdout.splitlines() if line.startswith("would run")]
    assert all(" cand/" in line for line in lines)
    assert {line.split()[2].rsplit("/", 1)[1] for line in lines} == {"0", "1"}


def test_a_bad_samples_knob_says_what_to_set(world: World, tmp_path: Path) -> None:
    out = plan(world, tmp_path, EVAL_SAMPLES="0")
    assert out.returncode != 0
    assert "$EVAL_SAMPLES is '0'; it takes a whole number from 1 to 100" in out.stdout + out.stderr
