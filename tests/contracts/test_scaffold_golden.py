"""The `scaffold` contract: what a scaffold's process receives (the AgentContext, its environment
and rlimits) and what its calls return through the harness (a sandbox and a scripted model that
record what reached them), and how attempts end (a submission, the step and cost limits, a
return, a crash), under each isolation, as recorded for its version."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from evaluator.attempts import drive_agent
from evaluator.errors import EvalError
from evaluator.model import ScriptedModel, Usage
from evaluator.sandbox import ExecResult
from tests.attempts.support import agent
from tests.contracts.golden import check
from tests.helpers import unavailable

PROBE = "tests.contracts.probe_agent"
_CLOCKS = {"latency_s", "queue_s", "timings"}  # how long a call took or waited: the clock's


class RecordingSandbox:
    """Answers every exec with a canned result and keeps what reached it."""

    def __init__(self) -> None:
        self.calls: list[Any] = []
        self.files: dict[str, bytes] = {}

    def exec(self, cmd: str, *, timeout_s: float | None = None, workdir: str | None = None,
             env: dict[str, str] | None = None, user: str | None = None) -> ExecResult:
        # A timeout cut to what is left of the attempt's wall clock varies with the clock.
        given = timeout_s if timeout_s is None or float(timeout_s).is_integer() else "clock left"
        self.calls.append(["exec", cmd, given, workdir, env, user])
        return ExecResult(2 if "exit 2" in cmd else 0, "hi\n" if "echo hi" in cmd else "",
                          False, False, 0.5)

    def put_files(self, files: dict[str, bytes], *, mode: int = 0o644) -> None:
        self.calls.append(["put_files", {p: d.decode() for p, d in files.items()}, oct(mode)])
        self.files.update(files)

    def read_file(self, path: str, max_bytes: int = 10_000_000) -> bytes:
        self.calls.append(["read_file", path, max_bytes])
        return self.files[path][:max_bytes]


def _drive(tmp_path: Path, entry: str, isolation: str, **limits: Any) -> dict[str, Any]:
    a = agent(tmp_path / entry, f"{PROBE}:{entry}", isolation=isolation, **limits)
    sandbox, steps = RecordingSandbox(), []
    model = ScriptedModel(["Let me look.\n```bash\nls\n```"], usage=Usage(100, 20),
                          cost_usd=0.2, model="m")
    try:
        out = drive_agent(a, sandbox, model, problem_statement="Fix the bug.", workdir="/testbed",
                          seed=7, record_step=lambda *s: steps.append(list(s)))
    except EvalError as exc:  # its first line: a traceback follows, with this machine's paths
        return {"error": type(exc).__name__, "message": str(exc).splitlines()[0],
                "sandbox": sandbox.calls[:5], "steps": steps}
    m = out.meter
    if out.exit_reason == "wall_clock_limit":  # how far it got in the time is the clock's
        return {"exit_reason": out.exit_reason, "detail": out.detail}
    return {"exit_reason": out.exit_reason, "detail": out.detail, "submission": out.submission,
            "meter": {"calls": [{k: v for k, v in c.items() if k not in _CLOCKS}
                                for c in m.calls], "totals": m.totals(), "cost_usd": m.cost_usd},
            "sandbox": sandbox.calls[:5], "model": [c.messages for c in model.calls][:3],
            "steps": [_step(s) for s in steps]}


def _step(step: list[Any]) -> list[Any]:
    action, observation, extra = step
    if action == "given":  # who it runs as depends on who runs the harness: say which rule held
        given = json.loads(observation)
        uid = given["process"].pop("uid")
        given["process"]["runs_as"] = ("nobody, under a root harness" if os.geteuid() == 0 and
                                       uid == 65534 else "the harness's user" if
                                       uid == os.geteuid() else f"uid {uid}")
        return [action, given, extra]
    return [action, json.loads(observation) if observation.startswith("{") else observation,
            extra]


@pytest.mark.parametrize("isolation", ["process", "namespace"])
def test_a_scaffold_receives_what_the_scaffold_contract_recorded(tmp_path: Path,
                                                                 isolation: str) -> None:
    if isolation == "namespace" and shutil.which("bwrap") is None:
        unavailable("bubblewrap is not installed (apt-get install bubblewrap)")
    observed = {
        "probe": _drive(tmp_path, "probe", isolation, command_timeout_s=30, max_steps=5),
        "step-limit": _drive(tmp_path, "talks_forever", isolation, max_steps=3),
        "cost-limit": _drive(tmp_path, "talks_forever", isolation, max_cost_usd=0.5),
        "wall-clock-limit": _drive(tmp_path, "execs_forever", isolation, wall_clock_s=2),
        "returns": _drive(tmp_path, "returns", isolation),
        "crashes": _drive(tmp_path, "raises_value_error", isolation),
    }
    check("scaffold", isolation, observed)
