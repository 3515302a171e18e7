"""The operator sets the least isolation (eval config, API run); an agent may ask for more,
never less, and an agent that asks for less fails alone, naming its file and field."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from evaluator.attempts import load_eval, plan_eval
from evaluator.taskset import load_task_set
from tests.reports._world import SET, World

REPO = Path(__file__).resolve().parents[2]


def ask(world: World, agent: str, isolation: str) -> None:
    path = world.agents_root / agent / "agent.yaml"
    spec = yaml.safe_load(path.read_text())
    path.write_text(yaml.safe_dump({**spec, "isolation": isolation}))


def floor(world: World, isolation: str | None) -> None:
    path = world.evals_root / f"{SET}.yaml"
    spec = yaml.safe_load(path.read_text())
    spec.pop("isolation", None)
    path.write_text(yaml.safe_dump({**spec, **({"isolation": isolation} if isolation else {})}))


def plan(world: World, **kw):
    return plan_eval(load_task_set(SET, world.tasks_root), world.lock,
                     load_eval(SET, world.evals_root), world.store, world.agents_root, **kw)


@pytest.fixture
def world(tmp_path: Path) -> World:
    w = World(tmp_path)
    floor(w, "namespace")
    return w


def test_an_agent_asking_for_less_than_the_floor_is_refused_alone(world: World) -> None:
    ask(world, "cand", "process")
    p = plan(world)
    assert set(p.agents) == {"base"} and {a.agent.name for a in p.attempts} == {"base"}
    why = p.refused["cand"]
    assert str(world.agents_root / "cand" / "agent.yaml") in why and "field 'isolation'" in why
    assert "'namespace'" in why and f"{SET}.yaml" in why


def test_an_agent_may_ask_for_more_than_the_floor(world: World) -> None:
    floor(world, "process")
    ask(world, "cand", "namespace")
    p = plan(world)
    assert not p.refused
    assert (p.agents["base"].spec.isolation, p.agents["cand"].spec.isolation) == (
        "process", "namespace")


def test_a_run_sets_its_own_floor_over_the_eval_config(world: World) -> None:
    ask(world, "cand", "process")
    assert "cand" in plan(world).refused
    assert not plan(world, isolation="process").refused


def test_the_isolation_run_under_is_in_the_attempt_key_and_the_ask_is_not(world: World) -> None:
    before = {pa.label: pa.key for pa in plan(world).attempts}
    ask(world, "base", "namespace")  # the floor already gives it: nothing changes
    assert {pa.label: pa.key for pa in plan(world).attempts} == before
    floor(world, "process")
    after = {pa.label: pa.key for pa in plan(world).attempts}
    assert after["base/t1/0"] == before["base/t1/0"]  # asked for namespace: still gets it
    assert after["cand/t1/0"] != before["cand/t1/0"]  # now runs as a plain process


def test_doit_plan_lists_the_other_agents_and_names_the_refused_one(world: World) -> None:
    ask(world, "cand", "process")
    env = {**os.environ, "EVAL_STORE": str(world.store.root), "EVAL_TASKS": str(world.tasks_root),
           "EVAL_LOCK_DIR": str(world.lock_dir), "EVAL_EVALS": str(world.evals_root),
           "EVAL_AGENTS": str(world.agents_root)}
    out = subprocess.run([sys.executable, "-m", "doit", "-f", str(REPO / "dodo.py"),
                          f"plan:{SET}"], env=env, capture_output=True, text=True, timeout=300,
                         cwd=world.root)
    assert "would run base/t1/0" in out.stdout and "would run cand" not in out.stdout, out
    assert "refused: agent 'cand'" in out.stdout and "field 'isolation'" in out.stdout


def test_a_bubblewrap_that_fails_is_an_error_not_a_weaker_default(tmp_path, monkeypatch) -> None:
    from evaluator.attempts import _isolation
    from evaluator.errors import InfraError

    fake = tmp_path / "bwrap"
    fake.write_text("#!/bin/sh\necho 'No permissions to create new namespace' >&2\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    _isolation._namespace_failure.cache_clear()
    try:
        with pytest.raises(InfraError, match="No permissions.*isolation: process"):
            _isolation.strongest()
        fake.unlink()  # no bubblewrap at all: process mode is this machine's strongest
        _isolation._namespace_failure.cache_clear()
        assert _isolation.strongest() == "process"
    finally:
        _isolation._namespace_failure.cache_clear()
