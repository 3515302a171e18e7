"""The daemonless backend on cgroup v2, for real: a guest on Debian's kernel with cgroup v1 off
(tests/vm.py) runs the checks of tests/cgroup_v2.py on the calc task's image once for the
module; each check is a test here. This machine and CI's mount cgroup v1, where the same
backend's walls are the other tests of this package."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from evaluator.grading import GradeSpec
from tests import cgroup_v2, vm
from tests.helpers import GOLD, HIDDEN_FILES, unavailable

pytestmark = pytest.mark.docker


@pytest.fixture(scope="module")
def checked(spec: GradeSpec) -> Iterator[tuple[dict[str, dict[str, Any]], str]]:
    """Each check's result by name, and the guest's console."""
    lacking = vm.missing()
    if lacking:
        unavailable(lacking)
    work = Path(tempfile.mkdtemp(prefix="evaluator-vm-"))
    try:
        found, console = cgroup_v2.run(spec, {k: v.encode() for k, v in HIDDEN_FILES.items()},
                                       GOLD.encode(), work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    yield {r["check"]: r for r in found}, console


@pytest.mark.parametrize("check", cgroup_v2.CHECKS)
def test_the_check_holds_on_cgroup_v2(checked: tuple[dict[str, dict[str, Any]], str],
                                      check: str) -> None:
    results, console = checked
    assert check in results, results.get("guest", {}).get("detail") or console[-3000:]
    assert results[check]["ok"], results[check]["detail"]
