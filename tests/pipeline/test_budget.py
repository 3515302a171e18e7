"""The run's budget file on a full disk (issue 31's `disk-full` row): one line worded as every
other full disk of the store's ("is out of space: writing N bytes"), naming the file and, for
a store reached through a link, the disk it really is on."""

from __future__ import annotations

from pathlib import Path

import pytest

from evaluator.errors import DiskFullError
from evaluator.pipeline._budget import Budget
from tests.disks import fill, small_disk


def test_a_budget_file_on_a_full_disk_is_one_line_naming_it(tmp_path: Path) -> None:
    with small_disk(tmp_path / "small") as mount:
        (mount / "store" / "budget").mkdir(parents=True)
        link = tmp_path / "store"  # a store linked onto the small disk
        link.symlink_to(mount / "store")
        fill(mount)
        budget = Budget(link / "budget" / "mini-1.json", cap_usd=10.0)
        with pytest.raises(DiskFullError) as caught:
            budget.reserve(1.0)  # its first bytes need a block the disk has not got
    line = str(caught.value)
    assert "\n" not in line and "is out of space: writing " in line
    assert f"budget file {link}/budget/mini-1.json (resolved: {mount}/store/budget" in line
