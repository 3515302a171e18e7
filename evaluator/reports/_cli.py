"""The `gate` and `report` subcommands of `python -m evaluator`.

    evaluator gate --set demo --candidate X [--baseline Y] [--sequential]
    evaluator gate --set verified --candidate 20240620_sweagent_claude3.5sonnet --require-agreement

exits 0 when the candidate is better than the baseline or within noise, 1 when it is
significantly worse, 2 when the comparison is refused or the input is bad (stale lock, unknown
agent, undecided gold gate). It prints the comparison either way. With `--require-agreement`
the candidate is an imported submission (`evaluator import submission`) and it also exits 1
when any instance's published outcome differs from our grade of it, or none could be compared.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from evaluator.attempts import load_eval
from evaluator.errors import EvalError
from evaluator.reports._agreement import agreement_gate
from evaluator.reports._api import compare, env_kwargs, render_report, sources_from_env
from evaluator.reports._jobs import console_text
from evaluator.reports._site import render_site
from evaluator.reports._sources import Sources
from evaluator.reports._text import format_comparison
from evaluator.settings import add_deprecated_alias, add_path_options, add_set_option

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
    g = sub.add_parser("gate", help="CI gate: exit 1 when the candidate is worse than the baseline, "
                                    "2 when refused")
    add_set_option(g)
    g.add_argument("--candidate", required=True, help="agent name")
    g.add_argument("--baseline", help="agent name (default: the baseline in evals/<set>.yaml)")
    g.add_argument("--candidate-identity", help="compare this stored version of the candidate")
    g.add_argument("--require-agreement", action="store_true", help="the candidate is an "
                   "imported submission: fail (exit 1) when an instance's published outcome "
                   "differs from our grade (`evaluator agreement` lists why); with no baseline, "
                   "this is the whole gate")
    g.add_argument("--baseline-identity", help="compare this stored version of the baseline")
    _decision_option(g)
    add_path_options(g)
    g.set_defaults(run=_run_gate)

    r = sub.add_parser("report", help="render reports/out/<set>/ and print the leaderboard")
    add_set_option(r)
    _decision_option(r)
    add_path_options(r, reports=True)
    add_deprecated_alias(r, "--out", "--reports", dest="reports_root")
    r.set_defaults(run=_run_report)


def _decision_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--sequential", action="store_const", const="sequential", default="fixed",
                   dest="decision", help="decide by the always-valid sequential test (valid "
                                         "however often the comparison is looked at)")


def _run_gate(args: argparse.Namespace) -> int:
    sources = sources_from_env()
    codes, texts = [], []
    if args.require_agreement:
        code, text = agreement_gate(args.set, args.candidate, sources)
        codes.append(code)
        texts.append(text)
    if not args.require_agreement or args.baseline or _has_baseline(args.set, sources):
        code, text = gate(args.set, args.candidate, args.baseline,
                          candidate_identity=args.candidate_identity,
                          baseline_identity=args.baseline_identity, decision=args.decision,
                          **env_kwargs(sources))
        codes.append(code)
        texts.append(text)
    print("\n\n".join(texts))
    return GATE_REFUSED if GATE_REFUSED in codes else max(codes)


def _has_baseline(task_set: str, sources: Sources) -> bool:
    try:
        return load_eval(task_set, sources.evals_root).baseline is not None
    except EvalError:
        return False


def _run_report(args: argparse.Namespace) -> int:
    sources = sources_from_env()  # the path options are in force (`evaluator.__main__`)
    try:
        summary, paths = render_report(args.set, out_root=sources.out_root,
                                       decision=args.decision, **env_kwargs(sources))
        site = render_site(args.set, out_root=sources.out_root, summary=summary,
                           forest_png=paths["forest.png"].read_bytes(), **env_kwargs(sources))
    except EvalError as exc:
        print(f"report of {args.set!r} refused: {exc}", file=sys.stderr)
        return 2
    print(console_text(summary, paths["index.html"]))
    print(f"site: {site}")
    return 0
