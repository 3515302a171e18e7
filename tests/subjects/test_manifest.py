"""Subjects: an agent and a predictions file are both rows of one kind for the leaderboard."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from evaluator.agents import load_agent
from evaluator.gold import verdicts
from evaluator.store import Store
from evaluator.subjects import (
    AGENT,
    PREDICTIONS,
    ManifestRecord,
    agent_subject,
    planned_of,
    prediction_subjects,
    subject_cells,
)
from evaluator.taskset import load_task_set
from tests.records import result_record
from tests.reports._world import SET, World

REPO = Path(__file__).resolve().parents[2]


def manifest(store: Store, subject: str, ident: str, graded_at: float, *,
             task_set: str = "demo", entries: list[dict[str, Any]] | None = None) -> None:
    store.write(ident, ManifestRecord(task_set=task_set, subject=subject, identity=ident,
                                      entries=entries or [], graded_at=graded_at))


def test_an_agent_is_a_subject_with_its_identity() -> None:
    agent = load_agent("reference-weak", REPO / "agents")
    subject = agent_subject(agent)
    assert (subject.name, subject.identity, subject.kind) == (agent.name, agent.identity, AGENT)
    assert subject.simulated == agent.simulated and subject.entries == ()


def test_a_predictions_subject_is_its_latest_file_on_the_set(tmp_path: Path) -> None:
    store = Store(tmp_path / "store")
    manifest(store, "model-x", "a" * 64, graded_at=1.0)
    manifest(store, "model-x", "b" * 64, graded_at=2.0)
    manifest(store, "model-y", "c" * 64, graded_at=1.0, task_set="other")
    found = prediction_subjects(store, "demo")
    assert list(found) == ["model-x"]
    assert (found["model-x"].identity, found["model-x"].kind) == ("b" * 64, PREDICTIONS)


def test_a_graded_prediction_is_a_cell_read_from_its_result_record(tmp_path: Path) -> None:
    w = World(tmp_path, ("t1", "t2"), agents=("base",))
    entry = {"instance_id": "mini__t1", "task_id": "t1", "patch": w.store.put_blob(b"diff"),
             "patch_is_none": False}
    manifest(w.store, "model-x", "d" * 64, graded_at=1.0, task_set=SET, entries=[entry])
    subject = prediction_subjects(w.store, SET)["model-x"]
    ts = load_task_set(SET, w.tasks_root)
    (pp,) = planned_of(w.store, ts, w.lock, subject)
    w.store.write(pp.result_key, result_record(True).model_copy(update={"later": "unknown"}))
    cells = subject_cells(w.store, ts, w.lock, verdicts(w.store, ts, w.lock), subject, "v")
    assert [(c["task_id"], c["status"], c["resolved"], c["grade"]) for c in cells] == [
        ("t1", "resolved", True, "g" * 64), ("t2", "failed", False, None)]
    assert cells[0]["result"] == pp.result_key and cells[0]["recorded_lock_version"] == "lock"
    stored = w.store.get("predictions", "d" * 64)
    assert stored is not None and stored["entries"] == [entry]  # typed, stored as it was
