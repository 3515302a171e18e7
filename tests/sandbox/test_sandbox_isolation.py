"""The sandbox's walls, checked against the real engine: network, memory, pids, disk, privileges."""

from __future__ import annotations

import ipaddress

import docker
import pytest

from evaluator.sandbox import DockerSandboxes, SandboxLimits

pytestmark = pytest.mark.docker

_CONNECT = """
import socket, sys
for host in sys.argv[1:]:
    s = socket.socket()
    s.settimeout(3)
    try:
        s.connect((host, 53))
        print("CONNECTED", host)
    except OSError as e:
        print("blocked", host, e)
"""


def _gateway(client: docker.DockerClient) -> str:
    config = client.networks.get("bridge").attrs["IPAM"]["Config"][0]
    # With `dockerd --iptables=false` the gateway may be left out; it is the subnet's first host.
    return config.get("Gateway") or str(ipaddress.ip_network(config["Subnet"])[1])


def test_network_is_blocked(
    backend_sandboxes: DockerSandboxes, base_image: str, docker_client: docker.DockerClient
) -> None:
    with backend_sandboxes.open(base_image, SandboxLimits(), purpose="test") as sb:
        sb.put_files({"/tmp/connect.py": _CONNECT.encode()})
        r = sb.exec(f"python3 /tmp/connect.py 1.1.1.1 {_gateway(docker_client)}")
    assert r.exit_code == 0, r.output
    assert "CONNECTED" not in r.output
    assert r.output.count("blocked") == 2


def test_memory_cap_kills_big_allocation(backend_sandboxes: DockerSandboxes,
                                         base_image: str) -> None:
    with backend_sandboxes.open(base_image, SandboxLimits(memory_mb=128),
                                purpose="test") as sb:
        r = sb.exec("python3 -c \"b = b'x' * (400 << 20); print('allocated')\"")
        assert r.exit_code == 137 or "MemoryError" in r.output, r
        assert "allocated" not in r.output
        assert sb.exec("echo alive").output == "alive\n"


def test_fork_bomb_is_contained(backend_sandboxes: DockerSandboxes, base_image: str) -> None:
    with backend_sandboxes.open(base_image, SandboxLimits(pids=64), purpose="test") as sb:
        # Silent, so its survivors are not killed by a closed pipe: the cleanup must do it.
        r = sb.exec("f(){ f|f& }; f >/dev/null 2>&1; sleep 2", timeout_s=5)
        assert r.duration_s < 15
        after = sb.exec("echo alive; ls -d /proc/[0-9]* | wc -l")
    assert after.exit_code == 0
    alive, processes = after.output.split()
    assert alive == "alive" and int(processes) < 16


def test_disk_cap_gives_enospc(backend_sandboxes: DockerSandboxes, base_image: str) -> None:
    with backend_sandboxes.open(base_image, SandboxLimits(disk_mb=32), purpose="test") as sb:
        r = sb.exec("dd if=/dev/zero of=/testbed/big bs=1M count=64")
        assert r.exit_code != 0
        # The tmpfs is full, or (watch mode) the file reached the kernel's file-size limit.
        assert "No space left on device" in r.output or "File size limit exceeded" in r.output
        # Read-only (overlay and tmpfs modes); owned by root where the root stays writable.
        out = sb.exec("touch /usr/x /x").output
        assert out.count("Read-only file system") + out.count("Permission denied") == 2, out
        if backend_sandboxes.backend().disk in ("overlay", "tmpfs"):
            assert out.count("Read-only file system") == 2, out


def test_runs_unprivileged(backend_sandboxes: DockerSandboxes, base_image: str) -> None:
    with backend_sandboxes.open(base_image, SandboxLimits(), purpose="test") as sb:
        r = sb.exec("id -u; id -g; grep -E '^Cap(Eff|Prm|Bnd):' /proc/self/status")
    lines = r.output.split("\n")
    assert lines[:2] == ["1000", "1000"]
    assert all(line.split()[1] == "0000000000000000" for line in lines[2:5]), r.output
