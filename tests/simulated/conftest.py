"""A one-task tasks-root and simulated endpoints over it, started as real subprocesses."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

from evaluator.simulated import SimTask, SimulatedEndpoint, TaskIndex, start_simulated_endpoint

PROBLEM = "calc.add subtracts instead of adding, and calc.mul is wrong for negative numbers."
# A real `git diff` with two hunks, so a wrong edit can drop one of them.
GOLD = "\n".join([
    "diff --git a/calc.py b/calc.py",
    "index 469d71e..58616c6 100644",
    "--- a/calc.py",
    "+++ b/calc.py",
    "@@ -1,5 +1,5 @@",
    " def add(a, b):",
    "-    return a - b",
    "+    return a + b",
    *[" "] * 3,
    "@@ -9,5 +9,7 @@ def add(a, b):",
    *[" "] * 2,
    " def mul(a, b):",
    "-    return a * b + 0",
    "+    if a < 0:",
    "+        return -(-a * b)",
    "+    return a * b",
    " ",
    "",
])  # fmt: skip
FAULTS = """\
faults: {latency_ms: 1, rate_429: 0.2, retry_after_s: 0.5, rate_500: 0.1, rate_malformed: 0.1,
         rate_drop: 0.1, seed: 7}
"""


@pytest.fixture(scope="session")
def tasks_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("tasks")
    task = root / "toy" / "calc-add"
    task.mkdir(parents=True)
    (task / "task.yaml").write_text("id: calc-add\nimage: toy:1\n")
    (task / "problem.md").write_text(PROBLEM + "\n")
    (task / "gold.patch").write_text(GOLD)
    return root


@pytest.fixture(scope="session")
def endpoint(tasks_root: Path) -> Iterator[SimulatedEndpoint]:
    with start_simulated_endpoint(tasks_root) as running:
        yield running


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


def bash_block(reply: str) -> str:
    """The one bash command in a reply, as the agent would extract it."""
    blocks = re.findall(r"```bash\n(.*?)\n```", reply, re.DOTALL)
    assert len(blocks) == 1, reply
    return blocks[0]


@pytest.fixture(scope="session")
def command_of() -> Callable[[str], str]:
    return bash_block
