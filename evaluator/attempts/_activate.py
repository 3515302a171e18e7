"""An agent's commands in the environment the task's tests run in.

A task's `activate` (SWE-bench's `source /opt/miniconda3/bin/activate; conda activate testbed`,
or any shell lines) runs before the test command at grading. For the agent it runs once, at the
start of the attempt, and the variables it leaves are given to every command the agent runs:
the same `PATH`, `CONDA_PREFIX`, `PYTHONPATH`... as the tests get, without paying the
activation (a second of conda's Python) on every command.
"""

from __future__ import annotations

import secrets
from types import TracebackType
from typing import Self

from evaluator.errors import BadInputError
from evaluator.sandbox import ExecResult, Sandbox

# Set per command by the shell itself; carrying them over would only mislead.
_SHELL_OWN = {"PWD", "OLDPWD", "SHLVL", "_"}


def activated_env(sb: Sandbox, activate: str, workdir: str) -> dict[str, str]:
    """The variables `activate` leaves, run once in `workdir`; {} when there is none."""
    if not activate.strip():
        return {}
    mark = f"@@evaluator-env-{secrets.token_hex(8)}"
    log = f"/tmp/.activate-{mark[-16:]}.log"
    r = sb.exec(f"{{ {activate}\n}} > {log} 2>&1 < /dev/null || {{ rc=$?; cat {log}; exit $rc; }}; "
                f"printf '%s' '{mark}'; env -0", workdir=workdir, timeout_s=300)
    head, found, env = r.output.partition(mark)
    if r.exit_code != 0 or not found or r.truncated:
        raise BadInputError(f"the task's `activate` ({activate!r}) failed in its image (exit "
                            f"{r.exit_code}): {head.strip()[-1000:]}; fix `activate` in task.yaml")
    out = {}
    for item in env.split("\0"):
        name, eq, value = item.partition("=")
        if eq and name and name not in _SHELL_OWN:
            out[name] = value
    return out


class ActivatedSandbox:
    """`inner`, whose every command gets `env` (a command's own variables win)."""

    def __init__(self, inner: Sandbox, env: dict[str, str]) -> None:
        self._inner, self._env = inner, env

    def exec(self, cmd: str, *, timeout_s: float | None = None, workdir: str | None = None,
             env: dict[str, str] | None = None, user: str | None = None) -> ExecResult:
        return self._inner.exec(cmd, timeout_s=timeout_s, workdir=workdir,
                                env={**self._env, **(env or {})}, user=user)

    def put_files(self, files: dict[str, bytes], *, mode: int = 0o644) -> None:
        self._inner.put_files(files, mode=mode)

    def read_file(self, path: str, max_bytes: int = 10_000_000) -> bytes:
        return self._inner.read_file(path, max_bytes=max_bytes)

    def close(self) -> None:
        self._inner.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()


def activated(sb: Sandbox, activate: str, workdir: str) -> Sandbox:
    """The sandbox as the agent gets it: in the task's environment, when it names one."""
    env = activated_env(sb, activate, workdir)
    return ActivatedSandbox(sb, env) if env else sb
