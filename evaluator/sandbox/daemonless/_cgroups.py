"""CPU, memory and process caps of a daemonless sandbox: a cgroup where the host lets the harness
make one, rlimits otherwise (`settings.daemonless_limits` forces either).

- `cgroup v2`: one cgroup per sandbox under `<cgroup2 mount>/evaluator-daemonless`, with
  `memory.max` (and `memory.swap.max` 0), `pids.max` and `cpu.max`; each exec joins it before it
  enters its namespaces, so everything it starts is counted and capped, as Docker caps a
  container. It needs the three controllers in the hierarchy and a harness that may write it
  (root, or a delegated subtree).
- `cgroup v1`: the same with the memory, pids and cpu hierarchies of a host that still mounts
  them (this machine: Docker uses them too): `memory.limit_in_bytes` (and `memsw`), `pids.max`,
  `cpu.cfs_quota_us`.
- `rlimits`: no cgroup to use. Each exec sets, before the command runs and as hard limits no
  process of the sandbox can raise: RLIMIT_NPROC at `pids` (the kernel counts it per user
  namespace, and every exec has one of its own, so it counts this sandbox's processes, not every
  process of that uid on the host), RLIMIT_AS at `memory_mb` (address space, not resident
  memory: a program that reserves much more than it touches fails sooner than under a cgroup),
  and RLIMIT_CPU at `cpus` times the exec's timeout (CPU seconds per process: a cap on the total,
  not on the rate, so the host's other work is not protected from a busy sandbox).
"""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import time
from dataclasses import dataclass
from pathlib import Path

from evaluator.errors import BadInputError, SandboxError
from evaluator.sandbox._types import SandboxLimits
from evaluator.settings import Settings, settings

ENV = Settings.daemonless_limits.env
PARENT = "evaluator-daemonless"
HARNESS = "evaluator-harness"  # the leaf a delegated cgroup's own processes move into
_CONTROLLERS = ("memory", "pids", "cpu")
_PERIOD_US = 100_000


@dataclass(frozen=True)
class Hierarchy:
    """Where sandboxes' cgroups go: `kind` is "cgroup v2", "cgroup v1" or "rlimits"."""

    kind: str
    parents: tuple[Path, ...] = ()  # one folder (v2) or one per controller (v1)
    why_not: str = ""  # why there is no cgroup, for "rlimits"

    def describe(self) -> str:
        if self.kind == "rlimits":
            return f"rlimits ({self.why_not})" if self.why_not else "rlimits"
        return f"{self.kind} ({', '.join(_CONTROLLERS)})"


def hierarchy() -> Hierarchy:
    """The limits in force on this host, as `settings.daemonless_limits` asks."""
    forced = settings.daemonless_limits
    if forced == "rlimit":
        return Hierarchy("rlimits", why_not=f"{ENV}=rlimit")
    found, why_not = _find()
    if found is None:
        if forced == "cgroup":
            raise BadInputError(f"{ENV}=cgroup, but {why_not}; unset it to use rlimits")
        return Hierarchy("rlimits", why_not=why_not)
    return found


def _find() -> tuple[Hierarchy | None, str]:
    mounts = _cgroup_mounts()
    v2 = mounts.get("cgroup2")
    if v2 is not None:
        available = set(_read(v2 / "cgroup.controllers").split())
        if set(_CONTROLLERS) <= available:
            try:
                return Hierarchy("cgroup v2", (_v2_parent(v2),)), ""
            except OSError as e:
                why = f"cannot make {v2 / PARENT} ({e.strerror})"
            try:
                return Hierarchy("cgroup v2", (_v2_delegated(v2),)), ""
            except OSError as e:
                return None, f"{why}, and this process's own cgroup is not delegated to it " \
                             f"with memory, pids and cpu ({e.strerror}: {e.filename})"
    v1 = [mounts.get(c) for c in _CONTROLLERS]
    if all(v1):
        parents = tuple(p / PARENT for p in v1 if p is not None)
        try:
            for p in parents:
                p.mkdir(exist_ok=True)
                _writable(p)
        except OSError as e:
            return None, f"cannot make {PARENT} in the cgroup v1 hierarchies ({e.strerror})"
        return Hierarchy("cgroup v1", parents), ""
    return None, "this host has no cgroup v2 with memory, pids and cpu, nor their v1 hierarchies"


def _v2_parent(mount: Path) -> Path:
    parent = mount / PARENT
    parent.mkdir(exist_ok=True)
    _writable(parent)
    wanted = " ".join(f"+{c}" for c in _CONTROLLERS)
    for folder in (mount, parent):
        enabled = set(_read(folder / "cgroup.subtree_control").split())
        if not set(_CONTROLLERS) <= enabled:
            (folder / "cgroup.subtree_control").write_text(wanted)
    return parent


def _v2_delegated(mount: Path) -> Path:
    """The sandboxes' parent under this process's own cgroup, where the host delegated that
    cgroup to it (systemd's `Delegate=yes`, as `systemd-run --user --scope -p Delegate=yes`
    gives, or an administrator's chown of the folder). cgroup v2 lets a cgroup hand its
    controllers to children only while no process is in it, so the processes in it (the
    harness and what it started) move into a leaf beside the parent, `HARNESS`, first."""
    own = _own_cgroup(mount)
    if own.name == HARNESS:  # a process started after the move (a doit worker): already in
        own = own.parent
    _writable(own)
    missing = set(_CONTROLLERS) - set(_read(own / "cgroup.controllers").split())
    if missing:
        raise PermissionError(errno.EACCES, f"{', '.join(sorted(missing))} not delegated",
                              str(own / "cgroup.controllers"))
    leaf = own / HARNESS
    leaf.mkdir(exist_ok=True)
    for pid in _read(own / "cgroup.procs").split():
        with contextlib.suppress(ProcessLookupError):
            (leaf / "cgroup.procs").write_text(pid)
    return _v2_parent(own)


