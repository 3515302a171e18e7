"""The report as data: the one dict that summary.json, report.md, index.html and the console
output are all rendered from, so they can never disagree."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from evaluator.gold import exploit_summary, summary_line
from evaluator.reports._agreement import agreement_section
from evaluator.reports._collect import Collected
from evaluator.reports._compare import Looker, decide, pending, side
from evaluator.reports._inputs import Inputs
from evaluator.reports._leaderboard import leaderboard_rows_from, outcomes_by_task
from evaluator.reports._looks import look

if TYPE_CHECKING:
    from evaluator.stats import Decision

FORMAT = 2
ALPHA = 0.05


def build_summary(inputs: Inputs, collected: Collected, *, alpha: float = ALPHA,
                  n_boot: int = 10_000, decision: Decision = "fixed",
                  record_looks: bool = True) -> dict[str, Any]:
    """Leaderboard, comparisons with the baseline, excluded tasks, outcome grid and notes.

    `decision` "sequential" lets the always-valid test decide each verdict; `record_looks`
    False counts earlier looks without recording this one (for views that show no verdict).
    """
    spec = inputs.spec
    board = leaderboard_rows_from(collected.cells, collected.subjects, spec.samples, alpha=alpha)
    order = [r["agent"] for r in board]
    compared = comparisons(inputs, collected, order, alpha=alpha, n_boot=n_boot,
                           decision=decision, looker=looker(inputs, record=record_looks))
    return {
        "format": FORMAT,
        "task_set": inputs.name,
        "description": inputs.task_set.spec.description,
        "lock_version": inputs.lock_version,
        "grader_version": inputs.grader_version,
        "samples": spec.samples,
        "alpha": alpha,
        "decision": decision,
        "family": family(compared, alpha, decision),
        "baseline": spec.baseline,
        "tasks": len(inputs.gate),
        "valid_tasks": len(inputs.valid_tasks),
        "simulated": any(r["simulated"] for r in board),
        "leaderboard": board,
        "comparisons": compared,
        "excluded_tasks": [
            {"task_id": t, "verdict": v.verdict, "why": v.why, "fixture": v.fixture,
             "exploitable": v.exploitable}
            for t, v in sorted(inputs.gate.items()) if not v.valid
        ],
        "exploit_gate": {**(gate := exploit_summary(inputs.gate)), "line": summary_line(gate)},
        "dropped_tests": {t: v.dropped for t, v in sorted(inputs.gate.items()) if v.dropped},
        "outcomes": outcome_grid(inputs, collected, order),
        "agreement": agreement_section(inputs),  # imported submissions, re-verified
        "notes": collected.notes + _notes(inputs, board, collected.cells),
    }


def looker(inputs: Inputs, *, record: bool = True) -> Looker:
    """Counts (and records) each comparison's looks in the report's store."""
    return lambda a, b, guard: look(inputs.store, inputs.name, a, b, guard, record=record)


def family(compared: list[dict[str, Any]], alpha: float, decision: str) -> dict[str, Any]:
    """How the report's verdicts are decided together: Holm over the comparable comparisons."""
    size = sum(not c["refused"] for c in compared)
    return {"size": size, "method": "holm", "alpha": alpha, "decision": decision}


def comparisons(inputs: Inputs, collected: Collected, order: list[str], *, alpha: float,
                n_boot: int, decision: Decision = "fixed",
                looker: Looker | None = None) -> list[dict[str, Any]]:
    """Every other agent against the baseline, in leaderboard order, decided as one family."""
    base = inputs.spec.baseline
    if base is None:
        return []
    cells = {name: [c for c in collected.cells if c["agent"] == name] for name in order}
    def who(name: str) -> dict[str, Any]:
        return side(name, collected.subjects[name].identity, any(c["simulated"] for c in cells[name]),
                    "plan")

    items = [pending(cells[base], cells[name], inputs.lock, a=who(base), b=who(name),
                     valid_tasks=inputs.valid_tasks) for name in order if name != base]
    return decide(items, alpha=alpha, n_boot=n_boot, decision=decision, looker=looker)


def outcome_grid(inputs: Inputs, collected: Collected, order: list[str]) -> dict[str, Any]:
    """Agents x every task of the set: one state per cell, and the counts behind it."""
    tasks = sorted(inputs.gate)
    by_cell: dict[tuple[str, str], list[Mapping[str, Any]]] = {}
    for c in collected.cells:
        by_cell.setdefault((c["agent"], c["task_id"]), []).append(c)
    grid: dict[str, dict[str, Any]] = {}
    for name in order:
        grid[name] = {}
        for tid in tasks:
            mine = by_cell.get((name, tid), [])
            graded = [c for c in mine if c["graded"]]
            grid[name][tid] = {
                "state": cell_state(inputs.gate[tid].valid, mine),
                "resolved": sum(c["resolved"] for c in graded),
                "graded": len(graded),
                "planned": len(mine),
                "pending": sum(c["status"] == "pending" for c in mine),
            }
    verdicts = {tid: inputs.gate[tid].verdict for tid in tasks}
    return {"agents": order, "tasks": tasks, "verdicts": verdicts, "cells": grid}


def cell_state(valid: bool, mine: Sequence[Mapping[str, Any]]) -> str:
    """excluded, error, policy, resolved, partial or failed, in that order of precedence."""
    graded = [c for c in mine if c["graded"]]
    if not valid:
        return "excluded"
    if not graded:
        return "error"
    if any(c["status"] == "policy" for c in graded):
        return "policy"
    solved = sum(c["resolved"] for c in graded)
    return "resolved" if solved == len(graded) else "partial" if solved else "failed"


def _notes(inputs: Inputs, board: list[dict[str, Any]],
           cells: Sequence[Mapping[str, Any]]) -> list[str]:
    notes = []
    if inputs.spec.baseline is None:
        notes.append(f"evals/{inputs.name}.yaml names no baseline: no comparisons")
    sims = [r["agent"] for r in board if r["simulated"]]
    if sims:
        notes.append(f"simulated agents (scripted model, not a real one): {', '.join(sims)}")
    unfinished = sum(r["errors"] for r in board)
    if unfinished:
        notes.append(f"{unfinished} attempt(s) without a result (pending, infra error, "
                     f"quarantined or ungraded) are left out of every rate; run "
                     f"`doit eval:{inputs.name}` to retry them")
    notes += _partial_pass_at_k(inputs, cells)
    for tid, v in sorted(inputs.gate.items()):
        if v.dropped:
            notes.append(f"{tid}: not required, flaky in the gold gate: " + "; ".join(
                f"{t} ({why})" for t, why in sorted(v.dropped.items())))
    return notes


def _partial_pass_at_k(inputs: Inputs, cells: Sequence[Mapping[str, Any]]) -> list[str]:
    """Name each pass@k that stands on fewer tasks than the rate, lest they be read as one set."""
    notes = []
    for name in inputs.spec.agents:
        per_task = outcomes_by_task(c for c in cells if c["agent"] == name)
        for k in range(2, inputs.spec.samples + 1):
            n = sum(len(v) >= k for v in per_task.values())
            if n < len(per_task):
                notes.append(f"pass@{k} of {name} stands on {n} of its {len(per_task)} scored "
                             f"tasks: the others have fewer than {k} graded samples")
    return notes
