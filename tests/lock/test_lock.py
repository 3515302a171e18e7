import dataclasses
import json
from pathlib import Path

import pytest
import yaml

from evaluator.errors import BadInputError, StaleLockError
from evaluator.lock import ImageMissing, load_locked, lock_path, lock_problems, read_lock, resolve_lock
from evaluator.taskset import load_task_set
from tests.helpers import make_set
from tests.lock.support import FakeResolver


@pytest.fixture
def locked(tmp_path: Path):
    make_set(tmp_path / "tasks", "mini", ("add-bug", "other-bug"))
    ts = load_task_set("mini", tmp_path / "tasks")
    lock = resolve_lock(ts, FakeResolver())
    lock_path("mini", tmp_path / "lock").parent.mkdir()
    lock_path("mini", tmp_path / "lock").write_bytes(lock.to_json())
    return ts, tmp_path / "lock"


def test_lock_pins_images_commits_and_every_file(locked) -> None:
    ts, lock_dir = locked
    pin = read_lock("mini", lock_dir).pin("add-bug")
    assert pin.image.startswith("sha256:") and len(pin.base_commit) == 40
    assert {"task.yaml", "problem.md", "gold.patch", "hidden/tests/test_hidden.py",
            "repo/calc/ops.py"} <= set(pin.files)


def test_fresh_lock_has_no_problems_and_a_stable_version(locked) -> None:
    ts, lock_dir = locked
    assert lock_problems(ts, read_lock("mini", lock_dir)) == []
    assert load_locked(ts, str(lock_dir)).version == resolve_lock(ts, FakeResolver()).version


def test_each_changed_input_is_named_with_the_fix(locked) -> None:
    ts, lock_dir = locked
    (ts.dir / "add-bug" / "gold.patch").write_text("changed")
    (ts.dir / "other-bug" / "hidden" / "tests" / "test_new.py").write_text("x")
    with pytest.raises(StaleLockError) as info:
        load_locked(ts, str(lock_dir))
    assert "task 'add-bug': gold.patch changed" in str(info.value)
    assert "task 'other-bug': hidden/tests/test_new.py added" in str(info.value)
    assert "doit lock:mini" in str(info.value)


def test_missing_lock_names_the_command(tmp_path: Path) -> None:
    with pytest.raises(StaleLockError, match="doit lock:mini"):
        read_lock("mini", tmp_path)


def test_hand_edited_lock_is_refused(locked) -> None:
    ts, lock_dir = locked
    path = lock_path("mini", lock_dir)
    path.write_text(path.read_text().replace("HEAD", "main", 1))
    with pytest.raises(StaleLockError, match="edited by hand"):
        read_lock("mini", lock_dir)


def test_corrupt_lock_is_bad_input(locked) -> None:
    _, lock_dir = locked
    lock_path("mini", lock_dir).write_text("{not json")
    with pytest.raises(BadInputError, match="not a valid lock"):
        read_lock("mini", lock_dir)


def test_unpinned_image_is_named(locked) -> None:
    ts, lock_dir = locked
    path = lock_path("mini", lock_dir)
    lock = read_lock("mini", lock_dir)
    from dataclasses import replace

    bad = replace(lock, tasks={**lock.tasks, "add-bug": replace(lock.tasks["add-bug"], image="x:1")})
    path.write_bytes(bad.to_json())
    assert any("has no digest" in p for p in lock_problems(ts, read_lock("mini", lock_dir)))


def test_hand_edited_lock_names_the_field(locked) -> None:
    ts, lock_dir = locked
    path = lock_path("mini", lock_dir)
    raw = json.loads(path.read_text())
    raw["tasks"]["add-bug"]["image"]["pinned"] = "sha256:" + "1" * 64
    path.write_text(json.dumps(raw))
    with pytest.raises(StaleLockError) as e:
        read_lock("mini", lock_dir)
    assert e.value.problems == [
        "tasks.add-bug.image changed since it was written: run `doit lock:mini`"]


class _Refusing(FakeResolver):
    def image(self, ref: str) -> str:
        raise BadInputError(f"image {ref!r} is not on this Docker engine")


def test_lock_errors_name_every_task_at_once(tmp_path: Path) -> None:
    make_set(tmp_path / "tasks", "mini", ("add-bug", "other-bug"))
    with pytest.raises(BadInputError) as e:
        resolve_lock(load_task_set("mini", tmp_path / "tasks"), _Refusing())
    assert "2 task(s)" in str(e.value)
    assert "'add-bug'" in str(e.value) and "'other-bug'" in str(e.value)


def test_what_an_image_leaks_is_kept_in_the_lock_but_is_no_pin(locked) -> None:
    ts, lock_dir = locked
    lock = read_lock("mini", lock_dir)
    history = {"leaks": True, "later_commits": 3, "findings": {"ref": ["refs/heads/fix x"]}}
    pins = {**lock.tasks, "add-bug": dataclasses.replace(lock.pin("add-bug"), history=history)}
    marked = dataclasses.replace(lock, tasks=pins)
    lock_path("mini", lock_dir).write_bytes(marked.to_json())
    again = read_lock("mini", lock_dir)
    assert again.pin("add-bug").history == history and again.pin("other-bug").history is None
    assert again.version == lock.version and lock_problems(ts, again) == []


class _Missing(FakeResolver):
    def image(self, ref: str) -> str:
        raise ImageMissing(f"image {ref!r} is not on this Docker engine and pulling it failed")


def test_a_missing_image_is_named_with_the_command_that_fetches_it(tmp_path: Path) -> None:
    set_dir = make_set(tmp_path / "tasks", "mini", ("add-bug", "other-bug"))
    spec = yaml.safe_load((set_dir / "other-bug" / "task.yaml").read_text())
    del spec["build"]
    spec.update(image="acme/other:1", fetch="make other-image")
    (set_dir / "other-bug" / "task.yaml").write_text(yaml.safe_dump(spec))
    with pytest.raises(BadInputError) as info:
        resolve_lock(load_task_set("mini", tmp_path / "tasks"), _Missing())
    assert "build it with `doit images:mini`" in str(info.value)  # the set builds add-bug's
    assert "fetch it with `make other-image`" in str(info.value)
