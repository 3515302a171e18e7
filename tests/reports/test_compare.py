"""`compare`: statistics behind the guard, for current agents and versions found in the store."""

from __future__ import annotations

from pathlib import Path

import pytest

from evaluator.reports import agent_identities, compare, report_summary
from tests.reports._world import World

TASKS = ("t1", "t2", "t3", "t4", "t5", "t6", "t7")
NUMBERS = ("delta", "lo", "hi", "p_value", "verdict", "mean_a", "mean_b", "tasks_needed")


def test_mcnemar_p_value_matches_hand_computation(tmp_path: Path) -> None:
    w = World(tmp_path, TASKS)
    w.outcomes("base", {t: "R" if t == "t7" else "F" for t in TASKS})
    w.outcomes("cand", {t: "F" if t == "t7" else "R" for t in TASKS})
    c = compare("mini", "base", "cand", **w.kwargs)
    # 1 task only A solved, 6 only B: two-sided binomial 2 * (C(7,0) + C(7,1)) / 2^7 = 0.125
    assert (c["test"], c["a_only"], c["b_only"]) == ("mcnemar_exact", 1, 6)
    assert c["p_value"] == pytest.approx(0.125) and c["delta"] == pytest.approx(5 / 7, abs=1e-6)


def test_same_query_same_interval_and_missing_tasks_listed(tmp_path: Path) -> None:
    w = World(tmp_path, TASKS)
    w.outcomes("base", {t: "F" for t in TASKS})
    w.outcomes("cand", {**{t: "R" for t in TASKS[:5]}, "t6": "E", "t7": "-"})
    c1, c2 = (compare("mini", "base", "cand", **w.kwargs) for _ in range(2))
    assert c1 == c2 and c1["n_tasks"] == 5 and not c1["refused"]
    assert c1["left_out"] == {"t6": "no graded result from cand (error)",
                              "t7": "no graded result from cand (pending)"}


def test_refusal_names_reasons_and_carries_no_numbers(tmp_path: Path) -> None:
    w = World(tmp_path, ("t1", "t2"))
    w.outcomes("base", {"t1": "R", "t2": "E"})
    w.outcomes("cand", {"t1": "-", "t2": "R"})
    c = compare("mini", "base", "cand", **w.kwargs)
    assert c["refused"] and c["reasons"] == [
        "no common tasks: no valid task has graded results from both base and cand"]
    assert not set(NUMBERS) & set(c)


def test_an_older_agent_version_is_found_by_identity(tmp_path: Path) -> None:
    w = World(tmp_path, ("t1", "t2"))
    w.outcomes("cand", {"t1": "R", "t2": "R"})
    old = w.plan().agents["cand"].identity
    (w.agents_root / "cand" / "system.j2").write_text("A new prompt.\n")  # a new version
    w.add_agent("base")
    w.outcomes("base", {"t1": "F", "t2": "F"})
    assert list(agent_identities(w.store, "mini", "cand")) == [old]
    c = compare("mini", "base", "cand", identity_b=old, **w.kwargs)
    assert not c["refused"] and c["b"] == {"agent": "cand", "identity": old,
                                           "simulated": True, "source": "store"}


def test_a_result_that_does_not_parse_is_no_version_of_the_agent(tmp_path: Path) -> None:
    w = World(tmp_path, ("t1",))
    w.outcomes("cand", {"t1": "R"})
    w.store.put("result", "0" * 64, {"task_set": "mini", "subject": "cand",
                                     "agent_identity": "foreign"})  # no status, no grade...
    assert list(agent_identities(w.store, "mini", "cand")) == [w.plan().agents["cand"].identity]


def new_lock(w: World, task: str, file: str, text: str) -> str:
    """Change a file of `task`, lock again and decide the gate; returns the old lock version."""
    old = w.lock.version
    (w.tasks_root / "mini" / task / file).write_text(text)
    w.lock = w.write_lock()
    w.write_verdicts({})
    w._plan = None
    return old


def test_results_with_unchanged_pins_carry_over_to_a_new_lock(tmp_path: Path) -> None:
    w = World(tmp_path, ("t1", "t2"))
    w.outcomes("cand", {"t1": "R", "t2": "R"})
    old_lock = new_lock(w, "t1", "NOTES.md", "not an input of any attempt or grade\n")
    w.outcomes("base", {"t1": "F", "t2": "F"})
    c = compare("mini", "base", "cand", **w.kwargs)
    assert not c["refused"] and c["n_tasks"] == 2 and c["lock_version"] == w.lock.version
    notes = report_summary("mini", **w.kwargs)["notes"]
    assert any(f"made under lock version {old_lock}" in n for n in notes)


def test_an_older_version_under_another_lock_is_refused(tmp_path: Path) -> None:
    w = World(tmp_path, ("t1", "t2"))
    w.outcomes("cand", {"t1": "R", "t2": "R"})
    old = w.plan().agents["cand"].identity
    old_lock = new_lock(w, "t1", "hidden/tests/test_hidden.py", "def test_add():\n    pass\n")
    w.outcomes("base", {"t1": "F", "t2": "F"})
    c = compare("mini", "base", "cand", identity_b=old, **w.kwargs)
    assert c["refused"] and c["reasons"] == [
        f"lock version differs: {w.lock.version} (base) vs {old_lock} (cand)"]
    assert not set(NUMBERS) & set(c)
