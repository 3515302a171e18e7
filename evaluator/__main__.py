"""Command line of the harness: `evaluator <command> ...` (or `python -m evaluator`; `--help`
lists the commands).

    evaluator gate --set demo --candidate X [--baseline Y]    # CI gate, exit 0/1/2
    evaluator report --set demo                               # render the report
    evaluator serve [--host 127.0.0.1] [--port 8080]          # the HTTP API
    evaluator quarantine list|release --set demo [--agent A]  # quarantined attempts
    evaluator export traj --set demo --agent A --task T       # an attempt, exported
    evaluator remote push [--all]                             # upload pending records
    evaluator images pull|load|list                           # sandbox images (daemonless)
    evaluator userns -- COMMAND ...                           # in the daemonless user namespace
    evaluator config                                          # the settings in force
    evaluator contracts                                       # behaviour versions in keys

A new command is one more function in `_REGISTRARS`: it adds its subparser and sets `run` to a
function of the parsed arguments that returns the exit code. Commands name a task set with
`--set` and take the path settings as the same options (`evaluator.settings.add_set_option`,
`add_path_options`); `main` puts the given paths in force for the whole command.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

from evaluator import api, export, pipeline, reports, sandbox, store, submissions, version
from evaluator.settings import SettingError, check_set_given, given_paths, settings
from evaluator.settings import add_commands as add_settings_commands

# Each package registers its own commands (`add_commands(sub)` adds subparsers and sets `run`).
_REGISTRARS: tuple[Callable[[Any], None], ...] = (
    reports.add_commands, api.add_commands,
    pipeline.add_commands,  # `quarantine`, `predictions grade`, `import swebench|submission`
    export.add_commands,  # its formats are registered in evaluator/export/_group.py
    submissions.add_commands,  # `agreement`
    store.add_commands,  # `remote push`
    sandbox.add_commands,  # `images pull|load|list`
    add_settings_commands,  # `config`
    version.add_commands,  # `contracts`
)

_EPILOG = """The pipeline's targets run under doit: `doit lock:<set>`, `doit gold:<set>`,
`doit plan:<set>`, `doit eval:<set>`, `doit report:<set>` (README.md). Settings: `config`
prints them, docs/settings.md lists them."""


class _Formatter(argparse.RawDescriptionHelpFormatter):
    """Each command's help on one line beside its name (argparse measures only `<command>`)."""

    def __init__(self, prog: str) -> None:
        super().__init__(prog, max_help_position=20, width=100)
        self._action_max_length = 18


def _prog() -> str:
    name = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    return "python -m evaluator" if name in ("", "-c", "__main__.py") else name


def parser() -> argparse.ArgumentParser:
    """The whole command line, every command registered."""
    p = argparse.ArgumentParser(prog=_prog(), formatter_class=_Formatter, epilog=_EPILOG,
                                description="hermetic coding-agent evaluation harness")
    sub = p.add_subparsers(dest="command", required=True, metavar="<command>",
                           title="commands")
    for register in _REGISTRARS:
        register(sub)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    check_set_given(args)
    try:
        with settings.given(**given_paths(args)):
            # A setting no command could use is refused first, one line each (`config` shows
            # them in its table instead).
            bad = [] if args.command == "config" else settings.problems()
            for line in bad:
                print(f"error: {line}", file=sys.stderr)
            if bad:
                return 2
            if argv is None and args.command not in ("userns", "config"):
                # Without root, the daemonless backend's sandboxes need its user namespace.
                sandbox.enter_user_namespace(f"evaluator {args.command}")
            code: int = args.run(args)
    except SettingError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return code


if __name__ == "__main__":
    raise SystemExit(main())
