"""`python -m evaluator.agents._child IN_FD OUT_FD`: one attempt's agent code, in its own process.

The harness starts this with no API key in the environment and (by default) in its own mount,
network and pid namespaces where only the interpreter, the harness's `evaluator` package and the
agent's own code and folder exist. Its sandbox and model are proxies: every call is one message
to the harness, which runs it through its meter and answers (see `_wire`).
"""

from __future__ import annotations

import math
import os
import resource
import sys
import traceback
from collections.abc import Mapping, Sequence
from typing import IO, Any

from evaluator.agents._config import LimitSpec, resolve_entry_point
from evaluator.agents._protocol import AgentContext, AttemptEnd
from evaluator.agents._wire import (
    b64,
    completion_from_wire,
    error_from_wire,
    error_to_wire,
    exec_result_from_wire,
    receive,
    send,
    unb64,
)
from evaluator.model import Completion, Message, Tool
from evaluator.sandbox import ExecResult


class _Harness:
    """The request/answer half of the channel, as the agent's side sees it."""

    def __init__(self, inbox: IO[bytes], outbox: IO[bytes]) -> None:
        self._in, self._out = inbox, outbox

    def call(self, op: str, **args: Any) -> Any:
        send(self._out, {"op": op, **args})
        answer = receive(self._in)
        if answer is None:
            raise SystemExit(3)  # the harness went away: nothing left to do
        if "error" in answer:
            raise error_from_wire(answer["error"])
        return answer.get("ok")


class RemoteSandbox:
    def __init__(self, harness: _Harness) -> None:
        self._h = harness

    def exec(self, cmd: str, *, timeout_s: float | None = None, workdir: str | None = None,
             env: dict[str, str] | None = None, user: str | None = None) -> ExecResult:
        return exec_result_from_wire(self._h.call("exec", cmd=cmd, timeout_s=timeout_s,
                                                  workdir=workdir, env=env, user=user))

    def put_files(self, files: dict[str, bytes], *, mode: int = 0o644) -> None:
        self._h.call("put_files", files={p: b64(d) for p, d in files.items()}, mode=mode)

    def read_file(self, path: str, max_bytes: int = 10_000_000) -> bytes:
        return unb64(self._h.call("read_file", path=path, max_bytes=max_bytes))


class RemoteModel:
    def __init__(self, harness: _Harness) -> None:
        self._h = harness

    def complete(
        self,
        messages: Sequence[Message],
        *,
        seed: int,
        temperature: float,
        max_tokens: int | None = None,
        tools: Sequence[Tool] | None = None,
        tool_choice: str | Mapping[str, Any] | None = None,
        n: int = 1,
        stream: bool = False,
        extra: Mapping[str, Any] | None = None,
    ) -> Completion:
        return completion_from_wire(self._h.call(
            "complete", messages=[dict(m) for m in messages], seed=seed, temperature=temperature,
            max_tokens=max_tokens, tools=[dict(t) for t in tools] if tools else None,
            tool_choice=tool_choice if isinstance(tool_choice, str | None) else dict(tool_choice),
            n=n, stream=stream, extra=dict(extra) if extra else None))


def cap_resources(limits: LimitSpec) -> None:
    """The process's own CPU and memory caps, set before any agent code runs. Hard limits: the
    agent cannot raise them again (and under bubblewrap it holds no capability to)."""
    memory = limits.agent_memory_mb << 20
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    cpu = math.ceil(limits.agent_cpu_s or limits.wall_clock_s)
    # SIGXCPU at the soft limit; SIGKILL a second later for an agent that ignores it.
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))


def main(argv: list[str]) -> int:
    inbox, outbox = os.fdopen(int(argv[0]), "rb"), os.fdopen(int(argv[1]), "wb")
    harness = _Harness(inbox, outbox)
    start = receive(inbox)
    if start is None:
        return 2
    c = start["context"]
    limits = LimitSpec.model_validate(c["limits"])
    cap_resources(limits)
    ctx = AgentContext(
        sandbox=RemoteSandbox(harness), model=RemoteModel(harness),
        problem_statement=c["problem_statement"], workdir=c["workdir"], seed=c["seed"],
        temperature=c["temperature"], max_tokens=c["max_tokens"],
        limits=limits, prompts=c["prompts"],
        settings=c.get("settings") or {},
        record_step=lambda action, observation, extra: harness.call(
            "record_step", action=action, observation=observation, extra=extra))
    try:
        resolve_entry_point(start["entry_point"])(ctx)
    except AttemptEnd as end:
        send(outbox, {"op": "end", "error": error_to_wire(end)})
    except Exception as exc:  # the harness decides what a crash means
        send(outbox, {"op": "crash", "error": error_to_wire(exc),
                      "traceback": traceback.format_exc()[-4000:]})
    else:
        send(outbox, {"op": "end"})
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
