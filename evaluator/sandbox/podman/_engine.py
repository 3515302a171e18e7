"""Podman's Docker-compatible service (`podman system service`) as the `Engine` of the docker
backend's opener: the same Docker SDK calls, with what podman 4.3 answers otherwise (and a
`DockerEngine` kept for what it answers alike):

- tmpfs mounts take no `uid=`/`gid=`, so the home and a copied workdir are tmpfs *volumes*
  (the `local` driver, `type=tmpfs`, capped by `nr_blocks`, owned by the sandbox user) that go
  with their sandbox; `/tmp` is a tmpfs with `notmpcopyup` (podman would copy the image's
  folder into it, Docker never does).
- a file-size ulimit sent with a container makes podman set open files and processes to
  1048576 as well, which a root without CAP_SYS_RESOURCE cannot: each exec sets `ulimit -f`
  itself instead, and the container keeps the service's own defaults (`default_ulimits` of its
  containers.conf).
- killing a container that is not running is a 500 "container state improper" (Docker: 409).
- its `overlay` storage (containers/storage) lays layers out as overlay2 does, so workdirs are
  overlays over the image's layers here too; the `engine` disk mode needs `--storage-opt size=`,
  which podman gives only on XFS mounted with `pquota`.
- rootless podman applies CPU, memory and process limits only through cgroup v2 controllers
  delegated to its user; elsewhere (cgroup v1, or v2 without them) it warns and ignores them.
  There the limits are rlimits that each exec sets as hard limits before its command, as the
  daemonless backend's (`evaluator.sandbox._rlimits`): RLIMIT_NPROC at `pids`, RLIMIT_AS at
  `memory_mb`, RLIMIT_CPU at `cpus` x the sandbox's lifetime; the tmpfs mounts share `memory_mb`,
  and the harness counts the sandbox's memory (`evaluator.sandbox._memory`). No process of the
  sandbox can raise them: raising a hard limit takes CAP_SYS_RESOURCE in the host's user
  namespace, which no container of a rootless service has, root inside included. RLIMIT_NPROC
  counts processes per user *and user namespace*, so each container needs a user namespace of its
  own (the service's `userns = "auto"`); a service that shares one between containers would let
  one sandbox's processes count against another's, and is refused. In such a namespace the image's
  files are a chowned copy of its layers (containers/storage makes one per id range), so workdirs
  cannot be overlays on the image's own layer folders: the disk modes are `watch` and `tmpfs`, and
  the sandbox's owned tmpfs mounts are chowned once by a privileged exec of the harness at start.
  See docs/podman.md.

Images move from a Docker engine by `docker save | podman load`, which keeps the image id (the
config's digest) that the lock pins; see `_images.copy_image`.
"""

from __future__ import annotations

import os
import resource
import secrets
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import docker
import docker.errors
import requests

from evaluator.errors import BadInputError, InfraError, SandboxError
from evaluator.sandbox import _memory, _seccomp
from evaluator.sandbox._accounts import Account
from evaluator.sandbox._layers import used_bytes
from evaluator.sandbox._rlimits import rlimit_shell
from evaluator.sandbox._types import SandboxLimits
from evaluator.sandbox.docker import (
    DISK_ENV,
    Container,
    ContainerMachine,
    DiskMode,
    DockerEngine,
    EngineImages,
    Mounts,
    Overlay,
    apart,
    docker_client,
    run_exec,
)
from evaluator.sandbox.podman._host import Host, host_of, podman_client, podman_host
from evaluator.sandbox.podman._images import copy_image
from evaluator.settings import settings

_ERRORS = (docker.errors.DockerException, requests.RequestException, ConnectionError)
# Variables podman gives every container (`container` always, `TERM` from containers.conf).
_ADDED_ENV = ("container", "TERM")
_READ_ONLY = (("/run", "755"), ("/var/tmp", "1777"))
_ROOTLESS_DISK = ("watch", "tmpfs")


