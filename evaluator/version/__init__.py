"""Behaviour contracts: the declared, versioned behaviour of the harness that keys hold.

Each kind of target's key holds the versions of the contracts its outcome depends on
(`harness_version(kind)`, `contract_versions(kind)`), never the harness's source; the source
hash is provenance in every record (`harness_build`). Versions are bumped by hand, with a line
in the contract's change log (`_declared`); conformance tests with goldens (tests/contracts/)
fail when behaviour moves without a bump. docs/contracts.md says which contract covers which
code, how to bump one and what a bump makes stale.
"""

from evaluator.version._build import harness_build, source_hash
from evaluator.version._cli import add_commands
from evaluator.version._contract import Contract, Neutral, label, parse_label
from evaluator.version._declared import CONTRACTS, KINDS, NEUTRAL
from evaluator.version._doc import markdown
from evaluator.version._versions import (
    PACKAGE,
    contract,
    contract_versions,
    covering,
    harness_version,
    relative,
    stand_in,
)

__all__ = [
    "CONTRACTS",
    "KINDS",
    "NEUTRAL",
    "PACKAGE",
    "Contract",
    "Neutral",
    "add_commands",
    "contract",
    "contract_versions",
    "covering",
    "harness_build",
    "harness_version",
    "label",
    "markdown",
    "parse_label",
    "relative",
    "source_hash",
    "stand_in",
]
