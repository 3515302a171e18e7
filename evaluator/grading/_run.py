"""The graded test run, hardened, and what it reported: pytest's JUnit report, or a runner's log
(pytest -rA, Django, sympy) read by the task's `results:` reader.

Every run gets the same environment, whatever the task says: no plugin loads unless the task
names it, no user site-packages of the image, no start-up file. pytest runs (JUnit and
pytest-log) also load the guard plugin, which runs exactly the requested tests and prints the
digest line the report is checked against; the plugin is found through a user site folder of
the grader's own (`PYTHONUSERBASE`) and through `PYTHONPATH`, so a test command that sets
`PYTHONPATH=src` still loads it. pytest runs start with the repository off the import path
(`PYTHONSAFEPATH`); runner scripts (sympy's `bin/test`, Django's `tests/runtests.py`) import
from their own folder by design, so there it is not set, and the grade says so (`hardening`).
A log is written to a file and to the exec's own output at once; the two must agree, so a log
rewritten after the run shows.
"""

from __future__ import annotations

import functools
import json
import re
import shlex
from dataclasses import dataclass, field, replace
from pathlib import Path

from evaluator.grading._canary import Canaries
from evaluator.grading._junit import SKIPPED, JunitReport, ReportError, read_junit
from evaluator.grading._logs import XFAILED, ResultsError, reader_for
from evaluator.grading._observe import Looked
from evaluator.grading._rerun import RUNNER, Prerun, read_and_rerun, second_look
from evaluator.grading._spec import GradeSpec
from evaluator.sandbox import Sandbox

_PAYLOAD = Path(__file__).parent / "_payload"
GUARD_MODULE = "_evaluator_guard"
_REPORT_CAP = 20_000_000
_HARDENED = ("export PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 PYTHONDONTWRITEBYTECODE=1; "
             "unset PYTHONSTARTUP PYTHONINSPECT; ")
_LOOK_ENV = _HARDENED + "export PYTHONSAFEPATH=1 PYTHONNOUSERSITE=1; "  # the re-run's
# Where the guard is importable without PYTHONPATH: the user site of every CPython it may meet.
USER_SITES = tuple(f"user/lib/python3.{m}{t}/site-packages" for m in range(6, 16)
                   for t in ("", "t") if not t or m >= 13)
NO_SAFE_PATH = ("safe import path (PYTHONSAFEPATH) not set: this runner ({runner} log: sympy's "
                "bin/test, Django's tests/runtests.py, python -m unittest) imports modules from "
                "its own folder or the working directory; the import probe still rejects added "
                "files that would shadow the standard library, the runner or an installed package")
_OMITTED = re.compile(r"\n\[\.\.\. \d+ bytes of output omitted \.\.\.\]\n")
PYTEST_FORMATS = ("junit", "pytest-log")


@dataclass(frozen=True)
class TestRun:
    report: JunitReport | None  # None: nothing readable came out (see `problem`)
    exit_code: int
    timed_out: bool
    output: str
    exact: bool  # the runner ran exactly the requested tests (pytest with the guard)
    guarded: bool  # the guard plugin's digest line is expected
    problem: str = ""
    evidence: list[str] = field(default_factory=list)
    hardening: tuple[str, ...] = ()  # hardening steps not taken for this runner, and why
    looked: Looked = field(default_factory=Looked)  # the second look (pytest runs, hardened)


@functools.cache
def payload(name: str) -> bytes:
    """A file the grader puts into every sandbox (read once per process, not once per grade)."""
    return (_PAYLOAD / name).read_bytes()


def run_tests(sb: Sandbox, spec: GradeSpec, gdir: str, canaries: Canaries,
              hardened: bool = True) -> TestRun:
    pytest_run = spec.results in PYTEST_FORMATS
    env, notes = hardened_env(spec.results, gdir) if hardened else ("", ())
    env += _guard_env(spec, gdir, canaries, hardened) if pytest_run else ""
    run = _run(sb, spec, gdir, canaries, env, pytest_run, hardened)
    return TestRun(**{**run.__dict__, "hardening": notes})


def hardened_env(results: str, gdir: str) -> tuple[str, tuple[str, ...]]:
    """The hardened environment for a runner, and the steps it cannot take (with why)."""
    if results in PYTEST_FORMATS:
        return (_HARDENED + f"export PYTHONSAFEPATH=1 PYTHONUSERBASE={gdir}/user; "
                "unset PYTHONNOUSERSITE; "), ()
    return _HARDENED + "export PYTHONNOUSERSITE=1; ", (NO_SAFE_PATH.format(runner=results),)


