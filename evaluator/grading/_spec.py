"""What a grade depends on, taken from the task and its lock pin, and the grade key."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

from evaluator.hashing import canonical_items, canonical_json, hash_parts, join_items, keyer
from evaluator.lock import Lock, blob_matches
from evaluator.sandbox import SandboxLimits
from evaluator.taskset import Task, TaskSet
from evaluator.version import harness_version


@dataclass(frozen=True)
class GradeSpec:
    """Everything pinned that a grade of one task needs; hidden test bytes checked against the lock."""

    task_set: str
    task_id: str
    image: str
    workdir: str
    user: str
    base_commit: str
    test_command: str
    hidden_tests_hash: str
    fail_to_pass: tuple[str, ...]
    pass_to_pass: tuple[str, ...]
    test_files: tuple[str, ...]
    limits: SandboxLimits
    pytest_plugins: tuple[str, ...] = ()  # loaded with -p: autoloading is off at grading
    results: str = "junit"  # how the run's results are read: JUnit, or a runner's log
    pass_to_pass_rule: str = "passed"  # "swebench": a skip is kept as SWE-bench keeps it

    @functools.cached_property
    def key_material(self) -> dict[str, Any]:
        """Computed once per spec: a gate over 10,000 grades asks for it 10,000 times."""
        return {
            "image": self.image,
            "base_commit": self.base_commit,
            "hidden_tests": self.hidden_tests_hash,
            "test_command": self.test_command,
            "fail_to_pass": list(self.fail_to_pass),
            "pass_to_pass": list(self.pass_to_pass),
            "test_files": list(self.test_files),
            "user": self.user,
            "workdir": self.workdir,
            "limits": asdict(self.limits),
            "pytest_plugins": list(self.pytest_plugins),
            "results": self.results,
            # only where it is not the default, so the keys of every other task stay as they were
            **({"pass_to_pass_rule": self.pass_to_pass_rule}
               if self.pass_to_pass_rule != "passed" else {}),
        }


    @functools.cached_property
    def key_items(self) -> dict[str, bytes]:
        """`key_material` serialized once, field by field (a SWE-bench task's test lists run to
        tens of kilobytes; the keys of its grades and exploits reuse these bytes)."""
        return canonical_items(self.key_material)

    @functools.cached_property
    def key_json(self) -> bytes:
        """`canonical_json(key_material)`, from `key_items`."""
        return join_items(self.key_items)

    def patch_keyer(self, rep: int = 0, grader: str | None = None) -> Callable[[str], str]:
        """`patch_hash -> grade_key(self, patch_hash, rep, grader)`, the spec's bytes hashed
        once: for a command that needs the grade key of every stored attempt."""
        fixed = {**self.key_items, "grader": canonical_json(grader or harness_version("grader")),
                 "rep": canonical_json(rep)}
        return keyer(fixed, "patch")

    @functools.cached_property
    def attempt_keyer(self) -> Callable[[str], str]:
        """`patch_keyer()` made once per spec: an attempt's patch is graded once, rep 0, by the
        harness's grader; every attempt of the task shares its spec, and so this."""
        return self.patch_keyer()


def grade_key(spec: GradeSpec, patch_hash: str, rep: int, grader: str | None = None) -> str:
    """blake3 of (patch, image, hidden tests, test command, grader version, rep, ...): the
    canonical JSON of `key_material` with those three fields, assembled from `key_items`."""
    return hash_parts({
        **spec.key_items,
        "patch": canonical_json(patch_hash),
        "grader": canonical_json(grader or harness_version("grader")),
        "rep": canonical_json(rep),
    })


def grade_spec(task_set: TaskSet, task: Task, lock: Lock) -> GradeSpec:
    pin = lock.pin(task.id)
    s = task_set.spec.sandbox
    return GradeSpec(
        task_set=task_set.name,
        task_id=task.id,
        image=pin.image,
        workdir=task.spec.workdir,
        user=task.spec.user,
        base_commit=pin.base_commit,
        # The agent's commands got the variables `activate` leaves; the tests get the same.
        test_command=(f"{task.spec.activate} && {pin.test_command}" if task.spec.activate.strip()
                      else pin.test_command),
        hidden_tests_hash=pin.hidden_tests,
        fail_to_pass=tuple(task.spec.fail_to_pass),
        pass_to_pass=tuple(task.spec.pass_to_pass),
        test_files=tuple(task.spec.test_files),
        limits=SandboxLimits(
            cpus=s.cpus, memory_mb=s.memory_mb, pids=s.pids, disk_mb=s.disk_mb,
            exec_timeout_s=s.exec_timeout_s, sandbox_timeout_s=s.sandbox_timeout_s,
            output_limit_bytes=s.output_limit_bytes,
        ),
        pytest_plugins=tuple(task.spec.pytest_plugins),
        results=task.spec.results,
        pass_to_pass_rule=task.spec.pass_to_pass_rule,
    )


def hidden_test_bytes(task_set: TaskSet, task: Task, lock: Lock) -> dict[str, bytes]:
    """The hidden test files, each checked against its pin before it is used."""
    pin = lock.pin(task.id)
    prefix = task.spec.hidden_tests.rstrip("/") + "/"
    out = {}
    for rel, path in task.hidden_test_files().items():
        pinned = pin.files.get(prefix + rel, "")
        out[rel] = blob_matches(path.read_bytes(), pinned, f"{path}", task_set.name)
    return out
