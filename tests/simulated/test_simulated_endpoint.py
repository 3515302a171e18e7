from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from evaluator.model import OpenAIClient

REPO_ROOT = Path(__file__).resolve().parents[2]


def test_ready_line_then_clean_shutdown_on_sigterm(tasks_root) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    command = [
        sys.executable,
        "-m",
        "evaluator.simulated",
        "--tasks",
        str(tasks_root),
        "--port",
        "0",
    ]
    with subprocess.Popen(command, stdout=subprocess.PIPE, text=True, env=env) as process:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert re.fullmatch(r"READY http://127\.0\.0\.1:\d+/v1\n", line)
        assert httpx.get(f"{line.split()[1]}/models").status_code == 200
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=10) == 0


def test_models_are_labelled_simulated(endpoint) -> None:
    response = httpx.get(f"{endpoint.base_url}/models")
    assert response.headers["server"] == "evaluator-simulated"
    cards = response.json()["data"]
    assert {c["id"] for c in cards} == {"sim-strong", "sim-weak"}
    assert {c["owned_by"] for c in cards} == {"evaluator-simulated"}


def test_same_request_gets_identical_reply(endpoint, chat) -> None:
    first, second = (chat(endpoint.base_url, seed=5, steps=2) for _ in range(2))
    assert first.status_code == 200 and first.json() == second.json()
    body = first.json()
    assert body["system_fingerprint"] == "evaluator-simulated"
    assert body["usage"]["prompt_tokens"] > 0 and body["usage"]["completion_tokens"] > 0


def test_unknown_model_is_404_openai_style(endpoint, chat) -> None:
    response = chat(endpoint.base_url, model="gpt-nonexistent")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "model_not_found"
    assert "gpt-nonexistent" in response.json()["error"]["message"]


def test_bad_request_is_400(endpoint) -> None:
    response = httpx.post(f"{endpoint.base_url}/chat/completions", json={"model": "sim-weak"})
    assert response.status_code == 400 and "messages" in response.json()["error"]["message"]


def test_max_tokens_truncates_with_finish_reason_length(endpoint, chat) -> None:
    choice = chat(endpoint.base_url, steps=2, max_tokens=5).json()["choices"][0]
    assert choice["finish_reason"] == "length" and len(choice["message"]["content"]) == 20


def test_faults_occur_at_roughly_configured_rates(faulty_endpoint, chat) -> None:
    seen: dict[str, int] = {}
    for seed in range(400):
        try:
            response = chat(faulty_endpoint.base_url, seed=seed)
            kind = str(response.status_code)
            if kind == "200":
                kind = "ok" if _parses(response) else "malformed"
            if kind == "429":
                assert response.headers["retry-after"] == "0.5"
        except httpx.RemoteProtocolError:
            kind = "drop"
        seen[kind] = seen.get(kind, 0) + 1
    expected = {"ok": 0.5, "429": 0.2, "500": 0.1, "malformed": 0.1, "drop": 0.1}
    for kind, rate in expected.items():
        assert abs(seen.get(kind, 0) / 400 - rate) < 0.06, seen


def test_client_gets_through_the_faults(faulty_endpoint) -> None:
    with OpenAIClient(
        faulty_endpoint.base_url, "sim-weak", sleep=lambda _: None, max_retries=10
    ) as client:
        for seed in range(20):
            ask = [{"role": "user", "content": "hello"}]
            assert client.complete(ask, seed=seed, temperature=0.0).simulated
        assert client.stats.completions == 20 and client.stats.retries > 0


def _parses(response: httpx.Response) -> bool:
    try:
        return "choices" in response.json()
    except ValueError:
        return False


def test_fingerprint_matches_what_the_client_recognises() -> None:
    from evaluator.model import SIMULATED_FINGERPRINT
    from evaluator.simulated import FINGERPRINT

    assert FINGERPRINT == SIMULATED_FINGERPRINT


def test_start_rejects_bad_inputs_before_spawning(tmp_path) -> None:

    from evaluator.errors import BadInputError
    from evaluator.simulated import start_simulated_endpoint

    with pytest.raises(BadInputError, match="tasks root"):
        start_simulated_endpoint(tmp_path / "missing")
    (tmp_path / "bad.yaml").write_text("models: {m: {solve_rate: 2}}\n")
    with pytest.raises(BadInputError, match="bad.yaml"):
        start_simulated_endpoint(tmp_path, tmp_path / "bad.yaml")
