"""The fixed script of agent actions whose observations pin the `sandbox` contract: what a command
sees (user, environment, file system, repository) and what comes back (streams, exit codes, the
output cap's cut, timeouts, the sandbox's deadline), run on a fixed image on every backend.

Only what varies by nature is left out of a transcript: durations, the container's own name
where a command would print it (HOSTNAME), and the shell's "Killed" notice after a timeout
(whether the shell prints it before the kill reaches the shell too is a race of the kernel's).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from evaluator.errors import EvalError
from evaluator.sandbox import ExecResult, Sandbox, Sandboxes, SandboxLimits

# Small caps, so that what is cut and when is seen in a short transcript.
LIMITS = SandboxLimits(memory_mb=256, pids=64, disk_mb=64, exec_timeout_s=20,
                       sandbox_timeout_s=600, output_limit_bytes=600)


def _result(r: ExecResult) -> dict[str, Any]:
    return {"exit_code": r.exit_code, "output": r.output, "timed_out": r.timed_out,
            "truncated": r.truncated}


@dataclass(frozen=True)
class Step:
    name: str
    run: Callable[[Sandbox], Any]


def ex(name: str, cmd: str, **kw: Any) -> Step:
    return Step(name, lambda sb: _result(sb.exec(cmd, **kw)))


def timeout(name: str, cmd: str, seconds: float) -> Step:
    def run(sb: Sandbox) -> Any:
        out = _result(sb.exec(cmd, timeout_s=seconds))
        out["output"] = _unkilled(out["output"])
        return out

    return Step(name, run)


def _unkilled(output: str) -> str:
    return output[: -len("Killed\n")] if output.endswith("Killed\n") else output


def _put_then_look(sb: Sandbox) -> Any:
    sb.put_files({"/testbed/notes/todo.txt": b"first line\nsecond line\n"})
    sb.put_files({"/testbed/bin/tool.sh": b"#!/bin/sh\necho tool ran\n"}, mode=0o755)
    return _result(sb.exec("stat -c '%a %U:%G %s %n' notes/todo.txt bin/tool.sh; "
                           "./bin/tool.sh; cat notes/todo.txt"))


def _read(sb: Sandbox) -> Any:
    out: dict[str, Any] = {"ops": sb.read_file("/testbed/calc/ops.py").decode(),
                           "head": sb.read_file("/testbed/calc/ops.py", max_bytes=7).decode()}
    try:
        sb.read_file("/testbed/no/such/file")
    except FileNotFoundError:
        out["missing"] = "FileNotFoundError"
    return out


STEPS: tuple[Step, ...] = (
    ex("streams", "echo out; echo err >&2; echo out2; printf 'no newline'"),
    ex("exit-code", "echo before; exit 3"),
    ex("exit-code-wraps", "exit 300"),
    ex("killed-by-signal", "echo going; kill -9 $$"),
    ex("user", "id -u; id -g; pwd; umask; echo \"home=$HOME shell=${SHELL-unset}\""),
    ex("environment", "env | cut -d= -f1 | grep -vx HOSTNAME | sort; echo PATH=$PATH; "
       "echo LANG=${LANG-unset} LC_ALL=${LC_ALL-unset} TERM=${TERM-unset}"),
    ex("env-and-workdir", 'echo "$GREETING from $(pwd)"', env={"GREETING": "hi"},
       workdir="/tmp"),
    ex("stdin-is-empty", 'read line; echo "read status $? line=[$line]"'),
    timeout("timeout", "echo started; sleep 30; echo never", 2),
    timeout("timeout-kills-children", "echo started; sleep 60 & sleep 60; echo never", 2),
    # The timed-out command's own `sleep 60`, by its command line: a backend's own processes
    # (daemonless's PID 1 waits on a `sleep 86400`; docker's runs `cat`) are no leftover.
    ex("nothing-outlives-a-command",
       "for f in /proc/[0-9]*/cmdline; do tr '\\0' ' ' < \"$f\"; echo; done 2>/dev/null "
       "| grep -c '^sleep 60 $' || true"),
    ex("output-cut", "seq 1 400"),
    ex("stderr-cut", "seq 1 400 >&2"),
    ex("output-cut-interleaved", "for i in $(seq 1 60); do echo out$i; echo err$i >&2; done"),
    ex("not-utf8", "printf 'a\\377b\\n'"),
    Step("put-files", _put_then_look),
    Step("read-file", _read),
    ex("repository", "git status --porcelain; git log --format=%s | head -3; ls -A"),
    ex("root-is-read-only", "touch /usr/x 2>/dev/null; echo usr=$?; touch /tmp/x && echo tmp-ok; "
       "touch /testbed/x && echo workdir-ok; rm -f /tmp/x /testbed/x"),
    ex("capabilities", "grep -E '^(CapEff|CapBnd|NoNewPrivs)' /proc/self/status"),
    ex("no-network", "python3 -c \"import socket; s = socket.socket(); s.settimeout(3); "
       "s.connect(('192.0.2.1', 80))\" 2>&1 | tail -1; "
       "grep -c : /proc/net/dev"),
    ex("file-size-cap", "head -c 70000000 /dev/zero > big 2>/dev/null; echo status=$?; "
       "rm -f big"),
)


def transcript(sandboxes: Sandboxes, image: str) -> dict[str, Any]:
    """Every step's observation on one sandbox of `image`, and the sandbox deadline's on another."""
    out: dict[str, Any] = {}
    with sandboxes.open(image, LIMITS, purpose="test") as sb:
        for step in STEPS:
            out[step.name] = step.run(sb)
    deadline = SandboxLimits(memory_mb=256, exec_timeout_s=30, sandbox_timeout_s=6,
                             output_limit_bytes=600)
    with sandboxes.open(image, deadline, purpose="test") as sb:
        out["sandbox-deadline"] = _result(sb.exec("echo started; sleep 30", timeout_s=30))
        out["sandbox-deadline"]["output"] = _unkilled(out["sandbox-deadline"]["output"])
        try:
            sb.exec("echo too late")
            out["after-deadline"] = "ran"
        except EvalError as exc:
            out["after-deadline"] = type(exc).__name__
    return out