class PodmanEngine:
    """Podman's service at `client` (default: EVAL_PODMAN_HOST's) as an `Engine`."""

    name = "podman"

    def __init__(self, client: docker.DockerClient | None = None) -> None:
        self._client = client
        self._docker = DockerEngine(client)
        self._host: Host | None = None

    @property
    def client(self) -> docker.DockerClient:
        if self._client is None:
            self._client = podman_client()
            self._docker = DockerEngine(self._client)
        return self._client

    @property
    def images(self) -> EngineImages:
        return EngineImages(self.client, "podman")

    def host(self) -> Host:
        """What kind of podman this is, and so how it holds a sandbox's limits."""
        if self._host is None:
            self._host = host_of(self.client)
        return self._host

    def detail(self) -> str:
        return self.host().detail

    def image(self, ref: str) -> tuple[str, int]:
        """The image in podman; one only a Docker engine on this machine holds (the task images
        `doit images` built there, a pull there) is copied over first, with its id."""
        docker_side = self._docker_of_client()
        try:
            return docker_side.image(ref)
        except BadInputError as missing:
            try:
                source = docker_client()
            except InfraError:
                raise missing from None
            return docker_side.image(copy_image(ref, source, self.client))

    def disk_mode(self, image_id: str) -> DiskMode:
        if not self.host().rootless:
            return self._docker_of_client().disk_mode(image_id)
        forced = settings.sandbox_disk or ""
        if forced and forced not in _ROOTLESS_DISK:
            raise BadInputError(
                f"{DISK_ENV}={forced}, but podman's service at {podman_host()} is rootless: its "
                "containers see a chowned copy of the image's layers (no overlay workdirs on "
                "them) and it cannot cap a layer's size (no engine mode); use watch or tmpfs")
        return "tmpfs" if forced == "tmpfs" else "watch"

    def disk_meter(self, mode: DiskMode, workdir_overlay: Overlay | None,
                   machine: ContainerMachine) -> Callable[[], int | None] | None:
        """`watch`: the container's upper folder, walked by the harness where it can read it.
        podman's own answer (a listing with sizes) walks the whole image as well, every
        `WATCH_INTERVAL_S`, and slowed every exec of a rootless service to seconds."""
        if mode == "watch":
            upper = str(((machine.container.attrs.get("GraphDriver") or {}).get("Data") or {})
                        .get("UpperDir") or "")
            if upper and os.access(upper, os.R_OK | os.X_OK):
                return lambda: used_bytes(upper)
        return self._docker_of_client().disk_meter(mode, workdir_overlay, machine)

    def create_options(self, mode: DiskMode, image_size: int, limits: SandboxLimits,
                       ) -> dict[str, Any]:
        options = self._docker_of_client().create_options(mode, image_size, limits)
        options.pop("ulimits", None)  # set by each exec instead: see the module's doc
        # podman reads `seccomp=` as a path, never as the profile itself: a file the service
        # can read, beside its own socket where the harness may write there.
        path = _seccomp.profile_file(_profile_folder())
        options["security_opt"] = ["no-new-privileges", f"seccomp={path}"]
        if self.host().rlimits:
            # No cgroup would apply them: each exec sets rlimits (`prelude`), the tmpfs mounts
            # share memory_mb and the harness counts the rest (`_memory`).
            for key in ("pids_limit", "mem_limit", "memswap_limit", "nano_cpus"):
                options.pop(key)
            options["shm_size"] = f"{_memory.shm_size(limits.memory_mb)}m"
        return options

    def check_created(self, container: Container) -> None:
        """Under rlimits, refuse a container that shares its user namespace with others."""
        if not self.host().rlimits:
            return
        api = self.client.api
        try:
            response = api.get(api._url(f"/libpod/containers/{container.id}/json"))
            response.raise_for_status()
            mappings = (response.json().get("HostConfig") or {}).get("IDMappings") or {}
        except (*_ERRORS, ValueError) as e:
            _remove(container)
            raise self.error("asking podman for the sandbox's user namespace", e) from e
        if mappings.get("UidMap"):
            return
        _remove(container)
        raise BadInputError(
            f"podman's service at {podman_host()} is rootless without cgroups (limits as "
            "rlimits) and gives its containers no user namespace of their own: RLIMIT_NPROC "
            "counts processes per user and user namespace, so every sandbox's processes would "
            "count against every other's. Set `userns = \"auto\"` under [containers] in the "
            "service's containers.conf and give its user subordinate ids for as many sandboxes "
            "as run at once (65536 each; .ci/podman-up --tests does both), or run it where "
            "cgroup v2 delegates the cpu, memory and pids controllers to its user")

    def started(self, container: Container, account: Account, workdir: str, copy_up: bool,
                limits: SandboxLimits) -> None:
        """Rootless: the sandbox user's own tmpfs mounts, mounted in the container's user
        namespace (whose ids podman picks as it creates it), are given to that user here, by a
        privileged exec of the harness before any command of the sandbox runs. Under rlimits,
        the harness counts the sandbox's memory from now on (`_memory`)."""
        if not self.host().rootless:
            return
        owned = _owned(account, workdir, copy_up)
        if self.host().rlimits:
            self._watch_memory(container, ["/tmp", *owned, "/dev/shm"], limits)
        if not owned:
            return
        try:
            done = container.exec_run(["chown", f"{account.uid}:{account.gid}", *owned],
                                      user="0:0", privileged=True)
        except _ERRORS as e:
            raise self.error(f"giving {', '.join(owned)} to the sandbox user", e) from e
        if done.exit_code != 0:
            raise SandboxError(f"giving {', '.join(owned)} to the sandbox user failed (exit "
                               f"{done.exit_code}): {done.output.decode(errors='replace')[-500:]}")

    def _watch_memory(self, container: Container, tmpfs: list[str],
                      limits: SandboxLimits) -> None:
        """Count the sandbox's memory (`_memory`), its processes found by its PID namespace,
        as the sandbox itself names it (a pid podman reports would be this harness's only where
        both see one PID namespace)."""
        try:
            # Not docker-py's `exec_run`: on a loaded machine it drops a quick command's output
            # (see `run_exec`).
            done = run_exec(container.client.api, container.id,
                            ["readlink", "/proc/self/ns/pid"], deadline=time.monotonic() + 60,
                            limit=4096, user="0:0")
        except (*_ERRORS, OSError) as e:
            raise self.error("asking the sandbox for its PID namespace", e) from e
        said = (done.stdout.value() + done.stderr.value()).decode(errors="replace").strip()
        if done.exit_code != 0 or not said.startswith("pid:["):
            raise SandboxError(f"asking the sandbox for its PID namespace: {said[-300:]}")
        try:
            _memory.MemoryWatch(container.short_id, int(said[5:-1]), tmpfs,
                                limits.memory_mb << 20)
        except OSError as e:
            # A harness in a PID namespace of its own does not see the sandbox's processes:
            # its tmpfs mounts still share memory_mb, its processes are capped one by one.
            _memory.say_once(podman_host(), f"evaluator: sandbox memory on podman's service at "
                             f"{podman_host()} is not counted: this harness cannot see its "
                             f"processes ({e.strerror}); RLIMIT_AS caps each process, and its "
                             "tmpfs mounts share memory_mb")

    def writable(self, limits: SandboxLimits, account: Account, workdir: str, copy_up: bool,
                 labels: dict[str, str], volumes: list[str]) -> Mounts:
        size = limits.disk_mb
        if self.host().rlimits:  # together no more than memory_mb (`_memory`)
            size = _memory.tmpfs_size(limits.memory_mb, limits.disk_mb,
                                      1 + len(_owned(account, workdir, copy_up)))
        base = f"rw,exec,nosuid,nodev,size={size}m"
        tmpfs = {"/tmp": f"{base},mode=1777,notmpcopyup"}
        if self.host().rootless:  # chowned at start (`_started`): no volumes
            tmpfs.update({t: f"{base},mode=755,notmpcopyup"
                          for t in _owned(account, workdir, copy_up)})
        # Podman mounts a writable tmpfs on /run and /var/tmp of a read-only root; a read-only
        # copy of the image's folder there instead (as Docker shows it) unless a writable place
        # of the sandbox lies there.
        for folder, mode in _READ_ONLY:
            if all(apart(folder, o) for o in (workdir, account.home or "/tmp")):
                tmpfs[folder] = f"ro,nosuid,nodev,size={limits.disk_mb}m,mode={mode}"
        owned = [] if self.host().rootless else _owned(account, workdir, copy_up)
        pages = (limits.disk_mb << 20) // resource.getpagesize()
        options = (f"nr_blocks={pages},uid={account.uid},gid={account.gid},mode=755,"
                   "nosuid,nodev")
        mounts = []
        for target in owned:
            name = f"evaluator-{secrets.token_hex(8)}-tmpfs"
            try:
                self.client.api.create_volume(name, driver="local", labels=labels, driver_opts={
                    "type": "tmpfs", "device": "tmpfs", "o": options})
            except _ERRORS as e:
                raise self.error(f"making the tmpfs volume for {target}", e) from e
            volumes.append(name)
            # no_copy: an empty tmpfs, as Docker's are, not a copy of the image's folder.
            mounts.append(docker.types.Mount(target, name, type="volume", no_copy=True))
        return tmpfs, mounts

    def prelude(self, mode: DiskMode, limits: SandboxLimits) -> str:
        """The file-size cap, set soft and hard (no process of the sandbox has the
        CAP_SYS_RESOURCE to raise it; POSIX counts `ulimit -f` in 512-byte blocks in every
        shell); without cgroups, the process, memory and CPU caps too."""
        if self.host().rlimits:
            return rlimit_shell(limits)
        if mode in ("overlay", "watch"):
            return f"ulimit -f {(limits.disk_mb << 20) // 512} || exit 125; "
        return ""

    def unset(self, image_id: str) -> tuple[str, ...]:
        """The variables podman adds that the image does not set (`container=podman`,
        `TERM=xterm`): commands see what they would see on Docker."""
        image_env = {e.partition("=")[0] for e in self._image_env(image_id)}
        return tuple(v for v in _ADDED_ENV if v not in image_env)

    def _image_env(self, image_id: str) -> list[str]:
        try:
            return list((self.client.api.inspect_image(image_id).get("Config") or {})
                        .get("Env") or [])
        except _ERRORS as e:
            raise self.error(f"inspecting image {image_id[:19]}", e) from e

    def error(self, action: str, error: Exception) -> SandboxError:
        text = str(error)
        if "setrlimit" in text or "rlimit" in text:
            why = ("the service sets open files and processes to more than this host lets root "
                   "set (no CAP_SYS_RESOURCE): give its containers.conf default_ulimits within "
                   "the host's limits (.ci/podman-up does)")
        elif "seccomp profile" in text:
            why = ("podman's service reads the sandboxes' seccomp profile by its path: run it "
                   "on this machine, as a user who can read that file")
        elif "hybrid mode" in text:
            why = ("crun cannot run containers on this host's hybrid cgroups: run the service "
                   "with runc (containers.conf [engine] runtime = \"runc\"; .ci/podman-up does)")
        else:
            why = f"if this persists, see the log of podman's service at {podman_host()}"
        return SandboxError(f"{action}: {error}; {why}")


    def _docker_of_client(self) -> DockerEngine:
        """Docker's own answers, on this service's client (connected first)."""
        _ = self.client
        return self._docker


def _profile_folder() -> Path:
    """Where the seccomp profile goes: the folder of the service's socket (the service reads it
    whatever its user, and whatever mount namespace this harness sees its own cache in), else
    the harness's own folder for it."""
    host = podman_host()
    if host.startswith("unix://"):
        folder = Path(host.removeprefix("unix://")).parent
        if os.access(folder, os.W_OK | os.X_OK):
            return folder
    return _seccomp.profile_folder()


def _owned(account: Account, workdir: str, copy_up: bool) -> list[str]:
    """The sandbox user's own writable places: a copied workdir, and the home."""
    owned = [workdir] if copy_up else []
    if account.home and all(apart(account.home, o) for o in ("/tmp", workdir)):
        owned.append(account.home)
    return owned


def _remove(container: Container) -> None:
    try:
        container.remove(force=True)
    except _ERRORS:
        pass  # created, never started: leftover cleanup takes it (its deadline passes)
