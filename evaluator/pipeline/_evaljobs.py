"""`eval:<set>` and `plan:<set>`: one attempt target and one grade target per planned attempt."""

from __future__ import annotations

import atexit
import gc
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from doit.exceptions import TaskFailed

from evaluator.attempts import (
    AttemptRecord,
    EvalPlan,
    EvalState,
    ceiling,
    estimate_cost,
    explain_results,
    explain_stale,
    format_summary,
    grade_attempt,
    protect_harness,
    quarantined,
    recorded_inputs,
    summarize,
)
from evaluator.console import say
from evaluator.errors import BadInputError, DiskFullError, EvalError, InfraError
from evaluator.executor import AttemptWork, ModelSpec, QueueMarks, WorkLost
from evaluator.model import Prices
from evaluator.pipeline import _context as ctx
from evaluator.pipeline._budget import Budget
from evaluator.pipeline._goldplan import exploit_stage_lines
from evaluator.pipeline._quarantine import quarantine_hint
from evaluator.settings import Settings, settings
from evaluator.simulated import start_simulated_endpoint
from evaluator.store import Store

# The targets of an eval: a command naming none of them gets no attempt target at all.
_BASENAMES = ("eval", "attempt", "evalgrade")
# `doit plan` lists this many attempts one by one, then counts per agent.
_LISTED = 100

# Set here for the forked workers of this invocation (declared in evaluator/settings).
_SIM_ENV = Settings.simulated_url.env
_INVOCATION_ENV = Settings.invocation.env


def budget_path(task_set: str) -> Path:
    """The spend file of this invocation (shared by its forked workers)."""
    invocation = settings.invocation or str(os.getpid())
    return ctx.store().root / "budget" / f"{task_set}-{invocation}.json"


def _budget(plan: EvalPlan) -> Budget:
    return Budget(budget_path(plan.task_set.name), plan.spec.budget_usd)


def _model(plan: EvalPlan, agent_name: str) -> Any:
    """How to reach the agent's model; each executor bounds requests per endpoint (one flock
    set per store locally, one semaphore per cluster on Ray)."""
    agent = plan.agents[agent_name]
    m = agent.spec.model
    url = (settings.simulated_url or "") if agent.simulated else m.endpoint
    if not url:
        raise InfraError("no simulated endpoint is running for this process")
    prices = Prices.load(settings.evals_root / plan.spec.prices) if plan.spec.prices else Prices()
    return ModelSpec(url, m.id, m.api_key_env, m.timeout_s, m.max_retries, prices,
                     plan.spec.concurrency.model_requests)


def _attempt_action(name: str, label: str) -> TaskFailed | None:
    gc.enable()
    plan = ctx.eval_plan(name)
    pa = plan.find(label)
    store = ctx.store()
    # Another run on this store may be running this very attempt: wait for it rather than
    # pay the model twice (its record lands, or it dies and this run takes the attempt over).
    try:
        lease = store.leases.hold("attempt", pa.key, lambda: store.has_local("attempt", pa.key),
                                  lambda holder: say(f"{label}: being run by {holder}; waiting"))
        with lease:
            if store.has("attempt", pa.key):
                store.index_record("attempt", pa.key)  # the index missed it (a crash between)
                return None
            if quarantined(store, plan.spec, pa.key):
                return None
            _run_attempt(name, label, plan, pa, store)
    except DiskFullError as exc:  # its lease could not be made: nothing was paid for
        say(f"{label}: not started: {exc}")
    return None


