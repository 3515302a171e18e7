"""SWE-bench-format fixtures of our own: for each runner style, a small repository at its base
commit, a gold `patch`, a `test_patch` that changes an existing test file and adds a new one,
and the row (5.x style with an eval_script for pytest, older style for Django and sympy)."""

from __future__ import annotations

import json
import os
import subprocess
import textwrap
from pathlib import Path
from typing import Any

from evaluator.images import BASE_TAG
from tests.grading.runners import DJANGO_FILES, SYMPY_FILES

GIT_ENV = {"GIT_AUTHOR_NAME": "fixture", "GIT_AUTHOR_EMAIL": "fixture@localhost",
           "GIT_COMMITTER_NAME": "fixture", "GIT_COMMITTER_EMAIL": "fixture@localhost",
           "GIT_AUTHOR_DATE": "2001-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2001-01-01T00:00:00Z"}
GOLD = textwrap.dedent("""\
    diff --git a/{path} b/{path}
    --- a/{path}
    +++ b/{path}
    @@ -1,2 +1,2 @@
     def add(a, b):
    -    return a - b
    +    return a + b
    """)

# Base repositories: the bug, one passing test in the file the test patch extends.
BASE = {
    "pytest": {"calc.py": "def add(a, b):\n    return a - b\n",
               "tests/__init__.py": "",
               "tests/test_calc.py": "from calc import add\n\n\ndef test_zero():\n"
                                     "    assert add(0, 0) == 0\n"},
    "django": {**{k: v for k, v in DJANGO_FILES.items() if k != "calc/tests.py"},
               "tests/runtests.py": "#!/usr/bin/env python3\n" + DJANGO_FILES["tests/runtests.py"],
               "calc/tests.py": "import unittest\nfrom calc.ops import add\n\n\n"
                                "class CalcTests(unittest.TestCase):\n"
                                "    def test_zero(self):\n"
                                "        self.assertEqual(add(0, 0), 0)\n"},
    "sympy": {**{k: v for k, v in SYMPY_FILES.items() if k != "calc/tests/test_ops.py"},
              "calc/tests/test_ops.py": "from calc.ops import add\n\n\ndef test_zero():\n"
                                        "    assert add(0, 0) == 0\n"},
}
# (file the test patch extends, line it appends, file it adds with its content)
EXTEND = {
    "pytest": ("tests/test_calc.py", "\n\ndef test_add():\n    assert add(2, 3) == 5\n",
               "tests/test_more.py", "from calc import add\n\n\ndef test_more():\n"
                                     "    assert add(1, 1) == 2\n"),
    "django": ("calc/tests.py", "\n    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n",
               "calc/test_more.py", "import unittest\nfrom calc.ops import add\n\n\n"
                                    "class MoreTests(unittest.TestCase):\n"
                                    "    def test_more(self):\n"
                                    "        self.assertEqual(add(1, 1), 2)\n"),
    "sympy": ("calc/tests/test_ops.py", "\n\ndef test_add():\n    assert add(2, 3) == 5\n",
              "calc/tests/test_more.py", "from calc.ops import add\n\n\ndef test_more():\n"
                                         "    assert add(1, 1) == 2\n"),
}
IDS = {
    "pytest": (["tests/test_calc.py::test_add", "tests/test_more.py::test_more"],
               ["tests/test_calc.py::test_zero"]),
    "django": (["test_add (calc.tests.CalcTests)", "test_more (calc.test_more.MoreTests)"],
               ["test_zero (calc.tests.CalcTests)"]),
    "sympy": (["test_add", "test_more"], ["test_zero"]),
}
BUG_FILE = {"pytest": "calc.py", "django": "calc/ops.py", "sympy": "calc/ops.py"}
REPO = {"pytest": "acme/calc", "django": "django/django", "sympy": "sympy/sympy"}
# An environment to activate, as SWE-bench images have: `python` exists only inside it.
ACTIVATE = ("RUN mkdir -p /opt/miniconda3/bin /opt/testbed/bin && ln -s /usr/bin/python3 "
            "/opt/testbed/bin/python && printf 'conda() { PATH=/opt/testbed/bin:$PATH; "
            "export PATH; }\\n' > /opt/miniconda3/bin/activate\n")
