"""A real Ray cluster on this machine: a head and worker nodes started with `ray start`.

Each node has its own temporary directory and ports, and runs in a session of its own, so one
node can be killed (SIGKILL to its process group, then its leftover workers by pid) without
touching the others. Workers advertise `sandbox` slots and drive the Docker engine named by
their DOCKER_HOST, or slots of each backend they are given (`sandbox-<backend>`).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.helpers import free_port

REPO = Path(__file__).resolve().parents[2]
RAY = str(Path(sys.executable).with_name("ray"))


@dataclass
class Node:
    name: str
    temp: Path
    proc: subprocess.Popen[bytes]
    docker_host: str | None = None
    node_id: str = ""  # Ray's id of the node, once it has joined

    def pids(self) -> list[int]:
        """Every live process of this node: its session, and workers that left it (by their
        command line naming this node's temporary directory)."""
        found = []
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                cmd = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if str(self.temp).encode() in cmd:
                found.append(int(entry.name))
        return found

    def kill(self, sig: int = signal.SIGKILL, wait_s: float = 10) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, sig)
        for pid in self.pids():
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, sig)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=wait_s)


@dataclass
class Cluster:
    gcs_port: int
    client_port: int
    nodes: list[Node] = field(default_factory=list)

    @property
    def address(self) -> str:
        """EVAL_EXECUTOR for a driver anywhere (Ray Client)."""
        return f"ray://127.0.0.1:{self.client_port}"

    @property
    def gcs(self) -> str:
        return f"127.0.0.1:{self.gcs_port}"

    def env(self, docker_host: str | None = None) -> dict[str, str]:
        env = {**os.environ, "PYTHONPATH": str(REPO), "RAY_USAGE_STATS_ENABLED": "0",
               # A killed node is noticed in seconds, not the default half minute.
               "RAY_health_check_period_ms": "1000", "RAY_health_check_failure_threshold": "3",
               "RAY_health_check_initial_delay_ms": "1000"}
        env.pop("DOCKER_HOST", None)
        if docker_host:
            env["DOCKER_HOST"] = docker_host
        return env

    def _start(self, name: str, args: list[str], docker_host: str | None = None, *,
               env: dict[str, str] | None = None,
               wrap: Callable[[list[str]], list[str]] | None = None,
               owner: tuple[int, int] | None = None) -> Node:
        temp = Path(tempfile.mkdtemp(prefix=f"ray-{name}-", dir="/tmp"))
        if owner is not None:
            os.chown(temp, *owner)
        ports = ["--dashboard-agent-listen-port", str(free_port()), "--dashboard-agent-grpc-port",
                 str(free_port()), "--metrics-export-port", str(free_port()),
                 "--runtime-env-agent-port", str(free_port())]
        log = open(temp.with_suffix(".log"), "wb")  # noqa: SIM115 - the node writes it until killed
        argv = [RAY, "start", "--block", "--num-cpus", "1", "--temp-dir", str(temp),
                "--disable-usage-stats", *ports, *args]
        proc = subprocess.Popen(wrap(argv) if wrap else argv, env=env or self.env(docker_host),
                                stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        log.close()
        node = Node(name, temp, proc, docker_host)
        self.nodes.append(node)
        return node

    def start_head(self) -> None:
        def start() -> list[Node]:
            head = self._start("head", ["--head", "--port", str(self.gcs_port),
                                        "--include-dashboard=false", "--ray-client-server-port",
                                        str(self.client_port), "--resources",
                                        json.dumps({"head": 1})])
            self._wait_nodes(1, [head])
            return [head]

        self._retried(start)
        self.nodes[0].node_id = self.alive()[0]["NodeID"]

    def _retried(self, start: Callable[[], list[Node]], tries: int = 3) -> list[Node]:
        """`start`, again where its nodes died starting: `ray start` gives its raylet a fixed
        30 s to register, which a machine at load 15 can miss."""
        for attempt in range(tries):
            before = list(self.nodes)
            try:
                return start()
            except RuntimeError:
                died = [n for n in self.nodes if n not in before]
                if attempt == tries - 1 or not any(n.proc.poll() is not None for n in died):
                    raise
                for node in died:
                    node.kill()
                    self.nodes.remove(node)
        raise AssertionError("unreachable")

    def start_worker(self, name: str, slots: int, docker_host: str | None = None) -> Node:
        return self.start_workers((name, slots, docker_host))[0]

    def start_workers(self, *specs: tuple[str, int, str | None]
                      | tuple[str, int, str | None, tuple[str, ...]]) -> list[Node]:
        """Worker nodes (name, sandbox slots, DOCKER_HOST[, backends]), started at once; one
        given backends has that many slots of each of them (`sandbox-<backend>`), one without
        has `sandbox` slots (Docker's, as before there were backends)."""
        alive = len(self.alive())

        def start() -> list[Node]:
            nodes = []
            for name, slots, host, *rest in specs:
                backends = rest[0] if rest else ()
                resources = {f"sandbox-{b}": slots for b in backends} or {"sandbox": slots}
                nodes.append(self._start(name, ["--address", self.gcs, "--resources",
                                                json.dumps(resources)], host))
            self._wait_nodes(alive + len(nodes), nodes)
            return nodes

        nodes = self._retried(start)
        for node in nodes:  # a node's sockets live in its own temporary directory
            node.node_id = next(n["NodeID"] for n in self.alive()
                                if n["RayletSocketName"].startswith(f"{node.temp}/"))
        return nodes

    def start_wrapped(self, name: str, backends: tuple[str, ...], env: dict[str, str],
                      wrap: Callable[[list[str]], list[str]], owner: tuple[int, int]) -> Node:
        """A worker node whose `ray start` runs as `wrap` makes it (as another user, in a
        namespace of its own), with `env`, its temporary directory owned by `owner` (uid, gid),
        and one slot of each of `backends`."""
        alive = len(self.alive())
        resources = json.dumps({f"sandbox-{b}": 1 for b in backends})

        def start() -> list[Node]:
            node = self._start(name, ["--address", self.gcs, "--resources", resources], env=env,
                               wrap=wrap, owner=owner)
            self._wait_nodes(alive + 1, [node])
            return [node]

        (node,) = self._retried(start)
        node.node_id = next(n["NodeID"] for n in self.alive()
                            if n["RayletSocketName"].startswith(f"{node.temp}/"))
        return node

    def remove(self, node: Node) -> None:
        """Kill `node` and forget it (the others go on)."""
        node.kill(signal.SIGKILL)
        self.nodes.remove(node)
        shutil.rmtree(node.temp, ignore_errors=True)
        node.temp.with_suffix(".log").unlink(missing_ok=True)

    def node(self, name: str) -> Node:
        return next(n for n in self.nodes if n.name == name)

    def alive(self) -> list[dict[str, Any]]:
        """The live nodes, asked as a driver of this process (connected on first use)."""
        import ray

        if not ray.is_initialized():
            os.environ["RAY_USAGE_STATS_ENABLED"] = "0"
            ray.init(address=self.gcs, logging_level=logging.ERROR, log_to_driver=False,
                     namespace="evaluator")
        return [n for n in ray.nodes() if n["Alive"]]

    def _wait_nodes(self, count: int, starting: list[Node] | None = None,
                    timeout: float = 180) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if any(n.proc.poll() is not None for n in starting or self.nodes):
                break  # one that is starting died (a node killed earlier may lie here too)
            try:
                if len(self.alive()) >= count:
                    return
            except ConnectionError:  # a head still starting on a loaded machine: ask again
                import ray

                ray.shutdown()
            time.sleep(0.3)
        logs = "\n".join(n.temp.with_suffix(".log").read_text(errors="replace")[-1500:]
                         for n in self.nodes)
        raise RuntimeError(f"the Ray cluster did not reach {count} live node(s): {logs}")

    def stop(self) -> None:
        import ray

        ray.shutdown()
        # Straight to SIGKILL: a throwaway cluster keeps nothing worth a graceful stop, which
        # took CI up to 10 s. Every process of a node names its temporary directory.
        for node in reversed(self.nodes):
            node.kill(signal.SIGKILL)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and any(n.pids() for n in self.nodes):
            time.sleep(0.2)
        for node in reversed(self.nodes):
            shutil.rmtree(node.temp, ignore_errors=True)
            node.temp.with_suffix(".log").unlink(missing_ok=True)


def start_cluster() -> Cluster:
    cluster = Cluster(free_port(), free_port())
    try:
        cluster.start_head()
    except Exception:
        cluster.stop()
        raise
    return cluster
