"""The lock: `lock/<set>.lock` pins images, commits and files; everything downstream reads it."""

from evaluator.lock._fanout import fan_out
from evaluator.lock._model import LOCK_FORMAT, Lock, TaskPin, lock_path, read_lock
from evaluator.lock._resolve import (
    CommitAsk,
    DockerPinResolver,
    ImageMissing,
    PinResolver,
    blob_matches,
    fetch_hint,
    hidden_tests_hash,
    known_commits,
    load_locked,
    lock_problems,
    resolve_lock,
    task_files,
)
from evaluator.lock._workdir import GIT, checkout_base

__all__ = [
    "CommitAsk",
    "GIT",
    "LOCK_FORMAT",
    "DockerPinResolver",
    "ImageMissing",
    "Lock",
    "PinResolver",
    "TaskPin",
    "blob_matches",
    "checkout_base",
    "fan_out",
    "fetch_hint",
    "hidden_tests_hash",
    "known_commits",
    "load_locked",
    "lock_path",
    "lock_problems",
    "read_lock",
    "resolve_lock",
    "task_files",
]
