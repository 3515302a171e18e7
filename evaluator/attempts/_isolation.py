"""How an agent's own process is walled off from the harness, and who chooses how far.

`namespace` starts it under bubblewrap (Debian's `bubblewrap` package): new mount, network,
pid, ipc and uts namespaces, all capabilities dropped, and a file system holding only /usr, the
Python interpreter and its installed distributions, the harness's `evaluator` package (the
AgentContext seam), the agent's own code (the top packages of its import closure) and its
folder, all read-only, with an empty /tmp. Task folders (gold patches, hidden tests), the lock,
the store, the Docker socket and the network do not exist there; no process of the harness is
visible, so neither is its environment.

`process` runs the agent in a plain child process that can read this machine's files (task
folders and the store included): only for code you trust, where bubblewrap cannot run. It still
holds no credential of the harness's process: its environment is built from nothing; a harness
running as root starts it as `nobody` keeping only CAP_DAC_READ_SEARCH (a root child could read
every process's memory and drive the Docker socket; as `nobody` it reads files and nothing of
another process); and every harness process makes itself non-dumpable, so a child of the same
non-root user cannot read its /proc environ or memory either. Files stay readable, so a
credential kept in a file the harness's user can read (~/.aws) is not protected in this mode.

The operator chooses: the eval config (`isolation:` in evals/<set>.yaml, or an API run) sets the
least isolation allowed, by default the strongest this machine supports; an agent's own
agent.yaml may ask for more, never less.
"""

from __future__ import annotations

import ctypes
import functools
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from evaluator.agents import Agent
from evaluator.errors import BadInputError, InfraError

NAMESPACE, PROCESS = "namespace", "process"
_STRENGTH = {PROCESS: 0, NAMESPACE: 1}
# The user a root harness runs process-mode agents as (Debian's `nobody`).
UNPRIVILEGED = 65534
_HARNESS_PACKAGE = Path(__file__).resolve().parents[1]
# The usr-merge links (/bin -> usr/bin); where a machine has real folders instead, they are bound.
_TOP = ("bin", "sbin", "lib", "lib32", "lib64", "libx32")
_ETC = ("/etc/ld.so.cache", "/etc/localtime", "/etc/passwd", "/etc/group", "/etc/nsswitch.conf")


@functools.cache
def _namespace_failure() -> str | None:
    """Why bubblewrap cannot make its namespaces here (None: it can), asked up to three times:
    one refusal on a loaded machine must not weaken every agent of a run (and flip its keys)."""
    if shutil.which("bwrap") is None:
        return "bubblewrap (bwrap) is not installed"
    why = ""
    for attempt in range(3):
        if attempt:
            time.sleep(0.5 * attempt)
        try:
            r = subprocess.run(["bwrap", "--unshare-all", "--die-with-parent", "--ro-bind", "/",
                                "/", "true"], capture_output=True, text=True, timeout=30)
        except (OSError, subprocess.SubprocessError) as e:
            why = str(e)
            continue
        if r.returncode == 0:
            return None
        why = r.stderr.strip()[-300:] or f"exit status {r.returncode}"
    return f"bubblewrap is installed but cannot make its namespaces here: {why}"


def namespaces_work() -> bool:
    """bubblewrap is installed and can make its namespaces here (a container may forbid it)."""
    return _namespace_failure() is None


def strongest() -> str:
    """The strongest isolation this machine supports: the default least isolation. A machine
    without bubblewrap has `process`; one whose bubblewrap fails is an error, never a quietly
    weaker default (which would also change every attempt key of the run)."""
    why = _namespace_failure()
    if why is None:
        return NAMESPACE
    if shutil.which("bwrap") is None:
        return PROCESS
    raise InfraError(f"{why}; fix that, or run agents without namespaces by setting "
                     "`isolation: process` in the eval config (or EVAL_ISOLATION=process)")


def effective_isolation(agent: Agent, floor: str, where: str) -> str:
    """The isolation `agent` runs under: the stronger of the operator's floor and the agent's
    own ask; an ask below the floor is refused, naming the file and field (`where` says who set
    the floor)."""
    ask = agent.spec.isolation
    if ask is None:
        return floor
    if _STRENGTH[ask] < _STRENGTH[floor]:
        raise BadInputError(
            f"{agent.dir / 'agent.yaml'}: field 'isolation': {ask!r} is weaker than the least "
            f"isolation this eval allows, {floor!r} ({where}); remove the field or set it to "
            f"{floor!r}, or, for code you trust, lower the least isolation there")
    return ask


def check_isolation(agent: Agent) -> None:
    """Refuse an agent whose isolation this machine cannot provide, saying how to fix it."""
    mode = agent.spec.isolation or NAMESPACE
    if mode == NAMESPACE and not namespaces_work():
        raise BadInputError(
            f"agent {agent.name!r} runs isolated in namespaces, which needs a working bubblewrap "
            f"(`apt-get install bubblewrap`; inside a container, user namespaces must be allowed)"
            f"; where that cannot be, set `isolation: process` in the eval config "
            f"(evals/<set>.yaml) to run agents in plain child processes that can read this "
            f"machine's files")
    if mode == PROCESS and os.geteuid() == 0 and shutil.which("setpriv") is None:
        raise BadInputError(
            f"agent {agent.name!r} runs under `isolation: process` with a root harness, which "
            f"starts it as an unprivileged user with util-linux's `setpriv` (not found): install "
            f"util-linux, or use `isolation: namespace`")


def protect_harness() -> None:
    """Make this process non-dumpable: a process of the same (non-root) user can then read
    neither its /proc environ nor its memory, where the model's API key is. Forks inherit it."""
    if sys.platform != "linux":
        return
    try:
        ctypes.CDLL(None, use_errno=True).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE, 0
    except (OSError, AttributeError):
        pass


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


def child_user(agent: Agent) -> int | None:
    """The uid the agent's process runs as: an unprivileged one for a process-mode agent of a
    root harness, else the harness's own (None)."""
    if (agent.spec.isolation or NAMESPACE) == PROCESS and os.geteuid() == 0:
        return UNPRIVILEGED
    return None


def command(agent: Agent, argv: list[str]) -> list[str]:
    """`argv` wrapped for the agent's isolation."""
    if (agent.spec.isolation or NAMESPACE) == PROCESS:
        if child_user(agent) is None:
            return argv
        # As root it could read any process's memory and environ and drive the Docker socket.
        # As `nobody` with only CAP_DAC_READ_SEARCH it reads files as process mode promises
        # (the interpreter may live under /root) but no other process, and writes nothing of
        # root's; no-new-privs keeps it there.
        uid = str(UNPRIVILEGED)
        return ["setpriv", "--reuid", uid, "--regid", uid, "--clear-groups",
                "--inh-caps=-all,+dac_read_search", "--ambient-caps=-all,+dac_read_search",
                "--bounding-set=-all,+dac_read_search", "--no-new-privs", "--", *argv]
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


__all__ = ["NAMESPACE", "PROCESS", "UNPRIVILEGED", "check_isolation", "child_env", "child_user",
           "code_roots", "command", "effective_isolation", "namespaces_work", "protect_harness",
           "strongest", "visible_paths"]
