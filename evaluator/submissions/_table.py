"""The agreement table's records: per instance, what was published and what we graded, and per
test where the two differ, with both outputs' lines side by side."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

AGREE, DISAGREE = "agree", "disagree"
UNVERIFIED = "unverified"  # published, but we have no grade (not in the set, gate, not graded)
UNPUBLISHED = "unpublished"  # graded, but the submission publishes no outcome for it
STATES = (AGREE, DISAGREE, UNVERIFIED, UNPUBLISHED)


@dataclass(frozen=True)
class TestDiff:
    """A required test whose status differs: `published` True/False/None (success, failure,
    not listed), `ours` our run's status (`passed`, `failed`, `error`, `skipped`, `kept` (a
    skip SWE-bench keeps), `missing`, `not required`)."""

    test: str
    kind: str  # FAIL_TO_PASS / PASS_TO_PASS
    published: bool | None
    ours: str
    their_lines: str = ""
    our_lines: str = ""
    their_reading: str = ""  # their output as our reader reads it ("" where not read)

    @property
    def ours_passed(self) -> bool | None:
        return None if self.ours == "not required" else self.ours in ("passed", "kept")


@dataclass(frozen=True)
class Row:
    instance_id: str
    task_id: str | None
    published: bool | None  # their resolved; None: not published
    ours: str  # resolved, failed, policy; or why there is no grade ("not graded: broken-gold")
    state: str
    cause: str = ""
    why: str = ""
    tests_agree: bool | None = None  # None: no per-test lists were published, or no grade
    tests: tuple[TestDiff, ...] = ()
    notes: tuple[str, ...] = ()  # what the published files say that does not fit together
    source: str = ""  # the file their outcome comes from
    grade: str = ""  # our grade's key
    result: str = ""  # our result's key

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Table:
    task_set: str
    subject: str
    split: str
    models: tuple[str, ...]
    rows: tuple[Row, ...]
    shape: tuple[str, ...] = ()
    counts: dict[str, int] = field(default_factory=dict)

    @property
    def disagreements(self) -> list[Row]:
        return [r for r in self.rows if r.state == DISAGREE]

    @property
    def causes(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for r in self.disagreements:
            out[r.cause] = out.get(r.cause, 0) + 1
        return dict(sorted(out.items()))

    def to_dict(self) -> dict[str, Any]:
        return {"task_set": self.task_set, "subject": self.subject, "split": self.split,
                "models": list(self.models), "shape": list(self.shape),
                "counts": self.counts, "causes": self.causes,
                "rows": [r.to_dict() for r in self.rows]}


def count(rows: tuple[Row, ...]) -> dict[str, int]:
    out = {s: sum(r.state == s for r in rows) for s in STATES}
    out["instances"] = len(rows)
    out["published_resolved"] = sum(r.published is True for r in rows)
    out["ours_resolved"] = sum(r.ours == "resolved" for r in rows)
    out["tests_differ"] = sum(r.tests_agree is False for r in rows)
    return out
