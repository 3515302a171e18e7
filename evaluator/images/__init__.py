"""Images the harness builds itself: the pinned base and per-task repository images
(reproducibly), and each task image's seal (its repository at the base commit, nothing later)."""

from __future__ import annotations

from evaluator.images._base import (
    BASE_TAG,
    MIRROR_ENV,
    PINS_LABEL,
    base_is_current,
    build_base,
    current_mirror,
    debian_mirror,
    ensure_base_image,
    repin,
)
from evaluator.images._debs import DEB_CACHE_ENV, deb_cache
from evaluator.images._history import GoldFile, History, history_summary, parse_history
from evaluator.images._inspect import inspect_histories
from evaluator.images._layer import CREATED, image_config, tree_entries, write_layer
from evaluator.images._pins import BASE_LOCK_ENV, BasePins, DebPin, base_lock_path, read_pins
from evaluator.images._seal import (
    SCRATCH,
    SEALED_REPO,
    inspect_history,
    seal_failed,
    seal_tag,
    sealed_image,
)
from evaluator.images._seal_script import SCRIPT as SEAL_SCRIPT
from evaluator.images._seal_script import SEALER
from evaluator.images._task import TASK_USER, TASK_WORKDIR, build_task_image, task_image_current

__all__ = [
    "TASK_USER",
    "TASK_WORKDIR",
    "BASE_LOCK_ENV",
    "BASE_TAG",
    "CREATED",
    "DEB_CACHE_ENV",
    "MIRROR_ENV",
    "SCRATCH",
    "SEAL_SCRIPT",
    "PINS_LABEL",
    "SEALED_REPO",
    "SEALER",
    "BasePins",
    "DebPin",
    "GoldFile",
    "History",
    "base_is_current",
    "base_lock_path",
    "build_base",
    "build_task_image",
    "current_mirror",
    "deb_cache",
    "debian_mirror",
    "ensure_base_image",
    "inspect_histories",
    "inspect_history",
    "read_pins",
    "repin",
    "seal_tag",
    "sealed_image",
    "history_summary",
    "image_config",
    "parse_history",
    "seal_failed",
    "tree_entries",
    "write_layer",
    "task_image_current",
]
