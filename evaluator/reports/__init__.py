"""Reports: leaderboard, paired comparisons with the baseline, plots and a CI gate, rendered
from the store and the lock alone (nothing is run).

Headline scores count valid tasks only (the gold gate), tasks are the statistical unit, infra
errors are counted apart and never as failures, and two agents are compared only on the same
task set, lock version, lock and grader version; otherwise the comparison is refused with every
reason. Anything that differs from the lock makes the report refuse (StaleLockError).
"""

from evaluator.reports._agreement import agreement_gate, agreement_view
from evaluator.reports._api import (
    ReportService,
    compare,
    leaderboard,
    leaderboard_rows,
    load_frames,
    render_report,
    report_summary,
)
from evaluator.reports._cli import GATE_PASS, GATE_REFUSED, GATE_WORSE, add_commands, gate
from evaluator.reports._guard import Comparability, comparability
from evaluator.reports._history import agent_identities, load_results
from evaluator.reports._jobs import console_text, report_tasks
from evaluator.reports._looks import LookRecord
from evaluator.reports._site import render_site, report_site
from evaluator.reports._sources import Sources

__all__ = [
    "GATE_PASS",
    "GATE_REFUSED",
    "GATE_WORSE",
    "Comparability",
    "LookRecord",
    "ReportService",
    "Sources",
    "add_commands",
    "agent_identities",
    "agreement_gate",
    "agreement_view",
    "comparability",
    "compare",
    "console_text",
    "gate",
    "leaderboard",
    "leaderboard_rows",
    "load_frames",
    "load_results",
    "render_report",
    "render_site",
    "report_summary",
    "report_site",
    "report_tasks",
]
