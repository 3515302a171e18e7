"""mini-swe-agent end to end through `doit eval`: real sandboxes, the simulated endpoint over
HTTP, and its submission graded."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest
import yaml

from evaluator.hashing import hash_json
from evaluator.simulated import trajectory_kind
from evaluator.store import Store
from tests.pipeline.support import REPO, Project

pytestmark = pytest.mark.docker


def kind(base_seed: int, sample: int) -> str:
    # The attempt's seed (evaluator.attempts.attempt_seed); both tasks share one problem text,
    # so the simulator plays them as its first, add-bug.
    return trajectory_kind("sim-strong", int(hash_json([base_seed, sample])[:8], 16), "add-bug", 0.7)


def test_mini_swe_agent_through_doit_eval_is_graded_on_its_submission(project: Project) -> None:
    seed = next(s for s in range(1000) if kind(s, 0) == "solve" and kind(s, 1) == "wrong_edit")
    adir = project.root / "agents" / "mini-swe-agent"
    shutil.copytree(REPO / "agents" / "mini-swe-agent", adir)
    spec = yaml.safe_load((adir / "agent.yaml").read_text())
    spec["sampling"]["seed"] = seed
    (adir / "agent.yaml").write_text(yaml.safe_dump(spec))
    assert project.doit("lock:mini").returncode == 0
    assert project.doit("-n", "2", "-P", "process", "gold:mini").returncode == 0
    project.eval_config(agents=["mini-swe-agent"], baseline="mini-swe-agent", samples=2)
    out = project.doit("-n", "2", "-P", "process", "eval:mini")
    assert out.returncode == 0, out.stdout + out.stderr
    store = Store(project.root / "store")
    attempts = {r["key"]: r for r in store.iter_records("attempt")}
    results = list(store.iter_records("result"))
    assert len(attempts) == len(results) == 4
    for result in results:
        attempt = attempts[result["attempt"]]
        patch = store.get_blob(attempt["patch"]).decode()
        assert store.get("grade", result["grade"])["patch"] == attempt["patch"]
        assert attempt["exit_reason"] == "submitted" and attempt["patch_source"] == "tree"
        assert result["resolved"] == (attempt["sample_idx"] == 0), (result, patch)
        assert ("+    return a + b" in patch) == (attempt["sample_idx"] == 0)
        assert attempt["usage"]["model_calls"] == len(json.loads(
            store.get_blob(attempt["conversation"]))["calls"]) >= 3
    key = next(k for k, a in attempts.items() if a["sample_idx"] == 0)
    traj = subprocess.run([sys.executable, "-m", "evaluator", "export", "traj", "--key", key],
                          env=project.env, cwd=project.root, capture_output=True, text=True)
    exported = json.loads(traj.stdout)
    assert exported["info"]["submission"] == store.get_blob(attempts[key]["patch"]).decode()
    assert exported["info"]["evaluator"]["resolved"] is True
