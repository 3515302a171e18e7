"""The local executor's warm pool on the real engine: only work that waits for a slot is
announced, and the machine's warm sandboxes are bounded across every process's pool."""

import threading
import time
from pathlib import Path

import pytest

from evaluator.executor import LocalExecutor, WarmPool
from evaluator.sandbox import DockerSandboxes, SandboxLimits, Slots

pytestmark = pytest.mark.docker
LIMITS = SandboxLimits(sandbox_timeout_s=60)
SPEC = {"user": "1000:1000", "workdir": "/tmp/w", "purpose": "attempt"}


def _wait(cond, timeout: float = 60) -> bool:
    deadline = time.monotonic() + timeout
    while not cond() and time.monotonic() < deadline:
        time.sleep(0.1)
    return bool(cond())


def test_work_that_waits_for_a_slot_finds_its_sandbox_warm(tmp_path: Path, docker_client,
                                                           base_image) -> None:
    pool = WarmPool(2, 20, sandboxes=DockerSandboxes(docker_client),
                    permits=Slots(tmp_path, 2, "warm"))
    ex = LocalExecutor(DockerSandboxes(docker_client), Slots(tmp_path, 1).acquire,
                       lambda spec: None, pool)  # type: ignore[arg-type, return-value]
    said = []

    def waiting_work() -> None:
        with ex.slot(base_image, LIMITS, **SPEC) as sandboxes, \
                sandboxes.open(base_image, LIMITS, **SPEC) as sb:
            said.append(sb.exec("echo hi").output.strip())

    try:
        with ex.slot(base_image, LIMITS, **SPEC):  # a free slot: nothing is announced
            other = threading.Thread(target=waiting_work)
            other.start()
            assert _wait(lambda: pool.ready() == 1)  # opened while the other work waits
        other.join(60)
        assert said == ["hi"] and pool.stats["warm"] == 1 and pool.stats["cold"] == 0
        assert pool.stats["filled"] == 1  # for the waiting work only
    finally:
        pool.close()


def test_warm_sandboxes_are_bounded_across_processes_pools(tmp_path: Path, docker_client,
                                                           base_image) -> None:
    # Two pools (two doit workers) share one permit file: one warm sandbox on the machine.
    pools = [WarmPool(2, 20, sandboxes=DockerSandboxes(docker_client),
                      permits=Slots(tmp_path, 1, "warm"))
             for _ in range(2)]
    try:
        for i, pool in enumerate(pools):
            pool.expect(f"t{i}", base_image, LIMITS, **SPEC)
        assert _wait(lambda: sum(p.ready() for p in pools) == 1)
        assert not _wait(lambda: sum(p.ready() for p in pools) > 1, timeout=2)
        full = next(p for p in pools if p.ready())
        full.forget(f"t{pools.index(full)}")  # its work went away: closed, its permit back
        assert _wait(lambda: sum(p.ready() for p in pools) == 1 and not full.ready(), 30)
    finally:
        for pool in pools:
            pool.close()