def _run_attempt(name: str, label: str, plan: EvalPlan, pa: Any, store: Store) -> None:
    if _sim_failed and pa.agent.simulated:
        say(f"{label}: not started: the simulated endpoint could not start: {_sim_failed}")
        return
    short = store.space_problem()
    if short:  # a result that cannot be stored would be paid for again
        say(f"{label}: not started: {short}")
        return
    budget = _budget(plan)
    # The most this attempt can cost (every request is bounded before it is sent), so the
    # budget holds whatever the attempts in flight do.
    lim = pa.agent.spec.limits
    estimate = ceiling(lim.max_cost_usd, pa.agent.spec.model.price, lim.wall_clock_s,
                       plan.spec.sandbox_usd_per_hour)
    try:
        reserved = budget.reserve(estimate)
    except DiskFullError as exc:
        say(f"{label}: not started: {exc}")
        return
    if not reserved:
        say(f"{label}: not started, the budget of ${plan.spec.budget_usd} per run is reached "
            f"(spent plus in flight); raise budget_usd to go on")
        return
    actual, failed = 0.0, True
    executor = ctx.executor(plan.spec.concurrency.sandboxes)
    queue = QueueMarks(store.root, settings.invocation or str(os.getpid()))
    try:
        for n in range(executor.tries):
            queue.wait(pa.key)
            try:
                run = executor.run_attempt(_work(plan, pa), store, lambda: queue.start(pa.key))
            except WorkLost as exc:
                # The node died under it: infra, counted, and the attempt goes to another node.
                store.put_error("attempt", pa.key, exc, task_id=pa.task.id,
                                subject=pa.agent.name)
                say(f"{label}: infra error, " + ("handed to another node" if n + 1 <
                    executor.tries else "retried next run") + f": {exc}")
                if quarantined(store, plan.spec, pa.key):
                    break
                continue
            actual = run.cost["total_usd"]
            store.write(pa.key, AttemptRecord.of(run, pa, name, plan.lock.version,
                                                 recorded_inputs(plan, pa)))
            failed = False
            break
    except EvalError as exc:
        store.put_error("attempt", pa.key, exc, task_id=pa.task.id, subject=pa.agent.name)
        what = ("bad input (not the agent's failure; fix it)" if isinstance(exc, BadInputError)
                else "infra error, retried next run")
        say(f"{label}: {what}: {type(exc).__name__}: {exc}")
    finally:
        queue.start(pa.key)
        try:
            budget.settle(estimate, actual, error=failed)
        except DiskFullError as exc:
            say(f"{label}: {exc}")


def _work(plan: EvalPlan, pa: Any) -> Any:
    return AttemptWork(agent=pa.agent, task=pa.task, pin=plan.lock.pin(pa.task.id),
                       limits=pa.grade_spec.limits, key=pa.key, seed=pa.seed,
                       model=_model(plan, pa.agent.name),
                       sandbox_usd_per_hour=plan.spec.sandbox_usd_per_hour)


def _grade_action(name: str, label: str) -> TaskFailed | None:
    gc.enable()
    plan = ctx.eval_plan(name)
    pa = plan.find(label)
    store = ctx.store()
    attempt = store.read(AttemptRecord, pa.key)
    if attempt is None:
        return None  # quarantined or refused by the budget: nothing to grade
    result = pa.result_key(attempt.patch)
    # As for attempts: two runs on one store grade an attempt once.
    try:  # a full disk that refuses the lease is one line too
        with store.leases.hold("result", result, lambda: store.has_local("result", result),
                               lambda holder: say(f"{label}: being graded by {holder}; waiting")):
            if store.has("result", result):
                store.index_record("result", result)
                return None
            lost = lost_grade_recorder(store, pa.grade_key(attempt.patch), pa.task.id,
                                       pa.agent.name, label)
            grade_attempt(store, ctx.executor(plan.spec.concurrency.sandboxes).grader(lost),
                          plan, pa, attempt)
    except EvalError as exc:
        say(f"{label}: grading failed, retried next run: {type(exc).__name__}: {exc}")
    return None


def lost_grade_recorder(store: Any, key: str, task_id: str, subject: str,
                        label: str) -> Callable[[WorkLost], None]:
    """What a grade lost with its node leaves: an infra error beside its key, as a lost attempt
    does (the grader hands the grade to another node; its last loss is recorded by the caller)."""

    def lost(exc: WorkLost) -> None:
        store.put_error("grade", key, exc, task_id=task_id, subject=subject)
        say(f"{label}: grade infra error, handed to another node: {exc}")

    return lost


