"""Goldens of the behaviour contracts: what a contract's behaviour was when its version was
recorded, one JSON file per case under tests/contracts/goldens/<contract>/, each with the
version it belongs to.

A test observes the behaviour and calls `check`. It fails when the observation differs from
the golden (the behaviour moved: bump the contract, then record again), when the golden was
recorded for another version (a bump without recording), or when there is none. Recording is on
purpose only: `make goldens` (or `make goldens CONTRACT=name`) sets EVAL_RECORD_GOLDENS, and
even then a golden of the version in force is never replaced by a different one.
"""

from __future__ import annotations

import difflib
import json
import os
from pathlib import Path
from typing import Any

import pytest

from evaluator.version import contract

GOLDENS = Path(__file__).resolve().parent / "goldens"
_SHOWN = 80  # lines of a difference shown


def path_of(name: str, case: str) -> Path:
    return GOLDENS / name / f"{case}.json"


def recording(name: str) -> bool:
    """Whether this run records the goldens of contract `name` (EVAL_RECORD_GOLDENS is `all` or
    a comma-separated list of contract names)."""
    asked = os.environ.get("EVAL_RECORD_GOLDENS", "")
    return asked == "all" or name in {a.strip() for a in asked.split(",") if a.strip()}


def _text(observed: Any) -> str:
    return json.dumps(observed, indent=1, sort_keys=True, ensure_ascii=False)


def check(name: str, case: str, observed: Any) -> None:
    """Compare `observed` (JSON-able) with the golden of contract `name`, case `case`."""
    c = contract(name)
    path = path_of(name, case)
    stored = json.loads(path.read_text()) if path.exists() else None
    observed = json.loads(_text(observed))  # as it reads back: tuples are lists, keys strings
    fix = (f"if the change is intended, add a line to the log of contract {name!r} in "
           f"evaluator/version/_declared.py (version {c.version} -> {c.version + 1}), then "
           f"`make goldens CONTRACT={name}` and `make contracts-doc`")
    if stored is not None and stored["version"] == c.version and stored["observed"] == observed:
        return
    if recording(name):
        if stored is not None and stored["version"] == c.version:
            pytest.fail(f"{path}: contract {name!r} ({c.title}) behaves differently from its "
                        f"golden for version {c.version}, and a golden of the version in force is "
                        f"never replaced: {fix.split(', then')[0]} first\n{_diff(stored, observed)}")
        if stored is not None and stored["version"] > c.version:
            pytest.fail(f"{path} was recorded for version {stored['version']} of {name!r}, "
                        f"newer than the declared {c.version}")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(_text({"contract": name, "version": c.version, "case": case,
                               "observed": observed}) + "\n")
        return
    if stored is None:
        pytest.fail(f"no golden {path} for contract {name!r}: record it with "
                    f"`make goldens CONTRACT={name}`")
    if stored["version"] != c.version:
        pytest.fail(f"{path} was recorded for version {stored['version']} of contract {name!r} "
                    f"({c.title}), which is now at {c.version}: record its goldens again with "
                    f"`make goldens CONTRACT={name}`")
    pytest.fail(f"contract {name!r} ({c.title}, version {c.version}): the behaviour moved from "
                f"its golden {path.relative_to(GOLDENS.parents[2])}; {fix}\n"
                f"{_diff(stored, observed)}")


def _diff(stored: dict[str, Any], observed: Any) -> str:
    lines = list(difflib.unified_diff(_text(stored["observed"]).splitlines(),
                                      _text(observed).splitlines(), "golden", "observed",
                                      lineterm="", n=2))
    more = f"\n... {len(lines) - _SHOWN} more lines" if len(lines) > _SHOWN else ""
    return "\n".join(lines[:_SHOWN]) + more
