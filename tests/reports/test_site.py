"""The report holds each task's verdict without its exploits' details (2,000 tasks' full
records were 57 MB of a report at 100,000 attempts); the counts it reports come from what it
holds, and the task page, the one place that shows the details, reads them from the store."""

from __future__ import annotations

import json
from pathlib import Path

from evaluator.reports import report_summary
from evaluator.reports._inputs import open_inputs
from evaluator.reports._site import report_site
from evaluator.reports._sources import Sources
from tests.reports._world import World

_EXPLOIT = {"status": "caught", "caught_by": "grade", "graded": False, "means": "exit trick",
            "grade": "", "why": "the grade says tampered: exit status 0 over failures"}


def _with_exploit(w: World, task_id: str) -> None:
    verdict = next(v for v in w.store.query("verdict") if v["task_id"] == task_id)
    path = w.store.record_path("verdict", verdict["key"])
    path.write_text(json.dumps({**json.loads(path.read_text()),
                                "exploits": {"exit-zero": _EXPLOIT}}))


def test_the_report_holds_what_it_counts_and_the_task_page_shows_the_rest(
        tmp_path: Path) -> None:
    w = World(tmp_path, samples=1)
    w.outcomes("base", {"t1": "R", "t2": "F", "t3": "F"})
    _with_exploit(w, "t1")
    inputs = open_inputs("mini", Sources.of(**w.kwargs))
    assert inputs.gate["t1"].exploits == {"exit-zero": {"status": "caught", "caught_by": "grade",
                                                        "graded": False}}
    assert inputs.gate["t2"].exploits == {}
    gate = report_summary("mini", **w.kwargs, record_looks=False)["exploit_gate"]
    assert (gate["tasks"], gate["checked"], gate["caught"], gate["caught_by_grade"]) == \
        (1, 1, 1, 1)
    site = report_site("mini", **w.kwargs)
    page = (site.page("tasks/t1.html") or b"").decode()
    assert "exit trick" in page and "exit status 0 over failures" in page
    assert "exit trick" not in (site.page("tasks/t2.html") or b"").decode()
    # The site's copy of the verdict is the whole record, as the page and its stamp read it.
    assert dict(site.data.tasks["t1"].verdict)["exploits"] == {"exit-zero": _EXPLOIT}
