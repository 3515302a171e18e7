"""The patch taken from an agent's working tree carries what it changed, opaque files included,
whatever the agent did to `.git/config`, so the grader's filter sees them rather than losing them."""

import pytest

from evaluator.attempts import extract_patch
from evaluator.attempts._run import start_tree
from evaluator.grading._patchfilter import filter_patch
from evaluator.sandbox import SandboxLimits

pytestmark = pytest.mark.docker

_AGENT = ("git config core.fileMode false && git config diff.noprefix true && "
          "git config core.symlinks false && chmod +x calc/ops.py && ln -s ops.py calc/alias.py && "
          "printf 'pyc\\000' > calc/stray.pyc && mkdir -p calc/__pycache__ && "
          "printf 'x\\000' > calc/__pycache__/ops.cpython-311.pyc")


def test_modes_symlinks_and_binaries_are_in_the_patch_and_caches_are_not(sandboxes, spec) -> None:
    with sandboxes.open(spec.image, SandboxLimits(memory_mb=512), user=spec.user,
                        workdir=spec.workdir, purpose="test") as sb:
        tree = start_tree(sb, spec.workdir, spec.base_commit)
        assert sb.exec(_AGENT, workdir=spec.workdir).exit_code == 0
        patch = extract_patch(sb, spec.workdir, tree)
    assert b"diff --git a/calc/ops.py b/calc/ops.py\nold mode 100644\nnew mode 100755" in patch
    assert b"new file mode 120000" in patch and b"GIT binary patch" in patch
    assert b"__pycache__" not in patch
    assert filter_patch(patch, lambda p: False).opaque == [
        ("calc/alias.py", "symlink"), ("calc/stray.pyc", "bytecode")]
