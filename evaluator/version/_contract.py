"""A behaviour contract: a named, versioned promise about what some part of the harness does.

A contract's version is the length of its change log, so a version cannot move without a line
saying why. Which harness files a contract speaks for is a list of globs (`paths`); a file no
contract speaks for is listed in `NEUTRAL` with the reason its changes cannot move an outcome
(`_declared`). Keys hold versions, never source: a comment, a log line or a renamed private
function changes no key, and a change of behaviour fails the contract's conformance tests
(`tests/contracts/`) until the version is bumped and its goldens recorded again.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass


@dataclass(frozen=True)
class Contract:
    """`name` as keys and records spell it; `title` as people read it ("sandbox observation");
    `promise` what it pins; `log[i]` what version i + 1 changed; `paths` the harness files it
    speaks for (globs relative to the `evaluator` package); `goldens` the conformance tests."""

    name: str
    title: str
    promise: str
    log: tuple[str, ...]
    paths: tuple[str, ...]
    goldens: str

    @property
    def version(self) -> int:
        return len(self.log)

    @property
    def tag(self) -> str:
        """`name-vN`: how a label of versions spells it."""
        return f"{self.name}-v{self.version}"

    def covers(self, rel: str) -> bool:
        return any(fnmatch.fnmatchcase(rel, p) for p in self.paths)


@dataclass(frozen=True)
class Neutral:
    """Harness files whose changes move no outcome of any target, and why."""

    paths: tuple[str, ...]
    why: str

    def covers(self, rel: str) -> bool:
        return any(fnmatch.fnmatchcase(rel, p) for p in self.paths)


def label(versions: dict[str, int]) -> str:
    """`grader-v3+sandbox-v4+seal-v1`: a kind's versions as records and reports show them."""
    return "+".join(f"{name}-v{v}" for name, v in versions.items())


def parse_label(text: str) -> dict[str, int]:
    """The versions of a `label`; {} for anything else (a record from before contracts, whose
    version was a source hash)."""
    out: dict[str, int] = {}
    for part in text.split("+"):
        name, sep, number = part.rpartition("-v")
        if not sep or not name or not number.isdigit():
            return {}
        out[name] = int(number)
    return out


__all__ = ["Contract", "Neutral", "label", "parse_label"]
