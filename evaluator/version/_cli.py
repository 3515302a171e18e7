"""`evaluator contracts`: the behaviour versions in force, and which keys hold each.

    evaluator contracts               # each contract, its version, the keys that hold it
    evaluator contracts --markdown    # docs/contracts.md, from the declarations
"""

from __future__ import annotations

import argparse
from typing import Any

from evaluator.version._declared import CONTRACTS, KINDS
from evaluator.version._doc import KIND_NAMES, markdown


def add_commands(sub: Any) -> None:
    p = sub.add_parser("contracts", help="the behaviour contracts and their versions",
                       description="Each behaviour contract of the harness, its version, the "
                       "keys that hold it and its latest change (docs/contracts.md).")
    p.add_argument("--markdown", action="store_true",
                   help="print docs/contracts.md (make contracts-doc writes it)")
    p.set_defaults(run=_run)


def _run(args: argparse.Namespace) -> int:
    if args.markdown:
        print(markdown(), end="")
        return 0
    for c in CONTRACTS.values():
        held = ", ".join(KIND_NAMES[k] for k, names in KINDS.items()
                         if c.name in names) or "agent identities"
        print(f"{c.name:16} v{c.version:<3} {c.title:24} held by: {held}")
        print(f"{'':21}latest change: {c.log[-1]}")
    return 0


__all__ = ["add_commands"]
