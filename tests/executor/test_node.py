"""A node agent on a real engine: an infra error while its engine is gone is the node's loss."""

import pytest

from evaluator.errors import InfraError
from evaluator.executor import WorkLost
from evaluator.executor._node import NodeAgent
from tests.engines import start_engine
from tests.helpers import unavailable

pytestmark = pytest.mark.docker


def test_an_engine_that_stops_under_work_makes_it_lost(monkeypatch: pytest.MonkeyPatch) -> None:
    try:
        engine = start_engine()
    except (RuntimeError, OSError) as e:
        unavailable(f"cannot start a Docker engine: {e}")
    monkeypatch.setenv("DOCKER_HOST", engine.host)
    node = NodeAgent(capacity=1)
    try:
        with pytest.raises(InfraError) as alive, node._engine_watch():
            assert node.pool.alive()
            raise InfraError("a sandbox failed")
        assert not isinstance(alive.value, WorkLost)  # the engine answers: the work's error
    finally:
        engine.stop()
    with pytest.raises(WorkLost, match="stopped"), node._engine_watch():
        raise InfraError("lost the Docker engine")
