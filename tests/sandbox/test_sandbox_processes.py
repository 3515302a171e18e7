"""No process outlives its exec, and no sandbox outlives its deadline or is taken from a live
owner in another PID namespace."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time

import pytest

from evaluator.images import BASE_TAG
from evaluator.sandbox import DockerSandboxes, SandboxLimits, managed_labels
from evaluator.sandbox.docker import _leftovers as leftovers
from tests.backends import child_env, exists, remove, running
from tests.daemonless import bring

pytestmark = pytest.mark.docker

_OPEN = (
    "import sys, time\n"
    "from evaluator.sandbox import SandboxLimits, open_backend\n"
    "sb = open_backend().open(sys.argv[1], SandboxLimits(sandbox_timeout_s=float(sys.argv[2])),"
    " user=sys.argv[3], purpose='test')\n"
    "sb.exec(sys.argv[4])\n"
    "if sys.argv[5:] == ['hang']:\n"
    "    sb._watchdog.cancel()  # a harness that holds the lease but never kills\n"
    "print(sb.container_id, flush=True)\n"
    "time.sleep(600)\n"
)
# What a hostile agent (root in its sandbox) might try so as to outlive its harness: hold PID 1's
# stdin (the lease), stop the keeper, leave a daemon behind.
_HOLD_ON = ("for f in /proc/[0-9]*/fd/0; do (exec 3<$f; sleep 600) & done; kill -STOP 1; "
            "setsid sleep 600 >/dev/null 2>&1 < /dev/null & echo tried")


def _commands(sb) -> str:
    return sb.exec("for p in /proc/[0-9]*; do tr '\\0' ' ' < $p/cmdline; echo; done").output


def test_setsid_daemon_does_not_survive_its_exec(backend_sandboxes: DockerSandboxes,
                                                 base_image: str) -> None:
    with backend_sandboxes.open(base_image, SandboxLimits(), purpose="test") as sb:
        sb.exec("setsid sh -c 'sleep 1; echo late > /tmp/late' >/dev/null 2>&1 < /dev/null &")
        assert "echo late" not in _commands(sb)
        time.sleep(2)
        assert sb.exec("cat /tmp/late").exit_code != 0


def test_root_sandbox_user_cannot_end_pid1(backend_sandboxes: DockerSandboxes,
                                           base_image: str) -> None:
    with backend_sandboxes.open(base_image, SandboxLimits(), user="root", purpose="test") as sb:
        sb.exec("kill -KILL -1; kill -KILL 1; setsid sleep 60 &")
        assert sb.exec("echo alive").output == "alive\n"


def _opened_by_child(sandboxes: DockerSandboxes, argv: list[str], timeout_s: float,
                     user: str = "1000:1000", command: str = "true",
                     *more: str) -> tuple[subprocess.Popen[str], str]:
    env = {**os.environ, "PYTHONPATH": os.getcwd(), **child_env(sandboxes)}
    if sandboxes.name == "daemonless":
        bring(sandboxes, BASE_TAG)  # (its store is the machine's: the child finds it there)
    child = subprocess.Popen([*argv, sys.executable, "-c", _OPEN, BASE_TAG, str(timeout_s), user,
                              command, *more], stdout=subprocess.PIPE, text=True, env=env)
    assert child.stdout is not None
    return child, child.stdout.readline().strip()


def _running_for(sandboxes: DockerSandboxes, sid: str, limit_s: float) -> float:
    """Seconds until nothing of the sandbox ran any more (`limit_s` if something still does)."""
    started = time.monotonic()
    while time.monotonic() - started < limit_s:
        if not running(sandboxes, sid):
            break
        time.sleep(0.2)
    return time.monotonic() - started


def test_orphan_ends_within_a_minute_whoever_notices(
        backend_sandboxes: DockerSandboxes, base_image: str,
        monkeypatch: pytest.MonkeyPatch) -> None:
    # Its harness in a PID namespace of its own: nobody here can judge its owner dead, so only
    # the sandbox itself can end; its deadline is ten minutes away.
    assert shutil.which("unshare"), "util-linux's unshare is needed"
    sandboxes = backend_sandboxes
    child, cid = _opened_by_child(sandboxes, ["unshare", "--pid", "--fork", "--mount-proc",
                                              "--kill-child"], 600, user="root", command=_HOLD_ON)
    assert cid, "the child harness opened no sandbox"
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    lived = _running_for(sandboxes, cid, 60)
    print(f"orphan stopped {lived:.2f}s after its harness was SIGKILLed")
    assert not running(sandboxes, cid)
    sandboxes.cleanup_leftovers()
    if sandboxes.name != "daemonless":  # stopped a moment ago: its owner may be reading it
        assert exists(sandboxes, cid)
        monkeypatch.setattr(leftovers, "STOPPED_GRACE_S", 0)
        time.sleep(1)
        sandboxes.cleanup_leftovers()
    if sandboxes.name == "daemonless":
        # Nothing runs between execs: its folder waits for its deadline (its owner, elsewhere,
        # may be alive), and holds nothing that runs.
        remove(sandboxes, cid)
    assert not exists(sandboxes, cid)  # an engine's stopped container: removed whoever owned it


def test_a_hung_harness_s_sandbox_still_ends_at_its_deadline(
        backend_sandboxes: DockerSandboxes, base_image: str) -> None:
    # The lease stays held and the harness never kills it: PID 1 exits by itself at 3 + 5 s.
    child, cid = _opened_by_child(backend_sandboxes, ["unshare", "--pid", "--fork",
                                                      "--mount-proc", "--kill-child"],
                                  3, "1000:1000", "true", "hang")
    try:
        assert _running_for(backend_sandboxes, cid, 60) < 60
        assert child.poll() is None  # its harness still alive
    finally:
        child.kill()
        child.wait()
        remove(backend_sandboxes, cid)


def test_live_owner_in_another_pid_namespace_keeps_its_sandbox(
    backend_sandboxes: DockerSandboxes, base_image: str
) -> None:
    sandboxes = backend_sandboxes
    assert shutil.which("unshare"), "util-linux's unshare is needed"
    child, cid = _opened_by_child(sandboxes, ["unshare", "--pid", "--fork", "--mount-proc"], 600)
    try:
        assert cid, "the child harness in its own PID namespace opened no sandbox"
        sandboxes.cleanup_leftovers()
        assert exists(sandboxes, cid)
        if sandboxes.name != "daemonless":  # (between execs nothing of a daemonless one runs)
            assert running(sandboxes, cid)
    finally:
        child.kill()
        child.wait()
        remove(sandboxes, cid)


def test_a_live_owner_s_stopped_container_is_left_to_it(sandboxes: DockerSandboxes,
                                                         base_image: str) -> None:
    # The race seen in CI: a lock's seal container had exited and its owner was reading its
    # logs when another worker's cleanup removed it.
    container = sandboxes.client.containers.run(
        base_image, ["true"], detach=True, network_mode="none",
        labels=managed_labels("seal", 600))
    try:
        container.wait(timeout=60)
        sandboxes.cleanup_leftovers()
        assert container.logs() == b""  # still there to be read
    finally:
        container.remove(force=True)
