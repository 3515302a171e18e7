"""Each agent of a report as one MLflow run: params (who and under which pins), metrics (rate,
interval, cost, pass@k), the report as artifacts.

Idempotent: a run carries the tag `evaluator.export_id`, a hash of everything its params say,
so exporting again finds it and updates it (changed metrics get a new point, artifacts are
replaced) instead of adding a run. Another agent version, lock, grader or sample count is
another evaluation, hence another run (MLflow params cannot change once logged).
"""

from __future__ import annotations

import contextlib
import io
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from evaluator.errors import InfraError
from evaluator.hashing import hash_json
from evaluator.reports import render_report

EXPORT_TAG = "evaluator.export_id"
_COUNTS = ("resolved", "failed", "policy", "errors", "attempts", "planned", "tasks")


@dataclass(frozen=True)
class ExportedRun:
    agent: str
    run_id: str
    export_id: str
    created: bool  # False: an earlier export's run, updated


def run_params(summary: Mapping[str, Any], row: Mapping[str, Any]) -> dict[str, str]:
    """What identifies the evaluation: the agent version, the pins, the grader, the samples."""
    return {"task_set": str(summary["task_set"]), "agent": str(row["agent"]),
            "agent_identity": str(row["identity"]), "lock_version": str(summary["lock_version"]),
            "grader_version": str(summary["grader_version"]), "samples": str(summary["samples"]),
            "simulated": str(bool(row["simulated"])).lower(), "alpha": str(summary["alpha"])}


def export_id(summary: Mapping[str, Any], row: Mapping[str, Any]) -> str:
    return hash_json(run_params(summary, row))[:32]


def run_metrics(row: Mapping[str, Any]) -> dict[str, float]:
    """Rate, interval bounds, cost, cost per solved task, pass@k and counts; unknowns left out
    (MLflow has no null; a missing metric is honest, a 0 would not be)."""
    named = {"resolve_rate": row.get("resolve_rate"), "rate_lo": row.get("rate_lo"),
             "rate_hi": row.get("rate_hi"), "cost_usd": row.get("cost_usd"),
             "cost_per_solved_usd": row.get("cost_per_solved_usd"),
             **{c: row.get(c) for c in _COUNTS}}
    # MLflow metric names allow no '@'.
    named.update({k.replace("@", "_at_"): v for k, v in row.items() if k.startswith("pass@")})
    return {k: float(v) for k, v in named.items() if isinstance(v, int | float)}


def export_mlflow(task_set: str, tracking_uri: str, *, experiment: str | None = None,
                  **sources: Any) -> list[ExportedRun]:
    """Log each agent of `task_set`'s report as a run of `experiment` (default
    `evaluator/<set>`) on the tracking server; `sources` are the reports' keyword arguments.

    Rendering the report counts as a look at its comparisons, like any report."""
    _check_reachable(tracking_uri)
    with tempfile.TemporaryDirectory(prefix="evaluator-mlflow-") as tmp:
        summary, paths = render_report(task_set, out_root=tmp, **sources)
        try:
            return _log_all(tracking_uri, experiment or f"evaluator/{task_set}", summary, paths)
        except InfraError:
            raise
        except Exception as exc:  # mlflow raises its own and requests' errors, untyped here
            raise InfraError(f"MLflow at {tracking_uri} refused the export: "
                             f"{type(exc).__name__}: {exc}") from exc


def _log_all(uri: str, experiment: str, summary: dict[str, Any],
             paths: dict[str, Path]) -> list[ExportedRun]:
    from mlflow.tracking import MlflowClient  # an optional extra (`make venv-mlflow`)

    client = MlflowClient(tracking_uri=uri)
    exp_id = _experiment(client, experiment)
    return [_log_one(client, exp_id, summary, row, paths) for row in summary["leaderboard"]]


def _experiment(client: Any, name: str) -> str:
    found = client.get_experiment_by_name(name)
    if found is not None:
        if found.lifecycle_stage != "active":
            raise InfraError(f"MLflow experiment {name!r} is deleted; restore it "
                             f"(mlflow experiments restore) or pass --experiment")
        return str(found.experiment_id)
    try:
        return str(client.create_experiment(name))
    except Exception:
        again = client.get_experiment_by_name(name)  # another exporter created it meanwhile
        if again is None:
            raise
        return str(again.experiment_id)


def _log_one(client: Any, exp_id: str, summary: dict[str, Any], row: dict[str, Any],
             paths: dict[str, Path]) -> ExportedRun:
    from mlflow.entities import Metric, Param, RunTag

    eid = export_id(summary, row)
    found = client.search_runs([exp_id], filter_string=f"tags.`{EXPORT_TAG}` = '{eid}'",
                               max_results=2)
    tags = {EXPORT_TAG: eid, "evaluator.task_set": summary["task_set"],
            "evaluator.agent": row["agent"], "mlflow.runName": str(row["agent"])}
    if found:
        run, created = found[0], False
        old_metrics = dict(run.data.metrics)
        params = [] if run.data.params else _params(summary, row)
    else:
        run, created = client.create_run(exp_id, tags=tags, run_name=str(row["agent"])), True
        old_metrics, params = {}, _params(summary, row)
    run_id = run.info.run_id
    now = int(time.time() * 1000)
    metrics = [Metric(k, v, now, 0) for k, v in sorted(run_metrics(row).items())
               if old_metrics.get(k) != v]
    client.log_batch(run_id, metrics=metrics, params=[Param(k, v) for k, v in params],
                     tags=[RunTag(k, str(v)) for k, v in sorted(tags.items())])
    for path in paths.values():
        client.log_artifact(run_id, str(path), artifact_path="report")
    with contextlib.redirect_stdout(io.StringIO()):  # mlflow prints its links; the CLI says its own
        client.set_terminated(run_id, "FINISHED")
    return ExportedRun(str(row["agent"]), run_id, eid, created)


def _params(summary: dict[str, Any], row: dict[str, Any]) -> list[tuple[str, str]]:
    return sorted(run_params(summary, row).items())


def _check_reachable(uri: str) -> None:
    """Fail in seconds, naming the server, where MLflow's client would retry for minutes."""
    if not uri.startswith(("http://", "https://")):
        return

    try:
        httpx.get(uri.rstrip("/") + "/health", timeout=10).raise_for_status()
    except httpx.HTTPError as exc:
        raise InfraError(f"no MLflow tracking server answers at {uri} ({exc}); start one "
                         f"(mlflow server --host 127.0.0.1 --port 5000 ...) or fix "
                         f"--tracking-uri") from exc
