"""reports/leaderboard.ipynb runs end to end against a synthetic store and agrees with the API."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from tests.reports._world import World

REPO = Path(__file__).resolve().parents[2]


def test_leaderboard_notebook_executes(tmp_path: Path) -> None:
    w = World(tmp_path, ("t1", "t2", "t3"), samples=2, verdicts={"t3": "flaky"})
    w.outcomes("base", {"t1": "RF", "t2": "FE"})
    w.outcomes("cand", {"t1": "RR", "t2": "RP"})
    env = {"EVAL_TASK_SET": "mini", "EVAL_STORE": w.store.root, "EVAL_TASKS": w.tasks_root,
           "EVAL_LOCK_DIR": w.lock_dir, "EVAL_EVALS": w.evals_root, "EVAL_AGENTS": w.agents_root,
           "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    # The kernel gets exactly these variables, not whatever earlier tests left in this
    # process's environment (a remote, an executor, a second engine's socket).
    kernel_env = {k: os.environ[k] for k in ("PATH", "HOME", "LANG", "TMPDIR", "CI")
                  if k in os.environ}
    kernel_env.update({var: str(value) for var, value in env.items()})
    # Agent identities cover the distributions importable along the path: the kernel reads the
    # store with the same path as the process that wrote it (earlier tests may have added to it).
    kernel_env["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(
        [str(REPO), *(p for p in sys.path if p), *env["PYTHONPATH"].split(os.pathsep)]))
    nb = nbformat.read(REPO / "reports" / "leaderboard.ipynb", as_version=4)
    NotebookClient(nb, timeout=120, kernel_name="python3",
                   resources={"metadata": {"path": str(REPO)}}).execute(env=kernel_env)
    last = nb.cells[-1].outputs[0]["data"]["text/plain"]
    assert "cand" in last and "base" in last  # the API's leaderboard, after the check passed
