"""A person's decisions on flagged resolves, as data: `reviews/<set>.yaml` in the repository.

    # reviews/demo.yaml
    - grade: 3f9c...            # the grade's key (the attempt page and summary.json show it)
      decision: accept          # accept: counts as resolved; reject: a policy failure
      by: Ada Lovelace
      why: reads os.environ for the documented override, not for the test run

A decision names a grade, so it holds for every subject whose patch graded to that key (the
same patch on the same pinned task) and lapses when anything of the grade changes (a new
grader, new pins: new evidence to read). The report reads the file, counts what it decides,
and records the file's hash; results and grades are never rewritten.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import yaml

from evaluator.errors import BadInputError
from evaluator.hashing import hash_bytes
from evaluator.result._rule import FLAGGED, POLICY, RESOLVED

ACCEPT, REJECT = "accept", "reject"


@dataclass(frozen=True)
class Review:
    grade: str
    decision: str
    by: str
    why: str = ""


@dataclass(frozen=True)
class Reviews:
    """The decisions of one set's reviews file, by grade key."""

    by_grade: dict[str, Review] = field(default_factory=dict)
    path: str = ""
    digest: str = ""  # blake3 of the file ("" when there is none)

    @classmethod
    def load(cls, path: Path) -> Reviews:
        """The file's decisions; none where it does not exist. A malformed entry is a
        BadInputError naming the file, the entry and the field."""
        if not path.is_file():
            return cls(path=str(path))
        raw = path.read_bytes()
        try:
            entries = yaml.safe_load(raw) or []
        except yaml.YAMLError as exc:
            raise BadInputError(f"{path}: not YAML: {exc}") from None
        if not isinstance(entries, list):
            raise BadInputError(f"{path}: a list of reviews ({{grade, decision, by, why}}) "
                                f"expected, got {type(entries).__name__}")
        found: dict[str, Review] = {}
        for i, e in enumerate(entries):
            where = f"{path}: entry {i + 1}"
            if not isinstance(e, dict):
                raise BadInputError(f"{where}: a mapping with grade, decision, by expected")
            grade, decision, by = (str(e.get(k) or "").strip() for k in ("grade", "decision", "by"))
            if not grade:
                raise BadInputError(f"{where}: field 'grade': the grade's key is required")
            if decision not in (ACCEPT, REJECT):
                raise BadInputError(f"{where}: field 'decision': {decision!r} is not one of "
                                    f"{ACCEPT!r}, {REJECT!r}")
            if not by:
                raise BadInputError(f"{where}: field 'by': who decided is required")
            if grade in found and found[grade].decision != decision:
                raise BadInputError(f"{where}: grade {grade} is decided twice, differently")
            found[grade] = Review(grade, decision, by, str(e.get("why") or ""))
        return cls(found, str(path), hash_bytes(raw))

    def counted(self, status: str, grade: str | None) -> tuple[str, Review | None]:
        """(the status a result counts as, the review that decided it): a flagged result
        counts as resolved once accepted, as a policy failure once rejected, else as flagged."""
        review = self.by_grade.get(grade or "") if status == FLAGGED else None
        if review is None:
            return status, None
        return (RESOLVED if review.decision == ACCEPT else POLICY), review
