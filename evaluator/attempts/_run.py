"""Run one attempt: a sandbox from the pinned digest, the agent, then the patch out of it."""

from __future__ import annotations

import re
import shlex
import time
from dataclasses import dataclass, field
from typing import Any

from evaluator.agents import Agent
from evaluator.attempts._activate import activated
from evaluator.attempts._conversation import Conversation
from evaluator.attempts._drive import drive_agent
from evaluator.attempts._provenance import provenance
from evaluator.attempts._record import AttemptRun
from evaluator.errors import InfraError
from evaluator.hashing import canonical_json
from evaluator.lock import GIT, TaskPin, checkout_base
from evaluator.model import ModelClient, Price
from evaluator.sandbox import Sandbox, Sandboxes, SandboxLimits
from evaluator.store import Store
from evaluator.taskset import Task

_PATCH_CAP = 10_000_000
# Caches that running Python and the tests leaves behind are not part of a fix (they never
# reach a grade, which starts from the image). Everything else the agent left is, binary files,
# symlinks, modes and a stray `.pyc` outside `__pycache__` included: the grader's filter drops
# and flags what no reviewer can read, so it is seen rather than silently lost.
_NOT_CACHES = " ".join(f"':(exclude,glob){p}'" for p in (
    "**/__pycache__/**", "**/.pytest_cache/**", "**/.mypy_cache/**", "**/.ruff_cache/**"))
# The agent may have edited .git/config: nothing there may hide a mode, a symlink or rewrite
# the headers the grader reads.
_DIFF = ("-c core.fileMode=true -c core.symlinks=true -c core.autocrlf=false "
         "-c core.quotePath=true diff --cached --binary --full-index --no-ext-diff --no-textconv "
         "--no-color --no-renames --src-prefix=a/ --dst-prefix=b/")
_TREE = re.compile(r"^[0-9a-f]{40}$")


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



def start_tree(sb: Sandbox, workdir: str, base_commit: str) -> str:
    """Bring the workdir to the base commit and return the git tree of the tree as it then is.

    The patch is the difference from this tree, not from the commit: untracked files the image
    holds (an `*.egg-info` no .gitignore covers, a generated file) are the grader's starting
    point too, so they must not appear in the patch as additions.
    """
    r = sb.exec(f"{checkout_base(base_commit)} && {GIT} add -A -- . {_NOT_CACHES} && "
                f"{GIT} write-tree && {GIT} reset -q", workdir=workdir, timeout_s=300)
    tree = r.output.strip().splitlines()[-1] if r.output.strip() else ""
    if r.exit_code != 0 or not _TREE.match(tree):
        raise InfraError(f"cannot prepare {workdir} at {base_commit}: {r.output[-300:]}")
    return tree


def extract_patch(sb: Sandbox, workdir: str, tree: str) -> bytes:
    out = f"/tmp/.patch-{tree[:12]}"
    r = sb.exec(f"{GIT} -c core.fileMode=true add -A -- . {_NOT_CACHES} && "
                f"{GIT} {_DIFF} {shlex.quote(tree)} > {out}",
                workdir=workdir, timeout_s=120)
    if r.exit_code != 0:
        return b""  # the agent broke the repository (say, removed .git): nothing to grade
    return sb.read_file(out, max_bytes=_PATCH_CAP)


def _submitted(text: str) -> bytes:
    """The patch an agent submitted, as the grader applies it; one over the cap is nothing."""
    data = text.encode("utf-8", "surrogateescape")
    if len(data) > _PATCH_CAP:
        return b""
    return data if not data or data.endswith(b"\n") else data + b"\n"


def run_attempt(*, store: Store, sandboxes: Sandboxes, model: ModelClient, agent: Agent,
                task: Task, pin: TaskPin, limits: SandboxLimits, key: str, seed: int,
                sandbox_usd_per_hour: float = 0.0, price: Price | None = None) -> AttemptRun:
    """Run the agent on the task and return what the run produced (not yet stored).

    InfraError (model endpoint, Docker) propagates: the caller records it as an error, never as
    an agent failure. So does any crash of the agent code, wrapped as InfraError. Usage, cost and
    the limits' exits are the harness's meter's (see `_meter`).
    """
    traj = Trajectory(store, key)
    started, t0 = time.time(), time.monotonic()
    with sandboxes.open(pin.image, limits, user=task.spec.user, workdir=task.spec.workdir,
                        purpose="attempt", base_commit=pin.base_commit) as sb:
        tree = start_tree(sb, task.spec.workdir, pin.base_commit)
        env = activated(sb, task.spec.activate, task.spec.workdir)  # the tests' environment
        outcome = drive_agent(agent, env, model, problem_statement=task.problem_statement,
                              workdir=task.spec.workdir, seed=seed, record_step=traj.record,
                              conversation=Conversation(key, store), price=price)
        if outcome.submission is None:
            patch, source = extract_patch(sb, task.spec.workdir, tree), "tree"
        else:
            patch, source = _submitted(outcome.submission), "submission"
    sandbox_s = time.monotonic() - t0
    totals = outcome.meter.totals()
    model_usd = totals["model_usd"]  # None: unpriced, unknown rather than free
    sandbox_usd = sandbox_s / 3600 * sandbox_usd_per_hour
    return AttemptRun(
        subject=agent.name, patch=store.put_blob(patch), patch_bytes=len(patch),
        patch_source=source,
        trajectory=store.put_blob(canonical_json({"key": key, "steps": traj.steps,
                                                  "model_calls": outcome.meter.calls})),
        conversation=store.put_blob(outcome.conversation.to_json()),
        messages=len(outcome.conversation.thread),
        actions=[s["action"] for s in traj.steps], steps=len(traj.steps),
        exit_reason=outcome.exit_reason, exit_detail=outcome.detail, seed=seed,
        usage={k: totals[k] for k in ("model_calls", "prompt_tokens", "completion_tokens",
                                      "cached_tokens", "reasoning_tokens")},
        cost={"model_usd": model_usd, "model_price": totals["price"],
              "sandbox_usd": round(sandbox_usd, 6),
              "total_usd": round((model_usd or 0.0) + sandbox_usd, 6),
              "sandbox_s": round(sandbox_s, 3)},
        started=started, finished=time.time(), provenance=provenance(agent),
        backend=sandboxes.backend().to_record(),  # which backend ran it; in no key
    )
