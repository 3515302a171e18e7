"""The comparability guard, as a pure function over result rows and a lock."""

from __future__ import annotations

from typing import Any

from evaluator.lock import Lock, TaskPin
from evaluator.reports import comparability

PIN = TaskPin("img:1", f"img@sha256:{'0' * 64}", "HEAD", "a" * 40, {}, "h", "cmd {junit_xml}")
LOCK = Lock(task_set="mini", set_file="f", tasks={"t1": PIN, "t2": PIN, "t3": PIN})


def row(task: str, resolved: bool = True, **over: Any) -> dict[str, Any]:
    return {"task_set": "mini", "task_id": task, "sample_idx": 0, "agent_identity": "id",
            "status": "resolved" if resolved else "failed", "resolved": resolved,
            "lock_version": LOCK.version, "grader_version": "g1", **over}


def test_comparable_pairs_shared_tasks() -> None:
    c = comparability([row("t1"), row("t2")], [row("t1", False), row("t2")], LOCK)
    assert c.comparable and c.tasks == ("t1", "t2")
    assert c.a == {"t1": [1], "t2": [1]} and c.b == {"t1": [0], "t2": [1]}


def test_refuses_other_task_set() -> None:
    c = comparability([row("t1")], [row("t1", task_set="other")], LOCK)
    assert not c.comparable
    assert "task set differs: mini (A) vs other (B)" in c.reasons


def test_refuses_other_lock_version() -> None:
    c = comparability([row("t1")], [row("t1", lock_version="def")], LOCK, names=("x", "y"))
    assert f"lock version differs: {LOCK.version} (x) vs def (y)" in c.reasons


def test_refuses_when_both_share_an_old_lock() -> None:
    old = [row("t1", lock_version="abc")]
    (reason,) = comparability(old, old, LOCK).reasons
    assert reason.startswith("not the same lock") and "abc" in reason and LOCK.version in reason


def test_refuses_other_grader_version() -> None:
    c = comparability([row("t1")], [row("t1", grader_version="g2")], LOCK)
    assert c.reasons == ("grader version differs: g1 (A) vs g2 (B)",)


def test_refuses_without_common_tasks() -> None:
    c = comparability([row("t1")], [row("t2")], LOCK)
    assert c.reasons == ("no common tasks: no valid task has graded results from both A and B",)
    assert c.left_out == {"t1": "no graded result from B", "t2": "no graded result from A",
                          "t3": "no graded result from A; no graded result from B"}


def test_names_every_reason_at_once() -> None:
    c = comparability([row("t1")], [row("t2", lock_version="v", grader_version="g9")], LOCK)
    assert [r.split(":")[0] for r in c.reasons] == [
        "lock version differs", "grader version differs", "no common tasks"]
    assert not c.a and not c.b  # a refusal carries no outcomes to compute with


def test_missing_and_invalid_tasks_are_left_out_and_listed() -> None:
    a = [row("t1"), row("t2"), row("t3")]
    b = [row("t1"), {**row("t2"), "status": "error"}, row("t3")]
    c = comparability(a, b, LOCK, valid_tasks={"t1", "t2"})
    assert c.comparable and c.tasks == ("t1",)
    assert c.left_out == {"t2": "no graded result from B (error)",
                          "t3": "not a valid task under the gold gate"}


def test_refuses_mixed_agent_versions() -> None:
    c = comparability([row("t1"), row("t2", agent_identity="other")], [row("t1")], LOCK)
    assert c.reasons == ("A mixes agent versions: id, other",)
