"""Submissions re-verified, in the report: each imported submission's agreement table
(`evaluator.submissions`) from the inputs the report stands on, compact in summary.json and
report.md, whole (with both outputs' lines) on the site and from the API; and the gate's
`--require-agreement`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, overload

from evaluator.errors import EvalError
from evaluator.reports._inputs import Inputs
from evaluator.reports._sources import Sources
from evaluator.submissions import Table, agreement, published, require_agreement, tables


def agreement_tables(inputs: Inputs) -> list[Table]:
    return [agreement(inputs.store, inputs.task_set, inputs.lock, inputs.gate, rec)
            for rec in published(inputs.store, inputs.name).values()]


def agreement_section(inputs: Inputs) -> list[dict[str, Any]]:
    """summary.json's `agreement`: per submission its counts, causes and one line per
    instance (the tests that differ by name; their outputs are on the site)."""
    out = []
    for t in agreement_tables(inputs):
        rows = [{"instance_id": r.instance_id, "published": r.published, "ours": r.ours,
                 "state": r.state, "cause": r.cause, "why": r.why, "tests_agree": r.tests_agree,
                 "tests": [{"test": d.test, "kind": d.kind, "published": d.published,
                            "ours": d.ours} for d in r.tests]} for r in t.rows]
        out.append({"subject": t.subject, "split": t.split, "models": list(t.models),
                    "counts": t.counts, "causes": t.causes, "rows": rows})
    return out


def agreement_view(task_set: str, sources: Sources, subject: str | None = None
                   ) -> list[dict[str, Any]]:
    """Every submission's whole table (or `subject`'s), for the API and the export."""
    store = sources.open_store()
    return [t.to_dict() for t in tables(task_set, store, sources.tasks_root, sources.lock_dir,
                                        subject)]


def agreement_gate(task_set: str, candidate: str, sources: Sources) -> tuple[int, str]:
    """(0 agrees, 1 differs, 2 refused, text) for the gate's `--require-agreement`: the
    candidate must be an imported submission whose every compared instance agrees."""
    try:
        found = tables(task_set, sources.open_store(), sources.tasks_root, sources.lock_dir,
                       candidate)
    except EvalError as exc:
        return 2, f"agreement refused: {type(exc).__name__}: {exc}"
    return require_agreement(found[0])


class SiteTables(Sequence[Mapping[str, Any]]):
    """The whole tables for the site's agreement page, made on first use: the API renders an
    attempt page from the same site without reading any submission."""

    def __init__(self, inputs: Inputs) -> None:
        self._inputs = inputs
        self._tables: list[dict[str, Any]] | None = None

    def _got(self) -> list[dict[str, Any]]:
        if self._tables is None:
            self._tables = [t.to_dict() for t in agreement_tables(self._inputs)]
        return self._tables

    @overload
    def __getitem__(self, i: int) -> Mapping[str, Any]: ...

    @overload
    def __getitem__(self, i: slice) -> Sequence[Mapping[str, Any]]: ...

    def __getitem__(self, i: int | slice) -> Mapping[str, Any] | Sequence[Mapping[str, Any]]:
        return self._got()[i]

    def __len__(self) -> int:
        return len(self._got())
