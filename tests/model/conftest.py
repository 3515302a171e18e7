"""A scripted OpenAI-shaped server on loopback: each request takes the next action from a queue."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from evaluator.inference import InferenceServer, ServerOptions
from evaluator.model import OpenAIClient
from tests.model.real import real_server
from tests.model.support import (
    MESSAGES,
    PRICES,
    FakeEndpoint,
)


@pytest.fixture
def endpoint() -> Iterator[FakeEndpoint]:
    fake = FakeEndpoint()
    yield fake
    fake.close()


@pytest.fixture
def sleeps() -> list[float]:
    return []


@pytest.fixture
def make_client(
    endpoint: FakeEndpoint, sleeps: list[float]
) -> Iterator[Callable[..., OpenAIClient]]:
    clients: list[OpenAIClient] = []

    def make(**kwargs: Any) -> OpenAIClient:
        kwargs.setdefault("prices", PRICES)
        kwargs.setdefault("sleep", sleeps.append)
        kwargs.setdefault("rng", random.Random(0))
        kwargs.setdefault("timeout_s", 5.0)
        client = OpenAIClient(kwargs.pop("base_url", endpoint.base_url), "m-1", **kwargs)
        clients.append(client)
        return client

    yield make
    for client in clients:
        client.close()


@pytest.fixture
def messages() -> list[dict[str, str]]:
    return [dict(m) for m in MESSAGES]


@pytest.fixture
def endpoint_at() -> Iterator[Callable[[int], FakeEndpoint]]:
    """Starts a FakeEndpoint on a given port (for connection-refused-then-up tests)."""
    started: list[FakeEndpoint] = []

    def start(port: int) -> FakeEndpoint:
        started.append(FakeEndpoint(port))
        return started[-1]

    yield start
    for fake in started:
        fake.close()


@pytest.fixture(scope="session")
def real_model() -> Iterator[InferenceServer]:
    """The real model's server, two slots, shared by a worker's tests (each request is
    independent of the ones before: the server keeps no prompt cache)."""
    with real_server(ServerOptions(slots=2)) as server:
        yield server
