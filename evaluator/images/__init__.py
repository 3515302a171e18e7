"""Images the harness builds itself, reproducibly: the pinned base and per-task repository images."""

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
from evaluator.images._pins import BASE_LOCK_ENV, BasePins, DebPin, base_lock_path, read_pins
from evaluator.images._task import build_task_image, task_image_current

__all__ = [
    "BASE_LOCK_ENV",
    "BASE_TAG",
    "DEB_CACHE_ENV",
    "MIRROR_ENV",
    "PINS_LABEL",
    "BasePins",
    "DebPin",
    "base_is_current",
    "base_lock_path",
    "build_base",
    "build_task_image",
    "current_mirror",
    "deb_cache",
    "debian_mirror",
    "ensure_base_image",
    "read_pins",
    "repin",
    "task_image_current",
]
