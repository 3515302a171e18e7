"""What a grade records: its outcome and the evidence behind it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from evaluator.grading._spec import GradeSpec

# Outcomes a grade can record; only "resolved" counts as a pass.
RESOLVED = "resolved"
UNRESOLVED = "unresolved"
PATCH_REJECTED = "patch_rejected"  # touches .git or leaves the repository
PATCH_FAILED = "patch_failed"  # does not apply at the base commit
NO_REPORT = "no_report"  # the runner wrote no readable report (crash, timeout)
INCONSISTENT = "inconsistent_report"  # report and exit status disagree: not trusted
TAMPERED = "tampered"  # the run's report, twins, exit status or second look show a forgery


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
    nonce: str = ""  # this grade's nonce (not in the key: a re-grade draws another)
    # The new text of each library Python file the patch changed, read back after `git apply`
    # (before any of its code ran), for the policy to read whole; stored as a blob, not inline.
    sources: dict[str, bytes] = field(default_factory=dict)
    ids: dict[str, list[str]] = field(default_factory=dict)  # required ids not one test each
    hardening: tuple[str, ...] = ()  # hardening steps this runner cannot take, and why
    backend: dict[str, str] = field(default_factory=dict)  # `Backend.to_record` of its sandbox
    # A resolved grade whose fix holds only under the grader's conditions (`environment-
    # sensitive`): the result rule keeps it out of the headline until a person decides.
    flags: tuple[str, ...] = ()
    # What the run showed beside the required outcomes: the twins' outcomes, the second
    # observation's, the disguise's (the gold gate's calibration reads them).
    observed: dict[str, Any] = field(default_factory=dict)
    # The skipped PASS_TO_PASS ids SWE-bench's parser keeps (`official_keeps`), read from the
    # run's output under this grade's fresh names and mapped back: the output never prints the
    # published ids, so nothing downstream can read them from it (None: no run was read).
    kept: tuple[str, ...] | None = None

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
            "flags": list(self.flags), "observed": self.observed,
            "kept": None if self.kept is None else list(self.kept),
        }


class Grader(Protocol):
    def grade(self, spec: GradeSpec, patch: bytes, hidden: dict[str, bytes]) -> GradeOutcome: ...
