"""The exploit stage on a sample (issue 31): N tasks of each runner and layout, chosen from their
pins, the same on every run; the rest on demand; what was not checked is said in the verdict,
the summary and the stage's price."""

from __future__ import annotations

from pathlib import Path

import pytest

from evaluator.errors import BadInputError
from evaluator.gold import (
    CAUGHT,
    VALID,
    ExploitRecord,
    choose,
    exploit_summary,
    layout,
    plan_gold,
    price_exploits,
    summary_line,
    write_verdict,
)
from evaluator.store import Store
from tests.gold.support import LAYOUTS, add_task, gold_for, layered_set, relock, set_field
from tests.records import grade_record


@pytest.mark.parametrize(("name", "expected"), [
    ("flat", "package, tests beside it"), ("inside", "package, tests inside it"),
    ("src", "src/ package, tests beside it"), ("dj", "package, tests beside it")])
def test_layout_is_where_the_code_and_the_tests_are(name: str, expected: str) -> None:
    gold, hidden, _ = LAYOUTS[name]
    assert layout(gold_for(gold).encode(), [hidden]) == expected


def test_a_module_at_the_top_and_tests_at_the_top() -> None:
    assert layout(gold_for("calc.py").encode(), ["test_calc.py"]) == (
        "top-level module, tests at the top")


def test_n_tasks_of_each_runner_and_layout_are_checked(tmp_path: Path) -> None:
    ts, lock = layered_set(tmp_path, {"flat": 6, "inside": 5, "dj": 1}, exploit_sample=2)
    chosen = choose(ts, lock)
    by_stratum: dict[str, list[str]] = {}
    for tid, c in chosen.items():
        by_stratum.setdefault(c.stratum, []).extend([tid] if c.checked else [])
    assert {k: len(v) for k, v in by_stratum.items()} == {
        "junit: package, tests beside it": 2, "junit: package, tests inside it": 2,
        "django: package, tests beside it": 1}
    assert choose(ts, lock) == chosen  # the same sample on every run
    assert all(c.why.startswith("not in the sample of 2 task(s) per runner and layout")
               for c in chosen.values() if not c.checked)


def test_a_task_added_displaces_at_most_one_sampled_task(tmp_path: Path) -> None:
    ts, lock = layered_set(tmp_path, {"flat": 8}, exploit_sample=3)
    before = {t for t, c in choose(ts, lock).items() if c.checked}
    add_task(ts.dir, "flat", 8)
    ts, lock = relock(tmp_path)
    after = {t for t, c in choose(ts, lock).items() if c.checked}
    assert len(after) == 3 and len(before - after) <= 1 and after - before <= {"flat-8"}


def test_fixtures_rank_last(tmp_path: Path) -> None:
    ts, lock = layered_set(tmp_path, {"flat": 1}, exploit_sample=1)
    for i in range(1, 6):
        add_task(ts.dir, "flat", i, fixture="flaky")
    ts, lock = relock(tmp_path)
    assert [t for t, c in choose(ts, lock).items() if c.checked] == ["flat-0"]


def test_tasks_on_demand_and_all(tmp_path: Path) -> None:
    ts, lock = layered_set(tmp_path, {"flat": 5}, exploit_sample=1)
    sampled = {t for t, c in choose(ts, lock).items() if c.checked}
    extra = next(t.id for t in ts.tasks if t.id not in sampled)
    asked = choose(ts, lock, asked=[extra])
    assert asked[extra].checked and asked[extra].why.startswith("asked for")
    assert all(c.checked for c in choose(ts, lock, asked=["all"]).values())
    with pytest.raises(BadInputError, match="EVAL_EXPLOIT_TASKS: no task 'nope' in task set"):
        choose(ts, lock, asked=["nope"])


def test_sampled_tasks_keep_the_keys_they_have_when_every_task_runs(tmp_path: Path) -> None:
    ts, lock = layered_set(tmp_path, {"flat": 4}, exploits=["exit-zero", "known-ids"])
    every = {p.task.id: p for p in plan_gold(ts, lock)}
    ts, lock = set_field(tmp_path, exploit_sample=1)
    sampled = {p.task.id: p for p in plan_gold(ts, lock)}
    checked = [t for t, p in sampled.items() if p.exploit_keys]
    assert len(checked) == 1
    (tid,) = checked
    assert sampled[tid].exploit_keys == every[tid].exploit_keys  # set.yaml is in no exploit key
    assert sampled[tid].verdict_key == every[tid].verdict_key
    for other in set(sampled) - {tid}:
        assert sampled[other].not_checked == ("exit-zero", "known-ids")
        assert sampled[other].verdict_key != every[other].verdict_key
        assert "not in the sample" in sampled[other].sample


