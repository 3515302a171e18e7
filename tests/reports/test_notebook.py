"""reports/leaderboard.ipynb runs end to end against a synthetic store and agrees with the API."""

from __future__ import annotations

import os
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from tests.reports._world import World

REPO = Path(__file__).resolve().parents[2]


def test_leaderboard_notebook_executes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    w = World(tmp_path, ("t1", "t2", "t3"), samples=2, verdicts={"t3": "flaky"})
    w.outcomes("base", {"t1": "RF", "t2": "FE"})
    w.outcomes("cand", {"t1": "RR", "t2": "RP"})
    env = {"EVAL_TASK_SET": "mini", "EVAL_STORE": w.store.root, "EVAL_TASKS": w.tasks_root,
           "EVAL_LOCK_DIR": w.lock_dir, "EVAL_EVALS": w.evals_root, "EVAL_AGENTS": w.agents_root,
           "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    for var, value in env.items():
        monkeypatch.setenv(var, str(value))  # the kernel inherits this process's environment
    nb = nbformat.read(REPO / "reports" / "leaderboard.ipynb", as_version=4)
    NotebookClient(nb, timeout=120, kernel_name="python3",
                   resources={"metadata": {"path": str(REPO)}}).execute()
    last = nb.cells[-1].outputs[0]["data"]["text/plain"]
    assert "cand" in last and "base" in last  # the API's leaderboard, after the check passed
