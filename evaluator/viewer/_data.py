"""What the viewer renders from: the run as the report counted it, and the store behind it.

The viewer reads no task set, lock or eval config itself: whoever builds a `RunData` (the
reports package, from the same rows its numbers come from) decides which records count, so the
pages and the report never disagree.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol


class Records(Protocol):
    """The part of `evaluator.store.Store` the pages read."""

    def get(self, kind: str, key: str) -> dict[str, Any] | None: ...

    def local_blob(self, digest: str) -> bytes | None: ...

    def errors(self, kind: str, key: str) -> list[dict[str, Any]]: ...

    def missing_blobs(self, record: dict[str, Any]) -> list[tuple[str, str]]:
        """(what, digest) of each blob `record` needs that the store lacks."""
        ...


@dataclass(frozen=True)
class TaskInfo:
    """One task of the set: what the agent was asked and which tests decide it."""

    task_id: str
    problem: str
    fail_to_pass: tuple[str, ...]
    pass_to_pass: tuple[str, ...]
    verdict: Mapping[str, Any]  # the gold gate's verdict record (or its "incomplete" stand-in)
    # What the task image's repository holds past the base commit ("" when nothing): the
    # agents and grades saw its seal, which holds only the base commit's history.
    leaks: str = ""

    @property
    def required(self) -> tuple[str, ...]:
        return (*self.fail_to_pass, *self.pass_to_pass)


@dataclass(frozen=True)
class RunData:
    """A task set's run: the report's summary, one row per planned attempt, the tasks."""

    task_set: str
    summary: Mapping[str, Any]  # the report's summary dict (what summary.json holds)
    cells: Sequence[Mapping[str, Any]]  # the report's rows: agent, task_id, sample_idx, status..
    tasks: Mapping[str, TaskInfo]
    assets: Mapping[str, bytes] = field(default_factory=dict)  # e.g. forest.png, copied as is
    # Imported submissions' agreement tables (`Table.to_dict`), for agreement.html; none: no page
    agreement: Sequence[Mapping[str, Any]] = ()

    def cell(self, attempt_key: str) -> Mapping[str, Any] | None:
        return self._by_key.get(attempt_key)

    def cells_of(self, task_id: str) -> Sequence[Mapping[str, Any]]:
        """The rows of one task (a task page lists them; 2,000 pages must not each scan all)."""
        return self._by_task.get(task_id, ())

    @functools.cached_property
    def simulated(self) -> bool:
        return any(bool(c.get("simulated")) for c in self.cells)

    @functools.cached_property
    def _by_key(self) -> dict[str, Mapping[str, Any]]:
        return {str(c["attempt"]): c for c in self.cells}

    @functools.cached_property
    def _by_task(self) -> dict[str, list[Mapping[str, Any]]]:
        out: dict[str, list[Mapping[str, Any]]] = {}
        for c in self.cells:
            out.setdefault(str(c["task_id"]), []).append(c)
        return out


@dataclass(frozen=True)
class Limits:
    """How much of a long text a page shows before it links to the whole file."""

    observation_chars: int = 2_000  # per step; head and tail are shown
    output_chars: int = 20_000  # a test run's output
    patch_chars: int = 300_000  # the final diff
    message_chars: int = 4_000  # one message of the conversation
