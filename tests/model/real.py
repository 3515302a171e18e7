"""The real model tier's server for tests: started per test session (or per test where a test
needs a server of its own shape), and a test that needs it fails in CI when it is missing."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextlib import nullcontext as _nullcontext
from typing import Any

from evaluator.errors import EvalError
from evaluator.inference import (
    MODEL_ID,
    InferenceServer,
    ServerOptions,
    not_installed,
    start_inference_server,
)
from evaluator.model import Completion, OpenAIClient, Prices
from tests.helpers import unavailable

# A nominal self-hosted rate, so that cost is computed from the server's own counts.
PRICES = Prices.from_mapping({MODEL_ID: {"input_per_mtok": 0.02, "output_per_mtok": 0.04}})
ASK = [{"role": "system", "content": "You are a helpful assistant who answers with one bash "
        "command in a ```bash block."},
       {"role": "user", "content": "List the Python files in the current directory."}]
# A reply that goes on: at temperature 0 the model writes past 400 tokens (it stops after 13
# when asked to count to 300).
ESSAY = [{"role": "user", "content": "Write a long essay, at least 1000 words, on the history of "
          "the Python programming language."}]


def require_installed() -> None:
    """The test fails under CI=true (skips elsewhere) when the server is not installed."""
    missing = not_installed()
    if missing:
        unavailable(f"the real model's server is not installed: {missing}")


@contextmanager
def real_server(options: ServerOptions | None = None, **start: Any) -> Iterator[InferenceServer]:
    """The server, or the test fails under CI=true (skips elsewhere) saying what is missing."""
    require_installed()
    try:
        server = start_inference_server(options or ServerOptions(), **start)
    except EvalError as e:
        unavailable(f"the real model's server did not start: {e}")
    with server:
        yield server


def settled(server: InferenceServer, done: Callable[[dict[str, Any]], bool],
            within_s: float = 60.0) -> dict[str, Any]:
    """The server's stats once `done(stats)` holds: a generation the client hung up on ends at
    its next token, which a busy machine may take a while to reach."""
    deadline = time.monotonic() + within_s
    while not done(stats := server.stats()) and time.monotonic() < deadline:
        time.sleep(0.05)
    return stats


def client(server: InferenceServer, **kwargs: Any) -> OpenAIClient:
    """A client of `server` with a bound of its own (never the process-wide one of its URL)."""
    kwargs.setdefault("prices", PRICES)
    kwargs.setdefault("rng", random.Random(0))
    kwargs.setdefault("limiter", lambda: _nullcontext())
    return OpenAIClient(server.base_url, MODEL_ID, **kwargs)


def at_once(calls: list[Callable[[], Completion]]) -> list[Completion | BaseException]:
    """Run `calls` in threads started together; each one's reply or what it raised."""
    out: list[Completion | BaseException] = [RuntimeError("not run")] * len(calls)
    barrier = threading.Barrier(len(calls))

    def run(i: int) -> None:
        barrier.wait()
        try:
            out[i] = calls[i]()
        except BaseException as e:  # noqa: BLE001 - the test looks at each outcome
            out[i] = e

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return out
