"""Why the gold gate of a task is not decided: what moved since the store's last verdict of it
(a contract's version, the lock's pins), so a refusal names the cause and what the fix costs."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from evaluator.gold._verdict import VerdictRecord
from evaluator.store import Store
from evaluator.version import CONTRACTS, contract_versions, harness_version, parse_label


def why_undecided(store: Store, task_set: str, undecided: Sequence[str], lock_version: str
                  ) -> list[str]:
    """One line per reason the verdicts of `undecided` tasks are missing, with the count
    ("12 task(s): grading v1 -> v2"), from one indexed query of the set's stored verdicts."""
    if not undecided:
        return []
    wanted = set(undecided)
    newest: dict[str, VerdictRecord] = {}
    for r in store.select_readable(VerdictRecord, task_set=task_set):
        if r.task_id in wanted and (r.task_id not in newest or r.created > newest[r.task_id].created):
            newest[r.task_id] = r
    now = {**parse_label(harness_version("grader")), **contract_versions("verdict"),
           **contract_versions("exploits"), **contract_versions("result")}
    reasons: Counter[str] = Counter()
    for task in undecided:
        old = newest.get(task)
        if old is None:
            reasons["never gated in this store"] += 1
            continue
        was = {**parse_label(old.grader_version), **old.rules}
        if not was:
            reasons["decided by a harness from before behaviour contracts (its grader version "
                    "was a hash of source files)"] += 1
            continue
        moved = [f"{CONTRACTS[n].title if n in CONTRACTS else n} v{was[n]} -> v{v}"
                 for n, v in now.items() if n in was and was[n] != v]
        if not moved and old.lock_version and old.lock_version != lock_version:
            moved.append(f"its pins or the gate's settings (lock version {old.lock_version[:12]} "
                         f"-> {lock_version[:12]})")
        reasons[", ".join(moved) or "its exploits are not all decided yet"] += 1
    return [f"{n} task(s): {why}" for why, n in reasons.most_common()]


__all__ = ["why_undecided"]
