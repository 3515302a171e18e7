"""A one-task tasks-root and simulated endpoints over it, started as real subprocesses."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

from evaluator.simulated import SimTask, SimulatedEndpoint, TaskIndex, start_simulated_endpoint
from tests.simulated.support import FAULTS, GOLD, PROBLEM, bash_block


@pytest.fixture(scope="session")
def faulty_endpoint(tasks_root: Path) -> Iterator[SimulatedEndpoint]:
    config = tasks_root / "faults.yaml"
    config.write_text(FAULTS)
    with start_simulated_endpoint(tasks_root, config) as running:
        yield running


@pytest.fixture(scope="session")
def http() -> Iterator[httpx.Client]:
    # One client for all requests: building an httpx.Client costs tens of milliseconds.
    with httpx.Client(timeout=10) as client:
        yield client


@pytest.fixture
def chat(http: httpx.Client) -> Callable[..., httpx.Response]:
    """POST a conversation `steps` assistant turns in, about PROBLEM unless told otherwise."""

    def post(
        base_url: str,
        *,
        model: str = "sim-strong",
        seed: int = 0,
        steps: int = 0,
        problem: str = PROBLEM,
        **extra: object,
    ) -> httpx.Response:
        messages = [
            {"role": "system", "content": "You are a coding agent."},
            {"role": "user", "content": f"{problem}\n\nWorking directory: /testbed"},
        ]
        for _ in range(steps):
            messages += [
                {"role": "assistant", "content": "```bash\nls\n```"},
                {"role": "user", "content": "<returncode>0</returncode>\n<output>\n</output>"},
            ]
        body = {"model": model, "messages": messages, "temperature": 0.0, "seed": seed, **extra}
        return http.post(f"{base_url}/chat/completions", json=body)

    return post


@pytest.fixture(scope="session")
def task(tasks_root: Path) -> SimTask:
    found = TaskIndex.load(tasks_root).match(f"Fix this:\n{PROBLEM}\nWorking directory: /testbed")
    assert found is not None and found.gold_patch == GOLD
    return found


@pytest.fixture(scope="session")
def command_of() -> Callable[[str], str]:
    return bash_block
