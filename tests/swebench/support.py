"""Shared by the SWE-bench tests: a project of imported rows in three runner styles, and importing
it."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.swebench.fixtures import EVAL_SCRIPT, base_repo, row, task_repo

REPO = Path(__file__).resolve().parents[2]


STYLES = ("pytest", "django", "sympy")


@dataclass
class SweProject:
    root: Path
    env: dict[str, str]
    rows: dict[str, dict[str, Any]]

    def run(self, *args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
        return subprocess.run(list(args), env=self.env, cwd=self.root, text=True,
                              capture_output=True, timeout=timeout)

    def evaluator(self, *args: str) -> subprocess.CompletedProcess[str]:
        return self.run(sys.executable, "-m", "evaluator", *args)

    def doit(self, *args: str) -> subprocess.CompletedProcess[str]:
        return self.run(sys.executable, "-m", "doit", "-f", str(REPO / "dodo.py"), *args)


def make_rows(root: Path) -> dict[str, tuple[Path, str, dict[str, Any]]]:
    cases = {}
    for style in STYLES:
        repo, sha = base_repo(root / f"repo-{style}", style)
        r = row(repo, sha, style, f"acme__calc-{style}")
        if style == "pytest":  # 5.x: the eval script and the parser it names
            r.update(eval_script=EVAL_SCRIPT.format(sha=sha, patch=r["test_patch"]),
                     log_parser="parse_log_pytest", eval_type="pass_and_fail")
        cases[r["instance_id"]] = (repo, sha, r)
    return cases


def make_project(root: Path) -> SweProject:
    cases = make_rows(root / "src")
    task_repo(root / "taskrepo", cases)
    env = {**os.environ, "EVAL_TASKS": str(root / "tasks"),
           "EVAL_LOCK_DIR": str(root / "lock"), "EVAL_STORE": str(root / "store"),
           "EVAL_EVALS": str(root / "evals"), "EVAL_AGENTS": str(root / "agents"),
           "PYTHONPATH": str(REPO)}
    return SweProject(root, env, {k: v[2] for k, v in cases.items()})


def light_gate(p: SweProject, name: str, reps: int = 1) -> None:
    """An imported set's gate made light: `reps` gold reps, no exploit gate (it has tests of
    its own; these runs check the import, not it)."""
    set_yaml = p.root / "tasks" / name / "set.yaml"
    set_yaml.write_text(set_yaml.read_text().replace("gold_reps: 3", f"gold_reps: {reps}")
                        + "exploits: []\n")


def imported(p: SweProject, name: str = "sw", reps: int = 1) -> None:
    """Import the task repo as set `name` with `reps` gold reps, lock it and run the gate."""
    out = p.evaluator("import", "swebench", "taskrepo", "--set", name, "--setup", "")
    assert out.returncode == 0, out.stdout + out.stderr
    light_gate(p, name, reps)
    lock = p.doit(f"lock:{name}")
    assert lock.returncode == 0, lock.stdout + lock.stderr
