"""The options every command shares, and `evaluator config`: the settings in force.

    evaluator config [--store DIR ...]       # each setting's value and where it came from
    evaluator config --markdown              # the table of docs/settings.md, from the declarations

Commands take a task set as `--set` (`--task-set`, the old spelling of two commands, still works
and says it is deprecated) and the path settings as the same options everywhere
(`add_path_options`); `__main__` applies the given paths with `settings.given`, so code below the
command line reads them from `settings` like any other value.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

from evaluator.settings._declared import GROUPS, Settings, settings
from evaluator.settings._setting import Setting, SettingError

PATH_SETTINGS = ("store", "tasks_root", "lock_dir", "evals_root", "agents_root")
REPORTS = "reports_root"


class _Deprecated(argparse.Action):
    """An old spelling of an option: does what the new one does and says so on stderr."""

    def __init__(self, *args: Any, new: str, **kwargs: Any) -> None:
        self.new = new
        super().__init__(*args, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        print(f"{parser.prog}: {option_string} is deprecated; use {self.new}", file=sys.stderr)
        setattr(namespace, self.dest, values)


def add_deprecated_alias(p: argparse.ArgumentParser, old: str, new: str, *, dest: str) -> None:
    """`old` does what `new` does (same `dest`), says it is deprecated, and is not in --help."""
    p.add_argument(old, dest=dest, action=_Deprecated, new=new, help=argparse.SUPPRESS)


def add_set_option(p: argparse.ArgumentParser, *, required: bool = True,
                   help: str = "the task set (tasks/<set>/)") -> None:
    """`--set SET` (dest `set`), and `--task-set` as its deprecated alias."""
    p.add_argument("--set", dest="set", metavar="SET", default=None,
                   help=help + (" (required)" if required else ""))
    add_deprecated_alias(p, "--task-set", "--set", dest="set")
    if required:
        p.set_defaults(_set_required=p)


def check_set_given(args: argparse.Namespace) -> None:
    """The `required` of `add_set_option`, checked after parsing (either spelling counts)."""
    parser = getattr(args, "_set_required", None)
    if parser is not None and args.set is None:
        parser.error("the following arguments are required: --set")


def add_path_options(p: argparse.ArgumentParser, *, reports: bool = False,
                     only: Sequence[str] | None = None) -> None:
    """The path settings a command reads as options, spelt the same on every command (dest:
    the setting's name): all five (`only` names fewer), and EVAL_REPORTS's with `reports`."""
    group = p.add_argument_group("paths (default: the setting; see `evaluator config`)")
    for name in (*(PATH_SETTINGS if only is None else only), *((REPORTS,) if reports else ())):
        s = Settings.named(name)
        group.add_argument(s.flag or "", dest=name, metavar="DIR", default=None,
                           help=f"{s.doc} (default: ${s.env}, else {s.describe_default()})")


def given_paths(args: argparse.Namespace) -> dict[str, Any]:
    """The path options given on the command line, for `settings.given`."""
    return {n: getattr(args, n) for n in (*PATH_SETTINGS, REPORTS)
            if getattr(args, n, None) is not None}


def add_commands(sub: Any) -> None:
    p = sub.add_parser("config", help="print every setting in force and where it came from",
                       description="Print every setting: its variable, its value in force and "
                                   "its source (default, environment or command line).")
    p.add_argument("--markdown", action="store_true",
                   help="print the table of docs/settings.md instead (the declarations, no values)")
    add_path_options(p, reports=True)
    p.set_defaults(run=_run)


def _run(args: argparse.Namespace) -> int:
    if args.markdown:
        sys.stdout.write(markdown())
        return 0
    text, bad = effective(settings)
    print(text)
    return 2 if bad else 0


def _shown(s: Setting[Any], value: Any) -> str:
    if isinstance(value, tuple):
        return " ".join(value) if s.kind.accepts.startswith("a command") else ",".join(value)
    return "" if value is None else str(value)


def effective(of: Settings) -> tuple[str, int]:
    """(the table `config` prints, how many values are bad)."""
    rows: list[tuple[str, str, str]] = []
    bad = 0
    for s in Settings.declared():
        raw, source = of.raw(s)
        try:
            value = _shown(s, getattr(of, s.attr))
        except SettingError as exc:
            value, bad = f"INVALID: {exc}", bad + 1
        if s.secret:
            value = "(set, not shown)" if raw is not None else ""
        if not value:
            value = f"({s.describe_default()})"
        rows.append((s.env, value, source))
    width = max(len(r[0]) for r in rows)
    vwidth = min(60, max(len(r[1]) for r in rows))
    lines = [f"{'variable':{width}}  {'value':{vwidth}}  source"]
    lines += [f"{n:{width}}  {v:{vwidth}}  {src}" for n, v, src in rows]
    return "\n".join(lines), bad


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def markdown(declared: Sequence[Setting[Any]] | None = None) -> str:
    """docs/settings.md, generated from the declarations (a test keeps the file in sync)."""
    declared = Settings.declared() if declared is None else declared
    out = ["# Settings", "",
           "<!-- Generated from evaluator/settings/_declared.py by "
           "`python -m evaluator config --markdown`; do not edit by hand. -->", "",
           f"Every setting the harness reads ({len(declared)}), declared once in "
           "`evaluator/settings/_declared.py` and read through `evaluator.settings.settings`. "
           "`evaluator config` prints the values in force and where each came from (default, "
           "environment, command line). A blank variable counts as unset; a value a setting "
           "does not take is an error naming the variable and what it takes.", ""]
    for group, heading in GROUPS.items():
        members = [s for s in declared if s.group == group]
        if not members:
            continue
        out += [f"## {group}", "", heading, "",
                "| variable | option | takes | default | meaning |", "| --- | --- | --- | --- | --- |"]
        out += [f"| `{s.env}` | {f'`{s.flag}`' if s.flag else ''} | {_cell(s.kind.accepts)} | "
                f"{_cell(s.describe_default())} | {_cell(s.doc)} |" for s in members]
        out.append("")
    out += ["## Read elsewhere, on purpose", "",
            "- `.ci/docker-up` (shell, machine setup before any Python runs): "
            "`EVAL_DOCKER_STORAGE`, `EVAL_DOCKER_DATA_ROOT`, `EVAL_DOCKER_BTRFS_IMG`, "
            "`EVAL_DOCKER_BTRFS_SIZE`.",
            "- Benchmarks and tests set the path variables for the processes they start; "
            "they read nothing else.",
            "- An agent's `model.api_key_env` names the variable its API key is read from "
            "(per agent, so not a setting).", ""]
    return "\n".join(out)
