"""Shared by the tests that run doit on a project of their own: the project, its builder, what a run
executed."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import yaml

from tests.helpers import make_set

REPO = Path(__file__).resolve().parents[2]


DOIT = [sys.executable, "-m", "doit", "-f", str(REPO / "dodo.py")]


@dataclass
class Project:
    root: Path
    env: dict[str, str]

    def doit(self, *args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*DOIT, *args], env=self.env, cwd=self.root, text=True,
                              capture_output=True, timeout=timeout)

    def popen(self, *args: str) -> subprocess.Popen[str]:
        return subprocess.Popen([*DOIT, *args], env=self.env, cwd=self.root, text=True,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                start_new_session=True)

    @property
    def tasks(self) -> Path:
        return self.root / "tasks" / "mini"

    def eval_config(self, **fields: object) -> None:
        spec = {"task_set": "mini", "agents": ["sim-a", "sim-b"], "baseline": "sim-a",
                "samples": 1, "retry_budget": 2, "prices": "prices.yaml", **fields}
        (self.root / "evals" / "mini.yaml").write_text(yaml.safe_dump(spec))


class UserProject(Project):
    """A project whose doit runs as the rootless user, who owns it (tests/daemonless.py)."""

    def doit(self, *args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
        from tests.daemonless import as_user

        return as_user([*DOIT, *args], env=self.env, cwd=self.root, timeout=timeout)


def executed(out: str, prefix: str) -> list[str]:
    """Targets doit really ran (the quiet reporter prints only those)."""
    return sorted(line[3:].strip() for line in out.splitlines() if line.startswith(f".  {prefix}"))


_AGENTS = (("sim-a", "sim-weak"), ("sim-b", "sim-strong"))


def new_project(root: Path, *, files: bool = True, agents: tuple[tuple[str, str], ...] = _AGENTS,
                max_retries: int | None = 1, store: str = "store") -> Project:
    """A task set `mini` of two tasks, reference-strong copies named `agents` (name, simulated
    model), prices, and the environment pointing doit at them; `files=False` only wraps `root`."""
    if files:
        make_set(root / "tasks", "mini", ("add-bug", "add-bug-two"))
        (root / "evals").mkdir()
        # Priced like the demo: an agent whose model has no price is refused at plan time.
        shutil.copy(REPO / "evals" / "prices.yaml", root / "evals" / "prices.yaml")
        for name, model in agents:
            adir = root / "agents" / name
            shutil.copytree(REPO / "agents" / "reference-strong", adir)
            spec = yaml.safe_load((adir / "agent.yaml").read_text())
            spec.update(name=name)
            spec["model"].update(id=model, **({} if max_retries is None
                                                else {"max_retries": max_retries}))
            (adir / "agent.yaml").write_text(yaml.safe_dump(spec))
    env = {**os.environ, "EVAL_TASKS": str(root / "tasks"), "EVAL_LOCK_DIR": str(root / "lock"),
           "EVAL_STORE": str(root / store), "EVAL_EVALS": str(root / "evals"),
           "EVAL_AGENTS": str(root / "agents"), "PYTHONPATH": str(REPO)}
    # Local and endpoint-less unless a test says otherwise.
    env.pop("EVAL_SIMULATED_URL", None)
    env.pop("EVAL_EXECUTOR", None)
    return Project(root, env)
