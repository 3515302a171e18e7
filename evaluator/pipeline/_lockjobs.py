"""`images:<set>` builds the images a set builds itself; `lock:<set>` pins the set."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from doit.exceptions import TaskFailed

from evaluator.console import say
from evaluator.errors import EvalError
from evaluator.images import (
    BASE_TAG,
    SEALER,
    base_is_current,
    build_task_image,
    ensure_base_image,
    task_image_current,
)
from evaluator.images import repin as repin_base
from evaluator.lock import DockerPinResolver, lock_path, lock_problems, read_lock, resolve_lock
from evaluator.pipeline import _context as ctx
from evaluator.pipeline._seals import seal_set
from evaluator.store import replace_atomic


def build_images(name: str) -> TaskFailed | None:
    """Build every missing or outdated task image of the set (the base image first)."""
    loaded = ctx.load(name, need_lock=False)
    if loaded.task_set is None:
        return TaskFailed(str(loaded.error))
    builds = [t for t in loaded.task_set.tasks if t.spec.build is not None]
    if not builds:
        return None
    try:
        client = ctx.docker()
        base = ensure_base_image(client, BASE_TAG)
        for task in builds:
            assert task.spec.build is not None
            repo = task.dir / task.spec.build.repo
            if not task_image_current(client, task.spec.image, repo, base):
                say(f"building {task.spec.image}", err=True)
                build_task_image(client, base_image=base, tag=task.spec.image, repo_dir=repo,
                                 workdir=task.spec.workdir, user=task.spec.user)
    except EvalError as exc:
        return TaskFailed(str(exc))
    return None


def write_lock(name: str, repin: bool = False) -> TaskFailed | None:
    """Build the set's images, resolve every pin and write `lock/<set>.lock` (atomically).

    `repin` (`doit lock:<set> --repin`) first re-pins the base image's Debian packages
    (lock/base.lock) from the mirror today: the only way they change.
    """
    loaded = ctx.load(name, need_lock=False)
    if loaded.task_set is None:
        return TaskFailed(str(loaded.error))
    try:
        if repin:
            repin_base()
        failed = build_images(name)
        if failed is not None:
            return failed
        lock = resolve_lock(loaded.task_set, DockerPinResolver(ctx.docker()))
        old = _old_tasks(lock_path(name, ctx.lock_dir()))
        lock = seal_set(loaded.task_set, lock, ctx.docker(), old)
    except EvalError as exc:
        return TaskFailed(str(exc))
    path = lock_path(name, ctx.lock_dir())
    path.parent.mkdir(parents=True, exist_ok=True)
    _say_changed_images(path, lock)
    replace_atomic(path, lock.to_json(), path.parent)
    say(f"wrote {path} (task set version {lock.version}, {len(lock.tasks)} tasks)")
    return None


def _old_tasks(path: Any) -> dict[str, Any]:
    """The tasks of the lock being replaced, as written (what each image was found to hold)."""
    try:
        tasks = json.loads(path.read_text())["tasks"]
    except (OSError, ValueError, KeyError, TypeError):
        return {}
    return tasks if isinstance(tasks, dict) else {}


def _say_changed_images(path: Any, lock: Any) -> None:
    """Name every task whose image pin changes: for an image the set builds from unchanged
    files, a changed id means this machine's build differs from the one that wrote the lock
    (or the base was re-pinned), and with it every key of the task."""
    try:
        old = json.loads(path.read_text())["tasks"]
    except (OSError, ValueError, KeyError, TypeError):
        return
    for tid, pin in sorted(lock.tasks.items()):
        before = (old.get(tid) or {}).get("image", {}).get("pinned")
        if before and before != pin.image:
            say(f"{path}: the image of task {tid!r} changed from {before} to {pin.image}: "
                f"its keys change; commit the lock if that was meant (e.g. after --repin)", err=True)


def lock_is_current(task: Any, name: str) -> bool:
    """The lock exists, matches every file, every pinned image is on this engine, the images
    the set builds are built from the base the base lock pins (no --repin asked), and every
    task's history was read under the seal contract in force."""
    if task.options.get("repin"):
        return False
    loaded = ctx.load(name, need_lock=False)
    if loaded.task_set is None:
        return False
    try:
        if not _built_images_current(loaded.task_set):
            return False
        lock = read_lock(name, ctx.lock_dir())
        if lock_problems(loaded.task_set, lock):
            return False
        # A history read by another version of the seal contract is read again (a bump of the
        # seal is a new lock: tests/lock/test_committed_locks.py asks for it to be committed).
        if any((p.history or {}).get("sealer") != SEALER for p in lock.tasks.values()):
            return False
        resolver = DockerPinResolver(ctx.docker())
        if any(resolver.image(p.image_ref) != p.image for p in lock.tasks.values()):
            return False
    except Exception:  # any doubt means: resolve again
        return False
    return True


def _built_images_current(task_set: Any) -> bool:
    builds = [(t.spec.image, t.dir / t.spec.build.repo) for t in task_set.tasks
              if t.spec.build is not None]
    if not builds:
        return True
    client = ctx.docker()
    base = base_is_current(client)
    return base is not None and all(task_image_current(client, tag, repo, base)
                                    for tag, repo in builds)


def image_tasks(names: list[str]) -> Iterator[dict[str, Any]]:
    for name in [*names, *ctx.asked("images", names)]:
        yield {"name": name, "actions": [(build_images, [name])], "uptodate": [False],
               "doc": f"build the images of task set {name}", "verbosity": 2}


def lock_tasks(names: list[str]) -> Iterator[dict[str, Any]]:
    for name in [*names, *ctx.asked("lock", names)]:
        yield {"name": name, "actions": [(write_lock, [name])],
               "uptodate": [(lock_is_current, [name])], "verbosity": 2,
               "params": [{"name": "repin", "long": "repin", "type": bool, "default": False,
                           "help": "re-pin the base image's Debian packages (lock/base.lock) "
                                   "from the mirror first"}],
               "doc": f"build images, pin images, commits and files of task set {name} in "
                      f"lock/{name}.lock (--repin: re-pin the base image's packages first)"}
