"""What a podman service is: where it listens, rootful or rootless, and so whether a cgroup or
rlimits hold a sandbox's limits there (see `_engine` and docs/podman.md)."""

from __future__ import annotations

import dataclasses
import threading

import docker
import docker.errors
import requests

from evaluator.console import say
from evaluator.errors import InfraError
from evaluator.settings import Settings, settings

_ERRORS = (docker.errors.DockerException, requests.RequestException, ConnectionError)
_START_HINT = "start it with `podman system service --time=0 &` (.ci/podman-up starts one)"
_said: set[str] = set()
_said_lock = threading.Lock()


def podman_host() -> str:
    """`settings.podman_host`: where podman's service listens."""
    return settings.podman_host


def podman_client() -> docker.DockerClient:
    """A Docker SDK client of podman's service, pinged."""
    host = podman_host()
    try:
        client = docker.DockerClient(base_url=host)
        client.ping()
    except (docker.errors.DockerException, requests.RequestException, OSError) as e:
        raise InfraError(f"cannot reach podman's service at {host} ({e}); {_START_HINT} or set "
                         f"{Settings.podman_host.env}") from e
    return client


def host_of(client: docker.DockerClient) -> Host:
    """What kind of podman `client` reaches; says it on stderr once per service."""
    api = client.api
    try:
        # podman's own API: Docker's /info says nothing of rootless.
        response = api.get(api._url("/libpod/info"))
        response.raise_for_status()
        host = response.json().get("host") or {}
    except (*_ERRORS, ValueError) as e:
        raise InfraError(f"asking podman's service at {podman_host()} what it is: {e}; is "
                         "it podman's (`podman system service`)?") from e
    rootless = bool((host.get("security") or {}).get("rootless"))
    cgroup = str(host.get("cgroupVersion") or "?").removeprefix("v")
    runtime = str((host.get("ociRuntime") or {}).get("name") or "?")
    no_cgroup = rootless_limits(rootless, cgroup, host.get("cgroupControllers") or [])
    kind = "rootless" if rootless else "rootful"
    limits = f"rlimits ({no_cgroup})" if no_cgroup else "cgroup"
    disks = ("watch and tmpfs (rootless: the image's files are a chowned copy, so no overlay "
             "workdirs; no engine cap)" if rootless else "overlay (where the harness reads "
             "its layer folders), watch and tmpfs; not engine (--storage-opt size= needs "
             "XFS with pquota)")
    how = (f"; limits as rlimits, as no cgroup holds them ({no_cgroup}): {RLIMITS}"
           if no_cgroup else "")
    _say_once(podman_host(), f"evaluator: sandboxes on podman ({kind}, {runtime}, cgroup "
              f"v{cgroup}); disk modes {disks}{how}")
    return Host(f"{kind}, {runtime}, cgroup v{cgroup}, limits: {limits}", rootless=rootless,
                rlimits=bool(no_cgroup))


_LIMITED = ("cpu", "memory", "pids")
# What the rlimits hold, and what they do not (the record's backend detail names them).
RLIMITS = ("pids per sandbox (RLIMIT_NPROC in its own user namespace), memory_mb per process "
           "(RLIMIT_AS: address space) and per sandbox as the harness counts it every 0.5 s "
           "(its processes' anonymous memory and its tmpfs mounts, which share memory_mb; the "
           "largest process is killed past it), cpus as CPU seconds per process (RLIMIT_CPU at "
           "cpus x sandbox_timeout_s: a total, not a rate)")


@dataclasses.dataclass(frozen=True)
class Host:
    """A podman service as a sandbox backend: the record's detail, and how it holds limits."""

    detail: str
    rootless: bool
    rlimits: bool  # no cgroup holds the limits: each exec sets rlimits


def rootless_limits(rootless: bool, cgroup: str, controllers: list[str]) -> str:
    """Why a podman service's containers get no cgroup limits ("" when they do). Rootless
    podman applies a CPU, memory or process limit only through a cgroup v2 controller delegated
    to its user; on cgroup v1, or without the controller, it warns and ignores the limit."""
    if not rootless:
        return ""
    if cgroup != "2":
        return f"rootless on cgroup v{cgroup}"
    missing = [c for c in _LIMITED if c not in controllers]
    if missing:
        return f"rootless on cgroup v2 without the {', '.join(missing)} controller(s) delegated"
    return ""


def _say_once(where: str, line: str) -> None:
    with _said_lock:
        if where in _said:
            return
        _said.add(where)
    say(line, err=True)
