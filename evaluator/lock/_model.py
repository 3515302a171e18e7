"""The lock file: every floating reference of a task set resolved to a content pin."""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evaluator.errors import BadInputError, StaleLockError
from evaluator.hashing import hash_json

LOCK_FORMAT = 1


@dataclass(frozen=True)
class TaskPin:
    """What the lock pins for one task."""

    image_ref: str  # as written in task.yaml
    image: str  # immutable reference: name@sha256:... or the image id sha256:...
    base_ref: str
    base_commit: str  # 40-hex sha
    files: dict[str, str]  # task-relative path -> blake3, every file of the task folder
    hidden_tests: str  # blake3 over the hidden test files (path + content)
    test_command: str
    # What the image's repository holds beyond the base commit's history (`evaluator.images.
    # History.to_dict`), for people: agents and graders see the image's seal whatever it says,
    # so it is no pin and not part of the lock's version.
    history: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "image": {"ref": self.image_ref, "pinned": self.image},
            "base_commit": {"ref": self.base_ref, "sha": self.base_commit},
            "files": self.files,
            "hidden_tests": self.hidden_tests,
            "test_command": self.test_command,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> TaskPin:
        return cls(
            image_ref=d["image"]["ref"],
            image=d["image"]["pinned"],
            base_ref=d["base_commit"]["ref"],
            base_commit=d["base_commit"]["sha"],
            files=dict(d["files"]),
            hidden_tests=d["hidden_tests"],
            test_command=d["test_command"],
            history=d.get("history"),
        )


@dataclass(frozen=True)
class Lock:
    """A task set's lock; `version` is the task set version every result is tied to."""

    task_set: str
    set_file: str  # blake3 of set.yaml
    tasks: dict[str, TaskPin]

    @functools.cached_property
    def version(self) -> str:
        return hash_json(self._pins())[:32]

    def _pins(self) -> dict[str, Any]:
        return {
            "format": LOCK_FORMAT,
            "task_set": self.task_set,
            "set_file": self.set_file,
            "tasks": {tid: pin.to_dict() for tid, pin in sorted(self.tasks.items())},
        }

    def to_json(self) -> bytes:
        body = {**self._pins(), "version": self.version, "checks": self.checks()}
        for tid, pin in self.tasks.items():
            if pin.history is not None:
                body["tasks"][tid]["history"] = pin.history
        return (json.dumps(body, indent=2, sort_keys=True) + "\n").encode()

    def checks(self) -> dict[str, str]:
        """A short hash per field, so a hand edit can be traced to the field it changed."""
        out = {"task_set": hash_json(self.task_set)[:16], "set_file": hash_json(self.set_file)[:16]}
        for tid, pin in self.tasks.items():
            for field, value in pin.to_dict().items():
                if field == "files":
                    out.update({f"tasks.{tid}.files.{rel}": h[:16] for rel, h in value.items()})
                else:
                    out[f"tasks.{tid}.{field}"] = hash_json(value)[:16]
        return out

    def pin(self, task_id: str) -> TaskPin:
        try:
            return self.tasks[task_id]
        except KeyError:
            raise StaleLockError(
                f"the lock of {self.task_set!r} has no task {task_id!r}",
                [f"run `doit lock:{self.task_set}` to pin it"],
            ) from None


def lock_path(task_set: str, lock_dir: str | Path = "lock") -> Path:
    return Path(lock_dir) / f"{task_set}.lock"


def read_lock(task_set: str, lock_dir: str | Path = "lock") -> Lock:
    """Read `lock/<set>.lock`; a missing or unreadable lock names the command that fixes it."""
    path = lock_path(task_set, lock_dir)
    fix = f"run `doit lock:{task_set}`"
    try:
        raw = json.loads(path.read_text())
    except FileNotFoundError:
        raise StaleLockError(f"no lock for task set {task_set!r}", [f"{path} is missing: {fix}"]) from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise BadInputError(f"{path} is not a valid lock ({exc}); {fix} to rewrite it") from None
    try:
        if raw["format"] != LOCK_FORMAT:
            raise StaleLockError(
                f"{path} has lock format {raw['format']}", [f"format {LOCK_FORMAT} expected: {fix}"]
            )
        lock = Lock(
            task_set=raw["task_set"],
            set_file=raw["set_file"],
            tasks={tid: TaskPin.from_dict(p) for tid, p in raw["tasks"].items()},
        )
    except (KeyError, TypeError) as exc:
        raise BadInputError(f"{path} is missing field {exc}; {fix} to rewrite it") from None
    if raw.get("version") != lock.version:
        raise StaleLockError(f"{path} was edited by hand", _edits(raw.get("checks"), lock, fix))
    return lock


def _edits(recorded: Any, lock: Lock, fix: str) -> list[str]:
    """Which fields differ from what the lock recorded when it was written."""
    if not isinstance(recorded, dict):
        return [f"its version does not match its pins (no field checks to say which): {fix}"]
    now = lock.checks()
    changed = sorted(k for k in set(now) | set(recorded) if now.get(k) != recorded.get(k))
    if not changed:
        return [f"its `version` field was changed: {fix}"]
    return [f"{k} {'added' if k not in recorded else 'removed' if k not in now else 'changed'} "
            f"since it was written: {fix}" for k in changed]
