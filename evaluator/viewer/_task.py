"""The task page's content: the gold gate's verdict, each rep's per-test outcomes, the tests
that flipped between reps (flaky, so left out), the bundled exploits and what caught each, and
every attempt on the task."""

from __future__ import annotations

from typing import Any

from evaluator.viewer._attempt import output_of
from evaluator.viewer._data import Limits, Records, RunData


def task_view(data: RunData, records: Records, task_id: str,
              limits: Limits) -> tuple[dict[str, Any], dict[str, str]] | None:
    task = data.tasks.get(task_id)
    if task is None:
        return None
    files: dict[str, str] = {}
    verdict = dict(task.verdict)  # read once: a verdict may be read from the store on use
    reps = []
    for subject in ("gold", "empty"):
        for rep, key in enumerate(verdict.get(f"{subject}_grades") or []):
            grade = records.get("grade", str(key))
            name = f"{subject}-{rep}.txt"
            reps.append({"subject": subject, "rep": rep, "key": key, "grade": grade,
                         "output": output_of(records, grade, limits, files, name) if grade else None})
    tests = sorted({t for r in reps if r["grade"] for t in (r["grade"].get("tests") or {})}
                   | set(task.required))
    grid = [{"id": t, "required": t in task.required,
             "outcomes": [(r["grade"].get("tests") or {}).get(t, "missing") if r["grade"] else "no grade"
                          for r in reps]} for t in tests]
    exploits = []
    for family, e in sorted((verdict.get("exploits") or {}).items()):
        grade = records.get("grade", str(e["grade"])) if e.get("grade") and e.get("graded") else None
        exploits.append({**e, "family": family, "output": output_of(
            records, grade, limits, files, f"exploit-{family}.txt") if grade else None})
    context = {"task": task, "verdict": verdict, "reps": reps, "tests": grid,
               "exploits": exploits,
               "flaky": _flaky(verdict, reps),
               "attempts": sorted(data.cells_of(task_id),
                                  key=lambda c: (c["agent"], c["sample_idx"]))}
    return context, files


def _flaky(verdict: Any, reps: list[dict[str, Any]]) -> list[str]:
    """Tests whose outcome differs between reps of one subject, as the gate judged them, plus
    any the verdict record names itself."""
    named = [str(t) for key in ("flaky_tests", "dropped_tests") for t in verdict.get(key) or []]
    flips = set(named)
    for subject in ("gold", "empty"):
        graded = [r["grade"] for r in reps if r["subject"] == subject and r["grade"]]
        ids = {t for g in graded for t in (g.get("tests") or {})}
        flips |= {t for t in ids if len({(g.get("tests") or {}).get(t, "missing")
                                          for g in graded}) > 1}
    return sorted(flips)
