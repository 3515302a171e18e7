"""How `make test` spreads test files over its xdist workers: longest first.

xdist's `--dist loadfile` hands out files in the order of their test counts, so a file of eight
tests and six minutes of fixtures (the official harness's agreement) could start last and run
alone while the other worker idles. Here each scope (a file, or a group that must share one
worker) is weighed by the seconds it took in a recorded run, `tests/durations.json`, and the
heaviest left is handed out next (longest-processing-time first). A scope the file does not know
weighs one second per test. The file only orders work: a stale one makes CI slower, never wrong.

Record it again after adding slow tests (the controller sums each scope's setup, call and
teardown):

    EVAL_TEST_DURATIONS=tests/durations.json make test
"""

from __future__ import annotations

import json
import os
from collections import defaultdict
from pathlib import Path
from typing import Any

DURATIONS = Path(__file__).with_name("durations.json")
RECORD_ENV = "EVAL_TEST_DURATIONS"

# Files that share a session fixture too costly to make twice: one worker runs each group.
_TOGETHER = {
    "tests/pipeline/test_backends_e2e.py": "tests/pipeline/gated",  # the gated project
    "tests/pipeline/test_eval_e2e.py": "tests/pipeline/gated",
}
# Files whose tests share nothing (each runs a subprocess of its own): each test is a scope of
# its own, weighed and handed out alone, so a file of many slow tests spreads over the workers.
_EACH_TEST = ("tests/benchmarks/test_smoke.py",)


def scope_of(file_scope: str) -> str:
    """The unit one worker runs: every file of tests/executor together (they share one Ray
    cluster and one second engine, which a second worker would start again), each group of
    `_TOGETHER` together, any other file alone."""
    if file_scope.startswith("tests/executor/"):
        return "tests/executor"
    return _TOGETHER.get(file_scope, file_scope)


def scope_of_test(nodeid: str) -> str:
    """The scope of one test: its file's (`scope_of`), or the test itself in `_EACH_TEST`."""
    file_scope = nodeid.split("::", 1)[0]
    return nodeid if file_scope in _EACH_TEST else scope_of(file_scope)


def _recorded() -> dict[str, float]:
    try:
        data = json.loads(DURATIONS.read_text())
    except (OSError, ValueError):
        return {}
    return {str(k): float(v) for k, v in data.items()} if isinstance(data, dict) else {}


def make_scheduler(config: Any, log: Any) -> Any:
    from xdist.scheduler import LoadFileScheduling

    weights = _recorded()

    class _Scheduling(LoadFileScheduling):  # type: ignore[misc]
        def _split_scope(self, nodeid: str) -> str:
            return scope_of_test(nodeid)

        def _assign_work_unit(self, node: Any) -> None:
            heaviest = max(self.workqueue, key=lambda s: weights.get(s, len(self.workqueue[s])))
            self.workqueue.move_to_end(heaviest, last=False)
            super()._assign_work_unit(node)

    return _Scheduling(config, log)


class Recorder:
    """Sums the seconds of each scope's reports on the controller; writes them at the end when
    $EVAL_TEST_DURATIONS names a file."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = defaultdict(float)

    def add(self, nodeid: str, duration: float) -> None:
        self.seconds[scope_of_test(nodeid)] += duration

    def write(self) -> None:
        where = os.environ.get(RECORD_ENV)
        if where and self.seconds:
            ordered = dict(sorted(((k, round(v, 1)) for k, v in self.seconds.items()),
                                  key=lambda kv: -kv[1]))
            Path(where).write_text(json.dumps(ordered, indent=1) + "\n")
