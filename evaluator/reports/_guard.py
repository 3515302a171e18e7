"""The comparability guard: may two agents' results be compared at all, and on which tasks?

A pure function of the two agents' result rows and the current lock, so it judges results of any
agent version found in the store the same way as those of the current plan. A refusal names
every reason; a comparison that goes ahead lists every task it left out and why.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from evaluator.lock import Lock
from evaluator.reports._pinning import GRADED

Row = Mapping[str, Any]


@dataclass(frozen=True)
class Comparability:
    """The guard's answer: `reasons` is empty when the comparison may go ahead on `tasks`."""

    reasons: tuple[str, ...]
    tasks: tuple[str, ...]
    left_out: dict[str, str]
    a: dict[str, list[int]] = field(default_factory=dict)  # shared task -> 0/1 per sample
    b: dict[str, list[int]] = field(default_factory=dict)
    lock_version: str | None = None
    grader_version: str | None = None

    @property
    def comparable(self) -> bool:
        return not self.reasons


def comparability(a_rows: Iterable[Row], b_rows: Iterable[Row], lock: Lock, *,
                  valid_tasks: Collection[str] | None = None,
                  names: tuple[str, str] = ("A", "B")) -> Comparability:
    """Check that A and B ran the same task set, lock version, lock and grader version, and pair
    them on the valid tasks both have graded results for.

    Rows are result records (or report rows): `task_set`, `task_id`, `sample_idx`, `status`,
    `resolved`, `lock_version`, `grader_version` and `agent_identity` (or `identity`). Rows whose
    status is not a graded one (pending, error, quarantined, ungraded) stand for attempts without
    a result: their tasks are left out of the pairing, never counted as failures.
    """
    a_all, b_all = list(a_rows), list(b_rows)
    a, b = [r for r in a_all if r.get("status") in GRADED], [r for r in b_all if
                                                             r.get("status") in GRADED]
    na, nb = names
    reasons: list[str] = []
    for side, rows in ((na, a), (nb, b)):
        if not rows:
            reasons.append(f"{side} has no graded results")
        idents = _values(rows, "agent_identity", "identity")
        if len(idents) > 1:
            reasons.append(f"{side} mixes agent versions: {', '.join(idents)}")
    reasons += _same("task set", "task_set", a, b, names, lock.task_set,
                     "task set differs: the results are for {}, the lock is for {}")
    reasons += _same("lock version", "lock_version", a, b, names, lock.version,
                     "not the same lock: the results were made under lock version {}, the "
                     "current lock is at {}")
    reasons += _same("grader version", "grader_version", a, b, names, None, "")
    valid = set(lock.tasks) if valid_tasks is None else set(valid_tasks) & set(lock.tasks)
    left_out: dict[str, str] = {}
    ta, tb = _tasks(a), _tasks(b)
    for tid in sorted(valid - (ta & tb)):
        missing = [_why_missing(side, tid, rows) for side, rows, have in
                   ((na, a_all, ta), (nb, b_all, tb)) if tid not in have]
        left_out[tid] = "; ".join(missing)
    for tid in sorted((ta | tb) - valid):
        left_out[tid] = ("not in the lock" if tid not in lock.tasks
                         else "not a valid task under the gold gate")
    common = tuple(sorted(valid & ta & tb))
    if a and b and not common:
        reasons.append(f"no common tasks: no valid task has graded results from both {na} "
                       f"and {nb}")
    if reasons:
        return Comparability(tuple(reasons), (), left_out)
    return Comparability((), common, left_out, _outcomes(a, common), _outcomes(b, common),
                         lock.version, _values(a, "grader_version")[0])


def _same(what: str, key: str, a: list[Row], b: list[Row], names: tuple[str, str],
          current: str | None, stale: str) -> list[str]:
    va, vb = _values(a, key), _values(b, key)
    if not va or not vb:
        return []
    if va != vb:
        return [f"{what} differs: {', '.join(va)} ({names[0]}) vs {', '.join(vb)} ({names[1]})"]
    if current is not None and va != [current]:
        return [stale.format(", ".join(va), current)]
    return []


def _values(rows: list[Row], *keys: str) -> list[str]:
    return sorted({str(next((r[k] for k in keys if r.get(k) is not None), None)) for r in rows})


def _tasks(rows: list[Row]) -> set[str]:
    return {str(r["task_id"]) for r in rows}


def _why_missing(side: str, tid: str, rows: list[Row]) -> str:
    states = sorted({str(r.get("status")) for r in rows if r.get("task_id") == tid})
    return f"no graded result from {side}" + (f" ({', '.join(states)})" if states else "")


def _outcomes(rows: list[Row], tasks: tuple[str, ...]) -> dict[str, list[int]]:
    keep = set(tasks)
    out: dict[str, list[int]] = {t: [] for t in tasks}
    for r in sorted(rows, key=lambda r: (str(r["task_id"]), int(r.get("sample_idx") or 0))):
        if r["task_id"] in keep:
            out[str(r["task_id"])].append(int(bool(r.get("resolved"))))
    return out
