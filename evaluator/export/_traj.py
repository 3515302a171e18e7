"""An attempt as a mini-swe-agent trajectory file (`.traj.json`, `mini-swe-agent-1.1`).

The shape is the one mini-swe-agent's DefaultAgent saves (`info`, `messages`,
`trajectory_format`, and `instance_id` as its SWE-bench runner adds): the messages are the
conversation's thread as the harness recorded it, each assistant message with the `extra` that
mini-swe-agent writes (`actions`, `cost`, `timestamp`, `usage`), then one `exit` message holding
the exit status and the submission, which is the patch the harness graded.

    python -m evaluator export traj --set S --agent A --task T [--sample N] --out FILE
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from evaluator.agents import parse_action
from evaluator.attempts import CONVERSATION_FORMAT, AttemptRecord
from evaluator.errors import BadInputError, EvalError
from evaluator.export._find import find_attempt
from evaluator.result import ResultRecord
from evaluator.settings import add_path_options, add_set_option
from evaluator.store import Store

TRAJECTORY_FORMAT = "mini-swe-agent-1.1"
# The harness's exit reasons as mini-swe-agent names the same ends.
EXIT_STATUS = {"submitted": "Submitted", "step_limit": "LimitsExceeded",
               "cost_limit": "LimitsExceeded", "wall_clock_limit": "TimeExceeded",
               "format_errors": "RepeatedFormatError"}


def _actions(message: dict[str, Any]) -> list[dict[str, Any]]:
    calls = message.get("tool_calls") or []
    if calls:
        out = []
        for call in calls:
            try:
                args = json.loads(call["function"]["arguments"])
            except (ValueError, KeyError, TypeError):
                args = {}
            command = args.get("command") if isinstance(args, dict) else None
            out.append({"command": command if isinstance(command, str)
                        else call.get("function", {}).get("arguments", ""),
                        "tool_call_id": call.get("id")})
        return out
    content = message.get("content")
    command = parse_action(content) if isinstance(content, str) else None
    return [{"command": command}] if command is not None else []


def to_traj(attempt: AttemptRecord, conversation: dict[str, Any], patch: str,
            result: ResultRecord | None = None) -> dict[str, Any]:
    """The trajectory file's document for a stored attempt and its conversation."""
    if conversation.get("format") != CONVERSATION_FORMAT:
        raise BadInputError(f"attempt {attempt.key[:16]}: its conversation is not in "
                            f"format {CONVERSATION_FORMAT}")
    pool, calls = conversation["messages"], conversation["calls"]
    by_reply = {c["reply"]: c for c in calls}
    messages = []
    for index in conversation["thread"]:
        message = dict(pool[index])
        call = by_reply.get(index) if message.get("role") == "assistant" else None
        if call is not None:
            message["extra"] = {"actions": _actions(message), "cost": call["cost_usd"] or 0.0,
                                "timestamp": call["t"], "usage": call["usage"],
                                "finish_reason": call["finish_reasons"][0]}
        messages.append(message)
    reason = attempt.exit_reason
    status = EXIT_STATUS.get(reason, reason)
    messages.append({"role": "exit", "content": attempt.exit_detail or status,
                     "extra": {"exit_status": status, "submission": patch}})
    agent, cost = attempt.agent, attempt.cost
    return {
        "info": {
            "model_stats": {"instance_cost": cost.get("model_usd") or 0.0,
                            "api_calls": attempt.usage.get("model_calls", 0)},
            "config": {"agent": {"name": agent.get("name", attempt.subject),
                                 "identity": agent.get("identity")},
                       "agent_type": agent.get("name", attempt.subject),
                       "model": {"model_name": agent.get("model")}},
            "mini_version": "",  # not written by mini-swe-agent, but by the evaluator
            "exit_status": status,
            "submission": patch,
            "evaluator": {"attempt": attempt.key, "task_set": attempt.task_set,
                          "sample_idx": attempt.sample_idx, "simulated": attempt.simulated,
                          "exit_reason": reason, "cost": cost,
                          "resolved": None if result is None else result.resolved,
                          "status": None if result is None else result.status,
                          "tools": conversation.get("tools", [])},
        },
        "messages": messages,
        "trajectory_format": TRAJECTORY_FORMAT,
        "instance_id": attempt.task_id,
    }


def export_traj(store: Store, attempt: AttemptRecord) -> dict[str, Any]:
    ref = attempt.conversation
    if not ref:
        raise BadInputError(f"attempt {attempt.key[:16]} was recorded before attempts kept "
                            "their conversation; run it again to export it")
    conversation = json.loads(store.get_blob(ref))
    patch = store.get_blob(attempt.patch).decode("utf-8", "replace")
    results = [r for r in store.select_readable(ResultRecord, task_set=attempt.task_set,
                                                subject=attempt.subject)
               if r.attempt == attempt.key]
    return to_traj(attempt, conversation, patch, results[-1] if results else None)


def _run(args: argparse.Namespace) -> int:
    try:
        store = Store()  # --store is in force (`evaluator.__main__`)
        attempt, note = find_attempt(store, task_set=args.set, agent=args.agent, task=args.task,
                                     sample=args.sample, key=args.key)
        document = export_traj(store, attempt)
    except EvalError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if note:
        print(note, file=sys.stderr)
    text = json.dumps(document, indent=2)
    if args.out in (None, "-"):
        print(text)
    else:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(text + "\n")
        print(f"wrote {args.out} ({len(document['messages'])} messages, attempt "
              f"{attempt.key[:16]})")
    return 0


def add_command(sub: Any) -> None:
    p = sub.add_parser("traj", help="one attempt as a mini-swe-agent trajectory (.traj.json)")
    add_set_option(p, required=False, help="the task set")
    p.add_argument("--agent", help="the agent's name")
    p.add_argument("--task", help="the task id")
    p.add_argument("--sample", type=int, default=0, help="the sample index (default 0)")
    p.add_argument("--key", help="the attempt whose key starts with this, instead")
    p.add_argument("--out", help="file to write (default: standard output)")
    add_path_options(p, only=("store",))
    p.set_defaults(run=_run)