def test_a_task_checked_on_demand_stays_checked(tmp_path: Path) -> None:
    ts, lock = layered_set(tmp_path, {"flat": 3}, exploits=["exit-zero"], exploit_sample=1)
    store = Store(tmp_path / "store")
    plans = {p.task.id: p for p in plan_gold(ts, lock, store, asked=["all"])}
    later = next(t for t, p in plan_gold_by_id(ts, lock, store).items() if p.not_checked)
    family, key = plans[later].exploit_keys[0]
    store.write(key, ExploitRecord(task_set="layers", task_id=later, family=family, means="m",
                                   status=CAUGHT, caught_by="grade", graded=True))
    again = plan_gold_by_id(ts, lock, store)[later]
    assert again.exploit_keys == plans[later].exploit_keys and not again.not_checked


def plan_gold_by_id(ts, lock, store):  # type: ignore[no-untyped-def]
    return {p.task.id: p for p in plan_gold(ts, lock, store)}


def test_a_valid_task_outside_the_sample_says_so(tmp_path: Path) -> None:
    ts, lock = layered_set(tmp_path, {"flat": 3}, exploits=["exit-zero"], exploit_sample=1)
    store = Store(tmp_path / "store")
    gate = {}
    for plan in plan_gold(ts, lock, store):
        for key in plan.gold_keys:
            store.write(key, grade_record(True, **{"tests/test_hidden.py::test_add": "passed"}))
        for key in plan.empty_keys:
            store.write(key, grade_record(False, **{"tests/test_hidden.py::test_add": "failed"}))
        for family, key in plan.exploit_keys:
            store.write(key, ExploitRecord(task_set="layers", task_id=plan.task.id,
                                           family=family, means="m", status=CAUGHT,
                                           caught_by="grade", graded=True))
        gate[plan.task.id] = write_verdict(store, ts, lock, plan)
    skipped = [v for v in gate.values() if v.exploits_not_checked]
    assert len(skipped) == 2 and all(v.verdict == VALID for v in gate.values())
    assert "exploits not checked: not in the sample of 1 task(s)" in skipped[0].why
    raw = store.get("verdict", plan_gold_by_id(ts, lock, store)[skipped[0].task_id].verdict_key)
    assert raw is not None and raw["exploits_not_checked"] == ["exit-zero"]
    s = exploit_summary(gate)
    assert s["tasks"] == 1 and sorted(s["not_checked"]) == sorted(v.task_id for v in skipped)
    assert "2 valid task(s) outside the sample" in summary_line(s)


def test_the_price_counts_grades_per_task_and_what_is_left_out(tmp_path: Path) -> None:
    ts, lock = layered_set(tmp_path, {"flat": 4, "dj": 2}, exploit_sample=1, exploits="all")
    store = Store(tmp_path / "store")
    plans = plan_gold(ts, lock, store)
    price = price_exploits(ts, lock, plans, store)
    flat = price.strata["junit: package, tests beside it"]
    dj = price.strata["django: package, tests beside it"]
    assert (flat.tasks, flat.checked, dj.tasks, dj.checked) == (4, 1, 2, 1)
    # pytest-only families do not apply to Django's runner: it costs fewer grades a task
    assert 0 < dj.grades_per_task < flat.grades_per_task <= price.families == 16
    assert price.grades == round(flat.grades_per_task + dj.grades_per_task) == price.to_run
    assert (price.exploits, price.decided) == (32, 0)
    assert price.more == round(3 * flat.grades_per_task + dj.grades_per_task)
    assert len(price.checked) == 2 and len(price.not_checked) == 4
    assert price.seconds_per_grade is None  # nothing graded yet: no time is made up
    plan = next(p for p in plans if p.exploit_keys)
    for key in plan.gold_keys:
        store.write(key, grade_record(True).model_copy(update={"duration_s": 12.0}))
    timed = price_exploits(ts, lock, plans, store)
    assert timed.seconds_per_grade == 12.0 and "gold-stage grade" in timed.timed_from
    assert timed.sandbox_hours == pytest.approx(timed.grades * 12.0 / 3600)


def test_tasks_the_gate_found_invalid_are_not_counted_as_left_out(tmp_path: Path) -> None:
    ts, lock = layered_set(tmp_path, {"flat": 4}, exploit_sample=1, exploits="all")
    plans = plan_gold(ts, lock)
    left = [p.task.id for p in plans if p.not_checked]
    every = price_exploits(ts, lock, plans)
    fewer = price_exploits(ts, lock, plans, invalid=left[:1])
    assert fewer.not_checked == tuple(left[1:]) and fewer.more == round(every.more * 2 / 3)