def _own_cgroup(mount: Path) -> Path:
    """This process's cgroup v2 folder (the `0::` line of /proc/self/cgroup)."""
    for line in _read(Path("/proc/self/cgroup")).splitlines():
        if line.startswith("0::"):
            return mount / line[3:].strip().lstrip("/")
    raise FileNotFoundError(errno.ENOENT, "no cgroup v2 line", "/proc/self/cgroup")


def _writable(folder: Path) -> None:
    """Raise unless this process may make cgroups in `folder` (one made earlier by root is
    there for anyone to see, but not to use)."""
    if not os.access(folder, os.W_OK | os.X_OK):
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(folder))


def _cgroup_mounts() -> dict[str, Path]:
    """cgroup2's mount point, and each v1 controller's."""
    found: dict[str, Path] = {}
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/mountinfo").read_text().splitlines():
            pre, _, post = line.partition(" - ")
            fields, tail = pre.split(), post.split()
            if len(fields) < 5 or len(tail) < 3:
                continue
            if tail[0] == "cgroup2":
                found.setdefault("cgroup2", Path(fields[4]))
            elif tail[0] == "cgroup":
                for option in tail[2].split(","):
                    if option in _CONTROLLERS:
                        found.setdefault(option, Path(fields[4]))
    return found


class Cgroup:
    """One sandbox's cgroup (a folder per hierarchy), made with its caps."""

    def __init__(self, where: Hierarchy, name: str, limits: SandboxLimits) -> None:
        self.folders = tuple(parent / name for parent in where.parents)
        self._v2 = where.kind == "cgroup v2"
        try:
            for folder in self.folders:
                folder.mkdir()
            self._set(limits)
        except OSError as e:
            self.remove()
            raise SandboxError(f"making the sandbox's cgroup {name}: {e}") from e

    @property
    def procs(self) -> tuple[str, ...]:
        """The files an exec writes its pid to, to join the cgroup."""
        return tuple(str(f / "cgroup.procs") for f in self.folders)

    def _set(self, limits: SandboxLimits) -> None:
        memory = limits.memory_mb << 20
        quota = max(int(limits.cpus * _PERIOD_US), 1000)
        if self._v2:
            (folder,) = self.folders
            _write(folder / "memory.max", memory)
            _write(folder / "memory.swap.max", 0, optional=True)
            _write(folder / "pids.max", limits.pids)
            (folder / "cpu.max").write_text(f"{quota} {_PERIOD_US}")
            return
        for folder in self.folders:
            if (folder / "memory.limit_in_bytes").exists():
                _write(folder / "memory.limit_in_bytes", memory)
                _write(folder / "memory.memsw.limit_in_bytes", memory, optional=True)
            if (folder / "pids.max").exists():
                _write(folder / "pids.max", limits.pids)
            if (folder / "cpu.cfs_quota_us").exists():
                _write(folder / "cpu.cfs_period_us", _PERIOD_US)
                _write(folder / "cpu.cfs_quota_us", quota)

    def kill(self) -> None:
        """SIGKILL whatever still runs in it (nothing should: each exec's PID namespace ends
        with the exec)."""
        kill(self.folders)

    def remove(self) -> None:
        remove(self.folders)

    def oom_killed(self) -> bool:
        """Whether the kernel has killed a process of it for its memory cap."""
        for folder in self.folders:
            events = _read(folder / "memory.events")
            for line in events.splitlines():
                key, _, value = line.partition(" ")
                if key == "oom_kill" and value.strip() not in ("", "0"):
                    return True
            if _read(folder / "memory.failcnt").strip() not in ("", "0"):
                oom = _read(folder / "memory.oom_control")
                if "oom_kill " in oom and "oom_kill 0" not in oom:
                    return True
        return False


def kill(folders: tuple[Path, ...]) -> None:
    for folder in folders:
        if (folder / "cgroup.kill").exists():
            with contextlib.suppress(OSError):
                (folder / "cgroup.kill").write_text("1")
            continue
        for _ in range(50):
            pids = [int(p) for p in _read(folder / "cgroup.procs").split() if p.isdigit()]
            if not pids:
                break
            for pid in pids:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.02)


def remove(folders: tuple[Path, ...]) -> None:
    """Remove the cgroup folders, killing what is left in them first."""
    kill(folders)
    for folder in folders:
        for attempt in range(100):
            try:
                folder.rmdir()
                break
            except FileNotFoundError:
                break
            except OSError as e:
                if e.errno != errno.EBUSY or attempt == 99:
                    break  # leftover cleanup tries again later
                time.sleep(0.02)


def leftovers(where: Hierarchy) -> dict[str, tuple[Path, ...]]:
    """Every sandbox cgroup there is, by name."""
    found: dict[str, list[Path]] = {}
    for parent in where.parents:
        with contextlib.suppress(OSError):
            for child in parent.iterdir():
                if child.is_dir():
                    found.setdefault(child.name, []).append(child)
    return {name: tuple(folders) for name, folders in found.items()}


def _write(path: Path, value: int, *, optional: bool = False) -> None:
    try:
        path.write_text(str(value))
    except FileNotFoundError:
        if not optional:
            raise
    except OSError:
        if not optional:
            raise


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""
