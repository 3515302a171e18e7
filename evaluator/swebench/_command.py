"""The test command and results format of a row: from its 5.x `eval_script` where it has one,
else from its repository's runner and the test files its `test_patch` touches."""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from typing import Any

from evaluator.images import TASK_WORKDIR

START, END = ">>>>> Start Test Output", ">>>>> End Test Output"
# The conda environment every SWE-bench image activates before its tests.
DEFAULT_SETUP = ". /opt/miniconda3/bin/activate && conda activate testbed"
# Files a test patch touches that are data, not tests to name on the command line.
_DATA = (".json", ".png", ".csv", ".txt", ".md", ".jpg", ".jpeg", ".pkl", ".yml", ".yaml",
         ".toml", ".rst", ".cfg", ".ini")
_PYTEST = re.compile(r"(^|[\s;&|(])((?:python3? -m )?pytest)(?=\s|$)")
_JUNIT = re.compile(r"\s--junitxml[= ]\S+")
_HEREDOC = re.compile(r"<<-?\s*'?\"?(\w+)'?\"?\s*$")
_KEEP = re.compile(r"^(source |\. |conda activate |export [A-Za-z_][A-Za-z0-9_]*=)")


class Unmapped(ValueError):
    """A row, or a part of it, this harness cannot represent; the message says which and why."""


@dataclass(frozen=True)
class Command:
    test_command: str
    results: str  # junit, pytest-log, django or sympy
    dropped: list[str] = field(default_factory=list)  # eval-script steps left out
    activate: str = ""  # the environment lines: the task's `activate`, for tests and agent


def results_for(row: dict[str, Any]) -> str:
    """The reader for a row, from its 5.x `log_parser` or, for older rows, its repository."""
    parser = str(row.get("log_parser") or "")
    repo = str(row.get("repo") or "")
    if parser == "parse_log_django" or (not parser and repo == "django/django"):
        return "django"
    if parser == "parse_log_sympy" or (not parser and repo == "sympy/sympy"):
        return "sympy"
    if not parser or parser.startswith("parse_log_py") or parser in _PYTEST_LIKE:
        return "junit"
    raise Unmapped(f"log_parser {parser!r} has no reader here (readers: pytest through JUnit, "
                   "django, sympy)")


# SWE-bench's per-repository parsers for Python repositories whose runner is pytest.
_PYTEST_LIKE = {f"parse_log_{n}" for n in (
    "astropy", "matplotlib", "seaborn", "flask", "marshmallow", "pvlib", "pyvista", "sqlfluff",
    "xarray", "pydicom", "requests", "pylint", "astroid", "scikit", "sphinx")}


def command_for(row: dict[str, Any], test_files: list[str], setup: str = DEFAULT_SETUP,
                workdir: str = TASK_WORKDIR) -> Command:
    results = results_for(row)
    script = row.get("eval_script")
    if script:
        prelude, tests, dropped = _split_script(str(script), workdir)
    else:
        prelude, tests, dropped = ([setup] if setup else []), [_runner(results, test_files)], []
    run = " && ".join(tests) if len(tests) > 1 else tests[0]
    if results == "junit":
        if not _PYTEST.search(run):
            raise Unmapped(f"the test command {run!r} does not run pytest, and the row's parser "
                           "reads pytest output")
        run = _JUNIT.sub("", run)  # the grader says where the report goes
        run = _PYTEST.sub(lambda m: f"{m[1]}{m[2]} --junitxml={{junit_xml}}", run, count=1)
    return Command(run, results, dropped, " && ".join(prelude))


def _runner(results: str, test_files: list[str]) -> str:
    files = [f for f in test_files if not f.endswith(_DATA)]
    if not files:
        raise Unmapped("test_patch touches no test file to run, and the row has no eval_script")
    if results == "django":
        labels = [_django_label(f) for f in files]
        return ("./tests/runtests.py --verbosity 2 --settings=test_sqlite --parallel 1 "
                + " ".join(shlex.quote(x) for x in labels))
    if results == "sympy":
        return "bin/test -C --verbose " + " ".join(shlex.quote(f) for f in files)
    return "pytest -rA " + " ".join(shlex.quote(f) for f in files)


def _django_label(path: str) -> str:
    """tests/auth_tests/test_views.py -> auth_tests.test_views (Django's runtests labels)."""
    rel = path[len("tests/"):] if path.startswith("tests/") else path
    return rel[:-3].replace("/", ".") if rel.endswith(".py") else rel.replace("/", ".")


def _split_script(script: str, workdir: str) -> tuple[list[str], list[str], list[str]]:
    """(environment lines kept, test lines between the markers, steps left out)."""
    lines = script.splitlines()
    start = next((i for i, x in enumerate(lines) if START in x), None)
    end = next((i for i, x in enumerate(lines) if END in x), None)
    if start is None or end is None or end <= start + 1:
        raise Unmapped(f"eval_script has no test command between {START!r} and {END!r}")
    prelude, dropped, heredoc = [], [], None
    for line in lines[:start]:
        text = line.strip()
        if heredoc is not None:
            heredoc = None if text == heredoc else heredoc
            continue
        if m := _HEREDOC.search(text):
            heredoc = m[1]
        if not text or text.startswith("#") or text.startswith("set ") or text in (
                f"cd {workdir}", f"cd {workdir}/"):
            continue
        if _KEEP.match(text):
            # /bin/sh runs the command: `source` is bash's spelling of `.`.
            prelude.append("." + text[len("source"):] if text.startswith("source ") else text)
        elif not text.startswith("git "):
            dropped.append(text)
    tests = [x.strip() for x in lines[start + 1:end] if x.strip() and not x.strip().startswith("#")]
    return _dedupe(prelude), tests, dropped


def _dedupe(lines: list[str]) -> list[str]:
    out: list[str] = []
    for line in lines:
        if line not in out:
            out.append(line)
    return out
