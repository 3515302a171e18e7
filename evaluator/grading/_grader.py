"""Grade a patch: a fresh sandbox from the image, the patch without its changes to tests, the
hidden tests, the run, and the JUnit report."""

from __future__ import annotations

import secrets
import shlex
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from evaluator.errors import InfraError
from evaluator.grading._canary import Canaries, new_nonce, plant, target_files
from evaluator.grading._ids import printed
from evaluator.grading._judge import judge
from evaluator.grading._logs import official_keeps
from evaluator.grading._patchfilter import (
    filter_patch,
    git_numstat,
    git_opaque,
    read_sources,
    source_list,
    tar_sources,
)
from evaluator.grading._paths import is_protected, patch_paths, unsafe_paths
from evaluator.grading._run import (
    GUARD_MODULE,
    PYTEST_FORMATS,
    USER_SITES,
    guard_conf,
    payload,
    run_tests,
)
from evaluator.grading._shadow import shadowing
from evaluator.grading._spec import GradeSpec
from evaluator.lock import GIT, checkout_base
from evaluator.sandbox import Sandbox, Sandboxes

# Outcomes a grade can record; only "resolved" counts as a pass.
RESOLVED = "resolved"
UNRESOLVED = "unresolved"
PATCH_REJECTED = "patch_rejected"  # touches .git or leaves the repository
PATCH_FAILED = "patch_failed"  # does not apply at the base commit
NO_REPORT = "no_report"  # the runner wrote no readable JUnit report (crash, timeout)
INCONSISTENT = "inconsistent_report"  # report and exit status disagree: not trusted
TAMPERED = "tampered"  # the run's report, canaries or exit status show a forged result


@dataclass(frozen=True)
class GradeOutcome:
    outcome: str
    tests: dict[str, str] = field(default_factory=dict)
    exit_code: int | None = None
    timed_out: bool = False
    detail: str = ""
    output: str = ""
    duration_s: float = 0.0
    dropped: tuple[str, ...] = ()  # protected paths whose sections of the patch were left out
    opaque: tuple[tuple[str, str], ...] = ()  # (path, why) left out as no reviewer can read it
    evidence: tuple[str, ...] = ()  # why the grade is not trusted, for a person to read
    nonce: str = ""  # this grade's canary nonce (not in the key: a re-grade draws another)
    # The new text of each library Python file the patch changed, read back after `git apply`
    # (before any of its code ran), for the policy to read whole; stored as a blob, not inline.
    sources: dict[str, bytes] = field(default_factory=dict)
    ids: dict[str, list[str]] = field(default_factory=dict)  # required ids not one test each
    hardening: tuple[str, ...] = ()  # hardening steps this runner cannot take, and why
    backend: dict[str, str] = field(default_factory=dict)  # `Backend.to_record` of its sandbox

    @property
    def resolved(self) -> bool:
        return self.outcome == RESOLVED

    def to_record(self) -> dict[str, Any]:
        return {
            "outcome": self.outcome, "resolved": self.resolved, "tests": self.tests,
            "exit_code": self.exit_code, "timed_out": self.timed_out, "detail": self.detail,
            "duration_s": round(self.duration_s, 3), "dropped": list(self.dropped),
            "opaque": [{"path": p, "why": w} for p, w in self.opaque],
            "evidence": list(self.evidence), "nonce": self.nonce, "ids": self.ids,
            "hardening": list(self.hardening), "backend": self.backend,
        }


class Grader(Protocol):
    def grade(self, spec: GradeSpec, patch: bytes, hidden: dict[str, bytes]) -> GradeOutcome: ...


class DockerGrader:
    """Grades in a fresh sandbox from the pinned image digest, opened by `sandboxes` (any
    backend's, the name notwithstanding); infra failures raise InfraError."""

    def __init__(self, sandboxes: Sandboxes, *, hardened: bool = True) -> None:
        # `hardened=False` exists only so benchmarks/bench_grade.py can price the hardening
        # (canaries, import probes, the hardened environment); the pipeline never turns it off.
        self._sandboxes = sandboxes
        self._hardened = hardened

    def grade(self, spec: GradeSpec, patch: bytes, hidden: dict[str, bytes]) -> GradeOutcome:
        started = time.monotonic()
        bad = unsafe_paths(patch_paths(patch))
        if bad:
            return GradeOutcome(PATCH_REJECTED, detail=f"patch touches forbidden paths: {bad[:5]}")
        with self._sandboxes.open(
            spec.image, spec.limits, user=spec.user, workdir=spec.workdir, purpose="grade",
            base_commit=spec.base_commit,
        ) as sb:
            outcome = _grade_in(sb, spec, patch, hidden, self._hardened)
        return GradeOutcome(**{**outcome.__dict__, "duration_s": time.monotonic() - started,
                               "backend": self._sandboxes.backend().to_record()})




