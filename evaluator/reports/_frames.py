"""DataFrames for notebooks: the same rows the report counts, with the records' details."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from evaluator.attempts import AttemptRecord
from evaluator.grading import GradeRecord
from evaluator.reports._collect import Collected
from evaluator.reports._inputs import Inputs
from evaluator.store import Record

if TYPE_CHECKING:
    import pandas as pd

_GRADE_COLUMNS = ("key", "task_id", "subject", "rep", "outcome", "resolved", "image",
                  "base_commit", "hidden_tests", "patch", "grader_version", "lock_version",
                  "duration_s", "timed_out", "exit_code")
_VERDICT_COLUMNS = ("task_id", "verdict", "valid", "why", "fixture", "lock_version",
                    "grader_version")


def frames(inputs: Inputs, collected: Collected) -> dict[str, pd.DataFrame]:
    import pandas as pd  # pandas loads only for a caller that asks for frames

    attempts = [{**c, **_attempt_details(collected.attempts.get(c["attempt"]))}
                for c in collected.cells]
    results = [c for c in collected.cells if c["graded"]]
    grades = {key: ("attempt", g) for key, g in collected.grades.items()}
    for v in inputs.gate.values():
        for subject in ("gold", "empty"):
            for key in v.gold_grades if subject == "gold" else v.empty_grades:
                g = inputs.store.read(GradeRecord, key)
                if g is not None:
                    grades.setdefault(key, (subject, g))
    grade_rows = [{**{c: _given(g, c) for c in _GRADE_COLUMNS}, "key": key, "subject": subject}
                  for key, (subject, g) in sorted(grades.items(),
                                                  key=lambda kv: (kv[1][1].task_id,
                                                                  kv[1][0], kv[0]))]
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


def _given(record: Record, name: str) -> Any:
    """A field as the record holds it; None where it does not (rather than the model's
    default), as the frames showed it when they read the stored JSON."""
    return getattr(record, name) if name in record.model_fields_set else None


def _attempt_details(a: AttemptRecord | None) -> dict[str, Any]:
    """What an attempt record adds to its row; NaN-free Nones where there is no record, and
    where the record does not hold the field (not the model's default: 0 steps is a claim)."""
    def given(name: str) -> Any:
        return None if a is None else _given(a, name)

    usage, cost, prov = given("usage") or {}, given("cost") or {}, given("provenance") or {}
    started, finished = given("started"), given("finished")
    return {
        "steps": given("steps"),
        "model": (given("agent") or {}).get("model"),
        "prompt_tokens": usage.get("prompt_tokens"),
        "completion_tokens": usage.get("completion_tokens"),
        "model_usd": cost.get("model_usd"),
        "sandbox_usd": cost.get("sandbox_usd"),
        "sandbox_s": cost.get("sandbox_s"),
        "duration_s": (finished - started) if started is not None and finished is not None
        else None,
        "patch": given("patch"),
        "patch_bytes": given("patch_bytes"),
        "git_commit": prov.get("git_commit"),
        "git_dirty": prov.get("git_dirty"),
        "harness_source": prov.get("harness_source"),
        "contracts": prov.get("contracts"),
    }
