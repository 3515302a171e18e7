"""The MLflow export against a real server: one run per agent, what each holds, and a second
export updating the same runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaluator.__main__ import main
from evaluator.errors import InfraError
from evaluator.tracking import EXPORT_TAG, export_mlflow, run_metrics
from tests.reports._world import World


@pytest.fixture
def world(tmp_path: Path) -> World:
    w = World(tmp_path / "w", ("t1", "t2"), samples=2)
    w.outcomes("base", {"t1": "RF", "t2": "FF"})
    w.outcomes("cand", {"t1": "RR", "t2": "RF"})
    return w


def _client(url: str):  # type: ignore[no-untyped-def]
    from mlflow.tracking import MlflowClient

    return MlflowClient(tracking_uri=url)


def test_each_agent_is_one_run_with_params_metrics_and_the_report(
        mlflow_server: str, world: World, tmp_path: Path) -> None:
    runs = export_mlflow("mini", mlflow_server, experiment="first", **world.kwargs)
    assert sorted(r.agent for r in runs) == ["base", "cand"] and all(r.created for r in runs)
    cand = _client(mlflow_server).get_run(next(r.run_id for r in runs if r.agent == "cand"))
    assert cand.data.params["agent_identity"] == world.plan().agents["cand"].identity
    assert cand.data.params["samples"] == "2" and cand.data.params["lock_version"] == \
        world.lock.version
    assert cand.data.metrics["resolve_rate"] == 0.75 and cand.data.metrics["pass_at_2"] == 1.0
    assert {"rate_lo", "rate_hi", "cost_usd", "cost_per_solved_usd"} <= set(cand.data.metrics)
    arts = {a.path for a in _client(mlflow_server).list_artifacts(cand.info.run_id, "report")}
    assert {"report/summary.json", "report/report.md", "report/index.html"} <= arts
    got = _client(mlflow_server).download_artifacts(cand.info.run_id, "report/summary.json",
                                                    str(tmp_path))
    assert json.loads(Path(got).read_text())["task_set"] == "mini"


def test_exporting_again_updates_the_same_runs(mlflow_server: str, world: World,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    first = export_mlflow("mini", mlflow_server, experiment="again", **world.kwargs)
    assert main(["export", "mlflow", "--set", "mini", "--tracking-uri", mlflow_server,
                 "--experiment", "again", "--store", str(world.store.root),
                 "--tasks", str(world.tasks_root), "--lock-dir", str(world.lock_dir),
                 "--evals", str(world.evals_root), "--agents", str(world.agents_root)]) == 0
    out = capsys.readouterr().out
    assert out.count("updated run") == 2 and "created" not in out
    client = _client(mlflow_server)
    exp = client.get_experiment_by_name("again")
    runs = client.search_runs([exp.experiment_id])
    assert sorted(r.info.run_id for r in runs) == sorted(r.run_id for r in first)
    assert {r.data.tags[EXPORT_TAG] for r in runs} == {r.export_id for r in first}


def test_new_results_update_the_metrics_of_the_same_run(mlflow_server: str, tmp_path: Path) -> None:
    w = World(tmp_path / "w", ("t1", "t2"), agents=("base",))
    w.outcome("base", "t1", 0, "resolved")
    (run,) = export_mlflow("mini", mlflow_server, experiment="grows", **w.kwargs)
    w.outcome("base", "t2", 0, "failed")
    (again,) = export_mlflow("mini", mlflow_server, experiment="grows", **w.kwargs)
    assert again.run_id == run.run_id and not again.created
    client = _client(mlflow_server)
    assert client.get_run(run.run_id).data.metrics["resolve_rate"] == 0.5
    assert [m.value for m in client.get_metric_history(run.run_id, "resolve_rate")] == [1.0, 0.5]


def test_an_unreachable_server_is_named(world: World) -> None:
    with pytest.raises(InfraError, match="no MLflow tracking server answers at http://127.0.0.1:9"):
        export_mlflow("mini", "http://127.0.0.1:9", **world.kwargs)


def test_metrics_leave_out_unknowns_and_rename_pass_at_k() -> None:
    row = {"resolve_rate": None, "cost_usd": 0.5, "pass@1": 0.25, "resolved": 0}
    assert run_metrics(row) == {"cost_usd": 0.5, "pass_at_1": 0.25, "resolved": 0.0}


def test_a_missing_lock_is_refused_naming_it(mlflow_server: str, world: World,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    (world.lock_dir / "mini.lock").unlink()
    assert main(["export", "mlflow", "--set", "mini", "--tracking-uri", mlflow_server,
                 "--store", str(world.store.root), "--tasks", str(world.tasks_root),
                 "--lock-dir", str(world.lock_dir), "--evals", str(world.evals_root),
                 "--agents", str(world.agents_root)]) == 2
    err = capsys.readouterr().err
    assert "refused: StaleLockError" in err and "mini.lock is missing: run `doit lock:mini`" in err
