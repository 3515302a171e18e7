"""`report:<set>`: render the report from the store and the lock, print its headline."""

from __future__ import annotations

import errno
import gc
from collections.abc import Collection, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from doit.exceptions import TaskFailed

from evaluator.console import say
from evaluator.errors import EvalError
from evaluator.reports._api import render_all
from evaluator.reports._sources import Sources
from evaluator.reports._text import family_line, format_comparison, format_leaderboard
from evaluator.settings import settings

if TYPE_CHECKING:
    from evaluator.stats import Decision


def console_text(summary: dict[str, Any], index_html: Path | None = None) -> str:
    """What `doit report` prints: leaderboard, comparisons, exclusions, notes, where to look."""
    s = summary
    lines = [f"report of task set {s['task_set']!r} (lock version {s['lock_version']}, grader "
             f"{s['grader_version']}): {s['valid_tasks']} valid task(s) of {s['tasks']}, "
             f"{s['samples']} sample(s) per task",
             "", format_leaderboard(s["leaderboard"]), ""]
    if s["comparisons"]:
        lines.append(f"comparisons with the baseline {s['baseline']}:")
        fam = family_line(s)
        if fam:
            lines.append(f"  ({fam})")
        for c in s["comparisons"]:
            lines += [format_comparison(c), ""]
    if s["excluded_tasks"]:
        lines.append("left out of the score by the gold gate: " + ", ".join(
            f"{t['task_id']} ({t['verdict']})" for t in s["excluded_tasks"]))
    if s.get("exploit_gate"):
        lines.append(s["exploit_gate"]["line"])
    lines += [f"note: {n}" for n in s["notes"]]
    if index_html is not None:
        lines.append(f"report: {index_html}")
    return "\n".join(lines)


def decision_from_env() -> Decision:
    """`EVAL_DECISION=sequential` (`settings.decision`) lets `doit report` decide by the
    always-valid test."""
    return "sequential" if settings.decision == "sequential" else "fixed"


def _report_action(name: str) -> TaskFailed | None:
    gc.enable()  # dodo turns GC off for cheap no-op runs; matplotlib makes reference cycles
    sources = Sources.from_env()
    try:
        summary, paths, site = render_all(name, sources, decision_from_env())
    except EvalError as exc:
        return TaskFailed(f"report of {name!r} refused: {exc}")
    except OSError as exc:
        if exc.errno not in (errno.ENOSPC, errno.EDQUOT):
            raise
        return TaskFailed(f"report of {name!r}: no space left writing {exc.filename or ''} "
                          f"under {sources.out_root}; free space there, or set EVAL_REPORTS to "
                          "a larger disk")
    say(console_text(summary, paths["index.html"]))
    say(f"site: {site}")
    return None


def report_tasks(names: list[str], asked: Collection[str] = ()) -> Iterator[dict[str, Any]]:
    """One `report:<set>` target per set with an evals/<set>.yaml, and one for each name in
    `asked` (the command line's, whose action says what is missing); always runs (it is cheap,
    and the store, not doit, knows whether anything changed)."""
    evals = Sources.from_env().evals_root
    for name in sorted({*names, *asked}):
        if (evals / f"{name}.yaml").is_file() or name in asked:
            yield {"name": name, "actions": [(_report_action, [name])], "uptodate": [False],
                   "verbosity": 2,
                   "doc": f"render reports/out/{name}/ (leaderboard, comparisons, plots) from "
                          f"the store and the lock"}
