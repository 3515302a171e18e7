"""The gold gate: grade the gold patch and the empty patch K times per task, decide validity;
then, on each valid task, the bundled exploits (`_exploitgate`): one that passes unflagged makes
the task `exploitable`, out of the headline like broken gold."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, replace
from typing import Any

from evaluator.gold._exploitgate import (
    ExploitRecord,
    exploit_key,
    families_of,
    run_exploit,
)
from evaluator.gold._sample import choose
from evaluator.gold._verdict import (
    EXPLOITABLE,
    INCOMPLETE,
    VALID,
    Decision,
    VerdictRecord,
    decide_tests,
)
from evaluator.grading import (
    Grader,
    GradeRecord,
    GradeSpec,
    grade_key,
    grade_once,
    grade_spec,
    hidden_test_bytes,
)
from evaluator.hashing import hash_bytes, hash_json
from evaluator.lock import Lock, blob_matches
from evaluator.store import Store
from evaluator.taskset import Task, TaskSet
from evaluator.version import contract, contract_versions, harness_version

EMPTY_PATCH = b""


@dataclass(frozen=True)
class GoldPlan:
    """The grade keys of one task's gold gate and the key of its verdict."""

    task: Task
    spec: GradeSpec
    gold_patch_hash: str
    gold_keys: tuple[str, ...]
    empty_keys: tuple[str, ...]
    exploit_keys: tuple[tuple[str, str], ...] = ()  # (family, its exploit record's key)
    # The families the set chose that do not run on this task (`exploit_sample`: it is not in
    # the sample), and why, with its stratum: part of the verdict's key only where not empty.
    not_checked: tuple[str, ...] = ()
    sample: str = ""

    @property
    def verdict_key(self) -> str:
        # The rule's version (the `verdict` contract): verdicts decided by an older rule are
        # decided again from the same stored grades, which costs no grading.
        material: dict[str, Any] = {
            "gold": list(self.gold_keys), "empty": list(self.empty_keys),
            "exploits": [list(k) for k in self.exploit_keys],
            "rule": contract("verdict").version}
        if self.not_checked:
            material["exploit_sample"] = {"not_checked": list(self.not_checked),
                                          "why": self.sample}
        return hash_json(material)


def plan_gold(task_set: TaskSet, lock: Lock, store: Store | None = None,
              asked: Collection[str] = ()) -> list[GoldPlan]:
    """Keys for every grade of the gate. Under `exploit_sample: all` no file is read but the
    pins (a no-op run stays cheap); under a sample, the gold patches too (their paths), and
    `store` says which tasks outside it were checked already. `asked`: task ids whose exploits
    run on demand (EVAL_EXPLOIT_TASKS)."""
    grader = harness_version("grader")
    reps = range(task_set.spec.gold_reps)
    empty_hash = hash_bytes(EMPTY_PATCH)
    families = families_of(task_set)
    specs = {t.id: grade_spec(task_set, t, lock) for t in task_set.tasks}
    golds = {t.id: lock.pin(t.id).files[t.spec.gold_patch] for t in task_set.tasks}
    exploit_keys = {t.id: tuple((f, exploit_key(specs[t.id], golds[t.id], f)) for f in families)
                    for t in task_set.tasks}

    def stored(task: Task) -> bool:
        return store is not None and any(store.has(ExploitRecord.KIND, k)
                                         for _, k in exploit_keys[task.id])

    choices = choose(task_set, lock, asked=asked, stored=stored) if families else {}
    plans = []
    for task in task_set.tasks:
        spec, gold_hash = specs[task.id], golds[task.id]
        choice = choices.get(task.id)
        checked = choice is None or choice.checked
        plans.append(GoldPlan(
            task=task, spec=spec, gold_patch_hash=gold_hash,
            gold_keys=tuple(grade_key(spec, gold_hash, r, grader) for r in reps),
            empty_keys=tuple(grade_key(spec, empty_hash, r, grader) for r in reps),
            exploit_keys=exploit_keys[task.id] if checked else (),
            not_checked=() if checked else families,
            sample="" if checked or choice is None else f"{choice.why} ({choice.stratum})",
        ))
    return plans


def run_grade(store: Store, grader: Grader, task_set: TaskSet, lock: Lock, plan: GoldPlan,
              subject: str, rep: int) -> GradeRecord:
    """Grade one rep of the gold or empty patch unless its record exists (see `grade_once`:
    an infra error is noted beside the key, never as a grade, and raised)."""
    key = (plan.gold_keys if subject == "gold" else plan.empty_keys)[rep]
    if (done := store.read(GradeRecord, key)) is not None:
        return done  # without reading the task's files: a no-op gate stays cheap
    patch = plan.task.gold_patch if subject == "gold" else EMPTY_PATCH
    if subject == "gold":
        blob_matches(patch, plan.gold_patch_hash, str(plan.task.path("gold_patch")), task_set.name)
    return grade_once(store, grader, plan.spec, patch, hidden_test_bytes(task_set, plan.task, lock),
                      subject=subject, owner=subject, lock_version=lock.version, rep=rep)


