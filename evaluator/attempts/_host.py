"""The harness's half of an agent's own process: start it, answer its requests through the meter,
and end it at the wall clock.

Every request runs here, in the harness: commands on the (metered) sandbox, completions on the
(metered) model, steps into the trajectory. The agent's process only ever holds what the answers
carry. Past the wall-clock limit (plus a grace for the last answer) its whole process group is
killed, whatever it was doing.
"""

from __future__ import annotations

import os
import selectors
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from evaluator.agents import Agent, AttemptEnd, CpuLimit, MemoryLimit, WallClockLimit, wire
from evaluator.attempts._isolation import (
    check_isolation,
    child_env,
    child_user,
    code_roots,
    command,
    protect_harness,
)
from evaluator.attempts._meter import Meter, MeteredModel, MeteredSandbox
from evaluator.errors import BadInputError, InfraError

_HARNESS_ROOT = Path(__file__).resolve().parents[2]
_LOG_TAIL = 4000


class AgentCrashError(InfraError):
    """The agent's code raised, or its process died, before ending the attempt."""


class _Session:
    """One child's requests, answered; `fatal` is the first harness-side failure, re-raised
    after the child is gone even if the agent caught it."""

    def __init__(self, sandbox: MeteredSandbox, model: MeteredModel,
                 record_step: Callable[[str, str, dict[str, Any]], None]) -> None:
        self.sandbox, self.model, self.record_step = sandbox, model, record_step
        self.fatal: BaseException | None = None

    def answer(self, request: dict[str, Any]) -> dict[str, Any]:
        try:
            return {"ok": self._run(request)}
        except (AttemptEnd, FileNotFoundError, ValueError, TypeError) as exc:
            return {"error": wire.error_to_wire(exc)}
        except (InfraError, BadInputError) as exc:
            self.fatal = self.fatal or exc
            return {"error": wire.error_to_wire(exc)}

    def _run(self, r: dict[str, Any]) -> Any:
        op = r.get("op")
        if op == "exec":
            return wire.exec_result_to_wire(self.sandbox.exec(
                str(r["cmd"]), timeout_s=r.get("timeout_s"), workdir=r.get("workdir"),
                env=r.get("env"), user=r.get("user")))
        if op == "put_files":
            self.sandbox.put_files({p: wire.unb64(d) for p, d in r["files"].items()},
                                   mode=int(r.get("mode", 0o644)))
            return None
        if op == "read_file":
            return wire.b64(self.sandbox.read_file(str(r["path"]), int(r["max_bytes"])))
        if op == "complete":
            return wire.completion_to_wire(self.model.complete(
                r["messages"], seed=int(r["seed"]), temperature=float(r["temperature"]),
                max_tokens=r.get("max_tokens"), tools=r.get("tools"),
                tool_choice=r.get("tool_choice"), n=int(r.get("n", 1)),
                stream=bool(r.get("stream")), extra=r.get("extra")))
        if op == "record_step":
            self.record_step(str(r["action"]), str(r["observation"]), dict(r.get("extra") or {}))
            return None
        raise ValueError(f"unknown request {op!r}")


