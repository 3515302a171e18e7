"""A task repo with Dockerfiles imported, locked and gated on the real engine: the images run as
SWE-bench builds them (root, a root-owned repository), every capability still dropped."""

from __future__ import annotations

import re

import pytest

from tests.swebench.support import SweProject, imported

pytestmark = pytest.mark.docker


def test_imported_instances_of_each_runner_are_valid(swe_project: SweProject) -> None:
    imported(swe_project, reps=2)
    gold = swe_project.doit("-n", "2", "-P", "process", "gold:sw")
    assert gold.returncode == 0, gold.stdout + gold.stderr
    for style in ("pytest", "django", "sympy"):
        assert re.search(rf"^acme__calc-{style} +valid ", gold.stdout, re.M), gold.stdout


def test_a_rerun_of_the_import_changes_nothing(swe_project: SweProject) -> None:
    imported(swe_project)
    again = swe_project.evaluator("import", "swebench", "taskrepo", "--set", "sw", "--setup", "")
    assert again.returncode == 0 and again.stdout.count("unchanged") == 3, again.stdout
    assert swe_project.doit("gold:sw").returncode in (0, 1)  # the lock is still current
    assert "stale" not in swe_project.doit("gold:sw").stdout
