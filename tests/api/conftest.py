"""Real servers on loopback for the API tests, over two kinds of project.

- `world`: the reports' synthetic project (a gated set, agents, a store; no Docker), served by a
  server in a thread whose doit is `stub_doit.py`, for everything but real evaluation.
- `gated`: the pipeline's `project` (2 tasks, simulated agents, real doit and Docker), locked
  and gold-gated once per session and copied into each test, served by `python -m evaluator
  serve` in a subprocess.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn

from evaluator.api import RunDB, Settings, create_app
from tests.pipeline.conftest import REPO, Project, project  # noqa: F401  (the fixture, reused)
from tests.reports._world import World

STUB = Path(__file__).with_name("stub_doit.py")
TERMINAL = ("succeeded", "failed")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@dataclass
class Api:
    """A running server as a client sees it."""

    url: str
    token: str | None = None

    def client(self, token: str | None = "default") -> httpx.Client:
        token = self.token if token == "default" else token
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return httpx.Client(base_url=self.url, headers=headers, timeout=30)

    def run(self, run_id: str) -> dict[str, Any]:
        with self.client() as c:
            r = c.get(f"/v1/runs/{run_id}")
        assert r.status_code == 200, r.text
        body: dict[str, Any] = r.json()
        return body

    def post(self, **body: Any) -> httpx.Response:
        with self.client() as c:
            return c.post("/v1/runs", json=body)

    def wait(self, run_id: str, until: Callable[[dict[str, Any]], bool] | None = None,
             timeout: float = 60) -> dict[str, Any]:
        """Poll the run until `until` holds (default: it ended); fail on timeout."""
        until = until or (lambda v: v["status"] in TERMINAL)
        deadline = time.monotonic() + timeout
        while True:
            view = self.run(run_id)
            if until(view):
                return view
            assert time.monotonic() < deadline, f"run {run_id} never got there: {view}"
            time.sleep(0.1)


def kill_workers(store: Path) -> None:
    """SIGKILL the workers this test's runs still have (they lead their own process groups)."""
    if not (store / "api" / "runs.sqlite").exists():
        return
    for run in RunDB(store / "api" / "runs.sqlite").with_status("running"):
        if run.pid:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(run.pid, signal.SIGKILL)


class ThreadServer:
    """uvicorn serving `create_app(settings)` in a thread of the test process."""

    def __init__(self, settings: Settings, *, supervise: bool = True) -> None:
        self.settings = settings
        self.port = free_port()
        config = uvicorn.Config(create_app(settings, supervise=supervise), host="127.0.0.1",
                                port=self.port, log_level="warning")
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, daemon=True)

    def __enter__(self) -> Api:
        self._thread.start()
        deadline = time.monotonic() + 30
        while not self._server.started:
            assert self._thread.is_alive() and time.monotonic() < deadline, "server did not start"
            time.sleep(0.02)
        return Api(f"http://127.0.0.1:{self.port}", self.settings.token)

    def __exit__(self, *exc: object) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=30)
        kill_workers(self.settings.store)


class ServerProcess:
    """`python -m evaluator serve` in its own session, to be killed like a real one."""

    def __init__(self, env: dict[str, str], cwd: Path, *args: str, token: str | None = None,
                 port: int | None = None) -> None:
        self.env, self.cwd, self.args, self.token = env, cwd, args, token
        self.port = port or free_port()
        self.proc: subprocess.Popen[str] | None = None

    def start(self) -> Api:
        argv = [sys.executable, "-m", "evaluator", "serve", "--port", str(self.port), *self.args]
        if self.token:
            argv += ["--token", self.token]
        self.proc = subprocess.Popen(argv, env=self.env, cwd=self.cwd, text=True,
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                     start_new_session=True)
        api = Api(f"http://127.0.0.1:{self.port}", self.token)
        deadline = time.monotonic() + 60
        while True:
            with contextlib.suppress(httpx.TransportError):
                if httpx.get(f"{api.url}/openapi.json", timeout=2).status_code == 200:
                    return api
            if self.proc.poll() is not None or time.monotonic() > deadline:
                out = self.proc.stdout.read() if self.proc.stdout else ""
                raise AssertionError(f"server did not start (exit {self.proc.poll()}): {out}")
            time.sleep(0.1)

    def kill(self) -> None:
        """SIGKILL, as a crash or an OOM kill would end it."""
        assert self.proc is not None
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=30)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.kill()


# --- the synthetic world (no Docker) -----------------------------------------------------------

def world_env(w: World, stub_dir: Path) -> dict[str, str]:
    return {**os.environ, "EVAL_STORE": str(w.store.root), "EVAL_TASKS": str(w.tasks_root),
            "EVAL_LOCK_DIR": str(w.lock_dir), "EVAL_EVALS": str(w.evals_root),
            "EVAL_AGENTS": str(w.agents_root), "STUB_DOIT_DIR": str(stub_dir),
            "EVAL_API_DOIT": f"{sys.executable} {STUB}", "PYTHONPATH": str(REPO)}


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


def set_mode(stub_dir: Path, agent: str, mode: str) -> None:
    (stub_dir / f"{agent}.mode").write_text(mode)


# --- the real pipeline (Docker) ------------------------------------------------------------------

@pytest.fixture(scope="session")
def _gold_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("api-gold-cache")


@pytest.fixture
def gated(project: Project, _gold_cache: Path) -> Project:  # noqa: F811
    """`project`, locked and gold-gated; the lock and verdicts of the first test are copied into
    the later ones (same files, same keys), which saves a gold run (~40 s) per test."""
    # Priced like the demo, so runs cost something to report.
    shutil.copy(REPO / "evals" / "prices.yaml", project.root / "evals" / "prices.yaml")
    project.eval_config(prices="prices.yaml")
    cached = _gold_cache / "store"
    if not cached.is_dir():
        assert project.doit("lock:mini").returncode == 0
        gold = project.doit("-n", "2", "-P", "process", "gold:mini")
        assert gold.returncode == 0, gold.stdout + gold.stderr
        shutil.copytree(project.root / "lock", _gold_cache / "lock")
        shutil.copytree(project.root / "store", cached)
    else:
        shutil.copytree(_gold_cache / "lock", project.root / "lock")
        shutil.copytree(cached, project.root / "store")
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
