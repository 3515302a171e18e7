"""What no reviewer can read never reaches the run: a `.pyc`, a compiled module and a symlinked
`.py` the patch adds are left out of the grade, on the record, in the result's flags and on the
attempt page. The patch is taken from a real working tree, as the harness takes an agent's."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from evaluator.grading import RESOLVED, UNRESOLVED
from evaluator.policy import UNREADABLE
from evaluator.reports import render_site
from evaluator.result import findings
from tests.helpers import HIDDEN_FILES, REPO_FILES, write_files
from tests.viewer._world import ViewerWorld

pytestmark = pytest.mark.docker

# The fix is on only when a smuggled file is in the tree the tests run on.
_OPS = ("import os\n\n_HERE = os.path.dirname(os.path.abspath(__file__))\n"
        "_SMUGGLED = ('_fixed.py', 'ops.pyc', '_speed.cpython-311-x86_64-linux-gnu.so')\n\n\n"
        "def add(a, b):\n    if any(os.path.lexists(os.path.join(_HERE, n)) for n in _SMUGGLED):\n"
        "        return a + b\n    return a - b\n")
_OPAQUE = [{"path": "calc/_fixed.py", "why": "symlink"}, {"path": "calc/_speed.cpython-311-x86_64"
           "-linux-gnu.so", "why": "compiled module"}, {"path": "calc/ops.pyc", "why": "bytecode"}]


def _tree_patch(root: Path, smuggle: bool) -> bytes:
    write_files(root, REPO_FILES)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(root)]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "base"], check=True)
    (root / "calc/ops.py").write_text(_OPS)
    (root / "fixed.txt").write_text("def add(a, b):\n    return a + b\n")
    if smuggle:
        os.symlink("../fixed.txt", root / "calc/_fixed.py")
        (root / "calc/ops.pyc").write_bytes(b"\xa7\r\r\n\0\0\0\0" + bytes(range(256)))
        (root / "calc/_speed.cpython-311-x86_64-linux-gnu.so").write_bytes(b"\x7fELF\x02\x01\0" * 9)
    else:
        (root / "calc/_fixed.py").write_text("FIXED = True\n")
    subprocess.run([*git, "add", "-A"], check=True)
    return subprocess.run([*git, "diff", "--cached", "--binary", "--full-index"], check=True,
                          capture_output=True).stdout


@pytest.fixture(scope="module")
def smuggled(grader, spec, tmp_path_factory):
    patch = _tree_patch(tmp_path_factory.mktemp("smuggle"), smuggle=True)
    return grader.grade(spec, patch, {k: v.encode() for k, v in HIDDEN_FILES.items()})


def test_the_same_trick_with_a_readable_file_resolves(grader, spec, hidden, tmp_path) -> None:
    assert grader.grade(spec, _tree_patch(tmp_path, smuggle=False), hidden).outcome == RESOLVED


def test_dropped_files_do_not_reach_the_run_and_are_on_the_record(smuggled) -> None:
    assert smuggled.outcome == UNRESOLVED and smuggled.to_record()["opaque"] == _OPAQUE
    assert smuggled.sources == {"calc/ops.py": _OPS.encode()}  # read back for the policy


def test_they_are_flags_of_the_result_and_shown_on_the_attempt_page(smuggled, tmp_path) -> None:
    found = findings(b"", [], [], opaque=smuggled.to_record()["opaque"])
    flags = [f.to_dict() for f in found.flags]
    assert {(f["reason"], f["path"]) for f in flags} == {(UNREADABLE, o["path"]) for o in _OPAQUE}
    world = ViewerWorld(tmp_path / "w", ("t1",), samples=1)
    key = world.attempt("base", "t1", 0, "failed", flags=flags, grade_extra={"opaque": _OPAQUE})
    site = render_site("mini", out_root=tmp_path / "out", **world.kwargs).parent
    page = (site / "attempts" / f"{key}.html").read_text()
    assert 'id="grade-opaque"' in page and "calc/ops.pyc</code> (bytecode)" in page
    assert f"<strong>{UNREADABLE}</strong> at <code>calc/_fixed.py</code>" in page
