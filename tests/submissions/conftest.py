"""One world for the package's tests (a set gated and a submission graded by a scripted grader,
about 25 s here): built once per session, read by every test, which add submissions of their own
under other names."""

from __future__ import annotations

import pytest

from evaluator.submissions import PublishedRecord, Table
from tests.submissions.world import World, full_folder, make_world


@pytest.fixture(scope="session")
def world(tmp_path_factory: pytest.TempPathFactory) -> World:
    w = make_world(tmp_path_factory.mktemp("world"))
    w.gate()
    return w


@pytest.fixture(scope="session")
def full(world: World) -> PublishedRecord:
    return world.submit(full_folder(world))


@pytest.fixture(scope="session")
def table(world: World, full: PublishedRecord) -> Table:
    return world.table(full)
