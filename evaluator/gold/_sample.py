"""Which tasks the exploit families run on: every task (`exploit_sample: all`, the default), or a
sample of each runner and layout, chosen from pinned inputs, plus the tasks asked for on demand
and those already checked.

A set's tasks resist a family alike where their grader does: the same runner (`results:`) reading
the same shape of run. The stratum of a task is its runner and its layout, where its code and its
tests are (from the paths its gold patch and hidden tests name: a package at the top, under
`src/`, or a module; tests in a folder beside the code, inside the package, or at the top). In
each stratum the tasks are ranked by a hash of their pins (set, task id, gold patch and hidden
tests hashes), and the first N are the sample: the same on every machine and every run, and a
task added to the set displaces a sampled one only if it ranks before it. Gold-gate fixtures
(`fixture:` in task.yaml, never valid) rank last.

A task outside the sample is checked anyway when asked for on demand (`EVAL_EXPLOIT_TASKS`) or
when any of its exploit records is already stored (an earlier on-demand run): then every chosen
family runs on it, and every later plan and report keys its verdict as that of a checked task.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass

from evaluator.errors import BadInputError
from evaluator.hashing import hash_json
from evaluator.lock import Lock
from evaluator.taskset import Task, TaskSet

ALL = "all"
_TEST_DIRS = {"tests", "test", "testing"}
_PATHS = re.compile(rb"^(?:\+\+\+ b/|--- a/)(.+?)\s*$", re.M)


@dataclass(frozen=True)
class Choice:
    """Whether one task's exploits run, and why."""

    stratum: str  # runner and layout, e.g. "junit: package, tests beside it"
    checked: bool
    why: str  # "every task", "sampled (1 of 2 in its stratum)", "asked for", "already checked"


def policy_text(per_stratum: int | None) -> str:
    return "every task" if per_stratum is None else (
        f"{per_stratum} task(s) per runner and layout")


def layout(gold_patch: bytes, hidden: Iterable[str]) -> str:
    """Where a task's code and tests are, from the paths its gold patch and hidden tests name."""
    changed = [p.decode("utf-8", "replace") for p in _PATHS.findall(gold_patch)
               if p != b"/dev/null"]
    code = [p for p in changed if p.endswith(".py") and not _is_test(p)] or changed
    tops = Counter(p.split("/", 1)[0] if "/" in p else "" for p in code)
    top = tops.most_common(1)[0][0] if tops else ""
    where = ("no code" if not code else "src/ package" if top == "src"
             else "package" if top else "top-level module")
    htops = Counter(p.split("/", 1)[0] if "/" in p else "" for p in hidden)
    htop = htops.most_common(1)[0][0] if htops else None
    tests = ("no hidden tests" if htop is None else "tests at the top" if htop == ""
             else "tests beside it" if htop in _TEST_DIRS
             else "tests inside it" if htop == top else f"tests under {htop}/")
    return f"{where}, {tests}"


def stratum_of(task: Task, lock: Lock) -> str:
    """A task's runner and layout, e.g. `junit: package, tests beside it`."""
    prefix = task.spec.hidden_tests.rstrip("/") + "/"
    hidden = [p[len(prefix):] for p in lock.pin(task.id).files if p.startswith(prefix)]
    return f"{task.spec.results}: {layout(task.gold_patch, hidden)}"


def _is_test(path: str) -> bool:
    parts = path.split("/")
    return any(p in _TEST_DIRS for p in parts[:-1]) or parts[-1].startswith("test_")


def rank(task_set: str, task: Task, lock: Lock) -> tuple[bool, str]:
    pin = lock.pin(task.id)
    return (task.spec.fixture is not None,
            hash_json(["exploit-sample", task_set, task.id, pin.files.get(task.spec.gold_patch),
                       pin.hidden_tests]))


def choose(task_set: TaskSet, lock: Lock, *, asked: Collection[str] = (),
           stored: Callable[[Task], bool] | None = None) -> dict[str, Choice]:
    """Per task id, whether the exploit families run on it under the set's `exploit_sample`,
    the on-demand task ids `asked` (`all` for every task) and what is `stored` already."""
    per = task_set.spec.exploit_sample
    unknown = sorted(set(asked) - {t.id for t in task_set.tasks} - {ALL})
    if unknown:
        raise BadInputError(
            f"EVAL_EXPLOIT_TASKS: no task {', '.join(map(repr, unknown))} in task set "
            f"{task_set.name!r}; name tasks of the set (or `all`) for their exploits to run")
    if per == ALL or ALL in asked:
        why = "every task" if per == ALL else "asked for (EVAL_EXPLOIT_TASKS=all)"
        return {t.id: Choice("", True, why) for t in task_set.tasks}
    assert isinstance(per, int)
    strata: dict[str, list[Task]] = {}
    for task in task_set.tasks:
        strata.setdefault(stratum_of(task, lock), []).append(task)
    out = {}
    for name, tasks in strata.items():
        tasks.sort(key=lambda t: rank(task_set.name, t, lock))
        for i, task in enumerate(tasks):
            if i < per:
                why = f"sampled ({i + 1} of {min(per, len(tasks))} in its stratum)"
            elif task.id in asked:
                why = "asked for (EVAL_EXPLOIT_TASKS)"
            elif stored is not None and stored(task):
                why = "already checked (on demand)"
            else:
                why = f"not in the sample of {policy_text(per)}"
            out[task.id] = Choice(name, not why.startswith("not "), why)
    return out
