"""No money past a limit (issue 31): every model request is bounded before it is sent (bytes
sent as tokens at the input price, plus max_tokens at the output price), so a request that could
pass what is left of the attempt's limit never reaches the endpoint; one whose prompt alone
passes the whole limit is the task's input (bad input), not the agent's failure. A real HTTP
endpoint on loopback counts what it was sent and bills each request by its real size."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from evaluator.agents import CostLimit
from evaluator.attempts import InputTooLarge, drive_agent
from evaluator.attempts._spend import REPLY_CAP, admit, cannot_fit, input_tokens
from evaluator.model import OpenAIClient, Price, Prices
from tests.attempts.support import FakeSandbox, agent

# Dear on purpose, so that what used to be sent was billed well past the limit.
PRICE = Price(input_per_mtok=10.0, output_per_mtok=30.0)


class _Billing(BaseHTTPRequestHandler):
    bodies: list[dict] = []

    def do_POST(self) -> None:  # noqa: N802 (http.server's name)
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).bodies.append(body)
        prompt = len(json.dumps(body["messages"])) // 4  # about what a tokenizer would count
        reply = json.dumps({"id": "1", "object": "chat.completion", "model": body["model"],
                            "choices": [{"index": 0, "finish_reason": "stop", "message": {
                                "role": "assistant", "content": "ok"}}],
                            "usage": {"prompt_tokens": prompt, "completion_tokens": 2,
                                      "total_tokens": prompt + 2}}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def endpoint() -> Iterator[tuple[str, list[dict]]]:
    _Billing.bodies = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Billing)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}/v1", _Billing.bodies
    server.shutdown()
    server.server_close()


def _drive(tmp_path: Path, url: str, entry: str, problem: str, limit: float):
    a = agent(tmp_path, f"tests.attempts.spending_agents:{entry}", max_cost_usd=limit)
    model = OpenAIClient(url, "m", prices=Prices({"m": PRICE}), max_retries=0)
    return drive_agent(a, FakeSandbox(), model, problem_statement=problem, workdir="/w",
                       seed=0, record_step=lambda *args: None, price=PRICE)


def test_a_problem_too_large_for_the_limit_is_the_tasks_error_and_nothing_is_sent(
        tmp_path: Path, endpoint: tuple[str, list[dict]]) -> None:
    url, sent = endpoint
    # 400 KB: about 100k real tokens, $1.00 at $10/Mtok, against a $0.50 limit (the old code
    # sent it and recorded the agent's own cost_limit at $1.00).
    with pytest.raises(InputTooLarge, match=r"first request .* over the agent's whole \$0.5 "):
        _drive(tmp_path, url, "sends_the_problem", "y" * 400_000, 0.5)
    assert sent == []


def test_a_request_that_could_pass_the_rest_of_the_limit_is_not_sent(
        tmp_path: Path, endpoint: tuple[str, list[dict]]) -> None:
    url, sent = endpoint
    out = _drive(tmp_path, url, "grows", "p", 0.5)
    assert out.exit_reason == "cost_limit" and "not sent" in out.detail
    assert len(sent) == 1 and out.meter.cost_usd is not None and out.meter.cost_usd < 0.5


def test_a_request_without_max_tokens_gets_what_the_limit_buys(
        tmp_path: Path, endpoint: tuple[str, list[dict]]) -> None:
    url, sent = endpoint
    out = _drive(tmp_path, url, "sends_the_problem", "fix the bug", 0.01)
    assert out.exit_reason == "returned" and len(sent) == 1
    tokens, _ = input_tokens(sent[0]["messages"], None)
    afford = int((0.01 - tokens * 10.0 / 1e6) / (30.0 / 1e6))
    assert sent[0]["max_tokens"] == min(afford, REPLY_CAP)
    bound = (tokens * 10.0 + sent[0]["max_tokens"] * 30.0) / 1e6
    assert bound <= 0.01


def test_the_bound_covers_every_byte_choice_and_image() -> None:
    text = [{"role": "user", "content": "é" * 1000}]
    tokens, sent = input_tokens(text, None)
    assert sent >= 2000 and tokens > sent  # two bytes a character: a token is at least a byte
    image = [{"role": "user", "content": [{"type": "image_url",
                                           "image_url": {"url": "https://x/y.png"}}]}]
    assert input_tokens(image, None)[0] > 4000
    with pytest.raises(CostLimit):  # 3 choices of 1,000 tokens: $0.09 > $0.05
        admit(PRICE, 0.0, 0.05, [{"role": "user", "content": "hi"}], None, 1000, 3, None,
              first=False)
    assert admit(PRICE, 0.0, 0.05, [{"role": "user", "content": "hi"}], None, 1000, 1, None,
                 first=False) == 1000


def test_the_plan_names_a_task_whose_statement_cannot_fit() -> None:
    price = PRICE.model_dump()
    assert cannot_fit(price, 10_000, 0.5) == ""
    assert "60,000,000 bytes" in cannot_fit(price, 60_000_000, 0.5)
    assert cannot_fit("free", 60_000_000, 0.5) == "" and cannot_fit("unpriced", 10**9, 0.1) == ""
