"""Early cutoff, as a report shows it (issue 32): after a grading bump the results are decided
again from new grades, never from new attempts; those whose outcome did not change keep it in
the report, and the report says how many were decided again and which outcome moved."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from evaluator.reports import leaderboard_rows, report_summary
from evaluator.version import CONTRACTS, harness_version
from tests.reports._world import World


def test_a_regrade_keeps_unchanged_outcomes_and_names_the_ones_that_moved(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    w = World(tmp_path, ("t1", "t2"), agents=("base", "cand"))
    w.outcomes("base", {"t1": "R", "t2": "F"})
    w.outcomes("cand", {"t1": "R", "t2": "R"})
    before = {r["agent"]: r for r in leaderboard_rows("mini", **w.kwargs)}
    grader = CONTRACTS["grader"]
    monkeypatch.setitem(CONTRACTS, "grader",
                        dataclasses.replace(grader, log=(*grader.log, "a test change")))
    w.grader = harness_version("grader")
    w.write_verdicts({})  # the gold gate, decided again under the new grader
    w._plan = None
    w.outcomes("base", {"t1": "R", "t2": "F"})  # the same attempts, graded again
    w.outcomes("cand", {"t1": "R", "t2": "F"})
    after = {r["agent"]: r for r in leaderboard_rows("mini", **w.kwargs)}
    assert after["base"] == before["base"]
    assert (after["cand"]["resolved"], before["cand"]["resolved"]) == (1, 2)
    notes = report_summary("mini", record_looks=False, **w.kwargs)["notes"]
    [said] = [n for n in notes if "decided again" in n]
    assert said.startswith("4 result(s) were decided again under grader-v2+sandbox-v1+seal-v1 / "
                           "result-v1 (before: grader-v1+sandbox-v1+seal-v1 / result-v1); 3 kept "
                           "their outcome; changed: cand/t2/0 (resolved -> failed)"), said
    assert len(list(w.store.iter_records("attempt"))) == 4  # no agent ran again
