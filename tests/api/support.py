"""Shared by the API tests: a client of a served API, servers in a thread or a process, and the stub
doit's environment."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import uvicorn

from evaluator.api import RunDB, Settings, create_app
from tests.helpers import free_port
from tests.pipeline.support import REPO
from tests.reports._world import World

STUB = Path(__file__).with_name("stub_doit.py")


TERMINAL = ("succeeded", "failed")




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


def world_env(w: World, stub_dir: Path) -> dict[str, str]:
    return {**os.environ, "EVAL_STORE": str(w.store.root), "EVAL_TASKS": str(w.tasks_root),
            "EVAL_LOCK_DIR": str(w.lock_dir), "EVAL_EVALS": str(w.evals_root),
            "EVAL_AGENTS": str(w.agents_root), "STUB_DOIT_DIR": str(stub_dir),
            "EVAL_API_DOIT": f"{sys.executable} {STUB}", "PYTHONPATH": str(REPO)}


def set_mode(stub_dir: Path, agent: str, mode: str) -> None:
    (stub_dir / f"{agent}.mode").write_text(mode)
