"""The command line: one vocabulary (`--set`, the same path options), help, the installed command."""

from __future__ import annotations

import argparse
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

from evaluator.__main__ import main, parser
from evaluator.settings import Settings
from tests.helpers import unavailable

ROOT = Path(__file__).resolve().parents[1]
# Commands that read no task set.
_NO_SET = {"serve", "remote push", "config", "images pull", "images load", "images list", "userns",
           "contracts", "store verify"}


def _commands(p: argparse.ArgumentParser, name: str = "") -> Iterator[tuple[str, argparse.ArgumentParser]]:
    subs = [a for a in p._actions if isinstance(a, argparse._SubParsersAction)]
    if not subs:
        yield name, p
    for action in subs:
        for sub_name, sub in action.choices.items():
            yield from _commands(sub, f"{name} {sub_name}".strip())


def _options(p: argparse.ArgumentParser) -> dict[str, str]:
    return {flag: a.dest for a in p._actions for flag in a.option_strings}


def test_every_command_that_takes_a_set_spells_it_set() -> None:
    commands = dict(_commands(parser()))
    assert {"gate", "report", "quarantine", "export traj", "import swebench",
            "predictions grade"} | _NO_SET <= set(commands)
    for name, p in commands.items():
        options = _options(p)
        if name in _NO_SET:
            assert "--set" not in options, name
            continue
        assert options.get("--set") == options.get("--task-set") == "set", name
        assert not [o for o in options if o.endswith("set") and o not in ("--set", "--task-set")]


def test_path_options_are_spelt_alike_everywhere() -> None:
    flags = {s.flag: s.attr for s in Settings.declared() if s.flag}
    for name, p in _commands(parser()):
        for flag, dest in _options(p).items():
            if flag in flags:
                assert dest == flags[flag], (name, flag)
    assert set(flags) <= set(_options(dict(_commands(parser()))["config"]))


def test_the_old_spelling_works_and_says_it_is_deprecated(
        capsys: pytest.CaptureFixture[str]) -> None:
    args = parser().parse_args(["gate", "--task-set", "demo", "--candidate", "x"])
    assert args.set == "demo"
    assert "--task-set is deprecated; use --set" in capsys.readouterr().err


def test_a_missing_set_is_refused_naming_the_option(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["report"])
    assert exc.value.code == 2 and "required: --set" in capsys.readouterr().err


def test_help_lists_each_command_on_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    lines = capsys.readouterr().out.splitlines()
    for name in {n.split()[0] for n, _ in _commands(parser())}:
        line = next(li for li in lines if li.split()[:1] == [name])
        assert len(line.split()) > 3, line


def test_a_bad_path_option_fails_before_the_command_runs(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["config", "--store", " "]) == 2
    assert "--store is ' '" in capsys.readouterr().err


def test_the_console_script_is_declared_and_installed() -> None:
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts == {"evaluator": "evaluator.__main__:main"}
    command = Path(sys.prefix) / "bin" / "evaluator"
    if not command.exists():
        unavailable(f"{command} is missing: `make venv` installs it")
    out = subprocess.run([str(command), "--help"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.startswith("usage: evaluator ")
