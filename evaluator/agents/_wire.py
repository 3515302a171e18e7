"""The narrow channel between the harness and an agent's own process: one JSON object per line.

The agent asks (`op`: exec, put_files, read_file, complete, record_step) and the harness answers
`{"ok": value}` or `{"error": {...}}`; the agent ends with `end` (how it ended) or `crash`. Bytes
travel as base64. Errors keep their cause: a limit comes back as the same AttemptEnd the harness
raised, an infrastructure failure as InfraError, so agent code sees what it would see in-process.
"""

from __future__ import annotations

import base64
import json
from dataclasses import asdict
from typing import IO, Any

from evaluator.agents._protocol import (
    AttemptEnd,
    ContextLimit,
    CostLimit,
    CpuLimit,
    FormatErrors,
    MemoryLimit,
    StepLimit,
    Submitted,
    WallClockLimit,
)
from evaluator.errors import BadInputError, InfraError
from evaluator.model import Choice, Completion, ToolCall, Usage
from evaluator.sandbox import ExecResult

MAX_LINE = 64 << 20  # one message; a bigger one is a broken or hostile peer
ENDS: dict[str, type[AttemptEnd]] = {c.exit_reason: c for c in (
    AttemptEnd, Submitted, StepLimit, WallClockLimit, CostLimit, FormatErrors, CpuLimit,
    MemoryLimit, ContextLimit)}


class ChannelError(InfraError):
    """The other side sent something that is not a message, or went away."""


def send(stream: IO[bytes], message: dict[str, Any]) -> None:
    stream.write(json.dumps(message, separators=(",", ":")).encode() + b"\n")
    stream.flush()


def receive(stream: IO[bytes]) -> dict[str, Any] | None:
    """The next message, or None at end of stream."""
    line = stream.readline(MAX_LINE + 1)
    if not line:
        return None
    if len(line) > MAX_LINE or not line.endswith(b"\n"):
        raise ChannelError(f"a message over {MAX_LINE} bytes or cut short")
    try:
        message = json.loads(line)
    except ValueError:
        raise ChannelError(f"not a JSON message: {line[:100]!r}") from None
    if not isinstance(message, dict):
        raise ChannelError("a message must be a JSON object")
    return message


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def unb64(text: str) -> bytes:
    return base64.b64decode(text.encode("ascii"), validate=True)


def error_to_wire(exc: BaseException) -> dict[str, Any]:
    if isinstance(exc, AttemptEnd):
        out = {"kind": "end", "exit_reason": exc.exit_reason, "message": str(exc)}
        if isinstance(exc, Submitted) and exc.patch is not None:
            out["patch"] = exc.patch
        return out
    kind = ("infra" if isinstance(exc, InfraError) else "bad_input"
            if isinstance(exc, BadInputError) else "not_found"
            if isinstance(exc, FileNotFoundError) else "value")
    return {"kind": kind, "message": f"{type(exc).__name__}: {exc}"}


def error_from_wire(error: dict[str, Any]) -> Exception:
    message = str(error.get("message", ""))
    kind = error.get("kind")
    if kind == "end":
        patch = error.get("patch")
        if error.get("exit_reason") == Submitted.exit_reason and isinstance(patch, str):
            return Submitted(message, patch=patch)
        return ENDS.get(str(error.get("exit_reason")), AttemptEnd)(message)
    return {"infra": InfraError, "bad_input": BadInputError,
            "not_found": FileNotFoundError}.get(str(kind), ValueError)(message)


def exec_result_to_wire(result: ExecResult) -> dict[str, Any]:
    return asdict(result)


def exec_result_from_wire(data: dict[str, Any]) -> ExecResult:
    return ExecResult(**data)


def completion_to_wire(reply: Completion) -> dict[str, Any]:
    return {"usage": asdict(reply.usage), "cost_usd": reply.cost_usd, "model": reply.model,
            "simulated": reply.simulated, "latency_s": reply.latency_s, "priced": reply.priced,
            "choices": [{"index": c.index, "content": c.content, "finish_reason": c.finish_reason,
                         "refusal": c.refusal, "tool_calls": [asdict(t) for t in c.tool_calls]}
                        for c in reply.choices]}


def completion_from_wire(data: dict[str, Any]) -> Completion:
    choices = tuple(Choice(c["index"], c["content"], tuple(ToolCall(**t) for t in c["tool_calls"]),
                           c["finish_reason"], c["refusal"]) for c in data["choices"])
    return Completion(choices[0].content or "", Usage(**data["usage"]), data["cost_usd"],
                      data["model"], data["simulated"], data["latency_s"], data["priced"], choices)


__all__ = [
    "ENDS",
    "MAX_LINE",
    "ChannelError",
    "b64",
    "completion_from_wire",
    "completion_to_wire",
    "error_from_wire",
    "error_to_wire",
    "exec_result_from_wire",
    "exec_result_to_wire",
    "receive",
    "send",
    "unb64",
]
