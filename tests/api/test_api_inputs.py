"""Bad input gets a 4xx whose message says what is wrong; reads equal the report's (no Docker)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from evaluator.reports import compare, leaderboard_rows
from tests.api.support import Api
from tests.reports._world import World

GOOD = {"agent_version": "base", "task_set": "mini", "samples": 1}


@pytest.mark.parametrize(("body", "says"), [
    ('{"agent_version": "base", "task_set": ', "JSON decode error"),
    ("[1, 2]", "valid dictionary"),
    ('{"agent_version": "base"}', "body.task_set: Field required"),
    ({**GOOD, "task_set": "nope"}, "unknown task set 'nope'; known: ['mini']"),
    ({**GOOD, "task_set": "../../etc"}, "body.task_set: String should match pattern"),
    ({**GOOD, "agent_version": "nobody"}, "unknown agent 'nobody'; known: ['base', 'cand']"),
    ({**GOOD, "agent_version": "base@abc"}, "body.agent_version: String should match pattern"),
    ({**GOOD, "samples": 0}, "body.samples: Input should be greater than or equal to 1"),
    ({**GOOD, "samples": 101}, "body.samples: Input should be less than or equal to 100"),
    ({**GOOD, "samples": "2"}, "body.samples: Input should be a valid integer"),
    ({**GOOD, "samples": 2.5}, "body.samples: Input should be a valid integer"),
    ({**GOOD, "priority": 1}, "body.priority: Extra inputs are not permitted"),
])
def test_bad_bodies_get_422_saying_what_is_wrong(api: Api, body: Any, says: str) -> None:
    with api.client() as c:
        if isinstance(body, str):
            r = c.post("/v1/runs", content=body, headers={"content-type": "application/json"})
        else:
            r = c.post("/v1/runs", json=body)
    assert r.status_code == 422, r.text
    assert says in r.json()["detail"]


def test_a_pinned_version_that_is_not_current_gets_409(api: Api, world: World) -> None:
    identity = world.plan().agents["base"].identity
    r = api.post(**{**GOOD, "agent_version": f"base@{'0' * 32}"})
    assert r.status_code == 409
    assert f"post base@{identity}" in r.json()["detail"]
    assert api.post(**{**GOOD, "agent_version": f"base@{identity}"}).status_code == 202


def test_a_stale_lock_gets_409_naming_the_fix(api: Api, world: World) -> None:
    problem = world.tasks_root / "mini" / "t1" / "problem.md"
    problem.write_text(problem.read_text() + "more\n")
    r = api.post(**GOOD)
    assert r.status_code == 409 and "run `doit lock:mini` then `doit gold:mini`" in r.json()["detail"]
    with api.client() as c:
        board = c.get("/v1/leaderboard", params={"task_set": "mini"})
    assert board.status_code == 409 and "stale" in board.json()["detail"]


def test_an_undecided_gold_gate_gets_409(api: Api, world: World) -> None:
    shutil.rmtree(world.store.root / "records" / "verdict")
    r = api.post(**GOOD)
    assert r.status_code == 409 and "run `doit gold:mini` first" in r.json()["detail"]


def test_a_set_without_an_eval_config_gets_422(api: Api, world: World) -> None:
    (world.evals_root / "mini.yaml").unlink()
    r = api.post(**GOOD)
    assert r.status_code == 422 and "has no eval config" in r.json()["detail"]


def test_reads_with_bad_parameters_get_4xx(api: Api) -> None:
    with api.client() as c:
        missing = c.get("/v1/runs/0123456789abcdef0123456789abcdef")
        assert missing.status_code == 404 and "no run" in missing.json()["detail"]
        r = c.get("/v1/leaderboard")
        assert r.status_code == 422 and "query.task_set: Field required" in r.json()["detail"]
        r = c.get("/v1/leaderboard", params={"task_set": "nope"})
        assert r.status_code == 422 and "unknown task set 'nope'" in r.json()["detail"]
        r = c.get("/v1/compare", params={"task_set": "mini", "a": "base", "b": "ghost"})
        assert r.status_code == 422 and "'ghost' is not in evals/mini.yaml" in r.json()["detail"]
        r = c.get("/v1/compare", params={"task_set": "mini", "a": "base", "b": "cand@xyz"})
        assert r.status_code == 422 and "query.b" in r.json()["detail"]


def test_leaderboard_and_compare_are_the_reports(api: Api, world: World) -> None:
    world.outcomes("base", {"t1": "F", "t2": "R", "t3": "F"})
    world.outcomes("cand", {"t1": "R", "t2": "R", "t3": "E"})
    with api.client() as c:
        board = c.get("/v1/leaderboard", params={"task_set": "mini"})
        paired = c.get("/v1/compare", params={"task_set": "mini", "a": "base", "b": "cand"})
    assert board.status_code == 200 and paired.status_code == 200
    assert board.json() == {"task_set": "mini", "rows": leaderboard_rows("mini", **world.kwargs)}
    assert paired.json() == compare("mini", "base", "cand", **world.kwargs)
    assert not paired.json()["refused"]


def test_an_agent_asking_for_less_isolation_than_the_run_allows_gets_422(
        api: Api, world: World, stub_dir: Path) -> None:
    path = world.agents_root / "cand" / "agent.yaml"
    path.write_text(path.read_text() + "isolation: process\n")
    r = api.post(**{**GOOD, "agent_version": "cand", "isolation": "namespace"})
    assert r.status_code == 422 and f"{path}: field 'isolation'" in r.json()["detail"], r.text
    ok = api.post(**{**GOOD, "agent_version": "cand", "isolation": "process"})
    assert ok.status_code == 202, ok.text
    assert api.run(ok.json()["id"])["isolation"] == "process"
    api.wait(ok.json()["id"])
    calls = [json.loads(line) for line in (stub_dir / "calls.jsonl").read_text().splitlines()]
    assert [c["isolation"] for c in calls if c["agents"] == "cand"] == ["process"]
    assert api.post(**{**GOOD, "isolation": "chroot"}).status_code == 422
