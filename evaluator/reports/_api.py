"""The public functions: for notebooks (DataFrames), the HTTP API (JSON-able dicts), doit and
the command line (rendered files). They refuse a missing or stale lock, an undecided gold gate
and records that differ from the lock with StaleLockError naming each problem (`compare` returns
the same problems as a refusal instead)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from evaluator.console import say
from evaluator.errors import StaleLockError
from evaluator.reports._collect import Collected, collect
from evaluator.reports._compare import compare_rows
from evaluator.reports._frames import frames
from evaluator.reports._history import rows_for
from evaluator.reports._inputs import Inputs, open_inputs
from evaluator.reports._leaderboard import leaderboard_rows_from
from evaluator.reports._render import render
from evaluator.reports._served import Served
from evaluator.reports._site import SITE_DIR, site_of
from evaluator.reports._sources import PathLike, Sources
from evaluator.reports._summary import ALPHA, build_summary, looker
from evaluator.store import Store
from evaluator.viewer import Site

if TYPE_CHECKING:
    import pandas as pd

    from evaluator.stats import Decision


def _load(task_set: str, sources: Sources) -> tuple[Inputs, Collected]:
    inputs = open_inputs(task_set, sources)
    return inputs, collect(inputs)


def report_summary(task_set: str, *, store: Store | PathLike | None = None,
                   tasks_root: PathLike = "tasks", lock_dir: PathLike = "lock",
                   evals_root: PathLike = "evals", agents_root: PathLike = "agents",
                   alpha: float = ALPHA, decision: Decision = "fixed",
                   record_looks: bool = True) -> dict[str, Any]:
    """The whole report as a JSON-able dict: what summary.json holds.

    Its comparisons are one family (Holm). `decision="sequential"` lets the always-valid test
    decide; each comparison is recorded as a look in the store unless `record_looks` is False.
    """
    sources = Sources.of(store=store, tasks_root=tasks_root, lock_dir=lock_dir,
                         evals_root=evals_root, agents_root=agents_root)
    return build_summary(*_load(task_set, sources), alpha=alpha, decision=decision,
                         record_looks=record_looks)


def render_report(task_set: str, *, out_root: PathLike = "reports/out",
                  store: Store | PathLike | None = None, tasks_root: PathLike = "tasks",
                  lock_dir: PathLike = "lock", evals_root: PathLike = "evals",
                  agents_root: PathLike = "agents", decision: Decision = "fixed",
                  ) -> tuple[dict[str, Any], dict[str, Path]]:
    """Render `out_root/<set>/`: summary.json, report.md, index.html and the PNG plots."""
    summary = report_summary(task_set, store=store, tasks_root=tasks_root, lock_dir=lock_dir,
                             evals_root=evals_root, agents_root=agents_root, decision=decision)
    return summary, render(summary, Path(out_root) / task_set)


def render_all(task_set: str, sources: Sources, decision: Decision = "fixed",
               ) -> tuple[dict[str, Any], dict[str, Path], Path]:
    """`doit report`: the report and its site from one gathering of the rows (summary, the
    report's files, the site's index page)."""
    inputs, collected = _load(task_set, sources)
    summary = build_summary(inputs, collected, decision=decision)
    paths = render(summary, sources.out_root / task_set)
    site = site_of(inputs, collected, summary=summary,
                   forest_png=paths["forest.png"].read_bytes())
    index = site.write(sources.out_root / task_set / SITE_DIR)
    for line in site.problems:  # blobs the pages it rendered needed and did not find
        say(f"site: {line}", err=True)
    return summary, paths, index


def leaderboard_rows(task_set: str, *, store: Store | PathLike | None = None,
                     tasks_root: PathLike = "tasks", lock_dir: PathLike = "lock",
                     evals_root: PathLike = "evals",
                     agents_root: PathLike = "agents") -> list[dict[str, Any]]:
    """The report's leaderboard, one JSON-able dict per agent, best first."""
    # No verdict is shown, so this is no look at any comparison.
    summary = report_summary(task_set, store=store, tasks_root=tasks_root, lock_dir=lock_dir,
                             evals_root=evals_root, agents_root=agents_root, record_looks=False)
    rows: list[dict[str, Any]] = summary["leaderboard"]
    return rows


def leaderboard(task_set: str, *, store: Store | PathLike | None = None,
                tasks_root: PathLike = "tasks", lock_dir: PathLike = "lock",
                evals_root: PathLike = "evals", agents_root: PathLike = "agents",
                ) -> pd.DataFrame:
    """`leaderboard_rows` as a DataFrame indexed by agent."""
    import pandas as pd  # pandas loads only for a caller that asks for frames

    rows = leaderboard_rows(task_set, store=store, tasks_root=tasks_root, lock_dir=lock_dir,
                            evals_root=evals_root, agents_root=agents_root)
    return pd.DataFrame(rows).set_index("agent")


