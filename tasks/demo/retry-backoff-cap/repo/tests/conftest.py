import random

import pytest

from retrykit import FakeClock, Response, TransportError


class ScriptedTransport:
    """Returns (or raises) the scripted outcomes in order and records requests."""

    def __init__(self, outcomes):
        self.outcomes = list(outcomes)
        self.requests = []

    def send(self, request):
        self.requests.append(request)
        outcome = self.outcomes.pop(0) if len(self.outcomes) > 1 else self.outcomes[0]
        if isinstance(outcome, BaseException):
            raise outcome
        if isinstance(outcome, int):
            return Response(outcome)
        return outcome


@pytest.fixture
def clock():
    return FakeClock()


@pytest.fixture
def rng():
    return random.Random(1234)


@pytest.fixture
def transport():
    return ScriptedTransport


@pytest.fixture
def conn_reset():
    return TransportError("connection reset by peer")
