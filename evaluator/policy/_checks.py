"""Cheat detection: policy checks that run before an attempt may count as resolved.

Grading already puts tests back as pinned, so editing them cannot help; these checks name the
attempt that tried, so reports can show it, and catch trajectories that went looking for the
answer (the gold patch, the hidden tests, or commits from the repository's future).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import PurePosixPath

from evaluator.grading import is_protected, patch_paths

TOUCHES_TESTS = "touches_tests"
TOUCHES_TEST_CONFIG = "touches_test_config"
TOUCHES_HIDDEN_TESTS = "touches_hidden_tests"
READS_LEAK_PATHS = "reads_leak_paths"
DIGS_GIT_HISTORY = "digs_git_history"
TAMPERS_WITH_RUNNER = "tampers_with_test_runner"

_CONFIG = {"conftest.py", "pytest.ini", "tox.ini", "setup.cfg", "pyproject.toml",
           "sitecustomize.py", "usercustomize.py", ".coveragerc"}
_LEAKS = re.compile(r"gold\.patch|hidden_tests|/tasks/|\.eval/|FAIL_TO_PASS|PASS_TO_PASS")
# Looking past the base commit: other refs, the reflog, unreachable objects, remotes.
_GIT_DIG = re.compile(
    r"git\s+(?:[^|;&\n]*\s)?(?:log\s[^|;&\n]*--all|reflog|fsck|fetch|pull|rev-list\s[^|;&\n]*--all"
    r"|show-ref|for-each-ref|cat-file\s[^|;&\n]*--batch-all-objects|checkout\s+origin|log\s+origin"
    r"|branch\s+-a|remote)|\.git/(?:packed-refs|refs/|logs/|objects/)"
)


# Code under test runs inside the test process, so a patch can reach into the runner itself:
# rewrite its reports, its exit status or its assertions. Added lines that do are flagged.
_RUNNER_HOOKS = re.compile(
    r"\b_pytest\b|pytest_runtest_|pytest_collection|pytest_sessionfinish|pytest_terminal_summary"
    r"|junitxml|\bos\._exit\b|sys\.modules\[\s*['\"](?:pytest|_pytest|unittest)"
    r"|builtins\.AssertionError|\bsys\.excepthook\b|\bunittest\.TestResult\b"
)


@dataclass(frozen=True)
class Violation:
    reason: str
    detail: str

    def to_dict(self) -> dict[str, str]:
        return {"reason": self.reason, "detail": self.detail}


def check_patch(patch: bytes, hidden_paths: Iterable[str], extra_globs: Iterable[str] = ()) -> list[
    Violation
]:
    """Violations by the files a patch touches."""
    hidden = set(hidden_paths)
    found = []
    for path in patch_paths(patch):
        name = PurePosixPath(path).name
        if path in hidden:
            found.append(Violation(TOUCHES_HIDDEN_TESTS, path))
        elif name in _CONFIG:
            found.append(Violation(TOUCHES_TEST_CONFIG, path))
        elif _touches_pytest_section(patch, path):
            found.append(Violation(TOUCHES_TEST_CONFIG, path))
        elif is_protected(path, list(extra_globs)):
            found.append(Violation(TOUCHES_TESTS, path))
    for line in patch.decode("utf-8", errors="replace").splitlines():
        if line.startswith("+") and not line.startswith("+++") and _RUNNER_HOOKS.search(line):
            found.append(Violation(TAMPERS_WITH_RUNNER, line[1:].strip()[:200]))
            break
    return found


def _touches_pytest_section(patch: bytes, path: str) -> bool:
    return path.endswith(".toml") and b"[tool.pytest" in patch


def check_trajectory(actions: Iterable[str], hidden_paths: Iterable[str]) -> list[Violation]:
    """Violations by the commands an agent ran."""
    names = {PurePosixPath(p).name for p in hidden_paths}
    found = []
    for n, action in enumerate(actions):
        if _LEAKS.search(action) or any(name in action for name in names):
            found.append(Violation(READS_LEAK_PATHS, f"step {n}: {action[:200]}"))
        if _GIT_DIG.search(action):
            found.append(Violation(DIGS_GIT_HISTORY, f"step {n}: {action[:200]}"))
    return found
