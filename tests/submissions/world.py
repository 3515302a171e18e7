"""A set, its gold gate and a submission's predictions graded in a real store by a scripted
grader (the Grader seam): each patch says what its grade is (a marker in its last line), and
each grade carries real pytest output of that outcome. Then the submission's published folder,
read and stored as the importer does."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from evaluator.gold import plan_gold, run_grade, verdicts, write_verdict
from evaluator.grading import GradeOutcome, GradeSpec
from evaluator.lock import Lock, resolve_lock
from evaluator.store import Store
from evaluator.subjects import grade_prediction, identity, plan_predictions, write_manifest
from evaluator.submissions import PublishedRecord, Table, agreement, write_published
from evaluator.swebench import instance_tasks, read_submission
from evaluator.taskset import TaskSet, load_task_set
from tests.helpers import GOLD, make_set
from tests.submissions.published import (
    EXTRA,
    F2P,
    P2P,
    Folder,
    Published,
    as_test_output,
    pytest_outputs,
    report,
)

BROKEN = "acme__calc-8"  # its environment skips a PASS_TO_PASS test the gold patch needs
FULL = "20250301_agent_model"  # the submission with one instance per cause class
OK = {"success": [F2P], "failure": []}


def patch(marker: str) -> str:
    """The gold fix with a marker the scripted grader reads (a comment: the policy reads it
    as the honest fix it is)."""
    return GOLD.replace("+    return a + b\n", f"+    return a + b  # {marker}\n")


class Pins:
    def image(self, ref: str) -> str:
        return "sha256:" + "1" * 64

    def commit(self, image: str, workdir: str, ref: str, user: str | None = None) -> str:
        return "2" * 40


class ScriptedGrader:
    """fix: everything passes; docs: the fix is not there (FAIL_TO_PASS fails); no-report:
    the runner's log cannot be read; tamper: a canary passed. The gold patch of BROKEN leaves
    one PASS_TO_PASS test skipped, as an environment without an optional module does."""

    SCENARIOS: dict[str, dict[str, tuple[str, ...]]] = {
        "pass": {}, "add-fails": {"fail": ("test_add",)}, "zero-skips": {"skip": ("test_zero",)},
        "zero-skips-add-fails": {"skip": ("test_zero",), "fail": ("test_add",)}}

    def __init__(self, repo: Path) -> None:
        self.repo = repo
        self._outputs: dict[str, str] = {}

    def output(self, scenario: str) -> str:
        if not self._outputs:
            self._outputs = pytest_outputs(self.repo, self.SCENARIOS)
        return self._outputs[scenario]

    def grade(self, spec: GradeSpec, patch: bytes, hidden: dict[str, bytes]) -> GradeOutcome:
        text = patch.decode()
        required = (*spec.fail_to_pass, *spec.pass_to_pass)
        if spec.task_id == BROKEN:  # with any patch: the environment lacks what it needs
            tests = {t: "skipped" if t.endswith("::test_zero") else
                     "failed" if t in spec.fail_to_pass and not patch else "passed"
                     for t in required}
            return GradeOutcome("unresolved", tests, 1 if not patch else 0,
                                detail=f"skipped: {P2P[0]}", output=self.output(
                                    "zero-skips-add-fails" if not patch else "zero-skips"))
        if not patch:
            tests = {t: "failed" if t in spec.fail_to_pass else "passed" for t in required}
            return GradeOutcome("unresolved", tests, 1, output=self.output("add-fails"))
        if "# no-report" in text:
            return GradeOutcome("no_report", {}, 1, detail="the pytest-log log cannot be "
                                "trusted: no pytest totals line", output="Killed\n")
        if "# tamper" in text:
            return GradeOutcome("tampered", dict.fromkeys(required, "passed"), 0,
                                evidence=("canary test_add_twin passed where it must fail",),
                                output=self.output("pass"))
        if "# docs" in text:
            tests = {t: "failed" if t in spec.fail_to_pass else "passed" for t in required}
            return GradeOutcome("unresolved", tests, 1, output=self.output("add-fails"))
        return GradeOutcome("resolved", dict.fromkeys(required, "passed"), 0,
                            output=self.output("pass"))


@dataclass
class World:
    root: Path
    store: Store
    task_set: TaskSet
    lock: Lock
    grader: ScriptedGrader

    def gate(self) -> None:
        for plan in plan_gold(self.task_set, self.lock):
            for subject in ("gold", "empty"):
                for rep in range(self.task_set.spec.gold_reps):
                    run_grade(self.store, self.grader, self.task_set, self.lock, plan, subject,
                              rep)
            write_verdict(self.store, self.task_set, self.lock, plan)

    def submit(self, folder: Folder, grade: bool = True) -> PublishedRecord:
        """Import `folder` as `evaluator import submission` does, grading its predictions."""
        sub = read_submission(folder.write(self.root / "experiments"))
        tasks = instance_tasks(self.task_set)
        record = write_published(self.store, sub.record(
            self.task_set.name, {i: t.id for i, t in tasks.items()}, self.store.put_blob))
        if grade:
            preds = [p for p in sub.predictions if p.instance_id in tasks]
            planned, _ = plan_predictions(preds, self.task_set, self.lock, self.store, tasks)
            ident = identity(sub.name, self.task_set.name, planned)
            for pp in planned:
                grade_prediction(self.store, self.grader, self.task_set, self.lock, pp, ident)
            write_manifest(self.store, self.task_set.name, sub.name, ident, planned)
        return record

    def table(self, record: PublishedRecord) -> Table:
        return agreement(self.store, self.task_set, self.lock,
                         verdicts(self.store, self.task_set, self.lock), record)


def make_world(root: Path, n: int = 9) -> World:
    make_set(root / "tasks", "sw", tuple(f"acme__calc-{i}" for i in range(1, n + 1)),
             gold_reps=2)
    ts = load_task_set("sw", root / "tasks")
    lock = resolve_lock(ts, Pins())
    (root / "lock").mkdir()
    (root / "lock" / "sw.lock").write_bytes(lock.to_json())
    (root / "evals").mkdir()
    (root / "agents").mkdir()
    return World(root, Store(root / "store", remote=None), ts, lock, ScriptedGrader(root / "repo"))


def full_folder(world: World) -> Folder:
    """A Verified submission with one instance per cause class, one the gate cannot validate,
    one with no published outcome and one not in the set; real pytest output where published."""
    theirs = pytest_outputs(world.root / "their-repo", {
        "pass": {}, "zero-fails": {"fail": ("test_zero",)},
        "zero-imports": {"needs": ("test_zero",)}})
    passing, zero_fails, zero_imports = (as_test_output(theirs[k]) for k in (
        "pass", "zero-fails", "zero-imports"))
    zero_failed = {"success": [P2P[1]], "failure": [P2P[0]]}
    return Folder("verified", FULL, "org/model", [
        Published("acme__calc-1", patch("fix"), report("acme__calc-1", resolved=True, f2p=OK),
                  passing),
        Published("acme__calc-2", patch("docs")),  # results.json alone says resolved
        Published("acme__calc-3", patch("no-report"),
                  report("acme__calc-3", resolved=True, f2p=OK), passing),
        # Their report says test_zero failed; their own output shows it passed.
        Published("acme__calc-4", patch("fix"), report("acme__calc-4", resolved=False, f2p=OK,
                                                       p2p=zero_failed), passing),
        # Their run could not import a module test_zero needs.
        Published("acme__calc-5", patch("fix"), report("acme__calc-5", resolved=False, f2p=OK,
                                                       p2p=zero_failed), zero_imports),
        # Their row requires a test ours does not, and it failed there.
        Published("acme__calc-6", patch("fix"), report("acme__calc-6", resolved=False, f2p=OK,
                  p2p={"success": list(P2P), "failure": [EXTRA]}), passing),
        Published("acme__calc-7", patch("tamper"), report("acme__calc-7", resolved=True, f2p=OK),
                  passing),
        Published(BROKEN, patch("fix"), report(BROKEN, resolved=True, f2p=OK), passing),
        Published("acme__calc-9", patch("fix")),  # no_logs: nothing published
        Published("acme__other-1", patch("fix"), report("acme__other-1", resolved=True, f2p=OK),
                  zero_fails),
    ], results={"resolved": ["acme__calc-1", "acme__calc-2", "acme__calc-3", "acme__calc-7",
                             BROKEN, "acme__other-1"],
                "no_generation": [], "no_logs": ["acme__calc-9"]})

