"""Images the harness builds itself: the debootstrapped base and per-task repository images."""

from __future__ import annotations

from evaluator.images._base import BASE_TAG, debian_mirror, ensure_base_image
from evaluator.images._task import build_task_image, task_image_current

__all__ = [
    "BASE_TAG",
    "build_task_image",
    "debian_mirror",
    "ensure_base_image",
    "task_image_current",
]
