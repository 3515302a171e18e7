"""The API's leaderboards and comparisons come from rows gathered once and kept while nothing
they stand on changes: a new record, a task file or an agent edit makes the next answer new."""

from __future__ import annotations

from pathlib import Path

import pytest

from evaluator.errors import StaleLockError
from evaluator.reports import ReportService, _api, compare, leaderboard_rows
from tests.reports._world import World


@pytest.fixture
def loads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The task sets whose rows were gathered, one entry per pass over the store."""
    seen: list[str] = []
    real = _api._load

    def counted(task_set: str, sources: object) -> object:
        seen.append(task_set)
        return real(task_set, sources)  # type: ignore[arg-type]

    monkeypatch.setattr(_api, "_load", counted)
    return seen


def test_the_rows_are_gathered_once_while_nothing_changes(tmp_path: Path,
                                                          loads: list[str]) -> None:
    w = World(tmp_path, samples=2)
    w.outcomes("base", {"t1": "RF", "t2": "FF", "t3": "RR"})
    w.outcomes("cand", {"t1": "RR", "t2": "RF", "t3": "RR"})
    service = ReportService()
    first = service.leaderboard_rows("mini", **w.kwargs)
    assert first == leaderboard_rows("mini", **w.kwargs)
    assert service.leaderboard_rows("mini", **w.kwargs) == first
    assert service.site("mini", **w.kwargs).page("grid.html")
    assert loads.count("mini") == 2  # the service once, the plain function once


def test_a_new_record_or_an_edited_input_is_seen_by_the_next_answer(tmp_path: Path) -> None:
    w = World(tmp_path, samples=1)
    w.outcomes("base", {"t1": "R", "t2": "F"})
    service = ReportService()
    rows = {r["agent"]: r for r in service.leaderboard_rows("mini", **w.kwargs)}
    assert rows["base"]["resolved"] == 1 and rows["cand"]["resolved"] == 0
    w.outcome("cand", "t1", 0, "resolved")
    rows = {r["agent"]: r for r in service.leaderboard_rows("mini", **w.kwargs)}
    assert rows["cand"]["resolved"] == 1
    problem = w.tasks_root / "mini" / "t2" / "problem.md"
    problem.write_text(problem.read_text() + "edited after the lock\n")
    with pytest.raises(StaleLockError):
        service.leaderboard_rows("mini", **w.kwargs)
    refused = service.compare("mini", "base", "cand", **w.kwargs)
    assert refused["refused"] and any("problem.md changed" in r for r in refused["reasons"])


def test_a_comparison_served_twice_is_one_look_and_the_same_answer(tmp_path: Path) -> None:
    w = World(tmp_path, samples=1)
    w.outcomes("base", {"t1": "R", "t2": "F", "t3": "F"})
    w.outcomes("cand", {"t1": "R", "t2": "R", "t3": "R"})
    service = ReportService()
    first = service.compare("mini", "base", "cand", **w.kwargs)
    assert not first["refused"] and first["looks"]["count"] == 1
    assert service.compare("mini", "base", "cand", **w.kwargs) == first
    plain = compare("mini", "base", "cand", **w.kwargs)  # the same data: the same look
    assert plain["looks"] == first["looks"] and plain["delta"] == first["delta"]


def test_the_task_folder_is_looked_at_again_only_when_something_under_it_changed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from evaluator.reports import _served

    w = World(tmp_path, samples=1)
    w.outcomes("base", {"t1": "R", "t2": "F"})
    walked: list[Path] = []
    real = _served._stat_tree

    def counted(root: Path, out: list[tuple[str, int, int, int]]) -> None:
        walked.append(root)
        real(root, out)

    monkeypatch.setattr(_served, "_stat_tree", counted)
    service = ReportService()
    first = service.leaderboard_rows("mini", **w.kwargs)
    tasks = w.tasks_root / "mini"
    assert walked.count(tasks) == 1
    for _ in range(3):
        assert service.leaderboard_rows("mini", **w.kwargs) == first
    assert walked.count(tasks) == 1  # the agents, lock and configs are looked at every time
    spec = tasks / "t1" / "task.yaml"
    spec.write_text(spec.read_text() + "\n")  # an edit, the lock not made again
    with pytest.raises(StaleLockError):
        service.leaderboard_rows("mini", **w.kwargs)
    assert walked.count(tasks) == 2
