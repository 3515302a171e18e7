"""The `model` contract: what the harness's model client sends and makes of the replies, for a
fixed script of calls against an OpenAI-shaped server on loopback (tests/model/support.py):
request bodies and headers, retries and their backoff (a seeded jitter), errors, and the
completions read from plain, tool-calling and streamed replies, as recorded for its version."""

from __future__ import annotations

import random
from typing import Any

import pytest

from evaluator.errors import EvalError
from evaluator.model import Completion, OpenAIClient
from tests.contracts.golden import check
from tests.model.support import MESSAGES, PRICES, TOOL_CALL, FakeEndpoint

TOOLS = [{"type": "function", "function": {"name": "bash", "parameters": {
    "type": "object", "properties": {"command": {"type": "string"}}}}}]
# (name, the server's actions, the call's arguments)
SCRIPT: tuple[tuple[str, tuple[str, ...], dict[str, Any]], ...] = (
    ("plain", ("ok",), {"seed": 3, "temperature": 0.0, "max_tokens": 64}),
    ("sampling", ("ok",), {"seed": 7, "temperature": 0.7}),
    ("tools", ("tools",), {"seed": 1, "temperature": 0.0, "tools": TOOLS, "tool_choice": "auto",
                           "n": 2}),
    ("stream", ("sse",), {"seed": 1, "temperature": 0.0, "tools": TOOLS, "n": 2, "stream": True}),
    ("extra-fields", ("ok",), {"seed": 1, "temperature": 0.0, "extra": {"top_p": 0.5}}),
    ("no-usage", ("nousage",), {"seed": 1, "temperature": 0.0}),
    ("retry-after-429", ("429:3", "ok"), {"seed": 1, "temperature": 0.0}),
    ("retry-5xx", ("500", "503", "ok"), {"seed": 1, "temperature": 0.0}),
    ("retry-malformed", ("malformed", "nochoices", "ok"), {"seed": 1, "temperature": 0.0}),
    ("cut-stream", ("ssecut", "ok"), {"seed": 1, "temperature": 0.0, "stream": True}),
    ("gives-up", ("500",) * 5, {"seed": 1, "temperature": 0.0}),
    ("bad-request", ("400",), {"seed": 1, "temperature": 0.0}),
    ("bad-key", ("401",), {"seed": 1, "temperature": 0.0}),
)
_QUIET_HEADERS = {"host", "content-length", "user-agent", "accept", "accept-encoding",
                  "connection"}  # the port, sizes, and httpx's own (its version is in the key)


def _completion(c: Completion) -> dict[str, Any]:
    return {"content": c.content, "model": c.model, "cost_usd": round(c.cost_usd, 9),
            "priced": c.priced, "simulated": c.simulated, "usage": vars(c.usage),
            "choices": [{"index": ch.index, "content": ch.content,
                         "tool_calls": [t.to_dict() for t in ch.tool_calls],
                         "finish_reason": ch.finish_reason, "message": ch.message()}
                        for ch in c.choices]}


def _call(name: str, actions: tuple[str, ...], kwargs: dict[str, Any],
          monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    monkeypatch.setenv("CONTRACT_KEY", "sk-contract-key")
    fake, sleeps = FakeEndpoint(), []
    fake.script(*actions)
    client = OpenAIClient(fake.base_url, "m-1", prices=PRICES, sleep=sleeps.append,
                          rng=random.Random(0), timeout_s=5.0, max_retries=3,
                          api_key_env="CONTRACT_KEY")
    try:
        out: dict[str, Any] = {"completion": _completion(client.complete(MESSAGES, **kwargs))}
    except EvalError as exc:
        out = {"error": type(exc).__name__, "message": str(exc).replace(fake.base_url, "URL")}
    finally:
        client.close()
        fake.close()
    out["requests"] = [{"body": r["body"], "headers": {k.lower(): v for k, v in r["headers"]
                                                       .items() if k.lower() not in _QUIET_HEADERS}}
                       for r in fake.requests]
    out["sleeps"] = [round(s, 6) for s in sleeps]
    out["stats"] = {"retries": client.stats.retries, "by_cause": dict(client.stats.by_cause)}
    return out


def test_the_client_sends_and_reads_what_the_model_contract_recorded(
        monkeypatch: pytest.MonkeyPatch) -> None:
    assert TOOL_CALL["function"]["name"] == "bash"
    observed = {name: _call(name, actions, kwargs, monkeypatch)
                for name, actions, kwargs in SCRIPT}
    check("model", "calls", observed)
