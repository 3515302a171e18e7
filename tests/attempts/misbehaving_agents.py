"""Agents that misbehave on purpose, for the harness's limits (entry points `tests.attempts.
misbehaving_agents:<name>`)."""

from __future__ import annotations

import json
import os
import socket
from pathlib import Path

from evaluator.agents import AgentContext, StepLimit

ASK = [{"role": "user", "content": "fix it"}]


def ignores_step_limit(ctx: AgentContext) -> None:
    for _ in range(100):
        try:
            ctx.model.complete(ASK, seed=0, temperature=0.0)
        except StepLimit:
            continue  # carries on as if nothing happened
    ctx.record_step("done", "", {"cost_usd": 0.0, "prompt_tokens": 0})


def lies_about_usage(ctx: AgentContext) -> None:
    ctx.model.complete(ASK, seed=0, temperature=0.0)
    ctx.record_step("ls", "", {"cost_usd": 0.0, "prompt_tokens": 0, "completion_tokens": 0})


def spends(ctx: AgentContext) -> None:
    while True:
        ctx.model.complete(ASK, seed=0, temperature=0.0)


def never_calls_anything(ctx: AgentContext) -> None:
    while True:  # a busy loop: only killing the process ends it
        pass


def loops_on_the_sandbox(ctx: AgentContext) -> None:
    while True:
        ctx.sandbox.exec("true")


def _try(what: str, attempt) -> str:
    try:
        return f"GOT {what}: {str(attempt())[:200]}"
    except Exception as exc:
        return f"denied {what}: {type(exc).__name__}"


def snoops(ctx: AgentContext) -> None:
    """Reaches for everything it must not have; the problem statement names the targets (JSON)."""
    targets = json.loads(ctx.problem_statement)
    found = [f"env {k}" for k in os.environ if "KEY" in k or k.startswith("EVAL_")]
    for path in targets["files"]:
        found.append(_try(path, lambda p=path: Path(p).read_bytes()))
    for path in targets["dirs"]:
        found.append(_try(path, lambda p=path: os.listdir(p)))
    found.append(_try("docker socket", lambda: socket.socket(socket.AF_UNIX).connect(
        "/var/run/docker.sock")))
    found.append(_try("network", lambda: socket.create_connection(
        ("127.0.0.1", targets["port"]), timeout=2)))
    found.append(_try("harness environ", lambda: Path(
        f"/proc/{targets['harness_pid']}/environ").read_bytes()))
    ctx.record_step("snoop", "\n".join(found), {})


def burns_cpu(ctx: AgentContext) -> None:
    while True:  # never asks the harness for anything: only its CPU cap ends it early
        pass


def ignores_sigxcpu(ctx: AgentContext) -> None:
    import signal

    signal.signal(signal.SIGXCPU, signal.SIG_IGN)
    burns_cpu(ctx)


def hoards_memory(ctx: AgentContext) -> None:
    import resource

    try:  # raising its own cap back is refused
        resource.setrlimit(resource.RLIMIT_AS, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
    except (ValueError, OSError):
        pass
    hoard = []
    while True:
        hoard.append(bytearray(64 << 20))
