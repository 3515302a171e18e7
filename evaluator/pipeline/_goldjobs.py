"""`gold:<set>`: one doit target per grade rep, one per bundled exploit of each task, one per
verdict, and a summary that prints them."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from typing import Any

from doit.exceptions import TaskFailed

from evaluator.console import say
from evaluator.errors import EvalError, InfraError
from evaluator.gold import (
    EXPLOITABLE,
    INCOMPLETE,
    VALID,
    VerdictRecord,
    exploit_summary,
    run_exploits_of,
    run_grade,
    summary_line,
    write_verdict,
)
from evaluator.pipeline import _context as ctx
from evaluator.pipeline._evaljobs import lost_grade_recorder
from evaluator.pipeline._goldplan import exploit_stage_lines, gold_plans


def _grade_action(name: str, task_id: str, subject: str, rep: int) -> TaskFailed | None:
    gc.enable()  # dodo turns GC off to keep no-op runs cheap; real work wants it back
    loaded = ctx.load(name)
    assert loaded.task_set is not None and loaded.lock is not None
    plan = gold_plans(name)[task_id]
    key = (plan.gold_keys if subject == "gold" else plan.empty_keys)[rep]
    lost = lost_grade_recorder(ctx.store(), key, task_id, subject, f"{task_id} {subject} rep {rep}")
    try:
        grader = ctx.executor(ctx.sandbox_limit()).grader(lost)
        rec = run_grade(ctx.store(), grader, loaded.task_set, loaded.lock, plan, subject, rep)
    except InfraError as exc:
        say(f"{task_id} {subject} rep {rep}: infra error, retried next run: {exc}")
        return None
    except EvalError as exc:
        return TaskFailed(f"{task_id} {subject} rep {rep}: {type(exc).__name__}: {exc}")
    say(f"{task_id:32} {subject:5} rep {rep}: {rec.outcome}")
    return None


def _exploit_action(name: str, task_id: str, family: str) -> TaskFailed | None:
    gc.enable()
    loaded = ctx.load(name)
    assert loaded.task_set is not None and loaded.lock is not None
    plan = gold_plans(name)[task_id]
    key = dict(plan.exploit_keys)[family]
    label = f"{task_id} exploit {family}"
    lost = lost_grade_recorder(ctx.store(), key, task_id, f"exploit {family}", label)
    try:
        grader = ctx.executor(ctx.sandbox_limit()).grader(lost)
        rec = run_exploits_of(ctx.store(), grader, loaded.task_set, loaded.lock, plan, family)
    except InfraError as exc:
        say(f"{label}: infra error, retried next run: {exc}")
        return None
    except EvalError as exc:
        return TaskFailed(f"{label}: {type(exc).__name__}: {exc}")
    if rec is not None:
        how = f"{rec.status}" + (f" by the {rec.caught_by}" if rec.caught_by else "")
        say(f"{task_id:32} exploit {family:18} {how}"
            + (f" (graded: {rec.grade_outcome})" if rec.graded else ""))
    return None


def _verdict_action(name: str, task_id: str) -> None:
    loaded = ctx.load(name)
    assert loaded.task_set is not None and loaded.lock is not None
    plan = gold_plans(name)[task_id]
    write_verdict(ctx.store(), loaded.task_set, loaded.lock, plan)


def format_verdicts(rows: dict[str, VerdictRecord]) -> str:
    lines = [f"{'task':34} {'verdict':20} why"]
    for tid, rec in sorted(rows.items()):
        fixture = f" [fixture: {rec.fixture}]" if rec.fixture else ""
        lines.append(f"{tid:34} {rec.verdict:20} {rec.why}{fixture}")
    counts: dict[str, int] = {}
    for rec in rows.values():
        counts[rec.verdict] = counts.get(rec.verdict, 0) + 1
    lines.append("totals: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    return "\n".join(lines)


def _summary_action(name: str) -> TaskFailed | None:
    loaded = ctx.load(name)
    if loaded.error is not None:
        return TaskFailed(str(loaded.error))
    assert loaded.task_set is not None and loaded.lock is not None
    try:
        plans = gold_plans(name)
    except EvalError as exc:
        return TaskFailed(str(exc))
    say(f"gold gate of task set {name!r} (version {loaded.lock.version}):")
    store = ctx.store()
    rows = {tid: store.read(VerdictRecord, p.verdict_key) or VerdictRecord.undecided(tid, name)
            for tid, p in plans.items()}
    say(format_verdicts(rows))
    say(summary_line(exploit_summary(rows)))
    for line in exploit_stage_lines(name, [t for t, r in rows.items()
                                           if r.verdict not in (VALID, EXPLOITABLE, INCOMPLETE)]):
        say(line)
    undecided = [t for t, r in rows.items() if r.verdict == INCOMPLETE]
    if undecided:
        return TaskFailed(f"{len(undecided)} task(s) undecided (infra errors); run "
                          f"`doit gold:{name}` again to retry them")
    return None


# The targets of a gold gate: a command naming none of them gets none but the summaries.
_BASENAMES = ("gold", "grade", "exploit", "verdict")


def gold_tasks(names: list[str]) -> Iterator[dict[str, Any]]:
    """Yield the grade, exploit, verdict and summary targets of the sets' gold gates: for a
    command that names one of them (`doit eval` or `report` loads this too, and plans none),
    and only for tasks whose verdict is not decided yet (found in one pass over the index)."""
    store = ctx.store()
    yield {"basename": "grade", "name": None,
           "doc": "one grade of the gold gate (<set>/<task>/<gold|empty>/<rep>); run by gold:<set>"}
    yield {"basename": "exploit", "name": None,
           "doc": "one bundled exploit on one valid task (<set>/<task>/<family>); run by "
                  "gold:<set>"}
    yield {"basename": "verdict", "name": None,
           "doc": "one task's gold-gate verdict (<set>/<task>); run by gold:<set>"}
    wanted = ctx.named(_BASENAMES)
    for name in [*names, *ctx.asked("gold", names)]:
        loaded = ctx.load(name) if wanted else None
        summary: dict[str, Any] = {
            "basename": "gold", "name": name, "actions": [(_summary_action, [name])],
            "uptodate": [False], "verbosity": 2, "task_dep": [],
            "doc": f"grade gold and empty patches of {name} and print each task's verdict",
        }
        if loaded is None or loaded.task_set is None or loaded.lock is None:
            yield summary  # its action reports why the set cannot run (or is not asked for)
            continue
        try:
            plans = gold_plans(name).values()
        except EvalError:  # a bad set.yaml field fails this set's gate alone
            yield summary  # its action reports why
            continue
        if store.remote is not None:  # an empty local store fills from the remote in parallel
            store.prefetch("grade", [k for p in plans for k in (*p.gold_keys, *p.empty_keys)])
            store.prefetch("exploit", [k for p in plans for _, k in p.exploit_keys])
            store.prefetch(VerdictRecord.KIND, [p.verdict_key for p in plans])
        if wanted & {"gold", f"gold:{name}"}:
            stage = exploit_stage_lines(name)  # what it will cost, before anything runs
            say(stage[0] if stage else f"exploit stage of {name}: nothing to price")
        decided_keys = {k for k, in store.index.fields(
            VerdictRecord.KIND, (), keys=[p.verdict_key for p in plans])}
        for plan in plans:
            tid = plan.task.id
            decided = plan.verdict_key in decided_keys
            if decided and not wanted & {f"verdict:{name}/{tid}", f"gold:{name}/{tid}"}:
                continue  # decided: no target for it (the summary reads its verdict)
            grade_names = []
            for subject, keys in (("gold", plan.gold_keys), ("empty", plan.empty_keys)):
                for rep, key in enumerate(keys):
                    grade_name = f"{name}/{tid}/{subject}/{rep}"
                    grade_names.append(f"grade:{grade_name}")
                    yield {"basename": "grade", "name": grade_name,
                           "actions": [(_grade_action, [name, tid, subject, rep])],
                           "uptodate": [store.has("grade", key)], "verbosity": 2}
            exploit_names = []
            for family, key in plan.exploit_keys:
                exploit_name = f"{name}/{tid}/{family}"
                exploit_names.append(f"exploit:{exploit_name}")
                # Runs after the task's gold grades; on a task they leave invalid it does nothing.
                yield {"basename": "exploit", "name": exploit_name,
                       "actions": [(_exploit_action, [name, tid, family])],
                       "task_dep": grade_names, "verbosity": 2,
                       "uptodate": [decided or store.has("exploit", key)]}
            yield {"basename": "verdict", "name": f"{name}/{tid}",
                   "actions": [(_verdict_action, [name, tid])],
                   "task_dep": [*grade_names, *exploit_names], "uptodate": [decided]}
            summary["task_dep"].append(f"verdict:{name}/{tid}")
        yield summary
