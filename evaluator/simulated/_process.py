"""Run the simulated endpoint as a child process, for tests and demos."""

from __future__ import annotations

import os
import selectors
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import IO

from evaluator.errors import BadInputError, InfraError

from ._config import load_config

# The folder that holds the `evaluator` package, so the child imports this same code.
_SOURCE_ROOT = Path(__file__).resolve().parents[2]


class SimulatedEndpointError(InfraError):
    """The simulated endpoint did not come up."""


class SimulatedEndpoint:
    """A running `python -m evaluator.simulated`; closing it sends SIGTERM and waits."""

    def __init__(self, process: subprocess.Popen[bytes], base_url: str, stderr: IO[bytes]) -> None:
        self.process = process
        self.base_url = base_url
        self._stderr = stderr

    def __repr__(self) -> str:
        return f"SimulatedEndpoint({self.base_url!r}, pid={self.process.pid})"

    def __enter__(self) -> SimulatedEndpoint:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self, timeout_s: float = 10.0) -> int:
        """Stop the server; returns its exit status (0 after a clean shutdown)."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout_s)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        for stream in (self.process.stdin, self.process.stdout, self._stderr):
            if stream is not None:
                stream.close()
        return self.process.returncode


def start_simulated_endpoint(
    tasks_root: str | os.PathLike[str],
    config_path: str | os.PathLike[str] | None = None,
    port: int = 0,
    *,
    ready_timeout_s: float = 30.0,
) -> SimulatedEndpoint:
    """Spawn the endpoint, wait for its READY line, and return it (a context manager)."""
    # Bad inputs are the caller's error: raise them here, typed, not as a dead child process.
    load_config(config_path)
    if not Path(tasks_root).is_dir():
        raise BadInputError(f"{tasks_root}: tasks root is not a directory")
    command = [
        sys.executable,
        "-m",
        "evaluator.simulated",
        "--tasks",
        str(tasks_root),
        "--port",
        str(port),
        "--exit-on-stdin-eof",
    ]
    if config_path is not None:
        command += ["--config", str(config_path)]
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(_SOURCE_ROOT), env.get("PYTHONPATH")]))
    stderr = tempfile.TemporaryFile()
    process = subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr, env=env
    )
    try:
        line = _first_line(process, ready_timeout_s)
    except BaseException:
        endpoint = SimulatedEndpoint(process, "", stderr)
        endpoint.close()
        raise
    if not line.startswith("READY "):
        endpoint = SimulatedEndpoint(process, "", stderr)
        endpoint.close()
        stderr_text = _tail(stderr)
        raise SimulatedEndpointError(
            f"simulated endpoint exited before READY (status {process.returncode}): "
            f"{line.strip() or stderr_text}"
        )
    return SimulatedEndpoint(process, line.split(" ", 1)[1].strip(), stderr)


def _first_line(process: subprocess.Popen[bytes], timeout_s: float) -> str:
    assert process.stdout is not None
    deadline = time.monotonic() + timeout_s
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ)
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise SimulatedEndpointError(
                    f"simulated endpoint printed no READY line within {timeout_s:g}s"
                )
            if selector.select(remaining):
                return process.stdout.readline().decode("utf-8", "replace")


def _tail(stream: IO[bytes], limit: int = 2000) -> str:
    try:
        stream.seek(0)
        return stream.read().decode("utf-8", "replace")[-limit:].strip()
    except (OSError, ValueError):
        return ""


__all__ = ["SimulatedEndpoint", "SimulatedEndpointError", "start_simulated_endpoint"]
