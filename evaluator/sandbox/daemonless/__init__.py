"""The daemonless backend: sandboxes with no container engine at all, for hosts (clusters, CI
runners) where no Docker daemon may run. Images are fetched by digest into a store of unpacked
layers (`ImageStore`); each exec of a sandbox is a fresh set of namespaces under bubblewrap over
the sandbox's own folders, in namespaces the harness makes and owns (`_keeper`), under Docker's
seccomp policy and the sandbox's cgroup or rlimits. See docs/daemonless.md."""

from __future__ import annotations

from evaluator.sandbox.daemonless._oci import ImageStore, StoredImage
from evaluator.sandbox.daemonless._sandboxes import DaemonlessSandboxes
from evaluator.sandbox.daemonless._userns import MARK as USERNS_MARK
from evaluator.sandbox.daemonless._userns import command as userns_command
from evaluator.sandbox.daemonless._userns import enter_user_namespace

__all__ = ["USERNS_MARK", "DaemonlessSandboxes", "ImageStore", "StoredImage",
           "enter_user_namespace", "userns_command"]
