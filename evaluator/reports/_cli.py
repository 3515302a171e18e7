"""The `gate` and `report` subcommands of `python -m evaluator`.

    python -m evaluator gate --task-set demo --candidate X [--baseline Y] [--sequential]

exits 0 when the candidate is better than the baseline or within noise, 1 when it is
significantly worse, 2 when the comparison is refused or the input is bad (stale lock, unknown
agent, undecided gold gate). It prints the comparison either way.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from evaluator.attempts import load_eval
from evaluator.errors import EvalError
from evaluator.reports._api import compare, env_kwargs, render_report, sources_from_env
from evaluator.reports._jobs import console_text
from evaluator.reports._site import render_site
from evaluator.reports._text import format_comparison

if TYPE_CHECKING:
    from evaluator.stats import Decision

GATE_PASS, GATE_WORSE, GATE_REFUSED = 0, 1, 2


def gate(task_set: str, candidate: str, baseline: str | None = None, *,
         candidate_identity: str | None = None, baseline_identity: str | None = None,
         decision: Decision = "fixed", **sources: Any) -> tuple[int, str]:
    """(exit code, text) of the CI gate; `sources` are the keyword arguments of `compare`.

    The gate makes one comparison (a family of one). A CI job that runs it after every new
    batch of samples looks repeatedly: `decision="sequential"` keeps it valid then."""
    try:
        if baseline is None:
            baseline = load_eval(task_set, sources.get("evals_root", "evals")).baseline
            if baseline is None:
                return GATE_REFUSED, (f"evals/{task_set}.yaml names no baseline; pass "
                                      f"--baseline")
        c = compare(task_set, baseline, candidate, identity_a=baseline_identity,
                    identity_b=candidate_identity, decision=decision, **sources)
    except EvalError as exc:
        return GATE_REFUSED, f"gate refused: {type(exc).__name__}: {exc}"
    text = format_comparison(c)
    if c["refused"]:
        return GATE_REFUSED, text
    if c["verdict"] == "worse":
        return GATE_WORSE, text + f"\ngate: FAIL, {candidate} is significantly worse than " \
                                  f"{baseline}"
    return GATE_PASS, text + f"\ngate: pass ({c['verdict']})"


def add_commands(sub: Any) -> None:
    """Register `gate` and `report` on an argparse subparsers object."""
    g = sub.add_parser("gate", help="exit 1 when a candidate agent is significantly worse "
                                    "than the baseline (2: refused or bad input)")
    g.add_argument("--task-set", required=True)
    g.add_argument("--candidate", required=True, help="agent name")
    g.add_argument("--baseline", help="agent name (default: the baseline in evals/<set>.yaml)")
    g.add_argument("--candidate-identity", help="compare this stored version of the candidate")
    g.add_argument("--baseline-identity", help="compare this stored version of the baseline")
    _decision_option(g)
    _source_options(g)
    g.set_defaults(run=_run_gate)

    r = sub.add_parser("report", help="render reports/out/<set>/ and print the leaderboard")
    r.add_argument("--task-set", required=True)
    r.add_argument("--out", help="output root (default: $EVAL_REPORTS or reports/out)")
    _decision_option(r)
    _source_options(r)
    r.set_defaults(run=_run_report)


def _decision_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--sequential", action="store_const", const="sequential", default="fixed",
                   dest="decision", help="decide by the always-valid sequential test (valid "
                                         "however often the comparison is looked at)")


def _source_options(p: argparse.ArgumentParser) -> None:
    for flag, what in (("store", "$EVAL_STORE or .eval"), ("tasks", "$EVAL_TASKS or tasks"),
                       ("lock-dir", "$EVAL_LOCK_DIR or lock"), ("evals", "$EVAL_EVALS or evals"),
                       ("agents", "$EVAL_AGENTS or agents")):
        p.add_argument(f"--{flag}", help=f"default: {what}")


def _sources(args: argparse.Namespace) -> Any:
    return sources_from_env(store=args.store, tasks_root=args.tasks, lock_dir=args.lock_dir,
                            evals_root=args.evals, agents_root=args.agents,
                            out_root=getattr(args, "out", None))


def _run_gate(args: argparse.Namespace) -> int:
    code, text = gate(args.task_set, args.candidate, args.baseline,
                      candidate_identity=args.candidate_identity,
                      baseline_identity=args.baseline_identity, decision=args.decision,
                      **env_kwargs(_sources(args)))
    print(text)
    return code


def _run_report(args: argparse.Namespace) -> int:
    sources = _sources(args)
    try:
        summary, paths = render_report(args.task_set, out_root=sources.out_root,
                                       decision=args.decision, **env_kwargs(sources))
        site = render_site(args.task_set, out_root=sources.out_root, summary=summary,
                           forest_png=paths["forest.png"].read_bytes(), **env_kwargs(sources))
    except EvalError as exc:
        print(f"report of {args.task_set!r} refused: {exc}", file=sys.stderr)
        return 2
    print(console_text(summary, paths["index.html"]))
    print(f"site: {site}")
    return 0