def _summary_action(name: str) -> TaskFailed | None:
    try:
        plan = ctx.eval_plan(name)
    except EvalError as exc:
        return TaskFailed(str(exc))
    say(f"eval of task set {name!r} (version {plan.lock.version}), "
        f"{plan.spec.samples} sample(s) per task, {len(plan.excluded)} task(s) excluded by "
        f"the gold gate:")
    rows = summarize(ctx.store(), plan)
    say(format_summary(rows))
    for agent, why in sorted(plan.refused.items()):
        say(f"refused: agent {agent!r}: {why}")
    for pair, why in sorted(plan.unfit.items()):
        say(f"refused: {pair}: {why}")
    state = _budget(plan).state()
    if state.get("refused"):
        say(f"budget: {state['refused']} attempt(s) not started, cap ${plan.spec.budget_usd} "
            f"reached")
    unfinished = sum(r["pending"] + r["error"] + r["ungraded"] for r in rows)
    held = sum(r["quarantined"] for r in rows)
    if short := ctx.store().space_problem():
        say(f"store: {short}")
    if held:
        say(quarantine_hint(name, held))
    if unfinished or held or plan.refused or plan.unfit:
        return TaskFailed("; ".join(
            ([f"{unfinished} attempt(s) unfinished (infra errors or budget); run `doit eval:{name}` "
              "again to retry them"] if unfinished else [])
            + ([quarantine_hint(name, held)] if held else [])
            + ([f"agent(s) {', '.join(sorted(plan.refused))} refused (see above); the others "
                "ran"] if plan.refused else [])
            + ([f"{len(plan.unfit)} task input(s) too large for an agent's cost limit (see "
                "above); the others ran"] if plan.unfit else [])))
    return None


def _plan_action(name: str) -> TaskFailed | None:
    for line in exploit_stage_lines(name):  # the gold gate's sandbox cost, said before it runs
        say(line)
    try:
        plan = ctx.eval_plan(name)
    except EvalError as exc:
        return TaskFailed(str(exc))
    store = ctx.store()
    todo = [pa for part, state in EvalState.parts(store, plan) for pa in part
            if not state.done(pa)]
    per_agent: dict[str, list[Any]] = {}
    for pa in todo:
        per_agent.setdefault(pa.agent.name, []).append(pa)
    total = 0.0
    for n, pa in enumerate(todo):
        if n == _LISTED:
            say(f"... and {len(todo) - n} more (each agent's count and cost below)")
            break
        cost, how = estimate_cost(store, pa.agent)
        say(f"would run {pa.label:60} ~${cost:.4f} ({how})")
    for agent, pas in sorted(per_agent.items()):
        cost, how = estimate_cost(store, pas[0].agent)
        total += cost * len(pas)
        say(f"agent {agent}: {len(pas)} attempt(s) would run, ~${cost * len(pas):.4f} "
            f"(~${cost:.4f} each: {how})")
    for line in explain_stale(store, plan, todo):  # why, before anything is paid for
        say(f"why: {line}")
    say(f"{len(todo)} of {len(plan.attempts)} attempts would run; estimated cost ${total:.4f}"
        + (f"; budget per run ${plan.spec.budget_usd}" if plan.spec.budget_usd else ""))
    for line in explain_results(store, plan):
        say(f"then: {line}")
    for agent, why in sorted(plan.refused.items()):
        say(f"refused: agent {agent!r}: {why}")
    for pair, why in sorted(plan.unfit.items()):
        say(f"refused: {pair}: {why}")
    if plan.refused or plan.unfit:
        return TaskFailed(f"{len(plan.refused) + len(plan.unfit)} refused (see above)")
    return None


# Why the simulated endpoint could not start in this invocation ("" when it did or was not
# needed): its attempts are not started, so no error note counts against their retry budget.
_sim_failed = ""


def _ensure_simulated(plan: EvalPlan) -> None:
    """Start one simulated endpoint in the parent; forked workers inherit its address."""
    global _sim_failed
    if settings.simulated_url or not any(a.simulated for a in plan.agents.values()):
        return
    config = settings.simulated_config
    try:
        endpoint = start_simulated_endpoint(ctx.tasks_root(),
                                            None if config is None else str(config))
    except EvalError as exc:  # a bad config: one line here, never a traceback in doit's load
        _sim_failed = str(exc)
        say(f"error: the simulated endpoint could not start: {exc}", err=True)
        return
    atexit.register(endpoint.close)
    os.environ[_SIM_ENV] = endpoint.base_url


