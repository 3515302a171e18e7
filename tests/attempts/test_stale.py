"""`doit plan` says why each stale target is stale (issue 32): which contract moved, or which
input of the key, counted, from one query of the records' inputs; and the gold gate's refusal
names why its verdicts are missing."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
import yaml

from evaluator.attempts import explain_results, explain_stale
from evaluator.errors import BadInputError
from evaluator.version import CONTRACTS, stand_in
from tests.reports._world import World


@pytest.fixture
def world(tmp_path: Path) -> World:
    w = World(tmp_path / "w", tasks=("t1", "t2"), agents=("base", "cand"))
    w.outcomes("base", {"t1": "R", "t2": "F"})
    w.outcomes("cand", {"t1": "R", "t2": "R"})
    return w


def bump(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    c = CONTRACTS[name]
    monkeypatch.setitem(CONTRACTS, name, dataclasses.replace(c, log=(*c.log, "a test change")))
    stand_in.cache_clear()  # agents' identities read contract versions through it


@pytest.fixture(autouse=True)
def _fresh_stand_ins() -> None:
    yield
    stand_in.cache_clear()


def why(world: World) -> list[str]:
    world._plan = None
    plan = world.plan()
    todo = [pa for pa in plan.attempts if not world.store.has("attempt", pa.key)]
    return explain_stale(world.store, plan, todo)


def test_nothing_is_explained_when_nothing_is_stale(world: World) -> None:
    assert why(world) == []
    assert explain_results(world.store, world.plan()) == []


def test_a_bump_of_what_an_agent_observes_is_named_with_its_versions(
        world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    bump(monkeypatch, "sandbox")  # its grades are stale too: the gold gate is decided again
    world.write_verdicts({})
    assert why(world) == ["4 attempts stale: sandbox observation v1 -> v2"]


def test_a_bump_of_the_reference_loop_is_named_for_the_agents_that_run_it(
        world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    bump(monkeypatch, "reference-agent")
    assert sorted(why(world)) == ["2 attempts stale: agent 'base': reference agent v1 -> v2",
                                  "2 attempts stale: agent 'cand': reference agent v1 -> v2"]


def test_a_grading_bump_keeps_the_attempts_and_names_what_the_results_wait_for(
        world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    bump(monkeypatch, "grader")
    world._plan = None
    with pytest.raises(BadInputError, match=r"not decided for 2 task\(s\).*why: 2 task\(s\): "
                                            r"grading v1 -> v2.*run `doit gold:mini` first"):
        world.plan()
    world.write_verdicts({})  # what `doit gold` would decide again, under the new grader
    assert why(world) == []
    assert explain_results(world.store, world.plan()) == [
        "4 results to decide again (their attempts are kept): grading v1 -> v2"]


def test_an_agent_edit_says_which_part_moved_and_a_new_sample_says_it_is_new(
        world: World) -> None:
    (world.agents_root / "cand" / "system.j2").write_text("You fix bugs, carefully.\n")
    edited = "2 attempts stale: agent 'cand': its prompts; files of its folder"
    assert why(world) == [edited]
    spec = yaml.safe_load((world.evals_root / "mini.yaml").read_text())
    (world.evals_root / "mini.yaml").write_text(yaml.safe_dump({**spec, "samples": 2}))
    assert sorted(why(world)) == [edited,
                                  "4 attempts stale: new: no earlier attempt of this agent, task "
                                  "and sample"]


def test_records_from_before_inputs_were_kept_say_so(world: World) -> None:
    for path in (world.store.root / "records" / "attempt").glob("*/*.json"):
        record = json.loads(path.read_text())  # as an older harness wrote it
        path.write_text(json.dumps({k: v for k, v in record.items() if k != "inputs"}))
    world.store.reindex()
    (world.agents_root / "base" / "system.j2").write_text("Another prompt.\n")
    assert why(world) == ["2 attempts stale: made before attempt records kept their inputs "
                          "(keys by harness source)"]
