"""Repeated looks: how many times a comparison of the same two agent versions on the same task
set has been reported as its sample count grew.

A fixed-sample test is valid for one look. Rerunning with more samples until a difference
"appears" (cheap with an incremental cache) makes a false "better" likelier with every look,
so every reported comparison leaves a `look` record in the store, keyed by the two versions and
how many graded samples each side had on each task. The same data reported again is the same
look (the record already exists), so re-rendering a report does not count as looking again.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from evaluator.hashing import hash_json
from evaluator.reports._guard import Comparability
from evaluator.store import Record, Store


class LookRecord(Record):
    """One reported comparison of two versions at the sample counts it stood on."""

    KIND = "look"

    task_set: str
    subject: str  # the two versions, `first|second` in sorted order (indexed: a query's filter)
    status: str = "reported"
    subjects: list[str]
    tasks: int
    samples: int  # graded samples of both sides, over every task



def look(store: Store, task_set: str, a: dict[str, Any], b: dict[str, Any],
         guard: Comparability, *, record: bool = True) -> dict[str, Any]:
    """This look at `a` against `b`, recorded when `record`, and the earlier ones: `count`
    (this one included; None when the store could not be read), `samples` (graded samples of
    both sides now) and `earlier_samples` (at each earlier look with no more samples than now).
    """
    # Either orientation is the same comparison: B vs A after A vs B is a second look.
    (first, counts_1), (second, counts_2) = sorted(
        ((_subject(a), guard.a), (_subject(b), guard.b)), key=lambda s: s[0])
    counts = [(t, len(counts_1[t]), len(counts_2[t])) for t in guard.tasks]
    samples = sum(n1 + n2 for _, n1, n2 in counts)
    subject = f"{first}|{second}"
    key = hash_json({"kind": LookRecord.KIND, "task_set": task_set, "subjects": [first, second],
                     "counts": counts})
    try:
        if record:
            store.write(key, LookRecord(task_set=task_set, subject=subject,
                                        subjects=[first, second], tasks=len(counts),
                                        samples=samples))
        rows = store.select(LookRecord, task_set=task_set, subject=subject)
    except (OSError, sqlite3.Error) as exc:
        # A read-only store must not stop a report; it only cannot say how often one looked.
        return {"count": None, "samples": samples, "earlier_samples": [],
                "error": f"{type(exc).__name__}: {exc}"}
    earlier = sorted(r.samples for r in rows if r.key != key and r.samples <= samples)
    return {"count": 1 + len(earlier), "samples": samples, "earlier_samples": earlier}


def _subject(side: dict[str, Any]) -> str:
    # The identity names the version; an agent without one is known by name alone.
    return str(side.get("identity") or side["agent"])
