"""Request and response bodies; their JSON schemas are the OpenAPI schema's."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictInt

from evaluator.api._runplan import AGENT_VERSION_PATTERN, NAME_PATTERN

RunState = Literal["queued", "running", "succeeded", "failed"]


class RunRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    agent_version: str = Field(
        max_length=140, pattern=AGENT_VERSION_PATTERN,
        description="an agent under agents/, optionally pinned to its current version as "
                    "`name@identity` (refused when the agent's code, config or prompts changed)",
        examples=["reference-strong", "reference-strong@0123456789abcdef0123456789abcdef"])
    task_set: str = Field(max_length=100, pattern=f"^{NAME_PATTERN}$",
                          description="a task set under tasks/ with an eval config in evals/",
                          examples=["demo"])
    samples: StrictInt | None = Field(
        None, ge=1, le=100, description="attempts per task; default: the eval config's samples")
    isolation: Literal["namespace", "process"] | None = Field(
        None, description="the least isolation the agent's own process may run under (its "
        "agent.yaml may ask for more, never less); default: the eval config's `isolation`, else "
        "the strongest the server's machine supports")


class RunAccepted(BaseModel):
    id: str = Field(description="follow it at /v1/runs/{id}")
    status: RunState
    reused: bool = Field(description="true when an identical run was already queued or running "
                                     "and this is that run")


class RunCounts(BaseModel):
    planned: int = Field(description="attempts of this run: valid tasks x samples")
    done: int = Field(description="graded: resolved + failed + policy")
    running: int = Field(description="started by the current worker and not ended yet")
    pending: int = Field(description="not started, or waiting to be graded")
    errors: int = Field(description="ended by infra errors (retried by the next run of it), "
                                    "quarantined ones included")
    quarantined: int = Field(description="errors over the retry budget; not retried")
    resolved: int
    failed: int
    policy: int = Field(description="resolved the task by breaking a rule; counted as failed")


class Worker(BaseModel):
    pid: int | None = Field(description="the current or last worker process")
    starts: int = Field(description="how often a worker started this run (resumes add one)")


class RunView(BaseModel):
    id: str
    status: RunState
    cause: str | None = Field(description="why the run failed, and what to do")
    note: str | None = Field(description="what happened on the way (a resume, a no-op run)")
    task_set: str
    agent: str
    agent_version: str = Field(description="name@identity that this run evaluates")
    samples: int
    isolation: str | None = Field(None, description="the run's least isolation, when it set one")
    created_at: str = Field(description="ISO 8601, UTC")
    started_at: str | None
    finished_at: str | None
    queue_age_s: float = Field(description="seconds from creation to the first start (to now "
                                           "while queued)")
    attempt_queue_age_s: float | None = Field(
        None, description="while the run runs: seconds the oldest of its waiting attempts has "
                          "waited (for doit to start it, then for a sandbox slot or a cluster "
                          "node); null otherwise")
    counts: RunCounts | None = Field(description="from the store; null if they could not be "
                                                 "computed (see counts_error)")
    cost_usd: float | None = Field(description="dollars of this run's attempts so far; null "
                                   "when unknown (see cost_unpriced)")
    cost_unpriced: bool = Field(False, description="true when a model of this run is unpriced "
                                "(agent.yaml `model.price: unpriced`): its dollars are unknown, "
                                "so cost_usd is null rather than $0")
    counts_error: str | None = None
    worker: Worker


class Leaderboard(BaseModel):
    task_set: str
    rows: list[dict[str, Any]] = Field(description="the report's leaderboard rows (valid tasks "
                                                   "only), best first")


class ErrorBody(BaseModel):
    detail: str = Field(description="what is wrong and what to do about it")
    errors: list[dict[str, Any]] | None = Field(None, description="each invalid field (422)")
