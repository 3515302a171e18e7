"""A throwaway project (tasks, lock, store, agents, evals) driven through the real `doit`."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
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


def executed(out: str, prefix: str) -> list[str]:
    """Targets doit really ran (the quiet reporter prints only those)."""
    return sorted(line[3:].strip() for line in out.splitlines() if line.startswith(f".  {prefix}"))


@pytest.fixture
def project(tmp_path: Path, docker_client, base_image) -> Project:
    return new_project(tmp_path)


@pytest.fixture(scope="session")
def _gated_template(tmp_path_factory: pytest.TempPathFactory, docker_client,
                    base_image) -> Path:
    """One project locked and gold-gated per session; `gated` copies it for each test."""
    template = new_project(tmp_path_factory.mktemp("gated"))
    assert template.doit("lock:mini").returncode == 0
    assert template.doit("-n", "2", "-P", "process", "gold:mini").returncode == 0
    return template.root


@pytest.fixture
def gated(_gated_template: Path, tmp_path: Path) -> Project:
    """A locked, gold-gated project of its own (a copy: its store, lock and doit state)."""
    root = tmp_path / "project"
    shutil.copytree(_gated_template, root, symlinks=True)
    project = new_project(root, files=False)
    project.eval_config()
    return project


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