def _run(sb: Sandbox, spec: GradeSpec, gdir: str, canaries: Canaries, env: str,
         pytest_run: bool, hardened: bool) -> TestRun:
    if spec.results == "junit":
        junit = f"{gdir}/junit.xml"
        run = sb.exec(env + spec.test_command.replace("{junit_xml}", junit),
                      workdir=spec.workdir, timeout_s=spec.limits.exec_timeout_s)
        # The exec's wrapper killed every process of the sandbox user (setsid ones included)
        # before it returned: nothing of the patch is left to write the report as it is read.
        data, first = (read_and_rerun(sb, spec, canaries, junit, _LOOK_ENV, payload(RUNNER),
                                      _REPORT_CAP) if hardened else (None, None))
        try:
            report = read_junit(data if data is not None
                                else sb.read_file(junit, max_bytes=_REPORT_CAP))
        except (ReportError, FileNotFoundError, OSError) as exc:
            return TestRun(None, run.exit_code, run.timed_out, run.output, hardened, True,
                           f"no usable JUnit report: {exc}")
        return TestRun(report, run.exit_code, run.timed_out, run.output, hardened, True,
                       looked=_look(sb, spec, canaries, report, run.output, hardened,
                                    junit=True, first=first))
    log = _run_log(sb, spec, gdir, canaries, env, guarded=pytest_run)
    if log.report is None or not pytest_run:
        return log
    return replace(log, looked=_look(sb, spec, canaries, log.report, log.output, hardened,
                                     junit=False))


def _look(sb: Sandbox, spec: GradeSpec, canaries: Canaries, report: JunitReport, output: str,
          hardened: bool, *, junit: bool, first: Prerun | None = None) -> Looked:
    if not hardened:
        return Looked()
    return second_look(sb, spec, canaries, report.own or report.tests, output, _LOOK_ENV,
                       payload(RUNNER), junit=junit, first=first)


def guard_conf(spec: GradeSpec, canaries: Canaries, hardened: bool) -> bytes:
    """What the guard plugin reads (and deletes) as pytest starts: the nonce for its line and
    the ids to run, the twins sorted in among the required tests."""
    select = sorted({*spec.fail_to_pass, *spec.pass_to_pass, *canaries.ids}) if hardened else None
    return json.dumps({"nonce": canaries.nonce, "select": select}).encode()


def _guard_env(spec: GradeSpec, gdir: str, canaries: Canaries, hardened: bool) -> str:
    plugins = " ".join(f"-p {shlex.quote(p)}" for p in (GUARD_MODULE, *spec.pytest_plugins))
    return (f"export EVALUATOR_GUARD={gdir}/guard.json "
            f'PYTEST_ADDOPTS="${{PYTEST_ADDOPTS:+$PYTEST_ADDOPTS }}"{shlex.quote(plugins)} '
            f'PYTHONPATH="${{PYTHONPATH:+$PYTHONPATH:}}{gdir}/plugins"; ')


def _run_log(sb: Sandbox, spec: GradeSpec, gdir: str, canaries: Canaries, env: str, *,
             guarded: bool) -> TestRun:
    n, log = canaries.nonce, f"{gdir}/run.log"
    cmd = spec.test_command.replace("{junit_xml}", f"{gdir}/unused.xml")
    run = sb.exec(f'{env}(echo "@@evaluator-begin {n}"; {cmd}\necho "@@evaluator-end {n} $?") '
                  f"2>&1 | tee {log}", workdir=spec.workdir, timeout_s=spec.limits.exec_timeout_s)
    try:
        text = sb.read_file(log, max_bytes=_REPORT_CAP).decode("utf-8", errors="replace")
    except (FileNotFoundError, OSError) as exc:
        return TestRun(None, run.exit_code, run.timed_out, run.output, guarded, guarded,
                       f"no test log: {exc}")
    evidence = [] if _same_stream(run.output, text) else [
        "the test log differs from what the run printed as it ran: rewritten after the run"]
    begin = text.find(f"@@evaluator-begin {n}\n")
    ends = list(re.finditer(rf"^@@evaluator-end {n} (\d+)$", text, re.MULTILINE))
    if begin < 0 or not ends:
        return TestRun(None, run.exit_code, run.timed_out, run.output, guarded, guarded,
                       "the test log has no begin and end markers of this grade", evidence)
    body = text[begin:ends[-1].start()]
    try:
        statuses = reader_for(spec.results).read(body)
    except ResultsError as exc:
        return TestRun(None, run.exit_code, run.timed_out, run.output, guarded, guarded,
                       f"the {spec.results} log cannot be trusted: {exc}", evidence)
    # The guard and JUnit call an xfail "skipped"; so does the judge.
    tests = {t: SKIPPED if s == XFAILED else s for t, s in statuses.items()}
    report = JunitReport(tests, tests, {})
    return TestRun(report, int(ends[-1].group(1)), run.timed_out, run.output, guarded, guarded,
                   evidence=evidence)


def _same_stream(captured: str, log: str) -> bool:
    """The exec's output (head and tail when long) is what the log file holds."""
    parts = _OMITTED.split(captured, maxsplit=1)
    if len(parts) == 1:
        return captured == log
    head, tail = parts
    return log.startswith(head) and log.endswith(tail)
