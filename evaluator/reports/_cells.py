"""A report's row: one planned attempt (or prediction), its status, result and cost.

Read as a mapping (`c["status"]`, `c.get("priced", True)`, `{**c}`), as every consumer of
report rows does, but held in slots: a report over 100,000 attempts keeps 100,000 of them, and
a dict each would be a gigabyte's worth of the command's memory.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

FIELDS = ("task_set", "agent", "identity", "simulated", "task_id", "sample_idx", "status",
          "graded", "resolved", "cost_usd", "infra_errors", "priced", "lock_version",
          "recorded_lock_version", "grader_version", "attempt", "result", "grade",
          "exit_reason", "violations")
_DEFAULTS: dict[str, Any] = {"priced": True, "violations": (), "infra_errors": 0,
                             "cost_usd": 0.0, "simulated": False, "graded": False,
                             "resolved": False, "sample_idx": 0}


class Cell(Mapping[str, Any]):
    """One row; every field of `FIELDS` is present (None, or its default, when not given)."""

    __slots__ = FIELDS

    def __init__(self, **fields: Any) -> None:
        unknown = set(fields) - set(FIELDS)
        if unknown:
            raise TypeError(f"not a report row field: {sorted(unknown)}")
        for name in FIELDS:
            object.__setattr__(self, name, fields.get(name, _DEFAULTS.get(name)))

    def __getitem__(self, name: str) -> Any:
        if name not in _SLOTS:
            raise KeyError(name)
        return getattr(self, name)

    def __iter__(self) -> Iterator[str]:
        return iter(FIELDS)

    def __len__(self) -> int:
        return len(FIELDS)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("report rows are read-only")

    def __repr__(self) -> str:
        return f"Cell({', '.join(f'{k}={getattr(self, k)!r}' for k in FIELDS)})"


_SLOTS = frozenset(FIELDS)
