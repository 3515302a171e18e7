"""How an agent's own process is walled off from the harness.

`namespace` (the default) starts it under bubblewrap (Debian's `bubblewrap` package): new mount,
network, pid, ipc and uts namespaces, all capabilities dropped, and a file system holding only
/usr, the Python interpreter and its installed distributions, the harness's `evaluator` package
(the AgentContext seam), the agent's own code (the top packages of its import closure) and its
folder, all read-only, with an empty /tmp. Task folders (gold patches, hidden tests), the lock, the
store, the Docker socket and the network do not exist there; no process of the harness is visible,
so neither is its environment.

`process` runs the agent in a plain child process: no API key or other harness variables in its
environment, but it can read what the harness's user can read (including /proc of the harness).
Use it only where bubblewrap cannot run, for code you trust.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

from evaluator.agents import Agent
from evaluator.errors import BadInputError

NAMESPACE, PROCESS = "namespace", "process"
_HARNESS_PACKAGE = Path(__file__).resolve().parents[1]
# The usr-merge links (/bin -> usr/bin); where a machine has real folders instead, they are bound.
_TOP = ("bin", "sbin", "lib", "lib32", "lib64", "libx32")
_ETC = ("/etc/ld.so.cache", "/etc/localtime", "/etc/passwd", "/etc/group", "/etc/nsswitch.conf")


def check_isolation(agent: Agent) -> None:
    """Refuse an agent whose isolation this machine cannot provide, saying how to fix it."""
    if agent.spec.isolation == NAMESPACE and shutil.which("bwrap") is None:
        raise BadInputError(
            f"agent {agent.name!r} runs isolated in namespaces, which needs bubblewrap: install "
            f"it (`apt-get install bubblewrap`), or set `isolation: process` in "
            f"{agent.dir / 'agent.yaml'} to run it in a plain child process that can read this "
            f"machine's files")


def code_roots(agent: Agent) -> list[Path]:
    """The top package folder (or top module file) of every own module of the agent."""
    roots = set()
    for name, file in agent.code.files.items():
        top = file.parent if file.name.startswith("__init__.") else file
        for _ in range(name.count(".")):
            top = top.parent
        roots.add(top)
    return sorted(roots)


def visible_paths(agent: Agent) -> list[Path]:
    paths = {Path(sys.base_prefix), Path(sys.prefix), _HARNESS_PACKAGE, agent.dir.resolve()}
    paths.update(code_roots(agent))
    # A path inside another visible one is visible already; binding it again is harmless but noisy.
    return sorted(p for p in paths if not any(q != p and p.is_relative_to(q) for q in paths))


def child_env(extra_paths: list[str]) -> dict[str, str]:
    """The agent's whole environment: nothing of the harness's (no API key, no EVAL_*)."""
    return {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": "/tmp", "LANG": "C.UTF-8",
            "PYTHONPATH": os.pathsep.join(extra_paths), "PYTHONDONTWRITEBYTECODE": "1",
            "PYTHONNOUSERSITE": "1", "PYTHONUNBUFFERED": "1"}


def command(agent: Agent, argv: list[str]) -> list[str]:
    """`argv` wrapped for the agent's isolation."""
    if agent.spec.isolation == PROCESS:
        return argv
    out = ["bwrap", "--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL",
           "--ro-bind", "/usr", "/usr", "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp",
           "--chdir", "/tmp"]
    for top in _TOP:
        path = f"/{top}"
        if os.path.islink(path):
            out += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            out += ["--ro-bind", path, path]
    for etc in _ETC:
        out += ["--ro-bind-try", etc, etc]
    for visible in visible_paths(agent):
        out += ["--ro-bind", str(visible), str(visible)]
    return [*out, "--", *argv]


__all__ = ["NAMESPACE", "PROCESS", "check_isolation", "child_env", "code_roots", "command",
           "visible_paths"]
