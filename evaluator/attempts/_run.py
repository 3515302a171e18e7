"""Run one attempt: a sandbox from the pinned digest, the agent, then the patch out of it."""

from __future__ import annotations

import shlex
import time
from dataclasses import dataclass, field
from typing import Any

from evaluator.agents import Agent
from evaluator.attempts._drive import drive_agent
from evaluator.attempts._provenance import provenance
from evaluator.errors import InfraError
from evaluator.hashing import canonical_json
from evaluator.lock import TaskPin
from evaluator.model import ModelClient
from evaluator.sandbox import DockerSandboxes, Sandbox, SandboxLimits
from evaluator.store import Store
from evaluator.taskset import Task

_PATCH_CAP = 10_000_000
# Bytecode and tool caches that running the tests leaves behind are not part of a fix.
_NOT_CACHES = " ".join(f"':(exclude,glob){p}'" for p in (
    "**/__pycache__/**", "**/*.pyc", "**/.pytest_cache/**", "**/.mypy_cache/**", "**/.ruff_cache/**"))
# Every knob that could make `git diff` run a program or rewrite its output is switched off.
_GIT = ("git -c core.hooksPath=/dev/null -c core.fsmonitor=false -c diff.external= "
        "-c core.attributesFile=/dev/null")


@dataclass
class Trajectory:
    """Steps saved to the store after every step: (n, action, observation ref, the agent's
    notes). Usage and cost are not taken from here: the harness's meter counts them."""

    store: Store
    key: str
    steps: list[dict[str, Any]] = field(default_factory=list)

    def record(self, action: str, observation: str, extra: dict[str, Any]) -> None:
        ref = self.store.put_blob(observation.encode())
        self.steps.append({"n": len(self.steps), "action": action, "observation": ref,
                           "t": round(time.time(), 3), **extra})
        self.store.write_derived(f"trajectories/{self.key}.json",
                                 canonical_json({"key": self.key, "steps": self.steps}))



def extract_patch(sb: Sandbox, workdir: str, base_commit: str) -> bytes:
    out = f"/tmp/.patch-{base_commit[:12]}"
    r = sb.exec(f"{_GIT} add -A -- . {_NOT_CACHES} && {_GIT} diff --cached --binary --no-ext-diff "
                f"--no-textconv --no-color {shlex.quote(base_commit)} > {out}",
                workdir=workdir, timeout_s=120)
    if r.exit_code != 0:
        return b""  # the agent broke the repository (say, removed .git): nothing to grade
    return sb.read_file(out, max_bytes=_PATCH_CAP)


def run_attempt(*, store: Store, sandboxes: DockerSandboxes, model: ModelClient, agent: Agent,
                task: Task, pin: TaskPin, limits: SandboxLimits, key: str, seed: int,
                sandbox_usd_per_hour: float = 0.0) -> dict[str, Any]:
    """Run the agent on the task and return the attempt record (not yet stored).

    InfraError (model endpoint, Docker) propagates: the caller records it as an error, never as
    an agent failure. So does any crash of the agent code, wrapped as InfraError. Usage, cost and
    the limits' exits are the harness's meter's (see `_meter`).
    """
    traj = Trajectory(store, key)
    started, t0 = time.time(), time.monotonic()
    with sandboxes.open(pin.image, limits, user=task.spec.user, workdir=task.spec.workdir,
                        purpose="attempt") as sb:
        r = sb.exec(f"git checkout -q --detach {shlex.quote(pin.base_commit)}",
                    workdir=task.spec.workdir)
        if r.exit_code != 0:
            raise InfraError(f"cannot check out {pin.base_commit} in {pin.image}: {r.output[-300:]}")
        outcome = drive_agent(agent, sb, model, problem_statement=task.problem_statement,
                              workdir=task.spec.workdir, seed=seed, record_step=traj.record)
        patch = extract_patch(sb, task.spec.workdir, pin.base_commit)
    sandbox_s = time.monotonic() - t0
    totals = outcome.meter.totals()
    model_usd = totals["model_usd"]  # None: unpriced, unknown rather than free
    sandbox_usd = sandbox_s / 3600 * sandbox_usd_per_hour
    return {
        "subject": agent.name, "patch": store.put_blob(patch), "patch_bytes": len(patch),
        "trajectory": store.put_blob(canonical_json({"key": key, "steps": traj.steps,
                                                     "model_calls": outcome.meter.calls})),
        "actions": [s["action"] for s in traj.steps], "steps": len(traj.steps),
        "exit_reason": outcome.exit_reason, "exit_detail": outcome.detail, "seed": seed,
        "usage": {k: totals[k] for k in ("model_calls", "prompt_tokens", "completion_tokens",
                                         "cached_tokens", "reasoning_tokens")},
        "cost": {"model_usd": model_usd, "model_price": totals["price"],
                 "sandbox_usd": round(sandbox_usd, 6),
                 "total_usd": round((model_usd or 0.0) + sandbox_usd, 6),
                 "sandbox_s": round(sandbox_s, 3)},
        "started": started, "finished": time.time(), "provenance": provenance(agent),
    }
