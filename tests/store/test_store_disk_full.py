"""The store on a full disk (issue 31's `disk-full` row), on a real tmpfs: the reserve a full
disk used up is not counted as room for paid work, nor remade into a disk's last megabyte; a
full disk reached through a link names the disk it really is on; an index that cannot open on
a full disk is a `DiskFullError`, not a bare `sqlite3` error."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from evaluator.errors import DiskFullError
from evaluator.store import Store
from tests.disks import fill, small_disk

KEY = "ab" * 32


@pytest.fixture
def disk(tmp_path: Path) -> Iterator[Path]:
    with small_disk(tmp_path / "small") as mount:
        yield mount


def test_a_used_up_reserve_is_not_room_to_start_an_attempt(
        disk: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The battery's row: a full disk used the reserve for an error note, which left about
    1 MiB free; the next eval took that for the 1 MB an attempt needs and started one on a
    disk that could not record another error."""
    monkeypatch.setenv("EVAL_STORE_MIN_FREE_MB", "1")
    store = Store(disk / "store", remote=None)
    assert (disk / "store" / ".reserve").is_file()
    fill(disk)
    store.put_error("attempt", KEY, RuntimeError("the disk filled"))  # from the reserve
    assert store.error_count("attempt", KEY) == 1
    assert not (disk / "store" / ".reserve").exists()
    again = Store(disk / "store", remote=None)  # a later command: no room to remake it
    assert not (disk / "store" / ".reserve").exists()
    assert shutil.disk_usage(disk).free > 1_000_000  # what the check used to take as room
    why = again.space_problem()
    assert "keeps back for error notes" in why and "under the 1 MB" in why
    (disk / "filler").unlink()
    assert Store(disk / "store", remote=None).space_problem() == ""
    assert (disk / "store" / ".reserve").is_file()  # remade once there is room


def test_a_full_disk_behind_a_link_names_where_the_store_really_is(
        disk: Path, tmp_path: Path) -> None:
    (disk / "store").mkdir()
    link = tmp_path / "store"
    link.symlink_to(disk / "store")
    store = Store(link, remote=None)
    fill(disk)
    with pytest.raises(DiskFullError) as caught:
        store.put_blob(b"x" * 100_000)
    assert f"the store at {link} (resolved: {disk / 'store'}) is out of space" in str(caught.value)


def test_an_index_that_cannot_open_on_a_full_disk_says_so(disk: Path) -> None:
    first = Store(disk / "store", remote=None)
    first.put("attempt", KEY, {"task_id": "t"})
    first.index.close()  # the last connection: SQLite removes its -wal and -shm files
    (disk / "store" / ".reserve").unlink()
    fill(disk)
    again = Store(disk / "store", remote=None)
    # It died of a bare `sqlite3.OperationalError: disk I/O error` at a command's start (its
    # -shm file could not be made): a traceback in doit's load of every target.
    with pytest.raises(DiskFullError, match="the store's index .* is out of space"):
        again.indexed("attempt")
