"""Every submission of a set as an agreement table, and the check `evaluator gate` runs with
`--require-agreement`: the set's pins, gate and grades read once, nothing graded."""

from __future__ import annotations

from pathlib import Path

from evaluator.errors import BadInputError
from evaluator.gold import verdicts
from evaluator.lock import load_locked
from evaluator.store import Store
from evaluator.submissions._agreement import agreement
from evaluator.submissions._published import published
from evaluator.submissions._table import Table
from evaluator.submissions._text import table_lines
from evaluator.taskset import load_task_set

AGREES, DIFFERS = 0, 1


def tables(task_set: str, store: Store, tasks_root: Path | str, lock_dir: Path | str,
           subject: str | None = None) -> list[Table]:
    """One table per imported submission of the set (only `subject`'s when given);
    BadInputError naming the known ones when `subject` is none of them."""
    found = published(store, task_set)
    if subject is not None and subject not in found:
        raise BadInputError(f"no submission {subject!r} is imported on {task_set!r}"
                            + (f"; imported: {', '.join(found)}" if found else
                               "; import one with `evaluator import submission FOLDER`"))
    if not found:
        return []
    ts = load_task_set(task_set, tasks_root)
    lock = load_locked(ts, str(lock_dir))
    gate = verdicts(store, ts, lock)
    return [agreement(store, ts, lock, gate, rec) for name, rec in found.items()
            if subject is None or name == subject]


def require_agreement(table: Table) -> tuple[int, str]:
    """(AGREES or DIFFERS, text): a submission passes when no instance it published differs
    from our grade and at least one could be compared."""
    compared = table.counts["agree"] + table.counts["disagree"]
    text = "\n".join(table_lines(table, every=False))
    if table.disagreements:
        return DIFFERS, text + (f"\nagreement: FAIL, {len(table.disagreements)} instance(s) of "
                                f"{table.subject} differ from the published outcome")
    if not compared:
        return DIFFERS, text + (f"\nagreement: FAIL, no instance of {table.subject} could be "
                                "compared (nothing graded, or nothing published)")
    return AGREES, text + f"\nagreement: pass ({compared} instance(s) compared, all agree)"