def eval_tasks(names: list[str]) -> Iterator[dict[str, Any]]:
    """Yield attempt, grade, summary and plan targets for every set with an evals/<set>.yaml.

    Targets are made only for work left to do, and only for a command that can run them (one
    that names `eval:`, `attempt:` or `evalgrade:` targets): what is done is counted from the
    index in one pass (`EvalState`), so a no-op eval over 100,000 stored attempts holds no doit
    task for any of them, and `doit report` or `doit lock` plans nothing at all."""
    store = ctx.store()
    os.environ.setdefault(_INVOCATION_ENV, str(os.getpid()))
    protect_harness()  # this process and its forked workers hold the model's key in environ
    yield {"basename": "attempt", "name": None,
           "doc": "one attempt (<set>/<agent>/<task>/<sample>); run by eval:<set>"}
    yield {"basename": "evalgrade", "name": None,
           "doc": "the grade and policy checks of one attempt; run by eval:<set>"}
    asked = ctx.asked("eval")
    wanted = ctx.named(_BASENAMES)
    for name in sorted({*names, *asked}):
        if not (settings.evals_root / f"{name}.yaml").is_file() and name not in asked:
            continue
        summary: dict[str, Any] = {
            "basename": "eval", "name": name, "actions": [(_summary_action, [name])],
            "uptodate": [False], "verbosity": 2, "task_dep": [],
            "doc": f"run every configured agent on the valid tasks of {name}, grade, summarise"}
        if not wanted:
            yield summary  # this command runs no attempt: nothing to plan
            continue
        try:
            plan = ctx.eval_plan(name)
        except Exception:  # a bad agent or eval file (or a bug) fails this eval alone
            yield summary  # its action reports why
            continue
        pending = False
        try:
            for target in _targets(name, plan, store, wanted, summary):
                pending = pending or (target["basename"] == "attempt"
                                      and not target["uptodate"][0])
                yield target
        except EvalError as exc:  # the store cannot be read (its disk full): this eval alone
            summary["actions"] = [(_failed, [str(exc)])]
            yield summary
            continue
        if pending and any(a.startswith(("eval", "attempt")) for a in sys.argv[1:]):
            _ensure_simulated(plan)
        yield summary


def _failed(why: str) -> TaskFailed:
    return TaskFailed(why)


def _targets(name: str, plan: EvalPlan, store: Store, wanted: set[str],
             summary: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """The attempt and grade targets of the work left in `plan`, each grade a dependency of
    its eval's `summary`; what is done is counted from the index in one pass."""
    for part, state in EvalState.parts(store, plan):  # a remote's records land first
        for pa in part:
            base = f"{name}/{pa.label}"
            stored = pa.key in state.attempts
            done = stored or state.quarantined(pa.key)
            graded = stored and state.result(pa) is not None
            if done and (graded or not stored) and not wanted & {
                    f"attempt:{base}", f"evalgrade:{base}"}:
                continue  # nothing to run or grade: no target (naming it makes one)
            yield {"basename": "attempt", "name": base, "uptodate": [done],
                   "actions": [(_attempt_action, [name, pa.label])], "verbosity": 2}
            yield {"basename": "evalgrade", "name": base, "uptodate": [graded or (
                   done and not stored)], "task_dep": [f"attempt:{base}"],
                   "actions": [(_grade_action, [name, pa.label])], "verbosity": 2}
            summary["task_dep"].append(f"evalgrade:{base}")


def plan_tasks(names: list[str]) -> Iterator[dict[str, Any]]:
    asked = ctx.asked("plan")
    for name in sorted({*names, *asked}):
        if (settings.evals_root / f"{name}.yaml").is_file() or name in asked:
            yield {"name": name, "actions": [(_plan_action, [name])], "uptodate": [False],
                   "verbosity": 2,
                   "doc": f"list the attempts of {name} that would run and their estimated cost"}
