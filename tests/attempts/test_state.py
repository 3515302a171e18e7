"""Where an eval stands, from the index in one pass: the same statuses the records say one by
one, records another set made under the same keys, and records that do not parse, which
leave their own grade target to fail rather than every command."""

from __future__ import annotations

from pathlib import Path

from evaluator.attempts import EvalState, attempt_status, summarize
from tests.reports._world import World

TABLE = {"t1": "RFP", "t2": "EU-", "t3": "QRF"}


def _world(tmp_path: Path) -> World:
    world = World(tmp_path, samples=3)
    world.outcomes("base", TABLE)
    world.outcomes("cand", {"t1": "FFF", "t2": "RRR", "t3": "U-E"})
    return world


def test_each_attempt_has_the_status_its_records_give(tmp_path: Path) -> None:
    world = _world(tmp_path)
    plan = world.plan()
    state = EvalState.read(world.store, plan)
    for pa in plan.attempts:
        status, result = state.status(pa)
        want, record = attempt_status(world.store, plan, pa)
        assert status == want, pa.label
        assert (result is None) == (record is None)
        if result is not None and record is not None:
            assert result.cost_usd == record.cost["total_usd"]
    rows = {r["agent"]: r for r in summarize(world.store, plan)}
    parts = list(EvalState.parts(world.store, plan, size=4))
    assert [pa for part, _ in parts for pa in part] == list(plan.attempts)
    assert all(state.status(pa) == part_state.status(pa) for part, part_state in parts
               for pa in part)
    assert (rows["base"]["resolved"], rows["base"]["error"], rows["base"]["quarantined"],
            rows["base"]["pending"], rows["base"]["ungraded"]) == (2, 1, 1, 1, 1)
    assert rows["cand"]["resolved"] == 3 and rows["cand"]["cost_usd"] == 0.06


def test_records_another_set_made_under_the_same_keys_count(tmp_path: Path) -> None:
    """Keys hold no set name: an attempt stored while evaluating another set with the same
    task and pins is this set's attempt too, as `Store.has` says one key at a time."""
    world = World(tmp_path)
    world.outcome("base", "t1", 0, "resolved")
    pa = world.plan().find("base/t1/0")
    record = world.store.get("attempt", pa.key)
    assert record is not None
    world.store.index.add("attempt", pa.key, {**record, "task_set": "other-set"})
    state = EvalState.read(world.store, world.plan())
    assert state.status(pa)[0] == "resolved"


def test_an_attempt_that_does_not_parse_is_stored_and_its_grade_left_to_fail(
        tmp_path: Path) -> None:
    world = World(tmp_path)
    pa = world.plan().find("base/t1/0")
    world.store.put("attempt", pa.key, {"task_set": "mini", "task_id": "t1", "patch": None,
                                        "cost": "not a number"})
    state = EvalState.read(world.store, world.plan())
    assert state.done(pa) and state.result(pa) is None
    assert state.status(pa)[0] == "ungraded"


def test_a_record_the_index_missed_is_pending_until_indexed_again(tmp_path: Path) -> None:
    world = World(tmp_path)
    world.outcome("base", "t1", 0, "failed")
    pa = world.plan().find("base/t1/0")
    world.store.index._db().execute("DELETE FROM records WHERE kind = 'attempt'")
    assert EvalState.read(world.store, world.plan()).status(pa)[0] == "pending"
    world.store.index_record("attempt", pa.key)  # what the attempt target does when it runs
    assert EvalState.read(world.store, world.plan()).status(pa)[0] == "failed"
