"""The mlflow extra alone (a fresh venv of requirements.lock and requirements-mlflow.lock)
exports a set's report to an MLflow store."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.extras import extra_python
from tests.reports._world import World


def test_the_mlflow_extra_alone_exports_each_agent_as_a_run(tmp_path: Path) -> None:
    w = World(tmp_path / "w", ("t1", "t2"), samples=1)
    w.outcomes("base", {"t1": "F", "t2": "F"})
    w.outcomes("cand", {"t1": "R", "t2": "F"})
    python = extra_python("mlflow", tmp_path)
    out = subprocess.run(
        [str(python), "-m", "evaluator", "export", "mlflow", "--set", "mini",
         "--tracking-uri", f"sqlite:///{tmp_path / 'mlflow.db'}", "--store", str(w.store.root),
         "--tasks", str(w.tasks_root), "--lock-dir", str(w.lock_dir), "--evals",
         str(w.evals_root), "--agents", str(w.agents_root)],
        capture_output=True, text=True, cwd=tmp_path, timeout=600)
    assert out.returncode == 0, out.stdout + out.stderr[-3000:]
    assert out.stdout.count("created run") == 2, out.stdout
