"""What keys and records ask of the contracts: a kind's versions and label, the contract that
speaks for a harness file, and the stand-in an agent's identity holds for one."""

from __future__ import annotations

import functools
from pathlib import Path

from evaluator.version._contract import Contract, Neutral, label
from evaluator.version._declared import CONTRACTS, KINDS, NEUTRAL

PACKAGE = Path(__file__).resolve().parents[1]  # the `evaluator` package


def contract(name: str) -> Contract:
    try:
        return CONTRACTS[name]
    except KeyError:
        raise ValueError(f"no behaviour contract {name!r}; known: {sorted(CONTRACTS)}") from None


def contract_versions(kind: str) -> dict[str, int]:
    """{contract: version} of what the keys of `kind` hold (`KINDS`)."""
    try:
        names = KINDS[kind]
    except KeyError:
        raise ValueError(f"unknown kind of target {kind!r}; use one of {sorted(KINDS)}") from None
    return {n: CONTRACTS[n].version for n in names}


def harness_version(kind: str) -> str:
    """The label of `kind`'s contract versions (`grader-v1+sandbox-v1+seal-v1`): what its keys
    hold of the harness, and what records and reports show as its version."""
    return label(contract_versions(kind))


def relative(path: Path) -> str | None:
    """`path` relative to the `evaluator` package, or None when it is not one of its files."""
    try:
        return Path(path).resolve().relative_to(PACKAGE).as_posix()
    except ValueError:
        return None


def covering(rel: str) -> Contract | Neutral | None:
    """The contract that speaks for harness file `rel` (relative to the package), else the
    neutral rule that lists it, else None (a file nobody decided about: a test says so)."""
    for c in CONTRACTS.values():
        if c.covers(rel):
            return c
    return next((n for n in NEUTRAL if n.covers(rel)), None)


@functools.lru_cache(maxsize=4096)
def stand_in(path: Path) -> str | None:
    """What an agent's identity holds for a harness module its code imports, in place of its
    source: the version of the contract that speaks for it (`contract:sandbox-v3`), or
    `harness:neutral`; None when `path` is not a harness file (it is hashed as the agent's own).
    So a comment in the harness changes no agent's identity, and a bump of a contract its code
    runs through does."""
    rel = relative(path)
    if rel is None:
        return None
    found = covering(rel)
    return f"contract:{found.tag}" if isinstance(found, Contract) else "harness:neutral"


__all__ = ["PACKAGE", "contract", "contract_versions", "covering", "harness_version", "relative",
           "stand_in"]
