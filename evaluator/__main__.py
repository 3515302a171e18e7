"""Command line of the harness: `python -m evaluator <command> ...` (`--help` lists them).

    python -m evaluator gate --task-set demo --candidate X [--baseline Y]   # CI gate, exit 0/1/2
    python -m evaluator report --task-set demo                              # render the report
    python -m evaluator serve [--host 127.0.0.1] [--port 8080] [--token T]  # the HTTP API
    python -m evaluator quarantine list|release --set demo [--agent A] ...  # quarantined attempts
    python -m evaluator export traj --set demo --agent A --task T --out F   # an attempt, exported
    python -m evaluator remote push [--all]                                 # upload pending records

A new command is one more function in `_REGISTRARS`: it adds its subparser and sets `run` to a
function of the parsed arguments that returns the exit code.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from typing import Any


def _reports(sub: Any) -> None:
    from evaluator.reports import add_commands

    add_commands(sub)


def _api(sub: Any) -> None:
    from evaluator.api import add_commands

    add_commands(sub)


def _quarantine(sub: Any) -> None:
    from evaluator.pipeline._quarantine import add_commands

    add_commands(sub)


def _export(sub: Any) -> None:
    from evaluator.export import add_commands  # formats are added in evaluator/export/_group.py

    add_commands(sub)


def _swebench(sub: Any) -> None:
    from evaluator.swebench import add_commands  # `import swebench`, `predictions grade`

    add_commands(sub)


def _remote(sub: Any) -> None:
    from evaluator.store import add_commands  # `remote push`

    add_commands(sub)


_REGISTRARS: tuple[Callable[[Any], None], ...] = (_reports, _api, _quarantine, _export, _swebench,
                                                  _remote)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evaluator",
                                     description="hermetic coding-agent evaluation harness")
    sub = parser.add_subparsers(dest="command", required=True, metavar="command")
    for register in _REGISTRARS:
        register(sub)
    args = parser.parse_args(argv)
    code: int = args.run(args)
    return code


if __name__ == "__main__":
    raise SystemExit(main())
