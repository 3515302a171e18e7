"""Turning frozen result dataclasses into JSON-able dicts whose values never vary in the last
digits between platforms."""

from __future__ import annotations

import dataclasses
from typing import Any

DECIMALS = 6


def rounded(value: Any) -> Any:
    if isinstance(value, bool) or value is None or isinstance(value, (int, str)):
        return value
    if isinstance(value, float):
        # Adding 0.0 turns -0.0 into 0.0, so a delta that rounds to zero prints the same both ways.
        return round(value, DECIMALS) + 0.0
    raise TypeError(f"unexpected result field type {type(value).__name__}")


def to_dict(result: Any) -> dict[str, Any]:
    return {f.name: rounded(getattr(result, f.name)) for f in dataclasses.fields(result)
            if not f.name.startswith("_")}
