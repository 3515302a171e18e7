"""The attempt record: what running one attempt produced (`AttemptRun`, which an executor hands
back from wherever it ran) and, once the pipeline stores it, what it was an attempt of."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict

from evaluator.store import Record


class AttemptRun(BaseModel):
    """One attempt as its sandbox work left it: blobs by hash, the limits' exit, usage, cost."""

    model_config = ConfigDict(extra="allow", frozen=True)

    subject: str  # the agent's name
    patch: str  # blob
    patch_bytes: int = 0
    patch_source: str = "tree"  # tree: the working tree's diff; submission: what the agent sent
    trajectory: str = ""  # blob
    conversation: str | None = None  # blob
    messages: int = 0
    actions: list[str] = []
    steps: int = 0
    exit_reason: str
    exit_detail: str = ""
    seed: int = 0
    usage: dict[str, Any] = {}
    cost: dict[str, Any]  # model_usd is None for an unpriced model: unknown, never free
    started: float = 0.0
    finished: float = 0.0
    provenance: dict[str, Any] = {}
    backend: dict[str, Any] = {}  # the sandbox backend that ran it (name, version); in no key


class AttemptRecord(Record, AttemptRun):
    """A stored attempt: its run, and the planned attempt it ran for."""

    KIND = "attempt"

    task_set: str
    task_id: str
    sample_idx: int
    status: str = "done"
    lock_version: str = ""
    simulated: bool = False
    isolation: str | None = None  # the isolation it ran under
    # name, identity, prompt_hash, model; `parts`: what the identity hashes, part by part, and
    # `distributions`: its environment's [name, version] (to say which moved)
    agent: dict[str, Any] = {}
    # What each part of its key was (`input_digest`): `doit plan` reads it back for a whole set
    # in one query to say why an attempt is stale ("sandbox observation v1 -> v2").
    inputs: dict[str, Any] = {}

    @classmethod
    def of(cls, run: AttemptRun, pa: Any, task_set: str, lock_version: str,
           inputs: dict[str, Any] | None = None) -> AttemptRecord:
        """The record of planned attempt `pa` (a PlannedAttempt) from its run; `inputs` its
        key's parts (`input_digest`)."""
        agent = pa.agent
        return cls(
            **run.model_dump(), task_set=task_set, task_id=pa.task.id, sample_idx=pa.sample_idx,
            lock_version=lock_version, simulated=agent.simulated, isolation=agent.spec.isolation,
            agent={"name": agent.name, "identity": agent.identity,
                   "prompt_hash": agent.prompt_hash, "model": agent.spec.model.id,
                   "parts": agent.identity_parts,
                   "distributions": agent.environment.get("distributions", [])},
            inputs=inputs or {})
