"""A tool-calling scaffold, in its own namespaced process, against the simulated endpoint."""

from __future__ import annotations

import shutil

from evaluator.attempts import drive_agent
from evaluator.model import OpenAIClient
from evaluator.simulated import SUBMIT, trajectory_kind
from tests.attempts.support import FakeSandbox, agent
from tests.helpers import unavailable
from tests.simulated.support import PROBLEM

SOLVING_SEED = next(s for s in range(100) if trajectory_kind("sim-strong", s, "calc-add", 0.7)
                    == "solve")


def test_a_tool_calling_scaffold_plays_through_to_its_submission(tmp_path, endpoint) -> None:
    if shutil.which("bwrap") is None:
        unavailable("bubblewrap is not installed (apt-get install bubblewrap)")
    isolation = "namespace"
    scaffold = agent(tmp_path, "tests.attempts.toolcall_agent:run", price="free",
                     isolation=isolation)
    sandbox, steps = FakeSandbox(), []
    with OpenAIClient(endpoint.base_url, "sim-strong") as model:
        out = drive_agent(scaffold, sandbox, model, problem_statement=PROBLEM, workdir="/w",
                          seed=SOLVING_SEED, record_step=lambda a, o, e: steps.append(a))
    assert out.exit_reason == "submitted" and steps[-1] == SUBMIT
    assert len(out.meter.calls) == len(steps) and out.meter.calls[0]["finish_reason"] == "tool_calls"
    assert any(s.startswith("cat > /tmp/eval_fix.patch") for s in steps)
