"""The scored run, hardened, and what it reported: pytest's JUnit report, or a runner's log
(pytest -rA, Django, sympy) read by the task's `results:` reader, under the ids the tests have
without the disguise.

Every run gets the same environment, whatever the task says: no plugin loads unless the task
names it, no user site-packages of the image, no start-up file. pytest runs start with the
repository off the import path (`PYTHONSAFEPATH`); runner scripts (sympy's `bin/test`, Django's
`tests/runtests.py`) import from their own folder by design, so there it is not set, and the
grade says so (`hardening`). The checks add what they need (`_checks`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from evaluator.grading._checks import PYTEST_FORMATS, Seen, Setup, guard_line
from evaluator.grading._evidence import Check, looks_passed
from evaluator.grading._ids import outcomes, printed
from evaluator.grading._junit import SKIPPED, JunitReport, ReportError, read_junit
from evaluator.grading._logs import XFAILED, ResultsError, reader_for
from evaluator.sandbox import ExecResult, Sandbox

REPORT_CAP = 20_000_000
HARDENED = ("export PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 PYTHONDONTWRITEBYTECODE=1; "
            "unset PYTHONSTARTUP PYTHONINSPECT; ")
NO_SAFE_PATH = ("safe import path (PYTHONSAFEPATH) not set: this runner ({runner} log: sympy's "
                "bin/test, Django's tests/runtests.py, python -m unittest) imports modules from "
                "its own folder or the working directory; the import probe still rejects added "
                "files that would shadow the standard library, the runner or an installed package")


def hardened_env(results: str, gdir: str) -> tuple[str, tuple[str, ...]]:
    """The hardened environment for a runner, and the steps it cannot take (with why)."""
    if results in PYTEST_FORMATS:
        return (HARDENED + f"export PYTHONSAFEPATH=1 PYTHONUSERBASE={gdir}/user; "
                "unset PYTHONNOUSERSITE; "), ()
    return HARDENED + "export PYTHONNOUSERSITE=1; ", (NO_SAFE_PATH.format(runner=results),)


class NoReport(Exception):
    """Nothing readable came out of the run; the message says why."""

    def __init__(self, why: str, exit_code: int, timed_out: bool, output: str) -> None:
        super().__init__(why)
        self.exit_code, self.timed_out, self.output = exit_code, timed_out, output


def run(sb: Sandbox, setup: Setup, checks: Sequence[Check], hardened: bool) -> Seen:
    """Plant what the checks and the disguise need, run the task's command, read its report
    back under the original ids; NoReport when there is none to read."""
    spec, gdir = setup.spec, setup.gdir
    env, _ = hardened_env(spec.results, gdir) if hardened else ("", ())
    planted: dict[str, bytes] = {f"{spec.workdir}/{p}": t for p, t in setup.disguise.files.items()}
    for check in checks:
        env += check.environment(setup)
        planted.update({p if p.startswith("/") else f"{gdir}/{p}": t
                        for p, t in check.plant(setup).items()})
    sb.put_files(planted)
    log: str | None = None
    if spec.results == "junit":
        junit = f"{gdir}/junit.xml"
        r = sb.exec(env + spec.test_command.replace("{junit_xml}", junit), workdir=spec.workdir,
                    timeout_s=spec.limits.exec_timeout_s)
        # The exec's wrapper killed every process of the sandbox user (setsid ones included)
        # before it returned: nothing of the patch is left to write the report as it is read.
        try:
            report = read_junit(sb.read_file(junit, max_bytes=REPORT_CAP))
        except (ReportError, FileNotFoundError, OSError) as exc:
            raise NoReport(f"no usable JUnit report: {exc}", r.exit_code, r.timed_out,
                           r.output) from None
        exit_code = r.exit_code
    else:
        report, exit_code, log, r = _run_log(sb, setup, env)
    exact = hardened and spec.results in PYTEST_FORMATS
    ran = report.own if exact and report.own else report.tests
    original, twins = setup.disguise.back(ran)
    tests, odd = outcomes((*spec.fail_to_pass, *spec.pass_to_pass), original, spec.results)
    line = guard_line(r.output, setup.nonce) if exact else None
    if line is not None and line.get("collect_errors") == 0:
        # PASS_TO_PASS ids naming no test of the run, as SWE-bench's parser reads them from the
        # printed output (lines of an inner pytest session): only when nothing failed to
        # collect, so a module broken on purpose cannot stand its printed lines in for itself.
        for t, s in printed(r.output, spec.pass_to_pass).items():
            if t in odd and not odd[t]:
                tests[t], odd[t] = s, [f"(not a test of this run: its line in the output, {s})"]
    kept = spec.pass_to_pass if spec.pass_to_pass_rule == "swebench" else ()
    return Seen(setup, report, r.output, exit_code, r.timed_out, original, twins, tests, exact,
                log, looks_passed(tests, kept), {"ids": odd})


def _run_log(sb: Sandbox, setup: Setup, env: str) -> tuple[JunitReport, int, str, ExecResult]:
    spec, n, log = setup.spec, setup.nonce, f"{setup.gdir}/run.log"
    cmd = spec.test_command.replace("{junit_xml}", f"{setup.gdir}/unused.xml")
    r = sb.exec(f'{env}(echo "@@evaluator-begin {n}"; {cmd}\necho "@@evaluator-end {n} $?") '
                f"2>&1 | tee {log}", workdir=spec.workdir, timeout_s=spec.limits.exec_timeout_s)
    try:
        text = sb.read_file(log, max_bytes=REPORT_CAP).decode("utf-8", errors="replace")
    except (FileNotFoundError, OSError) as exc:
        raise NoReport(f"no test log: {exc}", r.exit_code, r.timed_out, r.output) from None
    begin = text.find(f"@@evaluator-begin {n}\n")
    ends = list(re.finditer(rf"^@@evaluator-end {n} (\d+)$", text, re.MULTILINE))
    if begin < 0 or not ends:
        raise NoReport("the test log has no begin and end markers of this grade", r.exit_code,
                       r.timed_out, r.output)
    try:
        statuses = reader_for(spec.results).read(text[begin:ends[-1].start()])
    except ResultsError as exc:
        raise NoReport(f"the {spec.results} log cannot be trusted: {exc}", r.exit_code,
                       r.timed_out, r.output) from None
    # The guard and JUnit call an xfail "skipped"; so does the judge.
    tests = {t: SKIPPED if s == XFAILED else s for t, s in statuses.items()}
    return JunitReport(tests, tests, {}), int(ends[-1].group(1)), text, r
