"""What the importer can say about a row's test ids before any test runs: ids kept as SWE-bench's
log parsers key them (cut at a whitespace, a Django docstring line) and ids that name no test
in the hidden test files. Which tests an id matches is decided at grading (evaluator.grading's
`_ids`); the gold gate names ids that match several tests or none."""

from __future__ import annotations

import re
from collections.abc import Sequence

_DJANGO = re.compile(r"^\w+ \([\w.]+\)$")


def _defines(source: str, name: str) -> bool:
    return re.search(rf"^\s*(?:async\s+)?(?:def|class)\s+{re.escape(name)}\b", source,
                     re.MULTILINE) is not None


def id_notes(ids: Sequence[str], hidden: dict[str, bytes], results: str) -> list[str]:
    """Notes for the row's report line (empty when every id is plain)."""
    texts = {p: b.decode("utf-8", "replace") for p, b in hidden.items() if p.endswith(".py")}
    cut, docs, unknown = [], [], []
    for t in ids:
        if results == "django":
            if not _DJANGO.match(t):
                docs.append(t)
        elif results == "sympy":
            if texts and not any(_defines(s, t) for s in texts.values()):
                unknown.append(t)
        elif "::" in t:
            if t.count("[") > t.count("]"):
                cut.append(t)
            path, name = t.split("::", 1)[0], t.split("::")[-1].split("[", 1)[0]
            if path in texts and not _defines(texts[path], name):
                unknown.append(t)
    notes = []
    if cut:
        notes.append(f"{len(cut)} test id(s) cut at a whitespace or mid-parameter, as SWE-bench's "
                     f"pytest parser keys them (e.g. {cut[0]}): each names the tests it starts")
    if docs:
        notes.append(f"{len(docs)} test id(s) are a docstring's line, as SWE-bench's Django parser "
                     f"keys such tests (e.g. {docs[0]!r})")
    if unknown:
        notes.append(f"{len(unknown)} test id(s) name no test defined in the hidden test files: "
                     + ", ".join(unknown[:3]) + " (the gold gate will say whether a test matches)")
    return notes
