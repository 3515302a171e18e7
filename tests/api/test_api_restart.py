"""Runs survive the server: a killed server's runs go on or are resumed, never stay running
with no one running them (stub doit, no Docker)."""

from __future__ import annotations

import json
import os
import signal
import time
from collections.abc import Callable
from pathlib import Path

from tests.api.support import Api, ServerProcess, kill_workers, set_mode, world_env
from tests.reports._world import World


def _server(world: World, stub_dir: Path) -> ServerProcess:
    return ServerProcess(world_env(world, stub_dir), world.root, token="t0ken")


def test_a_killed_server_leaves_the_run_to_its_worker(world: World, stub_dir: Path) -> None:
    server = _server(world, stub_dir)
    try:
        api = server.start()
        set_mode(stub_dir, "base", "sleep:4")
        run_id = api.post(agent_version="base", task_set="mini").json()["id"]
        pid = api.wait(run_id, lambda v: v["status"] == "running")["worker"]["pid"]
        server.kill()
        api = server.start()
        view = api.wait(run_id)
        assert view["status"] == "succeeded" and view["worker"] == {"pid": pid, "starts": 1}
    finally:
        server.stop()
        kill_workers(world.store.root)


def test_a_dead_worker_is_resumed_after_a_restart(world: World, stub_dir: Path) -> None:
    server = _server(world, stub_dir)
    try:
        api = server.start()
        set_mode(stub_dir, "base", "sleep:4")
        run_id = api.post(agent_version="base", task_set="mini").json()["id"]
        pid = api.wait(run_id, lambda v: v["status"] == "running")["worker"]["pid"]
        server.kill()
        os.killpg(pid, signal.SIGKILL)  # the worker and its doit, as a reboot would
        api = server.start()
        # The server checks its workers before it answers: the dead one is never shown running.
        first = api.run(run_id)
        assert first["status"] == "queued" or first["worker"]["pid"] != pid
        view = api.wait(run_id)
        assert view["status"] == "succeeded" and view["worker"]["starts"] == 2
        assert f"the worker (pid {pid}) died during start 1" in view["note"]
        assert "resumed" in view["note"]
    finally:
        server.stop()
        kill_workers(world.store.root)


def test_a_worker_that_keeps_dying_fails_the_run_with_the_cause(serve: Callable[..., Api],
                                                                 stub_dir: Path) -> None:
    api = serve(max_starts=2)
    set_mode(stub_dir, "base", "die")
    view = api.wait(api.post(agent_version="base", task_set="mini").json()["id"])
    assert view["status"] == "failed" and view["worker"]["starts"] == 2
    assert "was killed by SIGKILL" in view["cause"] and "in each of 2 starts" in view["cause"]
    assert "post the run again" in view["cause"]


def test_a_stopped_worker_fails_its_run_and_takes_doit_with_it(api: Api, stub_dir: Path) -> None:
    set_mode(stub_dir, "base", "term")
    view = api.wait(api.post(agent_version="base", task_set="mini").json()["id"])
    assert view["status"] == "failed" and view["worker"]["starts"] == 1
    assert "stopped by SIGTERM" in view["cause"] and "post the run again" in view["cause"]
    stub_pid = json.loads((stub_dir / "calls.jsonl").read_text())["pid"]
    deadline = time.monotonic() + 10
    while Path(f"/proc/{stub_pid}").exists() and "Z" not in _state(stub_pid):
        assert time.monotonic() < deadline, "the worker's doit outlived it"
        time.sleep(0.1)


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, IndexError):
        return "gone"


def test_a_doit_that_cannot_start_fails_the_run_saying_so(serve: Callable[..., Api]) -> None:
    api = serve(doit=("/nonexistent/doit",))
    view = api.wait(api.post(agent_version="base", task_set="mini").json()["id"])
    assert view["status"] == "failed"
    assert "cannot start doit (/nonexistent/doit)" in view["cause"] and "EVAL_API_DOIT" in view["cause"]
