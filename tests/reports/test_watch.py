"""A task folder is looked at again only when its watch says something under it changed: every
kind of change is seen by the next call, and where no watch can say (a symbolic link, no
folder) every call says "changed", so the caller looks at every file as before."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from evaluator.reports._watch import TreeWatch

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify: Linux")


def _tree(root: Path) -> Path:
    (root / "t1" / "hidden").mkdir(parents=True)
    (root / "t1" / "problem.md").write_text("fix it\n")
    (root / "t1" / "hidden" / "test_a.py").write_text("def test_a(): pass\n")
    return root


def test_nothing_changed_is_said_once_the_watch_is_set(tmp_path: Path) -> None:
    watch = TreeWatch(_tree(tmp_path / "set"))
    assert watch.changed()  # the first call: the caller has not looked yet
    assert not watch.changed()
    assert not watch.changed()


@pytest.mark.parametrize("change", ["edit in place", "same size", "new file", "remove",
                                    "rename", "chmod", "new folder"])
def test_every_kind_of_change_under_the_folder_is_seen(tmp_path: Path, change: str) -> None:
    root = _tree(tmp_path / "set")
    watch = TreeWatch(root)
    watch.changed()
    deep = root / "t1" / "hidden" / "test_a.py"
    if change == "edit in place":
        deep.write_text(deep.read_text() + "# more\n")
    elif change == "same size":
        with open(deep, "r+b") as f:
            f.write(b"D")
    elif change == "new file":
        (root / "t1" / "extra.txt").write_text("x")
    elif change == "remove":
        deep.unlink()
    elif change == "rename":
        (root / "t1" / "problem.md").rename(root / "t1" / "problem2.md")
    elif change == "chmod":
        os.chmod(deep, 0o600)
    else:
        (root / "t2").mkdir()
    assert watch.changed()
    assert not watch.changed()


def test_a_folder_made_after_the_watch_is_watched_from_the_next_call(tmp_path: Path) -> None:
    root = _tree(tmp_path / "set")
    watch = TreeWatch(root)
    watch.changed()
    (root / "t2" / "hidden").mkdir(parents=True)
    assert watch.changed()
    (root / "t2" / "hidden" / "test_b.py").write_text("def test_b(): pass\n")
    assert watch.changed()
    assert not watch.changed()


def test_where_no_watch_can_say_every_call_says_changed(tmp_path: Path) -> None:
    root = _tree(tmp_path / "set")
    outside = tmp_path / "outside.md"
    outside.write_text("elsewhere\n")
    (root / "t1" / "linked.md").symlink_to(outside)  # its target's edits reach no watch
    linked = TreeWatch(root)
    missing = TreeWatch(tmp_path / "no-such-set")
    for _ in range(3):
        assert linked.changed() and missing.changed()
