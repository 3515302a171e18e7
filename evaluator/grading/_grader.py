"""Grade a patch: a fresh sandbox from the image, the patch without its changes to tests, the
hidden tests, the run, and the JUnit report."""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from evaluator.errors import InfraError
from evaluator.grading._junit import PASSED, ReportError, parse_junit
from evaluator.grading._patchfilter import filter_patch, git_numstat
from evaluator.grading._paths import is_protected, patch_paths, unsafe_paths
from evaluator.grading._spec import GradeSpec
from evaluator.lock import GIT, checkout_base
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


# Loaded into pytest through PYTEST_ADDOPTS: each report entry carries pytest's own node id, so
# tests inherited from a mixin or base class in another file keep the id of the file they ran in.
_IDS_PLUGIN = b"""import pytest


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items):
    for item in items:
        item.user_properties.append(("evaluator.nodeid", item.nodeid))
"""
_IDS_MODULE = "_evaluator_ids"


def _grade_in(sb: Sandbox, spec: GradeSpec, patch: bytes, hidden: dict[str, bytes]) -> GradeOutcome:
    gdir = f"/tmp/.grade-{secrets.token_hex(8)}"
    protected = _protection(spec, list(hidden))
    kept, _dropped = filter_patch(patch, protected)
    smuggled = [p for p in git_numstat(kept) if protected(p)]
    if smuggled:
        return GradeOutcome(PATCH_REJECTED, detail="git reads the patch as touching protected "
                            f"paths its headers hide: {smuggled[:5]}")
    sb.put_files({f"{gdir}/patch.diff": kept, f"{gdir}/plugins/{_IDS_MODULE}.py": _IDS_PLUGIN,
                  **{f"{gdir}/hidden/{rel}": data for rel, data in hidden.items()}})
    # The base commit only where HEAD is not it (nothing is cleaned, so ignored build artifacts
    # stay as the agent saw them), then the patch, then the hidden tests; exit 3 and 4 say which
    # step failed, before any code of the patch has run.
    r = sb.exec(
        f"{checkout_base(spec.base_commit)} || exit 3; "
        f"if [ -s {gdir}/patch.diff ]; then {GIT} apply --whitespace=nowarn {gdir}/patch.diff "
        f"|| exit 4; fi; if [ -d {gdir}/hidden ]; then cp -R {gdir}/hidden/. . || exit 5; fi",
        workdir=spec.workdir)
    if r.exit_code == 4:
        return GradeOutcome(PATCH_FAILED, exit_code=r.exit_code, output=r.output,
                            detail="git apply failed: " + r.output[-2000:])
    if r.exit_code != 0:
        raise InfraError(
            f"cannot check out base commit {spec.base_commit} and lay the hidden tests in "
            f"{spec.image} (exit {r.exit_code}): {r.output[-500:]}; is the lock current "
            "(`doit lock:<set>`)?"
        )
    junit = f"{gdir}/junit.xml"
    ids = (f'PYTEST_ADDOPTS="${{PYTEST_ADDOPTS:+$PYTEST_ADDOPTS }}-p {_IDS_MODULE}" '
           f'PYTHONPATH="${{PYTHONPATH:+$PYTHONPATH:}}{gdir}/plugins"')
    run = sb.exec(f"export {ids}; " + spec.test_command.replace("{junit_xml}", junit),
                  workdir=spec.workdir, timeout_s=spec.limits.exec_timeout_s)
    try:
        tests = parse_junit(sb.read_file(junit, max_bytes=_REPORT_CAP))
    except (ReportError, FileNotFoundError, OSError) as exc:
        return GradeOutcome(NO_REPORT, exit_code=run.exit_code, timed_out=run.timed_out,
                            output=run.output, detail=f"no usable JUnit report: {exc}")
    return _judge(spec, tests, run.exit_code, run.timed_out, run.output)


def _protection(spec: GradeSpec, hidden: list[str]) -> Callable[[str], bool]:
    """Paths a patch may not change at grading: tests, test config, import hooks, hidden tests
    and every folder above a hidden test (a symlink there would redirect it)."""
    fixed = set(hidden) | {"/".join(h.split("/")[:i]) for h in hidden for i in range(1, h.count("/") + 1)}
    return lambda path: path.strip("/") in fixed or is_protected(path, spec.test_files)


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
    return GradeOutcome(RESOLVED if ok else UNRESOLVED, tests=expected, exit_code=exit_code,
                        timed_out=timed_out, output=output, detail="" if ok else _why(expected))


def _why(expected: dict[str, str]) -> str:
    by: dict[str, list[str]] = {}
    for t, s in sorted(expected.items()):
        if s != PASSED:
            by.setdefault(s, []).append(t)
    return "; ".join(f"{s}: {', '.join(ts[:10])}" + (f" (+{len(ts) - 10} more)" if len(ts) > 10 else "")
                     for s, ts in sorted(by.items()))
