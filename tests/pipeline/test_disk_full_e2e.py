"""A full disk under a real doit eval (issue 31): the store on a tmpfs of 4 MB, filled. It gave
raw `OSError: [Errno 28]` tracebacks from every target and recorded no infra error; now no
attempt is started (and paid for) on a store without room, each target says so in one line
naming the store and the space it needs, a disk that fills mid-run is one line per target with
its infra error recorded (from the store's reserve), and nothing stored is lost."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers import unavailable
from tests.pipeline.support import Project, executed

pytestmark = pytest.mark.docker


@pytest.fixture
def small_store(gated: Project, tmp_path: Path) -> Iterator[Path]:
    """The gated project's store moved onto a 4 MB tmpfs; yields the mount point."""
    mount = tmp_path / "small"
    mount.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(mount)]
                      ).returncode != 0:
        unavailable("mounting a tmpfs needs root")
    try:
        shutil.copytree(gated.root / "store", mount / "store", symlinks=True)
        gated.env["EVAL_STORE"] = str(mount / "store")
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def _fill(mount: Path, leave_kb: int) -> Path:
    filler = mount / "filler"
    free = shutil.disk_usage(mount).free
    subprocess.run(["fallocate", "-l", str(max(free - leave_kb * 1024, 0)), str(filler)],
                   check=True)
    return filler


def test_no_attempt_starts_on_a_store_without_room(gated: Project, small_store: Path) -> None:
    filler = _fill(small_store, 40)
    out = gated.doit("-n", "2", "-P", "process", "eval:mini")
    assert out.returncode != 0 and "Traceback" not in out.stdout + out.stderr
    assert executed(out.stdout, "attempt:") == sorted(
        f"attempt:mini/{a}/{t}/0" for a in ("sim-a", "sim-b") for t in ("add-bug", "add-bug-two"))
    store = small_store / "store"
    lines = [line for line in out.stdout.splitlines() if "not started" in line]
    assert len(lines) == 4 and all(f"the store at {store} has " in line and "under the 64 MB"
                                   in line for line in lines)
    assert f"store: the store at {store} has" in out.stdout  # the summary says it once more
    assert not list((store / "records" / "attempt").glob("*/*.json"))  # nothing paid for
    filler.unlink()
    gated.env["EVAL_STORE_MIN_FREE_MB"] = "1"
    again = gated.doit("-n", "2", "-P", "process", "eval:mini")
    assert again.returncode == 0, again.stdout + again.stderr


def test_a_disk_that_fills_mid_run_is_one_line_per_target_and_recorded(
        gated: Project, small_store: Path) -> None:
    gated.env["EVAL_STORE_MIN_FREE_MB"] = "0"  # let them start on a disk too small to finish
    filler = _fill(small_store, 40)
    out = gated.doit("-n", "2", "-P", "process", "eval:mini")
    assert out.returncode != 0
    assert "Traceback" not in out.stdout + out.stderr and "Errno 28" not in out.stdout
    store = small_store / "store"
    full = [line for line in out.stdout.splitlines() if "DiskFullError" in line]
    assert full and all(f"the store at {store} is out of space: writing " in line
                        for line in full)
    errors = list((store / "errors" / "attempt").glob("*/*.json"))
    assert len(errors) >= len(full)  # recorded, from the reserve the store keeps for it
    landed = set((store / "records" / "attempt").glob("*/*.json"))
    filler.unlink()
    gated.env["EVAL_STORE_MIN_FREE_MB"] = "1"
    again = gated.doit("-n", "2", "-P", "process", "eval:mini")
    assert again.returncode == 0, again.stdout + again.stderr
    assert landed <= set((store / "records" / "attempt").glob("*/*.json"))  # nothing lost
    assert len(executed(again.stdout, "attempt:")) == 4 - len(landed)


def test_a_store_full_to_the_last_byte_fails_its_eval_in_one_line(
        gated: Project, small_store: Path) -> None:
    """No room even for the index's -shm file: SQLite's `disk I/O error` came up through doit's
    load of the targets as a traceback; now the eval fails with one line naming the index."""
    (small_store / "store" / ".reserve").unlink()  # used up by an earlier error note
    filler = _fill(small_store, 0)
    out = gated.doit("eval:mini")
    text = out.stdout + out.stderr
    assert out.returncode != 0 and "Traceback" not in text and "sqlite3." not in text, text
    assert f"the store's index {small_store / 'store' / 'index.sqlite'} is out of space" in text
    assert not executed(out.stdout, "attempt:")
    filler.unlink()
    gated.env["EVAL_STORE_MIN_FREE_MB"] = "1"
    again = gated.doit("-n", "2", "-P", "process", "eval:mini")
    assert again.returncode == 0, again.stdout + again.stderr
