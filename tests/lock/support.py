"""Shared by the tests that lock a set without a Docker engine: pin resolvers that answer from a
table (one counts the questions), and a set of many tasks sharing a few images."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

from evaluator.errors import BadInputError
from evaluator.hashing import hash_json
from evaluator.taskset import TaskSet, load_task_set
from tests.helpers import make_set, make_task


class FakeResolver:
    def image(self, ref: str) -> str:
        return "sha256:" + hash_json(ref)

    def commit(self, image: str, workdir: str, ref: str, user: str | None = None) -> str:
        return hash_json([image, ref])[:40]


class CountingResolver(FakeResolver):
    """Answers as FakeResolver and records every question; `bad_ref` names a ref that is no
    commit, `on_commit` runs inside each commit question (to hold it open)."""

    def __init__(self, bad_ref: str = "", on_commit: Callable[[], object] | None = None) -> None:
        self.images: list[str] = []
        self.commits: list[tuple[str, str, str, str | None]] = []
        self._bad, self._on_commit, self._mutex = bad_ref, on_commit, threading.Lock()

    def image(self, ref: str) -> str:
        with self._mutex:
            self.images.append(ref)
        return super().image(ref)

    def commit(self, image: str, workdir: str, ref: str, user: str | None = None) -> str:
        with self._mutex:
            self.commits.append((image, workdir, ref, user))
        if self._on_commit is not None:
            self._on_commit()
        if ref == self._bad:
            raise BadInputError(f"git ref {ref!r} does not name a commit in {workdir} of {image}")
        return super().commit(image, workdir, ref, user)


def shared_set(root: Path, *, images: int, commits: int, tasks: int) -> TaskSet:
    """A set of `tasks` tasks naming `images` registry images (acme/img-K:1) at `commits` refs
    (cN) each: task i on image i % images at ref (i // images) % commits."""
    set_dir = make_set(root / "tasks", "shared", ())
    for i in range(tasks):
        make_task(set_dir, f"t-{i:03d}", image=f"acme/img-{i % images}:1", build=None,
                  base_commit=f"c{(i // images) % commits}")
    return load_task_set("shared", root / "tasks")
