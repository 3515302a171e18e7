"""Rendered reports: reproducible bytes, simulated marks, the doit target, and refusals."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from doit.exceptions import TaskFailed

from evaluator.errors import StaleLockError
from evaluator.reports import render_report, report_tasks
from tests.reports._world import World


@pytest.fixture
def world(tmp_path: Path) -> World:
    w = World(tmp_path, ("t1", "t2", "t3"), samples=2, verdicts={"t3": "broken-gold"})
    w.outcomes("base", {"t1": "RF", "t2": "FE"})
    w.outcomes("cand", {"t1": "RR", "t2": "RP"})
    return w


def test_rerendering_gives_identical_bytes(world: World, tmp_path: Path) -> None:
    _, first = render_report("mini", out_root=tmp_path / "a", **world.kwargs)
    _, second = render_report("mini", out_root=tmp_path / "b", **world.kwargs)
    assert sorted(first) == ["forest.png", "index.html", "outcomes.png", "report.md",
                             "summary.json"]
    for name in first:
        assert first[name].read_bytes() == second[name].read_bytes(), name


def test_simulated_agents_are_marked_everywhere(world: World, tmp_path: Path) -> None:
    summary, files = render_report("mini", out_root=tmp_path, **world.kwargs)
    assert all(r["simulated"] for r in json.loads(files["summary.json"].read_text())["leaderboard"])
    assert "| cand (simulated) |" in files["report.md"].read_text()
    assert '<span class="tag">simulated</span>' in files["index.html"].read_text()
    assert "broken-gold" in files["report.md"].read_text()  # the excluded task, with its verdict


def test_doit_target_prints_leaderboard_comparison_and_path(
        world: World, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    for var, path in (("EVAL_STORE", world.store.root), ("EVAL_TASKS", world.tasks_root),
                      ("EVAL_LOCK_DIR", world.lock_dir), ("EVAL_EVALS", world.evals_root),
                      ("EVAL_AGENTS", world.agents_root), ("EVAL_REPORTS", tmp_path / "out")):
        monkeypatch.setenv(var, str(path))
    (task,) = report_tasks(["mini", "no-eval-config"])
    func, args = task["actions"][0]
    assert task["name"] == "mini" and task["uptodate"] == [False] and func(*args) is None
    out = capsys.readouterr().out
    assert "cand (simulated)" in out and "vs base (simulated)" in out
    assert str(tmp_path / "out" / "mini" / "index.html") in out


def test_a_stale_lock_is_refused_naming_the_file(world: World, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    (world.tasks_root / "mini" / "t2" / "problem.md").write_text("edited after locking\n")
    with pytest.raises(StaleLockError, match="is stale") as exc:
        render_report("mini", out_root=tmp_path, **world.kwargs)
    assert any("problem.md changed since the lock" in p for p in exc.value.problems)
    monkeypatch.setenv("EVAL_STORE", str(world.store.root))
    monkeypatch.setenv("EVAL_TASKS", str(world.tasks_root))
    monkeypatch.setenv("EVAL_LOCK_DIR", str(world.lock_dir))
    monkeypatch.setenv("EVAL_EVALS", str(world.evals_root))
    func, args = next(report_tasks(["mini"]))["actions"][0]
    failed = func(*args)
    assert isinstance(failed, TaskFailed) and "t2': problem.md changed" in str(failed)


def test_a_missing_lock_is_refused_naming_the_file(world: World, tmp_path: Path) -> None:
    (world.lock_dir / "mini.lock").unlink()
    with pytest.raises(StaleLockError, match="no lock") as exc:
        render_report("mini", out_root=tmp_path, **world.kwargs)
    assert exc.value.problems == [f"{world.lock_dir / 'mini.lock'} is missing: run "
                                  f"`doit lock:mini`"]


def test_a_result_from_another_grader_is_refused(tmp_path: Path) -> None:
    w = World(tmp_path, ("t1",), agents=("base",))
    w.outcome("base", "t1", 0, "resolved", grader_version="0ld")
    with pytest.raises(StaleLockError) as exc:
        render_report("mini", out_root=tmp_path, **w.kwargs)
    (problem,) = exc.value.problems
    assert "grader version differs: graded by 0ld" in problem and "doit eval:mini" in problem


def test_a_result_graded_in_another_image_is_refused(tmp_path: Path) -> None:
    w = World(tmp_path, ("t1",), agents=("base",))
    w.outcome("base", "t1", 0, "failed")
    grade = next(iter(w.store.query("grade")))
    w.store.record_path("grade", grade["key"]).write_text(json.dumps({**grade, "image": "x"}))
    w.store.reindex()  # reports read the index: a hand edit counts once it is indexed again
    with pytest.raises(StaleLockError) as exc:
        render_report("mini", out_root=tmp_path, **w.kwargs)
    assert any("image differs: graded in x, the lock pins" in p for p in exc.value.problems)
