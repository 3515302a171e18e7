"""Scheduling and following runs over HTTP, with a stub doit (no Docker)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from pathlib import Path

from evaluator.api import RunDB
from tests.api.support import TERMINAL, Api, set_mode
from tests.reports._world import World


def calls(stub_dir: Path) -> list[dict[str, object]]:
    path = stub_dir / "calls.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def test_a_run_executes_doit_eval_for_its_agent_and_samples(api: Api, world: World,
                                                            stub_dir: Path) -> None:
    r = api.post(agent_version="base", task_set="mini", samples=2)
    assert r.status_code == 202, r.text
    body = r.json()
    assert body["status"] in ("queued", "running") and body["reused"] is False
    assert r.headers["location"] == f"/v1/runs/{body['id']}"
    view = api.wait(body["id"])
    assert view["status"] == "succeeded" and view["cause"] is None
    identity = world.plan().agents["base"].identity
    assert view["agent_version"] == f"base@{identity}" and view["samples"] == 2
    assert view["counts"]["planned"] == 6 and view["counts"]["pending"] == 6  # the stub ran nothing
    assert view["queue_age_s"] >= 0 and view["started_at"] and view["finished_at"]
    assert view["worker"]["starts"] == 1
    (call,) = calls(stub_dir)
    assert call["argv"] == ["-n", "2", "-P", "process", "eval:mini"]
    assert (call["agents"], call["samples"]) == ("base", "2")


def test_samples_default_to_the_eval_config(api: Api, stub_dir: Path) -> None:
    view = api.wait(api.post(agent_version="cand", task_set="mini").json()["id"])
    assert view["samples"] == 1 and calls(stub_dir)[0]["samples"] == "1"


def test_the_same_request_returns_the_same_run_while_it_is_active(api: Api, world: World,
                                                                  stub_dir: Path) -> None:
    identity = world.plan().agents["base"].identity  # seconds on a loaded machine: before the run
    set_mode(stub_dir, "base", "sleep:6")
    first = api.post(agent_version="base", task_set="mini", samples=1).json()
    again = api.post(agent_version="base", task_set="mini", samples=1).json()
    pinned = api.post(agent_version=f"base@{identity}", task_set="mini", samples=1).json()
    assert again["id"] == pinned["id"] == first["id"] and again["reused"] and pinned["reused"]
    other = api.post(agent_version="base", task_set="mini", samples=2).json()
    assert other["id"] != first["id"] and not other["reused"]
    running = api.wait(first["id"], lambda v: v["status"] == "running")
    assert api.post(agent_version="base", task_set="mini", samples=1).json()["id"] == first["id"]
    assert api.wait(first["id"], lambda v: v["counts"]["running"] == 1)["status"] == "running"
    assert running["worker"]["pid"]
    assert api.wait(first["id"])["status"] == "succeeded"
    later = api.post(agent_version="base", task_set="mini", samples=1).json()
    assert later["id"] != first["id"] and not later["reused"]  # an ended run is not reused


def test_a_run_whose_attempts_are_in_the_store_succeeds_at_once(api: Api, world: World,
                                                                stub_dir: Path) -> None:
    world.outcomes("base", {"t1": "R", "t2": "F", "t3": "P"})
    r = api.post(agent_version="base", task_set="mini", samples=1)
    assert r.status_code == 202 and r.json()["status"] == "succeeded"
    view = api.run(r.json()["id"])
    assert view["counts"] | {} == {"planned": 3, "done": 3, "running": 0, "pending": 0,
                                   "errors": 0, "quarantined": 0, "resolved": 1, "failed": 1,
                                   "policy": 1}
    assert view["cost_usd"] == 0.03 and view["queue_age_s"] == 0 and "nothing ran" in view["note"]
    assert calls(stub_dir) == []


def test_counts_and_cost_come_from_the_store(api: Api, world: World, stub_dir: Path) -> None:
    config = world.evals_root / "mini.yaml"
    config.write_text(config.read_text().replace("samples: 1", "samples: 2"))
    world.outcomes("base", {"t1": "RF", "t2": "EQ", "t3": "U-"})
    set_mode(stub_dir, "base", "sleep:2")
    run_id = api.post(agent_version="base", task_set="mini", samples=2).json()["id"]
    view = api.wait(run_id, lambda v: v["status"] == "running")
    # resolved, failed, error, quarantined, ungraded (waits for grading: pending), pending;
    # the stub prints that it started base/t1/0, which already has a result: not running.
    assert view["counts"] == {"planned": 6, "done": 2, "running": 0, "pending": 2, "errors": 2,
                              "quarantined": 1, "resolved": 1, "failed": 1, "policy": 0}
    assert view["cost_usd"] == 0.03  # two results and the ungraded attempt


def test_a_failing_doit_fails_the_run_with_doits_reason(api: Api, stub_dir: Path) -> None:
    set_mode(stub_dir, "base", "fail")
    view = api.wait(api.post(agent_version="base", task_set="mini").json()["id"])
    assert view["status"] == "failed"
    assert "`doit eval:mini` exited with code 1" in view["cause"]
    assert "unfinished (infra errors or budget)" in view["cause"]


def test_runs_beyond_max_runs_wait_in_the_queue(serve: Callable[..., Api], stub_dir: Path) -> None:
    api = serve(max_runs=1)
    set_mode(stub_dir, "base", "sleep:2")
    first = api.post(agent_version="base", task_set="mini").json()["id"]
    second = api.post(agent_version="cand", task_set="mini").json()["id"]
    api.wait(first, lambda v: v["status"] == "running")
    waiting = api.run(second)
    assert waiting["status"] == "queued" and waiting["started_at"] is None
    assert api.wait(second, lambda v: v["queue_age_s"] > waiting["queue_age_s"])["status"] == "queued"
    a, b = api.wait(first), api.wait(second)
    assert a["status"] == b["status"] == "succeeded"
    assert b["started_at"] >= a["finished_at"] and b["queue_age_s"] > 1


def test_two_runs_at_once_keep_their_own_bookkeeping(api: Api, world: World,
                                                     stub_dir: Path) -> None:
    set_mode(stub_dir, "base", "sleep:2")
    set_mode(stub_dir, "cand", "sleep:2")
    ids: dict[tuple[str, int], set[str]] = {}
    lock = threading.Lock()

    def post(agent: str, samples: int) -> None:
        r = api.post(agent_version=agent, task_set="mini", samples=samples)
        assert r.status_code == 202, r.text
        with lock:
            ids.setdefault((agent, samples), set()).add(r.json()["id"])

    # Sixteen posts of four distinct requests race each other into SQLite.
    threads = [threading.Thread(target=post, args=(agent, samples))
               for agent in ("base", "cand") for samples in (1, 2) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(len(found) == 1 for found in ids.values()) and len(ids) == 4
    runs = [next(iter(found)) for found in ids.values()]
    # Counted in one read of the run DB: four views read one by one can straddle a run that
    # ends and the next that starts, and see three.
    db = RunDB(world.store.root / "api" / "runs.sqlite")
    most = 0
    deadline = time.monotonic() + 60
    while True:
        most = max(most, len(db.with_status("running")))
        views = [api.run(r) for r in runs]
        if all(v["status"] in TERMINAL for v in views) or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert most == 2  # two at once, and never more than max_runs
    assert {v["status"] for v in views} == {"succeeded"}
    assert len({v["worker"]["pid"] for v in views}) == 4
    assert all(v["worker"]["starts"] == 1 for v in views)
    assert sorted((c["agents"], c["samples"]) for c in calls(stub_dir)) == [
        ("base", "1"), ("base", "2"), ("cand", "1"), ("cand", "2")]


def test_an_agent_edited_while_its_run_waits_is_not_run(serve: Callable[..., Api], world: World,
                                                         stub_dir: Path) -> None:
    api = serve(max_runs=1)
    set_mode(stub_dir, "cand", "sleep:2")
    blocker = api.post(agent_version="cand", task_set="mini").json()["id"]
    waiting = api.post(agent_version="base", task_set="mini").json()["id"]
    prompt = world.agents_root / "base" / "system.j2"
    prompt.write_text(prompt.read_text() + "Think harder.\n")
    queued = api.run(waiting)
    assert queued["status"] == "queued" and queued["counts"] is None
    assert "changed since this run was scheduled" in queued["counts_error"]
    view = api.wait(waiting)
    assert view["status"] == "failed" and view["cause"].startswith("not started: agent 'base' is now")
    assert api.wait(blocker)["status"] == "succeeded"
    assert [c["agents"] for c in calls(stub_dir)] == ["cand"]  # doit never ran for base
