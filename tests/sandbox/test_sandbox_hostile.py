"""A hostile agent or patch, on every backend: it finds no harness variable in any process it can
see, cannot reach PID 1, make a user namespace, call what Docker's default seccomp profile
refuses, touch the host's kernel settings, hold more memory than its cap (in processes or in
tmpfs), and what it wrote is no other host user's to read, even once its harness is killed; a
host process of its uid gains nothing over it (issue 33)."""

from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from evaluator.images import BASE_TAG
from evaluator.sandbox import DockerSandboxes, Sandboxes, SandboxLimits, managed_labels
from tests.backends import child_env, remove
from tests.daemonless import bring
from tests.sandbox import hostile

pytestmark = pytest.mark.docker

_OPEN_AND_WRITE = (
    "import sys, time\n"
    "from evaluator.sandbox import SandboxLimits, open_backend\n"
    "sb = open_backend().open(sys.argv[1], SandboxLimits(), purpose='test')\n"
    "secret = ('# ' + sys.argv[2] + '\\n').encode()\n"
    "sb.put_files({'/testbed/tests/test_hidden.py': secret, '/tmp/twin.py': secret})\n"
    "sb.exec('cp /tmp/twin.py $HOME/twin.py')\n"
    "print(sb.container_id, flush=True)\n"
    "time.sleep(600)\n"
)


@pytest.fixture
def nonce(monkeypatch: pytest.MonkeyPatch) -> str:
    """A model API key in the harness's environment, as a real run has one."""
    key = f"sk-test-{os.urandom(8).hex()}"
    monkeypatch.setenv("EVAL_TEST_MODEL_API_KEY", key)
    return key


def test_no_harness_variable_in_any_process_it_can_see(backend_sandboxes: Sandboxes,
                                                       base_image: str, nonce: str) -> None:
    with backend_sandboxes.open(base_image, SandboxLimits(), purpose="test") as sb:
        for user in (None, "root"):
            seen = hostile.run_python(sb, hostile.ENVIRON.replace("NONCE", nonce), user=user)
            assert "found [] self False" in seen, (user, seen)
            assert int(seen.split()[1]) > 0, seen  # it did read some (its own at least)


def test_pid_1_is_out_of_its_reach(backend_sandboxes: Sandboxes, base_image: str) -> None:
    with backend_sandboxes.open(base_image, SandboxLimits(), purpose="test") as sb:
        for user in (None, "root"):
            out = hostile.last_json(hostile.run_python(sb, hostile.PID1, user=user))
            assert out["uid_1"] != out["uid"], out  # PID 1 is not the sandbox user
            assert out["ptrace"] == errno.EPERM and out["vm_read"] == errno.EPERM, out
            assert out["mem"] in (errno.EACCES, errno.EPERM), out
            assert out["environ"] in (errno.EACCES, errno.EPERM), out
            assert out["kill"] == errno.EPERM, out
            assert sb.exec("echo alive").output == "alive\n"


def test_no_user_namespace_inside(backend_sandboxes: Sandboxes, base_image: str) -> None:
    with backend_sandboxes.open(base_image, SandboxLimits(), purpose="test") as sb:
        for user in (None, "root"):
            out = hostile.last_json(hostile.run_python(sb, hostile.USERNS, user=user))
            assert out == {"clone": errno.EPERM, "clone3": errno.ENOSYS, "tool": False,
                           "unshare": errno.EPERM}, out


def test_root_cannot_touch_the_host_s_kernel_settings(backend_sandboxes: Sandboxes,
                                                      base_image: str) -> None:
    with backend_sandboxes.open(base_image, SandboxLimits(), purpose="test") as sb:
        out = sb.exec(hostile.KERNEL, user="root").output
    assert "written" not in out and out.endswith("done\n"), out


_TABLES: dict[str, dict[str, int]] = {}


def _table(sandboxes: Sandboxes, image: str) -> dict[str, int]:
    with sandboxes.open(image, SandboxLimits(), purpose="test") as sb:
        return dict(hostile.last_json(hostile.run_python(sb, hostile.SYSCALLS, timeout_s=300)))


def test_every_backend_answers_every_syscall_alike(backend_sandboxes: Sandboxes,
                                                   sandboxes: DockerSandboxes,
                                                   base_image: str) -> None:
    # Docker's engine with the policy is the reference; every number the kernel has, -1 args.
    if "docker" not in _TABLES:
        _TABLES["docker"] = _table(sandboxes, base_image)
    table = _table(backend_sandboxes, base_image)
    differ = {nr: (_TABLES["docker"][nr], e) for nr, e in table.items()
              if e != _TABLES["docker"][nr]}
    assert not differ, differ
    assert table[str(_nr("mount"))] == errno.EPERM and table[str(_nr("keyctl"))] == errno.EPERM


# Where the policy follows a newer Docker than the engine it is compared with: Docker 23
# allows pkey_*, landlock_* and process_vm_* (ptrace's own rules apply), and 25 refuses
# io_uring.
_NEWER_DOCKER = {"pkey_mprotect", "pkey_alloc", "pkey_free", "landlock_create_ruleset",
                 "landlock_add_rule", "landlock_restrict_self", "process_vm_readv",
                 "process_vm_writev", "io_uring_setup", "io_uring_enter", "io_uring_register"}


