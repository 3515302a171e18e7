"""Quarantined attempts: listed and released from the command line.

An attempt whose infra errors reach `retry_budget` is not retried (it would burn money on a
broken environment); the report counts it as a missing sample and `doit eval:<set>` ends
non-zero naming this command. Releasing moves its errors aside (kept under the store's
`released/`), so the next `doit eval:<set>` tries it again.

    python -m evaluator quarantine list --set demo [--agent A] [--task T]
    python -m evaluator quarantine release --set demo (--all | --agent A | --task T | --key K)
"""

from __future__ import annotations

import argparse
from typing import Any

from evaluator.attempts import quarantined
from evaluator.console import say
from evaluator.errors import BadInputError, EvalError
from evaluator.pipeline import _context as ctx
from evaluator.settings import add_path_options, add_set_option


def quarantine_hint(name: str, count: int) -> str:
    return (f"{count} attempt(s) quarantined after repeated infra errors and not retried; see "
            f"`python -m evaluator quarantine list --set {name}`, then release them with "
            f"`python -m evaluator quarantine release --set {name} --all` (or --agent/--task/--key)")


def selected(name: str, *, agent: str | None = None, task: str | None = None,
             key: str | None = None) -> list[Any]:
    """The quarantined planned attempts of set `name` that match every filter given."""
    plan = ctx.eval_plan(name)
    store = ctx.store()
    for what, value, known in (("agent", agent, set(plan.agents)),
                               ("task", task, {pa.task.id for pa in plan.attempts})):
        if value is not None and value not in known:
            raise BadInputError(f"--{what} {value!r} is not in the eval of {name!r} "
                                f"(known: {', '.join(sorted(known))})")
    return [pa for pa in plan.attempts
            if (agent is None or pa.agent.name == agent) and (task is None or pa.task.id == task)
            and (key is None or pa.key.startswith(key)) and quarantined(store, plan.spec, pa.key)]


def _run(args: argparse.Namespace) -> int:
    try:
        if args.action == "release" and not (args.all or args.agent or args.task or args.key):
            raise BadInputError("say what to release: --all, or --agent, --task or --key")
        found = selected(args.set, agent=args.agent, task=args.task, key=args.key)
    except EvalError as exc:
        say(f"error: {exc}")
        return 2
    store = ctx.store()
    for pa in found:
        errors = store.errors("attempt", pa.key)
        last = errors[-1].get("message", "") if errors else ""
        if args.action == "release":
            store.release_errors("attempt", pa.key)
            say(f"released {pa.label} ({pa.key[:16]})")
        else:
            say(f"{pa.label:60} {pa.key[:16]} {len(errors)} errors, last: {last[:160]}")
    verb = "released" if args.action == "release" else "quarantined"
    say(f"{len(found)} attempt(s) {verb}" + (
        f"; run `doit eval:{args.set}` to retry them" if args.action == "release" and found else ""))
    return 0


def add_commands(sub: Any) -> None:
    p = sub.add_parser("quarantine", help="list or release quarantined attempts of a set")
    p.add_argument("action", choices=("list", "release"))
    add_set_option(p, help="the task set (evals/<set>.yaml)")
    p.add_argument("--agent", help="only this agent's attempts")
    p.add_argument("--task", help="only this task's attempts")
    p.add_argument("--key", help="only the attempt whose key starts with this")
    p.add_argument("--all", action="store_true", help="release every quarantined attempt")
    add_path_options(p)
    p.set_defaults(run=_run)
