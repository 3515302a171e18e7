"""Argument checks shared by the estimators, so every one rejects bad input the same way."""

from __future__ import annotations


def check_alpha(alpha: float) -> None:
    if not 0 < alpha < 1:
        raise ValueError(f"alpha={alpha} must lie strictly between 0 and 1")
