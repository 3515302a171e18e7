"""The supervisor's count of busy runs while workers claim theirs beside it (no server)."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import Any

from evaluator.api import Run, RunDB, Settings
from evaluator.api._procs import start_time
from evaluator.api._supervisor import Supervisor


class _ClaimingDB(RunDB):
    """After each read, one more of `pending` is claimed, as its worker would at any moment
    between two of the supervisor's reads (by this process, so it counts as alive)."""

    def __init__(self, path: Path, pending: list[str]) -> None:
        super().__init__(path)
        self.pending = pending

    def _claim_next(self) -> None:
        if self.pending:
            self.claim(self.pending.pop(0), os.getpid(), start_time(os.getpid()))

    def get(self, run_id: str) -> Run | None:
        found = super().get(run_id)
        self._claim_next()
        return found

    def with_status(self, status: Any) -> list[Run]:
        found = super().with_status(status)
        self._claim_next()
        return found

    def active(self) -> list[Run]:
        found = super().active()
        self._claim_next()
        return found


class _Starting:
    """A worker process that has not exited."""

    pid = 0

    def poll(self) -> None:
        return None


def test_workers_claiming_while_it_counts_never_let_a_run_too_many_start(
        world_settings: Settings, tmp_path: Path) -> None:
    db = RunDB(tmp_path / "runs.sqlite")
    first, second, third = (db.schedule(task_set="mini", agent=a, identity="i", samples=1)[0].id
                            for a in ("a", "b", "c"))
    supervisor = Supervisor(replace(world_settings, max_runs=2),
                            _ClaimingDB(db.path, [first, second]))
    started: list[str] = []
    supervisor._spawn = started.append  # type: ignore[method-assign]
    supervisor._children.update({first: _Starting(), second: _Starting()})  # type: ignore[dict-item]
    supervisor.tick()
    assert started == [] and [r.status for r in db.active()] == ["running", "running", "queued"]
    assert third not in supervisor._children
