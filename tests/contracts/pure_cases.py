"""Inputs of the contracts whose goldens need no engine: the demo set's twelve tasks (their gold
patches, hidden tests and test commands, as a user's tasks are) and the battery's `shop`
layout, for the exploits built per task and the policy's findings on them."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from evaluator.gold._target import Target, target
from evaluator.grading import GradeSpec
from evaluator.sandbox import SandboxLimits
from evaluator.taskset import Task, load_task_set
from tests.grading.layouts import SHOP

REPO = Path(__file__).resolve().parents[2]
DEMO = load_task_set("demo", REPO / "tasks")


def spec_of(task: Task) -> GradeSpec:
    return GradeSpec(
        task_set="demo", task_id=task.id, image="i", workdir="/testbed", user="1000:1000",
        base_commit="HEAD", test_command=task.spec.test_command, hidden_tests_hash="h",
        fail_to_pass=tuple(task.spec.fail_to_pass), pass_to_pass=tuple(task.spec.pass_to_pass),
        test_files=tuple(task.spec.test_files), limits=SandboxLimits(),
        results=task.spec.results)


def hidden_of(task: Task) -> dict[str, bytes]:
    return {rel: p.read_bytes() for rel, p in task.hidden_test_files().items()}


def shop_spec() -> GradeSpec:
    return replace(spec_of(DEMO.tasks[0]), task_id="shop", test_command=DEMO.tasks[0].spec
                   .test_command, fail_to_pass=SHOP.fail_to_pass, pass_to_pass=SHOP.pass_to_pass,
                   test_files=(), results="junit")


def shop_hidden() -> dict[str, bytes]:
    return {k: v.encode() for k, v in SHOP.hidden.items()}


def cases() -> dict[str, tuple[GradeSpec, bytes, dict[str, bytes], Target]]:
    """Task name -> (spec, gold patch, hidden files, exploit target)."""
    out = {}
    for task in DEMO.tasks:
        spec, hidden = spec_of(task), hidden_of(task)
        out[task.id] = (spec, task.gold_patch, hidden, target(spec, task.gold_patch, hidden))
    spec, hidden = shop_spec(), shop_hidden()
    out["shop"] = (spec, SHOP.gold.encode(), hidden, target(spec, SHOP.gold.encode(), hidden))
    return out