def run_in_child(agent: Agent, sandbox: MeteredSandbox, model: MeteredModel, meter: Meter, *,
                 context: dict[str, Any], record_step: Callable[[str, str, dict[str, Any]], None],
                 grace_s: float) -> tuple[BaseException | None, str]:
    """Run the agent's entry point in its own process; (what it ended with, its output's tail).

    The first is None when it returned, the AttemptEnd it raised, or the exception it crashed on
    (harness-side failures first).
    """
    session = _Session(sandbox, model, record_step)
    to_child_r, to_child_w = os.pipe()
    from_child_r, from_child_w = os.pipe()
    paths = [str(_HARNESS_ROOT), *dict.fromkeys(str(r.parent) for r in code_roots(agent))]
    argv = [sys.executable, "-m", "evaluator.agents._child", str(to_child_r), str(from_child_w)]
    check_isolation(agent)  # whoever calls: never a weaker wall than the agent's mode says
    protect_harness()  # before the child exists: it must not read this process's environ
    uid = child_user(agent)
    with tempfile.TemporaryFile() as log, tempfile.TemporaryDirectory() as cwd:
        if uid is not None:
            os.chown(cwd, uid, uid)
        process = subprocess.Popen(command(agent, argv), env=child_env(paths), cwd=cwd,
                                   stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                   pass_fds=(to_child_r, from_child_w), start_new_session=True)
        os.close(to_child_r)
        os.close(from_child_w)
        with os.fdopen(to_child_w, "wb") as outbox, os.fdopen(from_child_r, "rb") as inbox:
            try:
                wire.send(outbox, {"entry_point": agent.spec.entry_point, "context": context})
                ended = _serve(session, inbox, outbox, meter, grace_s)
            except (BrokenPipeError, wire.ChannelError) as exc:
                ended = AgentCrashError(f"agent process channel failed: {exc}")
            finally:
                cpu_s = _stop(process)
        log.seek(0)
        tail = log.read().decode("utf-8", "replace")[-_LOG_TAIL:]
    if session.fatal is not None:
        return session.fatal, tail
    ended = _resource_end(ended, process.returncode, cpu_s, tail, agent, meter)
    if isinstance(ended, AgentCrashError) and tail.strip():
        ended = AgentCrashError(f"{ended}\nagent process output (tail):\n{tail[-1500:]}")
    return ended, tail


def _serve(session: _Session, inbox: IO[bytes], outbox: IO[bytes], meter: Meter,
           grace_s: float) -> BaseException | None:
    with selectors.DefaultSelector() as selector:
        selector.register(inbox, selectors.EVENT_READ)
        while True:
            if not selector.select(max(meter.remaining_s(), 0.0) + grace_s):
                return meter.end(WallClockLimit(
                    f"agent process still running at the {meter.limits.wall_clock_s:g}s "
                    "wall-clock limit; killed by the harness"))
            request = wire.receive(inbox)
            if request is None:
                return AgentCrashError("agent process exited without ending the attempt")
            if request.get("op") in ("end", "crash"):
                error = request.get("error")
                if error is None:
                    return None
                exc = wire.error_from_wire(error)
                if request["op"] == "crash":
                    return AgentCrashError(f"agent code crashed: {error.get('message')}\n"
                                      f"{str(request.get('traceback', ''))[-1500:]}")
                return exc
            wire.send(outbox, session.answer(request))


def _resource_end(ended: BaseException | None, returncode: int | None, cpu_s: float, tail: str,
                  agent: Agent, meter: Meter) -> BaseException | None:
    """A crash that is the process's CPU or memory cap (set in `_child`) is the agent's end,
    named, not an infrastructure failure."""
    if not isinstance(ended, AgentCrashError):
        return ended
    limits = agent.spec.limits
    cpu_limit = limits.agent_cpu_s or limits.wall_clock_s
    by_signal = returncode is not None and (returncode < 0 or returncode > 128)
    if returncode in (-signal.SIGXCPU, 128 + signal.SIGXCPU) or (by_signal and
                                                                 cpu_s >= cpu_limit):
        return meter.end(CpuLimit(f"the agent's process used {cpu_s:.1f} CPU seconds, its limit "
                                  f"is {cpu_limit:g} (limits.agent_cpu_s); killed"))
    if "MemoryError" in str(ended) or "MemoryError" in tail:
        return meter.end(MemoryLimit(f"the agent's process ran out of its "
                                     f"{limits.agent_memory_mb} MB (limits.agent_memory_mb)"))
    return ended


def _stop(process: subprocess.Popen[bytes]) -> float:
    """End the process and its group; the CPU seconds it and its reaped descendants used."""
    deadline, status, usage = time.monotonic() + 2, None, None
    while status is None and time.monotonic() < deadline:
        pid, st, ru = os.wait4(process.pid, os.WNOHANG)
        if pid:
            status, usage = st, ru
        else:
            time.sleep(0.01)
    try:
        os.killpg(process.pid, signal.SIGKILL)  # anything it started goes with it
    except ProcessLookupError:
        pass
    if status is None:
        _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    return usage.ru_utime + usage.ru_stime if usage is not None else 0.0


__all__ = ["AgentCrashError", "run_in_child"]
