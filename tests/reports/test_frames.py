"""The notebook's frames show what the records hold: a field a record lacks is None, never the
typed record's default."""

from __future__ import annotations

from pathlib import Path

from evaluator.reports import load_frames
from tests.reports._world import World


def test_an_attempt_without_timings_has_no_duration_not_zero(tmp_path: Path) -> None:
    w = World(tmp_path, ("t1",), agents=("base",))
    w.outcome("base", "t1", 0, "resolved")  # the world's attempts record no started/finished
    (row,) = load_frames("mini", **w.kwargs)["attempts"].to_dict("records")
    assert row["duration_s"] is None and row["patch_bytes"] is None and row["steps"] == 3
    (grade,) = load_frames("mini", **w.kwargs)["grades"].to_dict("records")
    assert grade["image"] == w.lock.pin("t1").image and grade["duration_s"] is None
