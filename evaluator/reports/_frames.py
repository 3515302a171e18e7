"""DataFrames for notebooks: the same rows the report counts, with the records' details."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from evaluator.reports._collect import Collected
from evaluator.reports._inputs import Inputs

if TYPE_CHECKING:
    import pandas as pd

_GRADE_COLUMNS = ("key", "task_id", "subject", "rep", "outcome", "resolved", "image",
                  "base_commit", "hidden_tests", "patch", "grader_version", "lock_version",
                  "duration_s", "timed_out", "exit_code")
_VERDICT_COLUMNS = ("task_id", "verdict", "valid", "why", "fixture", "lock_version",
                    "grader_version")


def frames(inputs: Inputs, collected: Collected) -> dict[str, pd.DataFrame]:
    import pandas as pd  # pandas loads only for a caller that asks for frames

    index = inputs.store.index
    keys = [c["attempt"] for c in collected.cells if c["attempt"]]
    details = {k: dict(zip(_ATTEMPT_FIELDS, v, strict=True))
               for k, *v in index.fields("attempt", _ATTEMPT_FIELDS, keys=keys)}
    attempts = [{**c, **_attempt_details(details.get(c["attempt"]))} for c in collected.cells]
    results = [dict(c) for c in collected.cells if c["graded"]]
    subject_of = {c["grade"]: "attempt" for c in results if c["grade"]}
    for v in inputs.gate.values():
        for subject in ("gold", "empty"):
            for key in v.gold_grades if subject == "gold" else v.empty_grades:
                subject_of.setdefault(key, subject)
    grade_rows = []
    for key, *values in index.fields("grade", _GRADE_COLUMNS[1:], keys=subject_of):
        row = dict(zip(_GRADE_COLUMNS[1:], values, strict=True))
        grade_rows.append({**row, "resolved": None if row["resolved"] is None
                           else bool(row["resolved"]), "timed_out": None
                           if row["timed_out"] is None else bool(row["timed_out"]),
                           "key": key, "subject": subject_of[key]})
    grade_rows.sort(key=lambda r: (str(r["task_id"]), r["subject"], r["key"]))
    verdicts = [{**{c: getattr(v, c, None) for c in _VERDICT_COLUMNS}, "task_id": tid}
                for tid, v in sorted(inputs.gate.items())]
    return {
        "attempts": _frame(pd, attempts, ("agent", "task_id", "sample_idx")),
        "results": _frame(pd, results, ("agent", "task_id", "sample_idx")),
        "grades": pd.DataFrame(grade_rows, columns=list(_GRADE_COLUMNS)),
        "verdicts": pd.DataFrame(verdicts, columns=list(_VERDICT_COLUMNS)),
    }


def _frame(pd: Any, rows: list[dict[str, Any]], order: tuple[str, ...]) -> pd.DataFrame:
    df = pd.DataFrame(rows)
    return df.sort_values(list(order), ignore_index=True) if len(df) else df


# What an attempt record adds to its row, read from the index (None where a record lacks it:
# 0 steps would be a claim).
_ATTEMPT_FIELDS = ("steps", "agent.model", "usage.prompt_tokens", "usage.completion_tokens",
                   "cost.model_usd", "cost.sandbox_usd", "cost.sandbox_s", "started",
                   "finished", "patch", "patch_bytes", "provenance.git_commit",
                   "provenance.git_dirty", "provenance.harness_source",
                   "provenance.contracts")


def _attempt_details(a: dict[str, Any] | None) -> dict[str, Any]:
    a = a or {}
    started, finished = a.get("started"), a.get("finished")
    dirty = a.get("provenance.git_dirty")
    contracts = a.get("provenance.contracts")
    return {
        "steps": a.get("steps"),
        "model": a.get("agent.model"),
        "prompt_tokens": a.get("usage.prompt_tokens"),
        "completion_tokens": a.get("usage.completion_tokens"),
        "model_usd": a.get("cost.model_usd"),
        "sandbox_usd": a.get("cost.sandbox_usd"),
        "sandbox_s": a.get("cost.sandbox_s"),
        "duration_s": (finished - started) if started is not None and finished is not None
        else None,
        "patch": a.get("patch"),
        "patch_bytes": a.get("patch_bytes"),
        "git_commit": a.get("provenance.git_commit"),
        "git_dirty": None if dirty is None else bool(dirty),
        "harness_source": a.get("provenance.harness_source"),
        # the contract versions the attempt's key held (the index gives an object as JSON text)
        "contracts": json.loads(contracts) if isinstance(contracts, str) else contracts,
    }
