"""Queue marks: an attempt waits from its mark until its sandbox work starts."""

import time
from pathlib import Path

from evaluator.executor import QueueMarks, waiting_since


def test_a_mark_ages_until_its_work_starts(tmp_path: Path) -> None:
    q = QueueMarks(tmp_path, "inv-1")
    assert q.oldest() == 0.0
    q.wait("k1")
    time.sleep(0.2)
    q.wait("k2")
    assert 0.2 <= q.oldest() < 5 and set(q.waits()) == {"k1", "k2"}
    q.start("k1")
    q.start("k1")  # starting twice (a retry, the finally) is harmless
    assert set(q.waits()) == {"k2"} and q.oldest() < 0.2


def test_marks_older_than_the_run_are_leftovers(tmp_path: Path) -> None:
    QueueMarks(tmp_path, "killed-run").wait("old")
    since = time.time() + 0.01
    time.sleep(0.05)
    QueueMarks(tmp_path, "this-run").wait("new")
    assert set(waiting_since(tmp_path, since)) == {"new"}
