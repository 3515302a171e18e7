"""Subjects: an agent and a predictions file are both rows of one kind for the leaderboard."""

from __future__ import annotations

from pathlib import Path

from evaluator.agents import load_agent
from evaluator.store import Store
from evaluator.subjects import (
    AGENT,
    PREDICTIONS,
    ManifestRecord,
    agent_subject,
    prediction_subjects,
)

REPO = Path(__file__).resolve().parents[2]


def manifest(store: Store, subject: str, ident: str, graded_at: float, *,
             task_set: str = "demo") -> None:
    store.write(ident, ManifestRecord(task_set=task_set, subject=subject, identity=ident,
                                      graded_at=graded_at))


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
