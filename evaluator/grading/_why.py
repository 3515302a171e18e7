"""One line saying why a grade is not a test result, for the CLI, the export and the pages."""

from __future__ import annotations

import re
from typing import Any

from evaluator.grading._grader import NO_REPORT, PATCH_FAILED, PATCH_REJECTED, TAMPERED

# Outcomes in which the tests never gave a verdict on the patch: the official harness reports
# these as errors (no report.json for the instance), not as unresolved.
NOT_RUN = (PATCH_FAILED, PATCH_REJECTED)


def why_not(grade: Any) -> str:
    """'' for a grade the tests decided; else what happened, in one line (a grade record, or
    its dict)."""
    if not grade:
        return ""
    get = grade.get if isinstance(grade, dict) else lambda k: getattr(grade, k, None)
    outcome = get("outcome")
    detail = str(get("detail") or "")
    if outcome == PATCH_FAILED:
        errors = re.findall(r"error: [^\n]*", detail)
        return ("the patch does not apply at the base commit"
                + (f" ({'; '.join(errors[:2])})" if errors else ""))
    if outcome == PATCH_REJECTED:
        return f"the patch was rejected before any test ran: {detail[:300]}"
    if outcome == NO_REPORT:
        return f"the tests gave no readable results: {detail[:300]}"
    if outcome == TAMPERED:
        return f"tampered: {detail[:300]}"
    return ""
