"""The browsable site of a report (evaluator.viewer), from the same rows the report counts."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from evaluator.console import say
from evaluator.errors import BadInputError
from evaluator.gold import VerdictRecord
from evaluator.images import history_summary
from evaluator.reports import _plots
from evaluator.reports._agreement import SiteTables
from evaluator.reports._collect import Collected, collect
from evaluator.reports._inputs import Inputs, open_inputs
from evaluator.reports._sources import PathLike, Sources
from evaluator.reports._summary import build_summary
from evaluator.store import Store
from evaluator.taskset import Task
from evaluator.viewer import RunData, Site, TaskInfo

SITE_DIR = "site"


def report_site(task_set: str, *, summary: dict[str, Any] | None = None,
                store: Store | PathLike | None = None, tasks_root: PathLike = "tasks",
                lock_dir: PathLike = "lock", evals_root: PathLike = "evals",
                agents_root: PathLike = "agents", forest_png: bytes | None = None) -> Site:
    """The site of `task_set`; with `summary` (the report's own) its numbers are reused as they
    are, else they are computed without recording a look at any comparison. `forest_png`: the
    report's plot, when it has just been drawn."""
    sources = Sources.of(store=store, tasks_root=tasks_root, lock_dir=lock_dir,
                         evals_root=evals_root, agents_root=agents_root)
    inputs = open_inputs(task_set, sources)
    return site_of(inputs, collect(inputs), summary=summary, forest_png=forest_png)


def site_of(inputs: Inputs, collected: Collected, *, summary: dict[str, Any] | None = None,
            forest_png: bytes | None = None) -> Site:
    """The site of rows already gathered (`report_site`, or the API's kept rows)."""
    numbers: Mapping[str, Any] = summary if summary is not None else _Later(
        lambda: build_summary(inputs, collected, record_looks=False))
    tasks = {t.id: TaskInfo(task_id=t.id, problem=_problem(t),
                            fail_to_pass=tuple(t.spec.fail_to_pass),
                            pass_to_pass=tuple(t.spec.pass_to_pass),
                            verdict=_verdict(inputs, t.id),
                            leaks=_leaks(inputs.lock.tasks[t.id].history))
             for t in inputs.task_set.tasks}

    def plots() -> dict[str, bytes]:
        compared = numbers["comparisons"]
        return {"forest.png": forest_png or _plots.forest_plot(compared)} if compared else {}

    data = RunData(task_set=inputs.name, summary=numbers, cells=collected.cells, tasks=tasks,
                   assets=_Later(plots), agreement=SiteTables(inputs))
    return Site(data, inputs.store)


def _problem(task: Task) -> str:
    """The statement, or why it cannot be shown (a set locked before the lock checked its
    text): one task's page says so, the rest of the site is written."""
    try:
        return task.problem_statement
    except BadInputError as exc:
        return f"(not shown: {exc})"


def _verdict(inputs: Inputs, task_id: str) -> Mapping[str, Any]:
    """The task's verdict as the viewer reads it (plain data: the viewer sits below gold)."""
    found = inputs.gate.get(task_id) or VerdictRecord.undecided(task_id, inputs.name)
    return _StoredVerdict(found, inputs.store) if found.key else found.model_dump(mode="json")


class _StoredVerdict(Mapping[str, Any]):
    """A verdict record as plain data, its exploits' details read from the store on each use
    (`open_inputs` holds verdicts without them): only a task's own page shows them, and
    2,000 tasks' details held at once were 20 MB of a report's memory beside the records'."""

    def __init__(self, held: VerdictRecord, records: Store) -> None:
        self._held, self._records = held.model_dump(mode="json"), records
        self._key = held.key

    def __getitem__(self, name: str) -> Any:
        if name != "exploits" or not self._held["exploits"]:
            return self._held[name]
        whole = self._records.read(VerdictRecord, self._key)
        return {} if whole is None else whole.model_dump(mode="json")["exploits"]

    def __iter__(self) -> Iterator[str]:
        return iter(self._held)

    def __len__(self) -> int:
        return len(self._held)


def _leaks(history: dict[str, Any] | None) -> str:
    return history_summary(history) if history and history.get("leaks") else ""


class _Later(Mapping[str, Any]):
    """A mapping made on first use: attempt and task pages need neither the summary (its
    bootstrap) nor the plot, so the API serves them without either."""

    def __init__(self, make: Callable[[], Mapping[str, Any]]) -> None:
        self._make = make
        self._value: Mapping[str, Any] | None = None

    def _got(self) -> Mapping[str, Any]:
        if self._value is None:
            self._value = self._make()
        return self._value

    def __getitem__(self, key: str) -> Any:
        return self._got()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._got())

    def __len__(self) -> int:
        return len(self._got())


def render_site(task_set: str, *, out_root: PathLike = "reports/out",
                summary: dict[str, Any] | None = None, forest_png: bytes | None = None,
                **sources: Any) -> Path:
    """Write the site under `out_root/<set>/site/`; returns its index page."""
    site = report_site(task_set, summary=summary, forest_png=forest_png, **sources)
    index = site.write(Path(out_root) / task_set / SITE_DIR)
    for line in site.problems:  # blobs the pages needed and did not find
        say(f"site: {line}", err=True)
    return index
