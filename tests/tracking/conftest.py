"""A real `mlflow server` on loopback with a SQLite backend and its own artifact store, started
once per session (it takes about a minute to come up here)."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.helpers import free_port, unavailable


@pytest.fixture(scope="session")
def mlflow_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    mlflow = Path(sys.executable).with_name("mlflow")
    if not mlflow.exists() and shutil.which("mlflow") is None:
        unavailable("no mlflow command: install requirements-dev.lock")
    root = tmp_path_factory.mktemp("mlflow")
    port = free_port()
    log = (root / "server.log").open("w")
    proc = subprocess.Popen(
        [str(mlflow if mlflow.exists() else "mlflow"), "server",
         "--backend-store-uri", f"sqlite:///{root / 'mlflow.sqlite'}",
         "--artifacts-destination", str(root / "artifacts"),
         "--host", "127.0.0.1", "--port", str(port), "--workers", "1"],
        stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        # No job runner: it starts a pool of consumer processes the export never uses.
        env={**os.environ, "MLFLOW_SERVER_ENABLE_JOB_EXECUTION": "false"})
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 240
        while True:
            try:
                if httpx.get(f"{url}/health", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                unavailable(f"mlflow server did not start (exit {proc.poll()}): "
                             f"{(root / 'server.log').read_text()[-2000:]}")
            time.sleep(0.5)
        yield url
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            pass
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)  # whatever of its group outlived it
        proc.wait(timeout=20)
        log.close()