DOCKERFILE = (f"FROM {BASE_TAG}\n{ACTIVATE}COPY repo /testbed\n"
              "RUN cd /testbed && git init -q && git add -A && " + " ".join(
                  f"{k}={v}" for k, v in GIT_ENV.items()) + " git commit -qm base\n")


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True,
                          text=True, env={**os.environ, **GIT_ENV}).stdout


def base_repo(root: Path, style: str) -> tuple[Path, str]:
    """The base repository as a git clone with one commit; (its folder, the commit sha)."""
    for rel, text in BASE[style].items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    for rel in ("bin/test", "tests/runtests.py"):
        if (root / rel).is_file():
            (root / rel).chmod(0o755)
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "base")
    return root, git(root, "rev-parse", "HEAD").strip()


def test_patch(repo: Path, style: str) -> str:
    """A diff that extends a test file and adds one; the repository is left at its base."""
    extended, line, added, text = EXTEND[style]
    with open(repo / extended, "a") as f:
        f.write(line)
    (repo / added).write_text(text)
    git(repo, "add", "-A")
    diff = git(repo, "diff", "--cached")
    git(repo, "reset", "-q", "--hard")
    return diff


def row(repo: Path, sha: str, style: str, instance_id: str, **extra: Any) -> dict[str, Any]:
    f2p, p2p = IDS[style]
    out: dict[str, Any] = {
        "repo": REPO[style], "instance_id": instance_id, "base_commit": sha,
        "patch": GOLD.format(path=BUG_FILE[style]), "test_patch": test_patch(repo, style),
        "problem_statement": "add() subtracts.\n", "hints_text": "", "created_at": "2001-01-01",
        "version": "1.0", "environment_setup_commit": sha,
        "FAIL_TO_PASS": json.dumps(f2p), "PASS_TO_PASS": json.dumps(p2p),
    }
    out.update(extra)
    return out


EVAL_SCRIPT = textwrap.dedent("""\
    #!/bin/bash
    set -uxo pipefail
    source /opt/miniconda3/bin/activate
    conda activate testbed
    cd /testbed
    git config --global --add safe.directory /testbed
    git status
    python3 -c 'print("a setup step")'
    git checkout {sha} tests/test_calc.py
    git apply -v - <<'EOF_114329324912'
    {patch}
    EOF_114329324912
    : '>>>>> Start Test Output'
    python -m pytest -rA -p no:cacheprovider tests/test_calc.py tests/test_more.py
    : '>>>>> End Test Output'
    git checkout {sha} tests/test_calc.py
    """)


def task_repo(root: Path, cases: dict[str, tuple[Path, str, dict[str, Any]]]) -> Path:
    """A 5.x task repo (`tasks/<id>/...`) holding each row, with a Dockerfile whose context is
    the task folder (the base repository copied in as repo/)."""
    for iid, (repo, _sha, r) in cases.items():
        d = root / "tasks" / iid
        d.mkdir(parents=True)
        meta = {k: v for k, v in r.items() if k not in (
            "patch", "test_patch", "problem_statement", "hints_text", "eval_script",
            "FAIL_TO_PASS", "PASS_TO_PASS")}
        (d / "task.yaml").write_text(json.dumps(meta))  # JSON is YAML
        (d / "gold.patch").write_text(r["patch"])
        (d / "test.patch").write_text(r["test_patch"])
        (d / "problem_statement.md").write_text(r["problem_statement"])
        if r.get("eval_script"):
            (d / "eval.sh").write_text(r["eval_script"])
        (d / "tests.json").write_text(json.dumps({
            "FAIL_TO_PASS": json.loads(r["FAIL_TO_PASS"]),
            "PASS_TO_PASS": json.loads(r["PASS_TO_PASS"])}))
        (d / "Dockerfile").write_text(DOCKERFILE)
        subprocess.run(["cp", "-r", str(repo), str(d / "repo")], check=True)
        subprocess.run(["rm", "-rf", str(d / "repo" / ".git")], check=True)
    return root