def test_the_policy_is_docker_s_default(sandboxes: DockerSandboxes, base_image: str) -> None:
    # The engine's own default (a container made without the policy) against the policy.
    container = sandboxes.client.containers.run(
        base_image, ["python3", "-c", hostile.SYSCALLS], detach=True, network_mode="none",
        cap_drop=["ALL"], user="1000:1000", labels=managed_labels("test", 600))
    try:
        container.wait(timeout=300)
        own = json.loads(container.logs(stdout=True, stderr=False).decode().splitlines()[-1])
    finally:
        container.remove(force=True)
    ours = _TABLES.get("docker") or _table(sandboxes, base_image)
    denied = {1, 38}
    differ = {_name(int(nr)) for nr, e in ours.items()
              if (e in denied) != (own[nr] in denied) and not _unknown_to_docker(own[nr], e)}
    assert differ <= _NEWER_DOCKER, differ - _NEWER_DOCKER


def _unknown_to_docker(docker_errno: int, ours: int) -> bool:
    # A call newer than the engine's libseccomp knows: ENOSYS there; a same-operation renumber
    # (fchmodat2, futex_wake, ...) that this host's libseccomp knows is allowed here.
    return docker_errno == errno.ENOSYS and ours not in (errno.EPERM,)


def _nr(name: str) -> int:
    import ctypes
    lib = ctypes.CDLL("libseccomp.so.2")
    return int(lib.seccomp_syscall_resolve_name(name.encode()))


def _name(nr: int) -> str:
    import ctypes
    lib = ctypes.CDLL("libseccomp.so.2")
    lib.seccomp_syscall_resolve_num_arch.restype = ctypes.c_char_p
    found = lib.seccomp_syscall_resolve_num_arch(lib.seccomp_arch_native(), nr)
    return found.decode() if found else f"#{nr}"


def test_processes_together_hold_no_more_than_the_memory_cap(backend_sandboxes: Sandboxes,
                                                             base_image: str) -> None:
    # Four processes of 100 MiB, each under RLIMIT_AS, 400 MiB in all under a cap of 256.
    with backend_sandboxes.open(base_image, SandboxLimits(memory_mb=256), purpose="test") as sb:
        out = hostile.run_python(sb, hostile.HOGS, "100", "4")
        assert sb.exec("echo alive").output == "alive\n"
    words = out.split()
    assert words[words.index("held_mb") + 1].isdigit(), out
    assert int(words[words.index("held_mb") + 1]) <= 256, out


def test_tmpfs_counts_toward_the_memory_cap(backend_sandboxes: Sandboxes,
                                            base_image: str) -> None:
    # 200 MiB into /tmp and 200 more into the home, under a memory cap of 256 and a disk cap
    # of 512 each: wherever they are tmpfs, what they hold stays within the memory cap (under a
    # cgroup the writer is killed, and the sandbox may stay too full to run anything, as on
    # Docker; under rlimits the tmpfs mounts are full first).
    limits = SandboxLimits(memory_mb=256, disk_mb=512)
    with backend_sandboxes.open(base_image, limits, purpose="test") as sb:
        sb.put_files({"/tmp/fill.sh": hostile.TMPFS.encode()}, mode=0o755)
        r = sb.exec("sh /tmp/fill.sh 200")
    assert r.exit_code == 137 or int(r.output.split()[-1]) <= 256, r


def _roots(sandboxes: Any) -> list[Path]:
    """Where a backend keeps what its sandboxes write, on the host."""
    if sandboxes.name == "daemonless":
        return [Path(sandboxes.root)]  # (its views in /tmp: empty folders outside an exec)
    api = sandboxes.client.api
    if sandboxes.name == "podman":
        store = api.get(api._url("/libpod/info")).json()["store"]
        return [Path(store["graphRoot"]), Path(store.get("volumePath") or store["graphRoot"])]
    return [Path(sandboxes.client.info()["DockerRootDir"])]


def test_what_it_wrote_is_no_other_user_s_to_read_even_after_a_crash(
        backend_sandboxes: Sandboxes, base_image: str, nonce: str) -> None:
    sandboxes: Any = backend_sandboxes
    if sandboxes.name == "daemonless":
        bring(sandboxes, BASE_TAG)
    env = {**os.environ, "PYTHONPATH": os.getcwd(), **child_env(sandboxes)}
    child = subprocess.Popen([sys.executable, "-c", _OPEN_AND_WRITE, BASE_TAG, nonce],
                             stdout=subprocess.PIPE, text=True, env=env)
    assert child.stdout is not None
    sid = child.stdout.readline().strip()
    try:
        assert sid, "the child harness opened no sandbox"
        assert hostile.grep_as_nobody(nonce, _roots(sandboxes)) == []
        os.kill(child.pid, signal.SIGKILL)  # a crash: its sandbox's files stay until cleanup
        child.wait()
        time.sleep(1)
        assert hostile.grep_as_nobody(nonce, _roots(sandboxes)) == []
    finally:
        child.kill()
        child.wait()
        remove(sandboxes, sid)


def test_a_host_user_of_its_uid_gains_nothing_over_it(backend_sandboxes: Sandboxes,
                                                      base_image: str) -> None:
    with backend_sandboxes.open(base_image, SandboxLimits(), purpose="test") as sb:
        with hostile.running(sb, 7.25) as pid:
            uid = os.stat(f"/proc/{pid}").st_uid  # the sandbox user's uid, as the host sees it
            entered = hostile.as_uid(uid, ["nsenter", "-t", str(pid), "-U", "--",
                                           "cat", "/etc/shadow"])
    assert entered.returncode != 0 and "root:" not in entered.stdout, entered
