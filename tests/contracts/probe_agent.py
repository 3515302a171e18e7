"""Scaffolds for the `scaffold` contract's golden: what an agent's process receives and what its
calls through the harness return. Each reports by `ctx.record_step`, as any scaffold can."""

from __future__ import annotations

import json
import os
import resource
from typing import Any

from evaluator.agents import AgentContext, Submitted


def _process() -> dict[str, Any]:
    return {"env": sorted(os.environ), "uid": os.getuid(), "cwd_is_root": os.getcwd() == "/",
            "rlimit_as": resource.getrlimit(resource.RLIMIT_AS),
            "rlimit_cpu": resource.getrlimit(resource.RLIMIT_CPU),
            "rlimit_core": resource.getrlimit(resource.RLIMIT_CORE)}


def probe(ctx: AgentContext) -> None:
    """Everything it was given, one call of each kind, then a submission with a patch."""
    given = {"problem_statement": ctx.problem_statement, "workdir": ctx.workdir,
             "seed": ctx.seed, "temperature": ctx.temperature, "max_tokens": ctx.max_tokens,
             "limits": ctx.limits.model_dump() if hasattr(ctx.limits, "model_dump")
             else dict(ctx.limits), "prompts": ctx.prompts, "settings": ctx.settings,
             "process": _process()}
    ctx.record_step("given", json.dumps(given, sort_keys=True), {"kind": "given"})
    run = ctx.sandbox.exec("echo hi; exit 2")
    long = ctx.sandbox.exec("sleep 1", timeout_s=10_000)
    ctx.sandbox.put_files({"/testbed/x.txt": b"x"}, mode=0o600)
    read = ctx.sandbox.read_file("/testbed/x.txt")
    reply = ctx.model.complete([{"role": "user", "content": "hello"}], seed=ctx.seed,
                               temperature=ctx.temperature, max_tokens=ctx.max_tokens)
    calls = {"exec": [run.exit_code, run.output, run.timed_out, run.truncated],
             "exec_long": [long.exit_code, long.timed_out], "read": read.decode(),
             "reply": [reply.content, reply.cost_usd, vars(reply.usage), reply.simulated,
                       reply.priced, reply.finish_reason, reply.message]}
    ctx.record_step("calls", json.dumps(calls, sort_keys=True), {"kind": "calls", "n": 2})
    raise Submitted("probed", patch="diff --git a/x b/x\n")


def talks_forever(ctx: AgentContext) -> None:
    """Calls the model until the harness stops it."""
    while True:
        ctx.model.complete([{"role": "user", "content": "again"}], seed=ctx.seed,
                           temperature=0.0)


def execs_forever(ctx: AgentContext) -> None:
    """Runs commands until the harness stops it."""
    while True:
        ctx.sandbox.exec("true")


def returns(ctx: AgentContext) -> None:
    """Returns without submitting: the patch is the tree's."""
    ctx.sandbox.exec("echo edit > f")


def raises_value_error(ctx: AgentContext) -> None:
    raise ValueError("a bug in the scaffold")
