"""Grade a patch: fresh sandbox, apply, put tests back as pinned, run, read the JUnit report."""

from __future__ import annotations

import secrets
import shlex
import time
from dataclasses import dataclass, field
from typing import Any, Protocol

from evaluator.errors import InfraError
from evaluator.grading._junit import PASSED, ReportError, parse_junit
from evaluator.grading._paths import is_protected, patch_paths, unsafe_paths
from evaluator.grading._spec import GradeSpec
from evaluator.sandbox import DockerSandboxes, Sandbox

_REPORT_CAP = 20_000_000
_LIST_CAP = 5_000_000

# Outcomes a grade can record; only "resolved" counts as a pass.
RESOLVED = "resolved"
UNRESOLVED = "unresolved"
PATCH_REJECTED = "patch_rejected"  # touches .git or leaves the repository
PATCH_FAILED = "patch_failed"  # does not apply at the base commit
NO_REPORT = "no_report"  # the runner wrote no readable JUnit report (crash, timeout)
INCONSISTENT = "inconsistent_report"  # report and exit status disagree: not trusted
RESTORE_FAILED = "restore_failed"  # the patched tree would not take the pinned tests back


@dataclass(frozen=True)
class GradeOutcome:
    outcome: str
    tests: dict[str, str] = field(default_factory=dict)
    exit_code: int | None = None
    timed_out: bool = False
    detail: str = ""
    output: str = ""
    duration_s: float = 0.0

    @property
    def resolved(self) -> bool:
        return self.outcome == RESOLVED

    def to_record(self) -> dict[str, Any]:
        return {
            "outcome": self.outcome, "resolved": self.resolved, "tests": self.tests,
            "exit_code": self.exit_code, "timed_out": self.timed_out, "detail": self.detail,
            "duration_s": round(self.duration_s, 3),
        }


class Grader(Protocol):
    def grade(self, spec: GradeSpec, patch: bytes, hidden: dict[str, bytes]) -> GradeOutcome: ...


class DockerGrader:
    """Grades in a fresh sandbox from the pinned image digest; infra failures raise InfraError."""

    def __init__(self, sandboxes: DockerSandboxes) -> None:
        self._sandboxes = sandboxes

    def grade(self, spec: GradeSpec, patch: bytes, hidden: dict[str, bytes]) -> GradeOutcome:
        started = time.monotonic()
        bad = unsafe_paths(patch_paths(patch))
        if bad:
            return GradeOutcome(PATCH_REJECTED, detail=f"patch touches forbidden paths: {bad[:5]}")
        with self._sandboxes.open(
            spec.image, spec.limits, user=spec.user, workdir=spec.workdir, purpose="grade"
        ) as sb:
            outcome = _grade_in(sb, spec, patch, hidden)
        return GradeOutcome(**{**outcome.__dict__, "duration_s": time.monotonic() - started})


def _grade_in(sb: Sandbox, spec: GradeSpec, patch: bytes, hidden: dict[str, bytes]) -> GradeOutcome:
    gdir = f"/tmp/.grade-{secrets.token_hex(8)}"
    sha = shlex.quote(spec.base_commit)
    sb.put_files({f"{gdir}/patch.diff": patch})
    r = sb.exec(f"git checkout -q --detach {sha} && git clean -qfdx", workdir=spec.workdir)
    if r.exit_code != 0:
        raise InfraError(
            f"cannot check out base commit {spec.base_commit} in {spec.image}: {r.output[-500:]}; "
            "is the lock current (`doit lock:<set>`)?"
        )
    if patch.strip():
        r = sb.exec(f"git apply --whitespace=nowarn {gdir}/patch.diff", workdir=spec.workdir)
        if r.exit_code != 0:
            return GradeOutcome(PATCH_FAILED, exit_code=r.exit_code, output=r.output,
                                detail="git apply failed: " + r.output[-2000:])
    try:
        _restore_tests(sb, spec, gdir, list(hidden))
    except ReportError as exc:
        return GradeOutcome(RESTORE_FAILED, detail=str(exc))
    sb.put_files({f"{spec.workdir}/{rel}": data for rel, data in hidden.items()})
    junit = f"{gdir}/junit.xml"
    run = sb.exec(spec.test_command.replace("{junit_xml}", junit), workdir=spec.workdir,
                  timeout_s=spec.limits.exec_timeout_s)
    try:
        tests = parse_junit(sb.read_file(junit, max_bytes=_REPORT_CAP))
    except (ReportError, FileNotFoundError, OSError) as exc:
        return GradeOutcome(NO_REPORT, exit_code=run.exit_code, timed_out=run.timed_out,
                            output=run.output, detail=f"no usable JUnit report: {exc}")
    return _judge(spec, tests, run.exit_code, run.timed_out, run.output)


def _restore_tests(sb: Sandbox, spec: GradeSpec, gdir: str, hidden: list[str]) -> None:
    """Put every test, test config and hidden-test path back as at the base commit.

    Untracked files are listed without ignore rules, so a patch cannot hide a new conftest.py
    behind a .gitignore it adds.
    """
    listing = f"{gdir}/changed"
    sb.exec(
        f"{{ git diff --name-only -z --no-renames HEAD; git ls-files --others -z; }} > {listing}",
        workdir=spec.workdir,
    )
    changed = sb.read_file(listing, max_bytes=_LIST_CAP).decode("utf-8", "surrogateescape")
    paths = sorted(
        {p for p in changed.split("\0") if p and is_protected(p, spec.test_files)} | set(hidden)
    )
    # A patch may have turned a parent folder of a hidden test into a symlink out of the repo.
    parents = sorted({"/".join(h.split("/")[:i]) for h in hidden for i in range(1, h.count("/") + 1)})
    script = ["set -e"]
    script += [f"if [ -L {shlex.quote(p)} ]; then rm -f {shlex.quote(p)}; fi" for p in parents]
    sha = shlex.quote(spec.base_commit)
    for p in paths:
        q = shlex.quote(p)
        script.append(f"rm -rf -- {q}")
        script.append(f"if git cat-file -e {sha}:{q} 2>/dev/null; then git checkout -q {sha} -- {q}; fi")
    sb.put_files({f"{gdir}/restore.sh": "\n".join(script).encode()})
    r = sb.exec(f"sh {gdir}/restore.sh", workdir=spec.workdir)
    if r.exit_code != 0:
        raise ReportError(f"could not restore test files: {r.output[-1000:]}")


def _judge(spec: GradeSpec, tests: dict[str, str], exit_code: int, timed_out: bool,
           output: str) -> GradeOutcome:
    expected = {t: tests.get(t, "missing") for t in (*spec.fail_to_pass, *spec.pass_to_pass)}
    all_passed = all(s == PASSED for s in tests.values())
    # Exit 0 with failures in the report, or a failing exit with a clean report, means one of
    # them was tampered with or the run crashed: trust neither.
    if tests and (exit_code == 0) != all_passed:
        return GradeOutcome(INCONSISTENT, tests=expected, exit_code=exit_code, timed_out=timed_out,
                            output=output,
                            detail=f"exit status {exit_code} contradicts the JUnit report")
    ok = all(s == PASSED for s in expected.values())
    not_ok = sorted(t for t, s in expected.items() if s != PASSED)
    return GradeOutcome(RESOLVED if ok else UNRESOLVED, tests=expected, exit_code=exit_code,
                        timed_out=timed_out, output=output,
                        detail="" if ok else f"not passed: {', '.join(not_ok[:10])}")
