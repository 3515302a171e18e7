"""The `sandbox` contract: the fixed script of `sandbox_script` on the calc task image gives the
same transcript on every backend, and the transcript recorded for the contract's version."""

from __future__ import annotations

import pytest

from evaluator.sandbox import Sandboxes
from tests.contracts.golden import check
from tests.contracts.sandbox_script import transcript

pytestmark = pytest.mark.docker


def test_every_backend_observes_what_the_sandbox_contract_recorded(
        backend_sandboxes: Sandboxes, task_image: str) -> None:
    check("sandbox", "transcript", transcript(backend_sandboxes, task_image))