def _grade_in(sb: Sandbox, spec: GradeSpec, patch: bytes, hidden: dict[str, bytes],
              hardened: bool = True) -> GradeOutcome:
    gdir = f"/tmp/.grade-{secrets.token_hex(8)}"
    protected = _protection(spec, list(hidden))
    filtered = filter_patch(patch, protected)
    kept, dropped, opaque = filtered.patch, tuple(filtered.protected), tuple(filtered.opaque)
    touched = git_numstat(kept)
    smuggled = [p for p in touched if protected(p)]
    if smuggled:
        return GradeOutcome(PATCH_REJECTED, detail="git reads the patch as touching protected "
                            f"paths its headers hide: {smuggled[:5]}")
    hidden_opaque = git_opaque(kept)
    if hidden_opaque:
        return GradeOutcome(PATCH_REJECTED, opaque=opaque, detail="git reads the patch as "
                            f"carrying files no reviewer can read: {hidden_opaque[:5]}")
    style = _STYLES.get(spec.results, "pytest")
    targets = target_files(spec.fail_to_pass, list(hidden), style) if hardened else []
    # Twins are written into the files of the required tests: hidden ones now, others once the
    # base commit is checked out (read from the sandbox).
    early, guarded = all(f in hidden for f in targets), spec.results in PYTEST_FORMATS
    canaries = plant(new_nonce(), spec.fail_to_pass, spec.pass_to_pass,
                     {f: hidden[f] for f in targets} if early else {}, style)
    hidden = {**hidden, **canaries.files}
    sb.put_files({
        f"{gdir}/patch.diff": kept,
        f"{gdir}/before.sh": _absent_lister(touched, f"{gdir}/new"),
        f"{gdir}/sources.list": source_list(touched),
        **({f"{gdir}/guard.json": guard_conf(spec, canaries, hardened)} if early and guarded else {}),
        f"{gdir}/probe.py": payload("_evaluator_probe.py"),
        f"{gdir}/plugins/{GUARD_MODULE}.py": payload(f"{GUARD_MODULE}.py"),
        **{f"{gdir}/{site}/{GUARD_MODULE}.py": payload(f"{GUARD_MODULE}.py")
           for site in USER_SITES},
        **{f"{gdir}/hidden/{rel}": data for rel, data in hidden.items()},
    })
    r = sb.exec(_setup_script(spec, gdir, hardened), workdir=spec.workdir)
    if r.exit_code == 4:
        return GradeOutcome(PATCH_FAILED, exit_code=r.exit_code, output=r.output,
                            detail="git apply failed: " + r.output[-2000:], dropped=dropped,
                            opaque=opaque)
    if r.exit_code != 0:
        raise InfraError(
            f"cannot check out base commit {spec.base_commit}, apply the patch and lay the "
            f"hidden tests and canaries in {spec.image} (exit {r.exit_code}): "
            f"{r.output[-500:]}; is the lock current (`doit lock:<set>`)?"
        )
    shadows = shadowing(r.output)
    if shadows:
        return GradeOutcome(PATCH_REJECTED, dropped=dropped, opaque=opaque, detail="; ".join(
            f"the patch adds {path}, which Python would import in place of the module {name!r} "
            "of the standard library, the test runner or an installed distribution"
            for path, name in shadows[:5]))
    sources, unreadable = read_sources(sb, spec.workdir, touched, f"{gdir}/sources.tar")
    if unreadable:
        return GradeOutcome(PATCH_REJECTED, dropped=dropped, opaque=opaque, detail="after "
                            f"`git apply`, no reviewer can read: {unreadable[:5]}")
    if not early:
        canaries = _plant_late(sb, spec, gdir, canaries.nonce, targets, style, hardened)
    run = run_tests(sb, spec, gdir, canaries, hardened)
    if run.report is None:
        return GradeOutcome(NO_REPORT, exit_code=run.exit_code, timed_out=run.timed_out,
                            output=run.output, detail=run.problem, dropped=dropped,
                            opaque=opaque, nonce=canaries.nonce, sources=sources,
                            hardening=run.hardening)
    v = judge((*spec.fail_to_pass, *spec.pass_to_pass), run.report, canaries, run.output,
              run.exit_code, run.timed_out, exact=run.exact, guarded=run.guarded,
              found=[*run.evidence, *run.looked.strong], weakly=run.looked.weak,
              results=spec.results,
              printed=printed(run.output, spec.pass_to_pass) if run.guarded else None,
              kept=official_keeps(spec.results, run.output, spec.pass_to_pass)
              if spec.pass_to_pass_rule == "swebench" else ())
    outcome = TAMPERED if v.tampered else RESOLVED if v.resolved else UNRESOLVED
    return GradeOutcome(outcome, tests=v.tests, exit_code=run.exit_code, timed_out=run.timed_out,
                        detail="; ".join(filter(None, [v.reason, *v.notes, *run.looked.notes])),
                        output=run.output, dropped=dropped, opaque=opaque,
                        evidence=v.evidence, nonce=canaries.nonce, sources=sources, ids=v.ids,
                        hardening=run.hardening)


