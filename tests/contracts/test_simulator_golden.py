"""The `simulator` contract: what the simulated endpoint answers, run on the demo set's tasks:
each model's conversation on every task (a fixed observation fed back after each reply, until
it submits or twelve replies), one of them as tool calls, and its error replies, as recorded
for its version. The endpoint answers as a pure function of the request, so any difference is
a change of its behaviour."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx

from evaluator.hashing import hash_bytes
from evaluator.simulated import start_simulated_endpoint
from evaluator.taskset import load_task_set
from tests.contracts.golden import check

REPO = Path(__file__).resolve().parents[2]
OBSERVATION = "<returncode>0</returncode>\n<output>\n\n</output>"
TOOL = {"type": "function", "function": {"name": "bash", "parameters": {
    "type": "object", "properties": {"command": {"type": "string"}}}}}
SHOWN_IN_FULL = "csv-export-quoting"  # one task's replies in full, the others by hash


def _conversation(client: httpx.Client, model: str, problem: str, tools: bool) -> list[Any]:
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "You fix bugs. One bash block per reply."},
        {"role": "user", "content": f"Fix this:\n\n{problem}"}]
    replies = []
    for step in range(12):
        body: dict[str, Any] = {"model": model, "messages": messages, "seed": 1234 + step}
        if tools:
            body["tools"] = [TOOL]
        got = client.post("/chat/completions", json=body).json()
        message = got["choices"][0]["message"]
        replies.append({"message": message, "finish_reason": got["choices"][0]["finish_reason"],
                        "usage": got["usage"]})
        messages.append(message)
        calls = message.get("tool_calls") or []
        if calls:
            messages += [{"role": "tool", "tool_call_id": c["id"], "content": OBSERVATION}
                         for c in calls]
        else:
            messages.append({"role": "user", "content": OBSERVATION})
        if "EVAL_SUBMIT" in json.dumps(message):
            break
    return replies


def test_the_simulated_endpoint_answers_what_the_simulator_contract_recorded() -> None:
    demo = load_task_set("demo", REPO / "tasks")
    observed: dict[str, Any] = {"conversations": {}, "errors": {}}
    with start_simulated_endpoint(REPO / "tasks") as endpoint, \
            httpx.Client(base_url=endpoint.base_url, timeout=30) as client:
        for task in demo.tasks:
            problem = (task.dir / task.spec.problem_statement).read_text().strip()
            for model in ("sim-strong", "sim-weak"):
                replies = _conversation(client, model, problem, tools=False)
                observed["conversations"][f"{task.id}/{model}"] = (
                    replies if task.id == SHOWN_IN_FULL else
                    [hash_bytes(json.dumps(r, sort_keys=True).encode())[:16] for r in replies])
        first = demo.tasks[0]
        problem = (first.dir / first.spec.problem_statement).read_text().strip()
        observed["conversations"][f"{first.id}/sim-strong/tools"] = _conversation(
            client, "sim-strong", problem, tools=True)
        for name, body in {"unknown-model": {"model": "gpt-x", "messages": [
                               {"role": "user", "content": "hi"}]},
                           "no-messages": {"model": "sim-strong", "messages": []},
                           "unknown-field": {"model": "sim-strong", "logprobs": True,
                                             "messages": [{"role": "user", "content": "hi"}]},
                           "unknown-task": {"model": "sim-strong", "seed": 1, "messages": [
                               {"role": "user", "content": "no task says this"}]}}.items():
            got = client.post("/chat/completions", json=body)
            observed["errors"][name] = {"status": got.status_code, "body": got.json()}
    check("simulator", "demo-conversations", observed)
