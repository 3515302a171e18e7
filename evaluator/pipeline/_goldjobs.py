"""`gold:<set>`: one doit target per grade rep, one per verdict, and a summary that prints them."""

from __future__ import annotations

import functools
import gc
from collections.abc import Iterator
from typing import Any

from doit.exceptions import TaskFailed

from evaluator.errors import EvalError, InfraError
from evaluator.gold import GoldPlan, plan_gold, run_grade, write_verdict
from evaluator.pipeline import _context as ctx
from evaluator.pipeline._evaljobs import lost_grade_recorder


@functools.cache
def _plans(name: str) -> dict[str, GoldPlan]:
    loaded = ctx.load(name)
    assert loaded.task_set is not None and loaded.lock is not None
    return {p.task.id: p for p in plan_gold(loaded.task_set, loaded.lock)}


def _grade_action(name: str, task_id: str, subject: str, rep: int) -> TaskFailed | None:
    gc.enable()  # dodo turns GC off to keep no-op runs cheap; real work wants it back
    loaded = ctx.load(name)
    assert loaded.task_set is not None and loaded.lock is not None
    plan = _plans(name)[task_id]
    key = (plan.gold_keys if subject == "gold" else plan.empty_keys)[rep]
    lost = lost_grade_recorder(ctx.store(), key, task_id, subject, f"{task_id} {subject} rep {rep}")
    try:
        grader = ctx.executor(ctx.sandbox_limit()).grader(lost)
        rec = run_grade(ctx.store(), grader, loaded.task_set, loaded.lock, plan, subject, rep)
    except InfraError as exc:
        print(f"{task_id} {subject} rep {rep}: infra error, retried next run: {exc}")
        return None
    except EvalError as exc:
        return TaskFailed(f"{task_id} {subject} rep {rep}: {type(exc).__name__}: {exc}")
    print(f"{task_id:32} {subject:5} rep {rep}: {rec['outcome'] if rec else '?'}")
    return None


def _verdict_action(name: str, task_id: str) -> None:
    loaded = ctx.load(name)
    assert loaded.task_set is not None and loaded.lock is not None
    plan = _plans(name)[task_id]
    write_verdict(ctx.store(), loaded.task_set, loaded.lock, plan)


def format_verdicts(rows: dict[str, dict[str, Any]]) -> str:
    lines = [f"{'task':34} {'verdict':20} why"]
    for tid, rec in sorted(rows.items()):
        fixture = f" [fixture: {rec['fixture']}]" if rec.get("fixture") else ""
        lines.append(f"{tid:34} {rec['verdict']:20} {rec.get('why', '')}{fixture}")
    counts: dict[str, int] = {}
    for rec in rows.values():
        counts[rec["verdict"]] = counts.get(rec["verdict"], 0) + 1
    lines.append("totals: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    return "\n".join(lines)


def _summary_action(name: str) -> TaskFailed | None:
    loaded = ctx.load(name)
    if loaded.error is not None:
        return TaskFailed(str(loaded.error))
    assert loaded.task_set is not None and loaded.lock is not None
    print(f"gold gate of task set {name!r} (version {loaded.lock.version}):")
    store = ctx.store()
    rows = {tid: store.get("verdict", p.verdict_key) or {
        "task_id": tid, "verdict": "incomplete", "why": f"run `doit gold:{name}`"}
        for tid, p in _plans(name).items()}
    print(format_verdicts(rows))
    undecided = [t for t, r in rows.items() if r["verdict"] == "incomplete"]
    if undecided:
        return TaskFailed(f"{len(undecided)} task(s) undecided (infra errors); run "
                          f"`doit gold:{name}` again to retry them")
    return None


def gold_tasks(names: list[str]) -> Iterator[dict[str, Any]]:
    """Yield every grade, verdict and summary target of the sets' gold gates."""
    store = ctx.store()
    yield {"basename": "grade", "name": None,
           "doc": "one grade of the gold gate (<set>/<task>/<gold|empty>/<rep>); run by gold:<set>"}
    yield {"basename": "verdict", "name": None,
           "doc": "one task's gold-gate verdict (<set>/<task>); run by gold:<set>"}
    for name in names:
        loaded = ctx.load(name)
        summary: dict[str, Any] = {
            "basename": "gold", "name": name, "actions": [(_summary_action, [name])],
            "uptodate": [False], "verbosity": 2, "task_dep": [],
            "doc": f"grade gold and empty patches of {name} and print each task's verdict",
        }
        if loaded.task_set is None or loaded.lock is None:
            yield summary  # its action reports why the set cannot run
            continue
        plans = _plans(name).values()
        if store.remote is not None:  # an empty local store fills from the remote in parallel
            store.prefetch("grade", [k for p in plans for k in (*p.gold_keys, *p.empty_keys)])
            store.prefetch("verdict", [p.verdict_key for p in plans])
        for plan in plans:
            tid = plan.task.id
            grade_names = []
            for subject, keys in (("gold", plan.gold_keys), ("empty", plan.empty_keys)):
                for rep, key in enumerate(keys):
                    grade_name = f"{name}/{tid}/{subject}/{rep}"
                    grade_names.append(f"grade:{grade_name}")
                    yield {"basename": "grade", "name": grade_name,
                           "actions": [(_grade_action, [name, tid, subject, rep])],
                           "uptodate": [store.has("grade", key)], "verbosity": 2}
            yield {"basename": "verdict", "name": f"{name}/{tid}",
                   "actions": [(_verdict_action, [name, tid])], "task_dep": grade_names,
                   "uptodate": [store.has("verdict", plan.verdict_key)]}
            summary["task_dep"].append(f"verdict:{name}/{tid}")
        yield summary