_STYLES = {"django": "class", "sympy": "functions"}


def _plant_late(sb: Sandbox, spec: GradeSpec, gdir: str, nonce: str, targets: list[str],
                style: str, hardened: bool) -> Canaries:
    texts = {}
    for rel in targets:
        try:
            texts[rel] = sb.read_file(f"{spec.workdir}/{rel}")
        except FileNotFoundError:
            continue
    canaries = plant(nonce, spec.fail_to_pass, spec.pass_to_pass, texts, style)
    conf = {f"{gdir}/guard.json": guard_conf(spec, canaries, hardened)}
    sb.put_files({**{f"{spec.workdir}/{rel}": data for rel, data in canaries.files.items()},
                  **(conf if spec.results in PYTEST_FORMATS else {})})
    return canaries


def _setup_script(spec: GradeSpec, gdir: str, hardened: bool = True) -> str:
    """One exec: the base commit only where HEAD is not it (nothing is cleaned, so ignored build
    artifacts stay as the agent saw them), the patch with a probe of the files it adds,
    the hidden tests (twins written in). Exit 3 to 6 say which step failed, before any code of the
    patch has run."""
    probe = f"{gdir}/probe.py"
    py = 'PY=$(command -v python3 || command -v python || true); ' if hardened else "PY=; "
    return (
        f"{checkout_base(spec.base_commit)} || exit 3; "
        f"if [ -s {gdir}/patch.diff ]; then {py}. {gdir}/before.sh || exit 6; "
        f"{GIT} apply --whitespace=nowarn {gdir}/patch.diff || exit 4; "
        f'if [ -n "$PY" ] && [ -s {gdir}/new ]; then "$PY" -I {probe} {gdir}/new . || exit 6; '
        f"fi; {tar_sources(gdir)}fi; "
        f"if [ -d {gdir}/hidden ]; then cp -R {gdir}/hidden/. . || exit 5; fi"
    )


def _absent_lister(paths: list[str], out: str) -> bytes:
    """A shell script writing (NUL-separated) the paths that do not exist yet: what the patch
    adds. Only module-like names matter to the probe, so only those are listed."""
    lines = [f": > {out}"]
    for p in paths:
        name = p.rsplit("/", 1)[-1]
        if name.endswith((".py", ".pyc", ".pyw", ".pyd", ".so")):
            q = shlex.quote(p)
            lines.append(f"[ -e {q} ] || [ -L {q} ] || printf '%s\\0' {q} >> {out}")
    return ("\n".join(lines) + "\n").encode("utf-8", "surrogateescape")


def graded_part(spec: GradeSpec, patch: bytes, hidden: list[str]) -> bytes:
    """What of `patch` a grade applies: without its sections for tests, test configuration,
    import hooks, hidden-test paths and unreadable files (empty: it grades as the empty patch)."""
    return filter_patch(patch, _protection(spec, hidden)).patch


def _protection(spec: GradeSpec, hidden: list[str]) -> Callable[[str], bool]:
    """Paths a patch may not change at grading: tests, test config, import hooks, hidden tests
    and every folder above a hidden test (a symlink there would redirect it)."""
    fixed = set(hidden) | {"/".join(h.split("/")[:i]) for h in hidden for i in range(1, h.count("/") + 1)}
    return lambda path: path.strip("/") in fixed or is_protected(path, spec.test_files)
