"""A task of ours as a SWE-bench 5.x instance row: `test_patch` is the diff from the base
commit's files to the hidden tests, and `eval_script` runs the task's test command between the
markers the official harness slices its log at, with the runner's output it parses."""

from __future__ import annotations

import json
import re
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from evaluator.lock import Lock
from evaluator.swebench._command import END, START
from evaluator.swebench._hidden import BaseFiles
from evaluator.taskset import Task, TaskSet

PARSERS = {"junit": "parse_log_pytest", "pytest-log": "parse_log_pytest",
           "django": "parse_log_django", "sympy": "parse_log_sympy"}
_JUNIT = re.compile(r"\s--junitxml[= ]\S+")
_PYTEST = re.compile(r"((?:python3? -m )?pytest)(?=\s|$)")
HEREDOC = "EOF_114329324912"  # any delimiter no patch line equals
META_FILE = "swebench.json"  # what the importer keeps of a row beside the task (its instance id)


def meta(task: Task) -> dict[str, Any]:
    path = task.dir / META_FILE
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}


def instance_id(task: Task) -> str:
    return str(meta(task).get("instance_id") or task.id)


def instance_tasks(task_set: TaskSet) -> dict[str, Task]:
    """SWE-bench instance id -> task: from the importer's swebench.json, else the task's id."""
    return {instance_id(task): task for task in task_set.tasks}


def diff_files(base: dict[str, bytes], new: dict[str, bytes]) -> str:
    """`git diff --binary` of `new` over `base` (paths relative to the repository)."""
    with tempfile.TemporaryDirectory(prefix="swebench-diff-") as tmp:
        root = Path(tmp)
        subprocess.run(["git", "init", "-q", tmp], check=True, capture_output=True)
        for rel, data in base.items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_bytes(data)
        subprocess.run(["git", "-C", tmp, "add", "-A"], check=True, capture_output=True)
        for rel, data in new.items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_bytes(data)
        subprocess.run(["git", "-C", tmp, "add", "-N", "."], check=True, capture_output=True)
        out = subprocess.run(["git", "-C", tmp, "-c", "core.quotepath=off", "diff", "--binary"],
                             check=True, capture_output=True)
        return out.stdout.decode("utf-8", "surrogateescape")


def official_command(task: Task) -> str:
    """The task's test command as the official harness must run it: no JUnit placeholder, and
    pytest's `-rA` summary, which its pytest parser reads."""
    cmd = task.spec.test_command
    if task.spec.results == "junit":
        cmd = _JUNIT.sub("", cmd.replace("{junit_xml}", "/tmp/junit.xml"))
        if " -rA" not in cmd:
            cmd = _PYTEST.sub(lambda m: f"{m[1]} -rA", cmd, count=1)
    return cmd


def eval_script(task: Task, base_commit: str, modified: list[str], test_patch: str) -> str:
    restore = f"git checkout {base_commit} " + " ".join(modified) if modified else ":"
    return "\n".join([
        "#!/bin/bash", "set -uxo pipefail", f"cd {task.spec.workdir}",
        "git config --global --add safe.directory '*'", restore,
        f"git apply --whitespace=nowarn -v - <<'{HEREDOC}'", test_patch.rstrip("\n"), HEREDOC,
        *([task.spec.activate] if task.spec.activate.strip() else []),
        f": '{START}'", official_command(task), f": '{END}'", restore, ""])


def instance_row(task: Task, lock: Lock, base: BaseFiles) -> dict[str, Any]:
    pin = lock.pin(task.id)
    hidden = {rel: p.read_bytes() for rel, p in task.hidden_test_files().items()}
    before = base.read(pin.base_commit, sorted(hidden))
    test_patch = diff_files(before, hidden)
    m = meta(task)
    image = pin.image if "@sha256:" in pin.image else task.spec.image
    return {
        "repo": m.get("repo", f"local/{task.id}"), "instance_id": instance_id(task),
        "base_commit": pin.base_commit, "patch": task.gold_patch.decode("utf-8", "surrogateescape"),
        "test_patch": test_patch, "problem_statement": task.problem_statement,
        "hints_text": m.get("hints_text", ""), "created_at": m.get("created_at", ""),
        "version": m.get("version", "0"),
        "environment_setup_commit": m.get("environment_setup_commit", pin.base_commit),
        "FAIL_TO_PASS": json.dumps(list(task.spec.fail_to_pass)),
        "PASS_TO_PASS": json.dumps(list(task.spec.pass_to_pass)),
        "image": image, "eval_script": eval_script(task, pin.base_commit, sorted(before),
                                                   test_patch),
        "log_parser": PARSERS[task.spec.results], "eval_type": "pass_and_fail",
        "user": task.spec.user,  # ours: the official harness runs as root and ignores it
    }
