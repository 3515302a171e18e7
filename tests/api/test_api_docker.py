"""The API over the real pipeline: `python -m evaluator serve`, real doit, Docker sandboxes and
the simulated model endpoint, on the 2-task `mini` project."""

from __future__ import annotations

import os
import signal
from collections.abc import Callable
from typing import Any

import pytest

from evaluator.reports import compare, leaderboard_rows
from evaluator.store import Store
from tests.api.support import TERMINAL, ServerProcess
from tests.pipeline.support import Project, executed

pytestmark = pytest.mark.docker
RUN_S = 300  # a run of a few attempts takes 15-30 s here; leave room for a loaded machine


def _sources(p: Project) -> dict[str, Any]:
    return {"store": p.root / "store", "tasks_root": p.root / "tasks",
            "lock_dir": p.root / "lock", "evals_root": p.root / "evals",
            "agents_root": p.root / "agents"}


def _segments(p: Project, run_id: str) -> list[str]:
    """The run's log, one part per worker start."""
    log = (p.root / "store" / "api" / "logs" / f"{run_id}.log").read_text()
    return log.split("=== evaluator.api worker")[1:]


def test_a_run_is_doit_eval_and_shares_the_cli_cache(gated: Project,
                                                    served: Callable[..., ServerProcess]) -> None:
    api = served().start()
    run_id = api.post(agent_version="sim-a", task_set="mini", samples=1).json()["id"]
    busy = api.wait(run_id, lambda v: v["counts"]["running"] > 0 or v["status"] in TERMINAL,
                    timeout=RUN_S)
    assert busy["status"] == "running", busy  # doit's started targets show while they run
    view = api.wait(run_id, timeout=RUN_S)
    assert view["status"] == "succeeded", view
    counts = view["counts"]
    assert (counts["planned"], counts["done"], counts["running"], counts["errors"]) == (2, 2, 0, 0)
    assert counts["resolved"] + counts["failed"] + counts["policy"] == 2
    store = Store(gated.root / "store")
    spent = sum(r["cost"]["total_usd"] for r in store.iter_records("attempt"))
    assert view["cost_usd"] == pytest.approx(spent) and spent > 0
    assert {r["agent"]["name"] for r in store.iter_records("attempt")} == {"sim-a"}

    with api.client() as c:
        board = c.get("/v1/leaderboard", params={"task_set": "mini"}).json()
    assert board["rows"] == leaderboard_rows("mini", **_sources(gated))
    assert {r["agent"]: r["attempts"] for r in board["rows"]} == {"sim-a": 2, "sim-b": 0}

    # One cache: the CLI finds the API's attempts done, and the API finds nothing left to run.
    gated.env.update(EVAL_ONLY_AGENTS="sim-a", EVAL_SAMPLES="1")
    cli = gated.doit("eval:mini")
    assert cli.returncode == 0 and executed(cli.stdout, "attempt:") == []
    again = api.post(agent_version="sim-a", task_set="mini", samples=1).json()
    assert again["status"] == "succeeded" and again["id"] != run_id
    assert "nothing ran" in api.run(again["id"])["note"]


def test_two_runs_at_once_land_each_attempt_once(gated: Project,
                                                 served: Callable[..., ServerProcess]) -> None:
    api = served().start()
    ids = [api.post(agent_version=a, task_set="mini", samples=1).json()["id"]
           for a in ("sim-a", "sim-b")]
    both = api.wait(ids[1], lambda v: api.run(ids[0])["status"] == "running" == v["status"]
                    or v["status"] in TERMINAL, timeout=RUN_S)
    assert both["status"] == "running"  # the two doit processes overlapped
    views = [api.wait(i, timeout=RUN_S) for i in ids]
    assert [v["status"] for v in views] == ["succeeded", "succeeded"], views
    assert [v["counts"]["done"] for v in views] == [2, 2]
    store = Store(gated.root / "store")
    attempts, results = list(store.iter_records("attempt")), list(store.iter_records("result"))
    assert len(attempts) == len({r["key"] for r in attempts}) == 4 and len(results) == 4
    for run_id, agent in zip(ids, ("sim-a", "sim-b"), strict=True):
        (segment,) = _segments(gated, run_id)
        started = executed(segment, "attempt:")
        assert len(started) == 2 and all(f"/{agent}/" in s for s in started)

    with api.client() as c:
        paired = c.get("/v1/compare", params={"task_set": "mini", "a": "sim-a", "b": "sim-b"})
    assert paired.status_code == 200
    assert paired.json() == compare("mini", "sim-a", "sim-b", **_sources(gated))


def test_a_run_killed_with_its_server_is_resumed_without_redoing_attempts(
        gated: Project, served: Callable[..., ServerProcess]) -> None:
    server = served(token="t")
    api = server.start()
    run_id = api.post(agent_version="sim-b", task_set="mini", samples=2).json()["id"]
    store = Store(gated.root / "store")
    view = api.wait(run_id, lambda v: bool(list(store.iter_records("attempt")))
                    or v["status"] in TERMINAL, timeout=RUN_S)
    assert view["status"] == "running", view
    server.kill()
    os.killpg(view["worker"]["pid"], signal.SIGKILL)  # the worker, its doit and doit's forks
    finished = {r["key"] for r in store.iter_records("attempt")}
    assert 1 <= len(finished) < 4

    api = server.start()
    first = api.run(run_id)
    assert first["status"] == "queued" or first["worker"]["pid"] != view["worker"]["pid"]
    done = api.wait(run_id, timeout=RUN_S)
    assert done["status"] == "succeeded" and done["worker"]["starts"] == 2, done
    assert "resumed" in done["note"] and done["counts"]["done"] == 4
    before, after = _segments(gated, run_id)
    assert len(executed(after, "attempt:")) == 4 - len(finished)  # finished ones are kept
    assert finished <= {r["key"] for r in store.iter_records("attempt")}
