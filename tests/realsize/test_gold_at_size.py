"""The gold gate over real-size and awkward repositories, on the real engine, through doit."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import TEST_CMD
from tests.realsize.support import write_task
from tests.repos import (
    AWKWARD_F2P,
    AWKWARD_FILES,
    AWKWARD_GOLD,
    AWKWARD_HIDDEN,
    AWKWARD_P2P,
    BIG_HIDDEN,
    big_gold,
)

pytestmark = pytest.mark.docker


def _set(tmp_path: Path) -> Path:
    return tmp_path / "tasks" / "real"


def test_big_repository_with_history_is_valid(doit, big_image: str, tmp_path: Path) -> None:
    write_task(_set(tmp_path), "clamp", {
        "image": big_image, "base_commit": "main", "test_command": TEST_CMD,
        "fail_to_pass": ["tests/test_clamp_hidden.py::test_high"],
        "pass_to_pass": ["tests/test_clamp_hidden.py::test_inside", "tests/test_core.py::test_low"],
    }, hidden=BIG_HIDDEN, gold=big_gold())
    assert doit("lock:real").returncode == 0
    out = doit("gold:real")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "clamp" in out.stdout and " valid" in out.stdout, out.stdout


def test_mixins_nested_classes_and_odd_ids_in_a_src_layout(doit, tmp_path: Path) -> None:
    write_task(_set(tmp_path), "rect-area", {
        "image": "evaluator-test/rect-area:1", "build": {"repo": "repo"},
        "test_command": "python3 -m pytest -p no:cacheprovider --junitxml={junit_xml}",
        "fail_to_pass": AWKWARD_F2P, "pass_to_pass": AWKWARD_P2P,
    }, hidden=AWKWARD_HIDDEN, gold=AWKWARD_GOLD, repo=AWKWARD_FILES)
    assert doit("lock:real").returncode == 0
    out = doit("gold:real")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "rect-area" in out.stdout and " valid" in out.stdout, out.stdout