def gold_decision(store: Store, plan: GoldPlan) -> Decision:
    """The verdict of the gold and empty-patch grades alone (valid, flaky, broken gold, ...)."""
    gold = [store.read(GradeRecord, k) for k in plan.gold_keys]
    empty = [store.read(GradeRecord, k) for k in plan.empty_keys]
    return decide_tests(gold, empty, plan.spec.fail_to_pass, plan.spec.pass_to_pass)


def run_exploits_of(store: Store, grader: Grader, task_set: TaskSet, lock: Lock, plan: GoldPlan,
                    family: str) -> ExploitRecord | None:
    """One exploit family on the task, once its gold verdict is `valid` (None otherwise: an
    exploit says nothing of a task that is out of the headline already)."""
    key = dict(plan.exploit_keys)[family]
    if (done := store.read(ExploitRecord, key)) is not None:
        return done
    d = gold_decision(store, plan)
    if d.verdict != VALID:
        return None
    gold = plan.task.gold_patch
    blob_matches(gold, plan.gold_patch_hash, str(plan.task.path("gold_patch")), task_set.name)
    empty = store.read(GradeRecord, plan.empty_keys[0])
    empty_output = (store.get_blob(empty.output).decode("utf-8", "replace")
                    if empty is not None and empty.output else "")
    spec = required_spec(plan.spec, d.dropped)
    return run_exploit(store, grader, task_set, spec, key, family, gold,
                       hidden_test_bytes(task_set, plan.task, lock), lock.version,
                       plan.empty_keys[0], empty_output)


def write_verdict(store: Store, task_set: TaskSet, lock: Lock, plan: GoldPlan) -> VerdictRecord:
    """Decide and store the task's verdict from its grade and exploit records."""
    gold = [store.read(GradeRecord, k) for k in plan.gold_keys]
    empty = [store.read(GradeRecord, k) for k in plan.empty_keys]
    d = decide_tests(gold, empty, plan.spec.fail_to_pass, plan.spec.pass_to_pass)
    verdict, why = d.verdict, d.why
    exploits: dict[str, dict[str, Any]] = {}
    if verdict == VALID:
        found = {f: store.read(ExploitRecord, k) for f, k in plan.exploit_keys}
        missing = sorted(f for f, r in found.items() if r is None)
        if missing:
            verdict, why = INCOMPLETE, (f"exploits not decided yet ({', '.join(missing[:5])}); "
                                        f"run `doit gold:{task_set.name}` again")
        exploits = {f: {"status": r.status, "caught_by": r.caught_by, "means": r.means,
                        "graded": r.graded, "grade": r.grade, "grade_outcome": r.grade_outcome,
                        "why": r.why, "record": r.key}
                    for f, r in found.items() if r is not None}
        if plan.not_checked:
            why += f"; exploits not checked: {plan.sample}"
        passed = sorted(f for f, e in exploits.items() if e["status"] == EXPLOITABLE)
        if passed and not missing:
            verdict = EXPLOITABLE
            why = (f"bundled exploit(s) {', '.join(passed)} resolve without a flag: the grader "
                   "of this task can be forged (see its page); " + d.why)
    record = VerdictRecord(
        task_set=task_set.name, task_id=plan.task.id, status=verdict, verdict=verdict, why=why,
        dropped=d.dropped, skipped=list(d.skipped), unreported=list(d.unreported),
        no_report=list(d.no_report), fixture=plan.task.spec.fixture, lock_version=lock.version,
        grader_version=harness_version("grader"),
        rules={**contract_versions("verdict"), **contract_versions("exploits"),
               **contract_versions("result")},
        gold_grades=list(plan.gold_keys), empty_grades=list(plan.empty_keys),
        gold_resolved=[g and g.resolved for g in gold],
        empty_resolved=[g and g.resolved for g in empty],
        exploits=exploits,
        exploitable=sorted(f for f, e in exploits.items() if e["status"] == EXPLOITABLE),
        exploits_not_checked=list(plan.not_checked) if verdict == VALID else [],
        exploit_sample=plan.sample if verdict == VALID else "")
    if verdict == INCOMPLETE:
        return record
    store.write(plan.verdict_key, record)
    return store.read(VerdictRecord, plan.verdict_key) or record


def verdicts(store: Store, task_set: TaskSet, lock: Lock) -> dict[str, VerdictRecord]:
    """The current verdict record of every task (incomplete where not decided yet)."""
    return {plan.task.id: store.read(VerdictRecord, plan.verdict_key)
            or VerdictRecord.undecided(plan.task.id, task_set.name)
            for plan in plan_gold(task_set, lock, store)}


def required_spec(spec: GradeSpec, dropped: Mapping[str, str]) -> GradeSpec:
    """The grade spec of a task as its verdict leaves it: the PASS_TO_PASS tests the gate
    `dropped` as flaky (a verdict's `dropped`) are no longer required. The spec's key material
    changes with it, so grades made under the full list never count for the reduced one."""
    if not dropped:
        return spec
    return replace(spec, pass_to_pass=tuple(t for t in spec.pass_to_pass if t not in dropped))
