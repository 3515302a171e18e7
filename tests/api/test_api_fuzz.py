"""Fuzz every operation from the served OpenAPI schema: no 5xx, responses as documented, and
input that breaks the schema gets a 4xx.

Runs are only queued here (no supervisor): the fuzzer would otherwise start a doit for each
valid body it makes up. Schemathesis's pytest plugin does not run under pytest 9 (its lazy
schemas read `node._nodeid`), so the cases are drawn with Hypothesis directly.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis.configuration import set_hypothesis_home_dir
from schemathesis import GenerationMode
from schemathesis.specs.openapi.checks import positive_data_acceptance

from tests.api.support import Api
from tests.reports._world import World

TOKEN = "fuzz-token"
EXAMPLES = 40


@pytest.fixture
def hypothesis_home(tmp_path: Path) -> Iterator[Path]:
    """Hypothesis's caches go to a temporary folder, not into the checkout."""
    set_hypothesis_home_dir(tmp_path / "hypothesis")
    yield tmp_path / "hypothesis"
    set_hypothesis_home_dir(None)


@pytest.mark.parametrize("mode", [GenerationMode.POSITIVE, GenerationMode.NEGATIVE])
def test_no_operation_fails_on_any_input(serve: Callable[..., Api], world: World,
                                         hypothesis_home: Path, mode: GenerationMode) -> None:
    world.outcomes("base", {"t1": "R", "t2": "F", "t3": "E"})
    world.outcomes("cand", {"t1": "R", "t2": "R", "t3": "R"})
    api = serve(token=TOKEN, supervise=False)
    schema = schemathesis.openapi.from_url(f"{api.url}/openapi.json")
    operations = [result.ok() for result in schema.get_all_operations()]
    assert {f"{op.method.upper()} {op.path}" for op in operations} == {
        "POST /v1/runs", "GET /v1/runs/{run_id}", "GET /v1/leaderboard", "GET /v1/compare",
        "GET /v1/agreement"}
    for op in operations:

        @given(case=op.as_strategy(generation_mode=mode))
        @settings(max_examples=EXAMPLES, deadline=None, database=None,
                  suppress_health_check=list(HealthCheck))
        def check(case: Any) -> None:
            # Names of task sets and agents that fit the schema but do not exist get 422 by
            # design, so schema-valid input may be refused.
            case.call_and_validate(headers={"Authorization": f"Bearer {TOKEN}"},
                                   excluded_checks=[positive_data_acceptance])

        check()
