"""Shared by the executor tests: a proxy that counts what crosses it, a fresh store for one project."""

from __future__ import annotations

import shutil
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx

from tests.pipeline.support import Project


class CountingProxy:
    """An HTTP proxy in front of the model endpoint that counts requests in flight."""

    def __init__(self, upstream: str) -> None:
        self.upstream, self.now, self.peak, self.total = upstream.rstrip("/"), 0, 0, 0
        lock = threading.Lock()
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                with lock:
                    proxy.now += 1
                    proxy.total += 1
                    proxy.peak = max(proxy.peak, proxy.now)
                try:
                    r = httpx.post(proxy.upstream + self.path.removeprefix("/v1"), content=body,
                                   headers={"Content-Type": "application/json"}, timeout=120)
                finally:
                    with lock:
                        proxy.now -= 1
                self.send_response(r.status_code)
                self.send_header("Content-Type", r.headers.get("content-type", "application/json"))
                self.send_header("Content-Length", str(len(r.content)))
                self.end_headers()
                self.wfile.write(r.content)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def reset(self) -> None:
        self.now = self.peak = self.total = 0

    def close(self) -> None:
        self.server.shutdown()


def fresh_store(project: Project, name: str) -> Path:
    """A copy of the gold-gated store, for one eval run of its own."""
    dest = project.root / name
    shutil.copytree(project.root / "gated", dest, ignore=shutil.ignore_patterns("locks"))
    return dest
