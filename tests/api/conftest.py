"""Real servers on loopback for the API tests, over two kinds of project.

- `world`: the reports' synthetic project (a gated set, agents, a store; no Docker), served by a
  server in a thread whose doit is `stub_doit.py`, for everything but real evaluation.
- `gated`: the pipeline's `project` (2 tasks, simulated agents, real doit and Docker), locked
  and gold-gated once per session and copied into each test, served by `python -m evaluator
  serve` in a subprocess.
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from evaluator.api import Settings
from tests.api.support import (
    STUB,
    Api,
    ServerProcess,
    ThreadServer,
    kill_workers,
)
from tests.pipeline.support import REPO, Project
from tests.reports._world import World

# --- the synthetic world (no Docker) -----------------------------------------------------------


@pytest.fixture
def world(tmp_path: Path) -> World:
    return World(tmp_path / "world")


@pytest.fixture
def stub_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Where stub_doit.py reads its modes and logs its calls; workers inherit the variable."""
    where = tmp_path / "stub"
    where.mkdir()
    monkeypatch.setenv("STUB_DOIT_DIR", str(where))
    return where


@pytest.fixture
def world_settings(world: World, stub_dir: Path) -> Settings:
    return Settings(store=world.store.root, tasks_root=world.tasks_root, lock_dir=world.lock_dir,
                    evals_root=world.evals_root, agents_root=world.agents_root, cwd=world.root,
                    doit=(sys.executable, str(STUB)), poll_s=0.2)


@pytest.fixture
def serve(world_settings: Settings) -> Iterator[Callable[..., Api]]:
    """Start a thread server over the world with some settings changed; stopped after."""
    servers: list[ThreadServer] = []

    def start(*, supervise: bool = True, **changes: Any) -> Api:
        servers.append(ThreadServer(replace(world_settings, **changes), supervise=supervise))
        return servers[-1].__enter__()

    yield start
    for server in servers:
        server.__exit__()


@pytest.fixture
def api(serve: Callable[..., Api]) -> Api:
    return serve()


# --- the real pipeline (Docker) ------------------------------------------------------------------

@pytest.fixture
def gated(project: Project, _gated_template: Path) -> Project:
    """`project`, locked and gold-gated: the lock and store of the run's gated template (same
    files, same keys) rather than a gold run of its own."""
    # Priced like the demo, so runs cost something to report.
    shutil.copy(REPO / "evals" / "prices.yaml", project.root / "evals" / "prices.yaml")
    project.eval_config(prices="prices.yaml")
    shutil.copytree(_gated_template / "lock", project.root / "lock")
    shutil.copytree(_gated_template / "store", project.root / "store")
    return project


@pytest.fixture
def served(gated: Project) -> Iterator[Callable[..., ServerProcess]]:
    """Make `python -m evaluator serve` processes over the gated project; all stopped after."""
    made: list[ServerProcess] = []

    def make(*args: str, **kw: Any) -> ServerProcess:
        made.append(ServerProcess(gated.env, gated.root, *args, **kw))
        return made[-1]

    yield make
    for server in made:
        server.stop()
    kill_workers(gated.root / "store")
