"""The daemonless backend started by a user who is not root: the harness enters a user namespace
of its own with the user's subordinate ids, and there its sandboxes have the walls they have
as root (docs/daemonless.md, "Without root"). Everything here runs as the rootless user that
.ci/podman-up makes, with no capability of root's."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.daemonless import as_user, rootless_user

pytestmark = pytest.mark.docker

# One harness, many execs: each check's output by name (the walls every backend shares).
_CHECKS = r"""
import json, sys
from evaluator.sandbox import DaemonlessSandboxes, SandboxLimits
s = DaemonlessSandboxes()
out = {"detail": s.backend().detail, "alive": s.alive()}
limits = SandboxLimits(memory_mb=128, pids=40, disk_mb=20)
with s.open(sys.argv[1], limits, purpose="test") as sb:
    for name, cmd in {
        "who": "id -u; id -g; stat -c %u:%g /etc/passwd; touch made && stat -c %u:%g made",
        "root": "touch /usr/x 2>&1; echo rc=$?",
        "net": "cat /proc/net/dev | tail -n +3 | cut -d: -f1",
        "userns": "unshare -U true 2>&1; echo rc=$?",
        "memory": "python3 -c \"b = b'x' * (400 << 20); print('allocated')\" 2>&1 | tail -1",
        "bomb": "for i in $(seq 80); do sleep 5 & done; echo started",
        "disk": "head -c 30000000 /dev/zero > big 2>&1; echo rc=$?",
        "detached": "setsid sleep 4242 > /dev/null 2>&1 & echo started",
    }.items():
        out[name] = sb.exec(cmd, timeout_s=20).output
    out["after"] = sb.exec("ls -d /proc/[0-9]* | wc -l").output
with s.open(sys.argv[1], SandboxLimits(), user="root", purpose="test") as sb:
    out["map"] = sb.exec("cat /proc/self/uid_map").output
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def unprivileged(base_image: str, tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The base image loaded by the user's own harness, and the checks' outputs."""
    user = rootless_user()
    home = tmp_path_factory.mktemp("rootless-home")
    archive = home / "base.tar"
    subprocess.run(["docker", "save", "-o", str(archive), base_image], check=True)
    subprocess.run(["chown", "-R", f"{user.pw_uid}:{user.pw_gid}", str(home)], check=True)
    env = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "HOME": str(home),
           "XDG_CACHE_HOME": str(home), "EVAL_SANDBOX_BACKEND": "daemonless",
           "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    python = [sys.executable, "-m", "evaluator"]
    load = as_user([*python, "images", "load", str(archive)], env=env, cwd=home)
    assert load.returncode == 0, load.stdout + load.stderr
    checks = as_user([*python, "userns", "--", sys.executable, "-c", _CHECKS, base_image],
                     env=env, cwd=home)
    assert checks.returncode == 0, checks.stdout + checks.stderr
    return {"load": load.stderr, "home": str(home), **json.loads(checks.stdout)}


def test_the_harness_enters_its_user_namespace_by_itself(unprivileged: dict[str, str]) -> None:
    assert "evaluator images without root: running again in a user namespace" in \
        unprivileged["load"]
    store = Path(unprivileged["home"]) / "evaluator" / "daemonless" / "images"
    assert json.loads((store / "layout.json").read_text())["xattrs"] == "user"
    assert unprivileged["alive"] is True
    assert unprivileged["detail"].startswith("rlimits (") and "; user namespace (uids 0 -> " \
        in unprivileged["detail"]


def test_the_image_s_owners_and_the_sandbox_user_are_kept(unprivileged: dict[str, str]) -> None:
    assert unprivileged["who"].split() == ["1000", "1000", "0:0", "1000:1000"]
    assert unprivileged["map"].split()[:3] == ["0", "0", "1"], unprivileged["map"]


def test_its_walls_hold(unprivileged: dict[str, str]) -> None:
    assert "Read-only file system" in unprivileged["root"]
    assert unprivileged["net"].split() == ["lo"]
    assert "unshare failed" in unprivileged["userns"]
    assert "MemoryError" in unprivileged["memory"]
    assert "started" not in unprivileged["bomb"]
    assert "File size limit exceeded" in unprivileged["disk"] or "rc=153" in unprivileged["disk"]
    assert int(unprivileged["after"]) < 8


def test_no_process_outlives_its_exec(unprivileged: dict[str, str]) -> None:
    assert unprivileged["detached"] == "started\n"
    found = subprocess.run(["pgrep", "-f", "sleep 4242"], capture_output=True, text=True)
    assert found.stdout == ""