def compare(task_set: str, a: str, b: str, *, identity_a: str | None = None,
            identity_b: str | None = None, store: Store | PathLike | None = None,
            tasks_root: PathLike = "tasks", lock_dir: PathLike = "lock",
            evals_root: PathLike = "evals", agents_root: PathLike = "agents",
            alpha: float = ALPHA, decision: Decision = "fixed") -> dict[str, Any]:
    """B against A (`delta` = B - A) on the valid tasks both have results for, as a JSON-able
    dict; `{"refused": true, "reasons": [...]}` when they are not comparable or the store or
    lock is stale. A comparison on its own is a family of one (no Holm adjustment); it is
    recorded as a look (see `looks` in the answer).

    Without an identity a side is the agent's current version from evals/<set>.yaml; with one
    (or for an agent no longer in the config) its results come from the store's index.
    Unknown task sets or agents raise BadInputError.
    """
    sources = Sources.of(store=store, tasks_root=tasks_root, lock_dir=lock_dir,
                         evals_root=evals_root, agents_root=agents_root)
    try:
        loaded = _load(task_set, sources)
    except StaleLockError as exc:
        return _refused(exc, a, b, identity_a, identity_b)
    return _compare(*loaded, a, b, identity_a, identity_b, alpha, decision)


def _compare(inputs: Inputs, collected: Collected, a: str, b: str, identity_a: str | None,
             identity_b: str | None, alpha: float, decision: Decision) -> dict[str, Any]:
    a_rows, a_side = rows_for(inputs, collected, a, identity_a)
    b_rows, b_side = rows_for(inputs, collected, b, identity_b)
    return compare_rows(a_rows, b_rows, inputs.lock, a=a_side, b=b_side,
                        valid_tasks=inputs.valid_tasks, alpha=alpha, decision=decision,
                        looker=looker(inputs))


def _refused(exc: StaleLockError, a: str, b: str, identity_a: str | None,
             identity_b: str | None) -> dict[str, Any]:
    return {"refused": True, "reasons": [str(exc).splitlines()[0], *exc.problems],
            "a": {"agent": a, "identity": identity_a},
            "b": {"agent": b, "identity": identity_b}, "left_out": {}}


class ReportService:
    """Leaderboards and comparisons for a long-lived process (the HTTP API): each task set's
    rows are gathered once and kept while nothing they stand on changes (`Served`), so a
    request at 100,000 attempts costs a fingerprint and a lookup, not a pass over the store."""

    def __init__(self) -> None:
        self._served = Served(_load)

    def leaderboard_rows(self, task_set: str, **paths: Any) -> list[dict[str, Any]]:
        """`leaderboard_rows`, from the kept rows."""
        def board(inputs: Inputs, collected: Collected) -> list[dict[str, Any]]:
            return leaderboard_rows_from(collected.cells, collected.subjects, inputs.spec.samples)

        rows: list[dict[str, Any]] = self._served.answer(task_set, Sources.of(**paths),
                                                         ("leaderboard",), board)
        return rows

    def compare(self, task_set: str, a: str, b: str, *, identity_a: str | None = None,
                identity_b: str | None = None, alpha: float = ALPHA,
                decision: Decision = "fixed", **paths: Any) -> dict[str, Any]:
        """`compare`, from the kept rows (kept per look too: a comparison records one)."""
        def answer(inputs: Inputs, collected: Collected) -> dict[str, Any]:
            return _compare(inputs, collected, a, b, identity_a, identity_b, alpha, decision)

        try:
            found: dict[str, Any] = self._served.answer(
                task_set, Sources.of(**paths), ("compare", a, b, identity_a, identity_b, alpha,
                                                decision), answer, kinds=("look",))
        except StaleLockError as exc:
            return _refused(exc, a, b, identity_a, identity_b)
        return found

    def site(self, task_set: str, **paths: Any) -> Site:
        """The set's site over the kept rows (its summary made on the first page that needs
        it), for pages served one at a time."""
        site: Site = self._served.answer(task_set, Sources.of(**paths), ("site",), site_of)
        return site


def load_frames(task_set: str, *, store: Store | PathLike | None = None,
                tasks_root: PathLike = "tasks", lock_dir: PathLike = "lock",
                evals_root: PathLike = "evals",
                agents_root: PathLike = "agents") -> dict[str, pd.DataFrame]:
    """DataFrames of the records a report stands on: `attempts` (one row per planned attempt,
    status included), `results` (graded attempts), `grades` (of results and of the gold gate)
    and `verdicts` (one row per task)."""
    sources = Sources.of(store=store, tasks_root=tasks_root, lock_dir=lock_dir,
                         evals_root=evals_root, agents_root=agents_root)
    return frames(*_load(task_set, sources))


def sources_from_env(**overrides: Any) -> Sources:
    """Sources from EVAL_* variables (as doit and the CLI use them), then `overrides`."""
    base = Sources.from_env()
    paths: dict[str, Any] = {k: Path(v) for k, v in overrides.items() if v is not None}
    return replace(base, **paths)


def env_kwargs(sources: Sources) -> dict[str, Any]:
    """The keyword arguments of the public functions for `sources`."""
    return {"store": sources.store, "tasks_root": sources.tasks_root,
            "lock_dir": sources.lock_dir, "evals_root": sources.evals_root,
            "agents_root": sources.agents_root}
