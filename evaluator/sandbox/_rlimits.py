"""Caps a sandbox's own commands set on themselves where no cgroup holds them: hard rlimits, set
by the shell each exec runs first, as the sandbox user, after its namespaces exist. None of its
processes can raise a hard limit (that takes CAP_SYS_RESOURCE in the host's user namespace).
"""

from __future__ import annotations

import math

from evaluator.sandbox._types import SandboxLimits


def rlimit_shell(limits: SandboxLimits, rlimits: bool = True) -> str:
    """Shell each exec runs before its command, as the sandbox user: hard limits it cannot raise
    (no capabilities), set after its user namespace exists: the file-size cap always, the
    process, memory and CPU caps with `rlimits` (the podman backend's rootless sandboxes too)."""
    blocks = (limits.disk_mb << 20) // 512  # POSIX counts `ulimit -f` in 512-byte blocks
    steps = [f"ulimit -f {blocks} || exit 125"]
    if rlimits:
        cpu_s = math.ceil(limits.cpus * limits.sandbox_timeout_s)
        steps += [f"{{ ulimit -p {limits.pids} 2>/dev/null || ulimit -u {limits.pids}; }} || "
                  "exit 125", f"ulimit -v {limits.memory_mb << 10} || exit 125",
                  f"ulimit -t {cpu_s} || exit 125"]
    return "; ".join(steps) + "; "
