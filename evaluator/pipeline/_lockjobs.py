"""`images:<set>` builds the images a set builds itself; `lock:<set>` pins the set."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from typing import Any

from doit.exceptions import TaskFailed

from evaluator.errors import EvalError
from evaluator.lock import DockerPinResolver, lock_path, lock_problems, read_lock, resolve_lock
from evaluator.pipeline import _context as ctx
from evaluator.store._files import replace_atomic


def build_images(name: str) -> TaskFailed | None:
    """Build every missing or outdated task image of the set (the base image first)."""
    from evaluator.images import BASE_TAG, build_task_image, ensure_base_image, task_image_current

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
                print(f"building {task.spec.image}", file=sys.stderr)
                build_task_image(client, base_image=base, tag=task.spec.image, repo_dir=repo,
                                 workdir=task.spec.workdir, user=task.spec.user)
    except EvalError as exc:
        return TaskFailed(str(exc))
    return None


def write_lock(name: str) -> TaskFailed | None:
    """Resolve every pin of the set and write `lock/<set>.lock` (atomically)."""
    loaded = ctx.load(name, need_lock=False)
    if loaded.task_set is None:
        return TaskFailed(str(loaded.error))
    try:
        lock = resolve_lock(loaded.task_set, DockerPinResolver(ctx.docker()))
    except EvalError as exc:
        return TaskFailed(str(exc))
    path = lock_path(name, ctx.lock_dir())
    path.parent.mkdir(parents=True, exist_ok=True)
    replace_atomic(path, lock.to_json(), path.parent)
    print(f"wrote {path} (task set version {lock.version}, {len(lock.tasks)} tasks)")
    return None


def lock_is_current(name: str) -> bool:
    """The lock exists, matches every file, and every pinned image is on this engine."""
    loaded = ctx.load(name, need_lock=False)
    if loaded.task_set is None:
        return False
    try:
        lock = read_lock(name, ctx.lock_dir())
        if lock_problems(loaded.task_set, lock):
            return False
        resolver = DockerPinResolver(ctx.docker())
        if any(resolver.image(p.image_ref) != p.image for p in lock.tasks.values()):
            return False
    except Exception:  # any doubt means: resolve again
        return False
    return True


def image_tasks(names: list[str]) -> Iterator[dict[str, Any]]:
    for name in names:
        yield {"name": name, "actions": [(build_images, [name])], "uptodate": [False],
               "doc": f"build the images of task set {name}", "verbosity": 2}


def lock_tasks(names: list[str]) -> Iterator[dict[str, Any]]:
    for name in names:
        yield {"name": name, "actions": [(write_lock, [name])], "task_dep": [f"images:{name}"],
               "uptodate": [(lock_is_current, [name])], "verbosity": 2,
               "doc": f"pin images, commits and files of task set {name} in lock/{name}.lock"}
