"""A throwaway project of SWE-bench rows whose environment skips a PASS_TO_PASS test (an optional
module it lacks), in each runner's shape, beside one plain pytest row; imported through the
real CLI from a task repo with Dockerfiles (tests/swebench/fixtures.py's), locked and gated
through the real doit."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from tests.swebench.fixtures import BASE, git, row, task_repo
from tests.swebench.support import REPO, SweProject

# Per runner: (file the skipped test goes into, the test, its id as the row writes it). How
# each runner prints the skip decides whether SWE-bench's parser keeps it: pytest folds it into
# `SKIPPED [1] file:line` (no id: failed), Django names it (kept), sympy's parser reads no skip.
SKIPS = {
    "pytest": ("tests/test_calc.py", "\n\ndef test_optional():\n    import pytest\n"
               "    pytest.importorskip('numpy_absent_here')\n",
               "tests/test_calc.py::test_optional"),
    "django": ("calc/tests.py", "\n    @unittest.skip('needs numpy_absent_here')\n"
               "    def test_optional(self):\n        pass\n",
               "test_optional (calc.tests.CalcTests)"),
    "sympy": ("calc/tests/test_ops.py", "\n\ndef test_optional():\n"
              "    from bin_test_support import SKIP\n    raise SKIP('needs numpy_absent_here')\n",
              "test_optional"),
}


def _repo(root: Path, style: str, skip: bool) -> tuple[Path, str]:
    files = dict(BASE[style])
    if skip:
        path, text, _ = SKIPS[style]
        files[path] = files[path] + text
    for rel, content in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(content)
    for rel in ("bin/test", "tests/runtests.py"):
        if (root / rel).is_file():
            (root / rel).chmod(0o755)
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "base")
    return root, git(root, "rev-parse", "HEAD").strip()


def make_skip_project(root: Path) -> SweProject:
    cases: dict[str, tuple[Path, str, dict[str, Any]]] = {}
    for style, skip in (("pytest", True), ("django", True), ("sympy", True), ("pytest", False)):
        iid = f"acme__calc-{style}" + ("-skip" if skip else "")
        repo, sha = _repo(root / "src" / iid, style, skip)
        r = row(repo, sha, style, iid)
        if skip:
            r["PASS_TO_PASS"] = json.dumps([*json.loads(r["PASS_TO_PASS"]), SKIPS[style][2]])
        cases[iid] = (repo, sha, r)
    task_repo(root / "taskrepo", cases)
    env = {**os.environ, "EVAL_TASKS": str(root / "tasks"), "EVAL_LOCK_DIR": str(root / "lock"),
           "EVAL_STORE": str(root / "store"), "EVAL_EVALS": str(root / "evals"),
           "EVAL_AGENTS": str(root / "agents"), "PYTHONPATH": str(REPO)}
    return SweProject(root, env, {k: v[2] for k, v in cases.items()})


def docs_only(readme: str = "README.md") -> str:
    """A patch that touches only documentation (the kind published as resolved in 2024)."""
    return (f"diff --git a/{readme} b/{readme}\nnew file mode 100644\n--- /dev/null\n"
            f"+++ b/{readme}\n@@ -0,0 +1 @@\n+add() now adds.\n")
