"""The report's rows read the store through the typed records, and stay as tolerant as the
records are: a field this code does not know is kept, a record it cannot read is named."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaluator.errors import StaleLockError
from evaluator.reports import leaderboard_rows, report_summary
from tests.reports._world import World


def test_a_result_with_a_field_this_code_does_not_know_still_counts(tmp_path: Path) -> None:
    w = World(tmp_path, ("t1", "t2"), agents=("base",))
    w.outcome("base", "t1", 0, "resolved", written_by="a later harness")
    w.outcome("base", "t2", 0, "failed")
    (row,) = leaderboard_rows("mini", **w.kwargs)
    assert (row["resolved"], row["attempts"]) == (1, 2)


def test_an_unreadable_result_of_another_version_leaves_the_report_whole(tmp_path: Path) -> None:
    w = World(tmp_path, ("t1",), agents=("base",))
    w.outcome("base", "t1", 0, "resolved")
    w.store.put("result", "0" * 64, {"task_set": "mini", "subject": "old"})  # no status...
    notes = report_summary("mini", record_looks=False, **w.kwargs)["notes"]
    assert not any("other result record" in n for n in notes)


def test_a_planned_result_that_does_not_parse_is_refused_by_name(tmp_path: Path) -> None:
    w = World(tmp_path, ("t1", "t2"), agents=("base",))
    w.outcomes("base", {"t1": "R", "t2": "R"})
    for path in (w.store.root / "records" / "result").glob("*/*.json"):
        path.write_text(json.dumps({**json.loads(path.read_text()), "resolved": "perhaps"}))
    w.store.reindex()  # reports read the index: a hand edit counts once it is indexed again
    with pytest.raises(StaleLockError) as exc:
        leaderboard_rows("mini", **w.kwargs)
    assert len(exc.value.problems) == 2  # every one named, not only the first
    assert all("field 'resolved'" in p for p in exc.value.problems)
