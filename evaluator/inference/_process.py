"""Start `inference/server.mjs` as a child process, wait until its model is loaded, stop it."""

from __future__ import annotations

import json
import os
import selectors
import shutil
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from evaluator.errors import InfraError

# The checkout's `inference/` folder: the server, its npm lock, and (once `make inference` ran)
# its node_modules and the model.
SERVER_DIR = Path(__file__).resolve().parents[2] / "inference"
MODEL_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
MODEL_ID = "SmolLM2-135M-Instruct.Q4_1"  # what the server answers as `model`


class InferenceServerError(InfraError):
    """The server is not installed, did not come up, or did not load its model."""


@dataclass(frozen=True)
class ServerOptions:
    """How to run it. `slots`: requests generated at once (llama.cpp sequences); `queue`: how
    many more may wait before it answers 429 (-1: no bound); `ctx_size`: each slot's context
    window in tokens; `threads`: llama.cpp's CPU threads."""

    port: int = 0
    slots: int = 1
    ctx_size: int = 2048
    threads: int = 1
    queue: int = -1
    host: str = "127.0.0.1"

    def argv(self, server_dir: Path) -> list[str]:
        return [self.node(), str(server_dir / "server.mjs"), "--model",
                str(server_dir / "models" / MODEL_FILE), "--model-id", MODEL_ID,
                "--host", self.host, "--port", str(self.port), "--slots", str(self.slots),
                "--ctx-size", str(self.ctx_size), "--threads", str(self.threads),
                f"--queue={self.queue}"]

    @staticmethod
    def node() -> str:
        return shutil.which("node") or "node"


def not_installed(server_dir: Path = SERVER_DIR) -> str | None:
    """Why the server cannot start here, or None when it can."""
    if shutil.which("node") is None:
        return "node is not on PATH; install Node.js 20 or newer"
    for need in (server_dir / "node_modules" / "node-llama-cpp", server_dir / "models" / MODEL_FILE):
        if not need.exists():
            return f"{need} is missing; run `make inference`"
    return None


class InferenceServer:
    """A running server; closing it sends SIGTERM and waits."""

    def __init__(self, process: subprocess.Popen[bytes], base_url: str, stderr: IO[bytes],
                 options: ServerOptions) -> None:
        self.process, self.base_url, self._stderr, self.options = process, base_url, stderr, options
        self.model_id = MODEL_ID

    def __repr__(self) -> str:
        return f"InferenceServer({self.base_url!r}, pid={self.process.pid})"

    def __enter__(self) -> InferenceServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def root_url(self) -> str:
        return self.base_url.removesuffix("/v1")

    def stats(self) -> dict[str, Any]:
        """The server's counters: slots busy now and at most, requests queued now and at
        most, requests that ever waited for a slot, served, refused (429) and aborted (the
        client went away)."""
        with urllib.request.urlopen(f"{self.root_url}/stats", timeout=10) as r:
            return dict(json.loads(r.read()))

    def wait_loaded(self, timeout_s: float = 60.0) -> float:
        """Wait until /health says the model is loaded; the seconds it took."""
        started = time.monotonic()
        while True:
            try:
                with urllib.request.urlopen(f"{self.root_url}/health", timeout=5) as r:
                    if r.status == 200:
                        return time.monotonic() - started
            except urllib.error.HTTPError as e:
                if e.code != 503:  # 503 "Loading model", as llama-server says it
                    raise InferenceServerError(f"{self.root_url}/health answered {e.code}") from None
            except OSError:
                pass
            if self.process.poll() is not None:
                raise InferenceServerError(f"the inference server exited ({self.process.returncode})"
                                           f" while loading its model: {self.stderr_tail()}")
            if time.monotonic() - started > timeout_s:
                raise InferenceServerError(f"the inference server did not load its model in "
                                           f"{timeout_s:g}s: {self.stderr_tail()}")
            time.sleep(0.05)

    def stderr_tail(self, limit: int = 2000) -> str:
        try:
            self._stderr.seek(0)
            return self._stderr.read().decode("utf-8", "replace")[-limit:].strip()
        except (OSError, ValueError):
            return ""

    def close(self, timeout_s: float = 10.0) -> int:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout_s)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        for stream in (self.process.stdout, self._stderr):
            if stream is not None:
                stream.close()
        return self.process.returncode


def start_inference_server(options: ServerOptions | None = None, *,
                           server_dir: Path = SERVER_DIR, ready_timeout_s: float = 30.0,
                           load_timeout_s: float | None = 60.0) -> InferenceServer:
    """Spawn the server and wait for its READY line, then (unless `load_timeout_s` is None)
    for its model to load."""
    options = options or ServerOptions()
    missing = not_installed(server_dir)
    if missing:
        raise InferenceServerError(f"the inference server is not installed: {missing}")
    stderr = tempfile.TemporaryFile()
    process = subprocess.Popen(options.argv(server_dir), stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=stderr, cwd=server_dir,
                               env={**os.environ, "NODE_OPTIONS": ""})
    server = InferenceServer(process, "", stderr, options)
    try:
        line = _first_line(process, ready_timeout_s)
        if not line.startswith("READY "):
            raise InferenceServerError(f"the inference server exited before READY "
                                       f"({process.poll()}): {line.strip() or server.stderr_tail()}")
        server.base_url = line.split(" ", 1)[1].strip()
        if load_timeout_s is not None:
            server.wait_loaded(load_timeout_s)
    except BaseException:
        server.close()
        raise
    return server


def _first_line(process: subprocess.Popen[bytes], timeout_s: float) -> str:
    assert process.stdout is not None
    deadline = time.monotonic() + timeout_s
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ)
        while (remaining := deadline - time.monotonic()) > 0:
            if selector.select(remaining):
                return process.stdout.readline().decode("utf-8", "replace")
    raise InferenceServerError(f"the inference server printed no READY line in {timeout_s:g}s")


__all__ = ["MODEL_FILE", "MODEL_ID", "SERVER_DIR", "InferenceServer", "InferenceServerError", "ServerOptions",
           "not_installed", "start_inference_server"]
