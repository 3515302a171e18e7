"""The base image's root filesystem: debootstrap from the pinned repository, then normalised.

What debootstrap and the packages' scripts write from the clock, the host or the build's paths
(logs, caches, password-change days, resolv.conf, the mirror's URL) is fixed or removed here, so
two builds from the same pins hold the same files.
"""

from __future__ import annotations

import glob
import os
import re
import shutil
import subprocess
from pathlib import Path

from evaluator.console import say
from evaluator.errors import InfraError
from evaluator.images._layer import EPOCH
from evaluator.images._pins import BasePins

AGENT_UID = 1000
# A fixed "last password change" day keeps /etc/shadow identical across builds (2000-01-01).
_SHADOW_DAY = EPOCH // 86400
_PROGRESS_EVERY = 25
_SOURCES = "deb http://deb.debian.org/debian bookworm main\n"
# Written from the clock or the host, and useless in a sandbox without network.
_REMOVE = [
    "var/lib/apt/lists/*",
    "var/cache/apt/*.bin",
    "var/cache/apt/archives/*.deb",
    "var/cache/debconf/*-old",
    "var/cache/ldconfig/aux-cache",
    "var/log/apt/*",
    "var/log/*.log",
    "var/log/journal/*",
    "var/lib/dpkg/*-old",
    "etc/*-",
    "etc/machine-id",
    "var/lib/dbus/machine-id",
    "debootstrap",
]


def debootstrap(rootfs: Path, pins: BasePins, repo_url: str) -> None:
    """Install exactly the pinned packages from `repo_url` (a file: repo made from the pins)."""
    cmd = ["debootstrap", "--no-check-gpg", f"--variant={pins.variant}",
           "--include=" + ",".join(pins.include), pins.suite, str(rootfs), repo_url]
    # Hash-based .pyc files (SOURCE_DATE_EPOCH) with a fixed hash seed: byte-identical bytecode.
    env = {**os.environ, "SOURCE_DATE_EPOCH": str(EPOCH), "PYTHONHASHSEED": "0", "LC_ALL": "C",
           "LANG": "C", "TZ": "UTC"}
    log("$ " + " ".join(cmd))
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            errors="replace", env=env)
    assert proc.stdout is not None
    tail: list[str] = []
    counts: dict[str, int] = {}
    for line in proc.stdout:
        line = line.rstrip()
        tail = (tail + [line])[-20:]
        # Per-package lines come in the hundreds; a count every few dozen is progress enough.
        step = re.match(r"I: (Retrieving|Validating|Extracting|Unpacking|Configuring) ", line)
        if step is None:
            log("debootstrap: " + line)
            continue
        verb = step.group(1)
        counts[verb] = counts.get(verb, 0) + 1
        if verb != "Validating" and counts[verb] % _PROGRESS_EVERY == 0:
            log(f"debootstrap: {verb.lower()} packages: {counts[verb]} done")
    if proc.wait() != 0:
        raise InfraError(
            f"debootstrap failed (exit {proc.returncode}) from the pinned packages; last output:\n"
            + "\n".join(tail)
            + f"\nsee {rootfs}/debootstrap/debootstrap.log if it is still there")


def normalise(rootfs: Path) -> None:
    """Add the sandbox user and drop or fix everything that differs from build to build."""
    _add_agent_user(rootfs)
    for pattern in _REMOVE:
        for found in glob.glob(str(rootfs / pattern)):
            if os.path.isdir(found) and not os.path.islink(found):
                shutil.rmtree(found)
            else:
                os.unlink(found)
    (rootfs / "var/lib/apt/lists/partial").mkdir(parents=True, exist_ok=True)
    (rootfs / "etc/apt/sources.list").write_text(_SOURCES)  # not the build's file: repo
    for name in ("resolv.conf", "hostname", "hosts"):  # the engine provides these at run time
        path = rootfs / "etc" / name
        if path.exists() or path.is_symlink():
            path.unlink()
        path.write_text("")
    for name in ("shadow", "gshadow"):
        _fix_shadow_days(rootfs / "etc" / name)
    for dev in ("dev", "proc", "sys", "run", "tmp"):
        (rootfs / dev).mkdir(exist_ok=True)


def _fix_shadow_days(path: Path) -> None:
    # pwconv and adduser stamp today's date as the last password change.
    if not path.exists():
        return
    lines = []
    for line in path.read_text().splitlines():
        parts = line.split(":")
        if path.name == "shadow" and len(parts) > 2 and parts[2]:
            parts[2] = str(_SHADOW_DAY)
        lines.append(":".join(parts))
    mode, st = path.stat().st_mode, path.stat()
    path.write_text("\n".join(lines) + "\n")
    os.chmod(path, mode)
    os.chown(path, st.st_uid, st.st_gid)


def _add_agent_user(rootfs: Path) -> None:
    etc = rootfs / "etc"
    uid = AGENT_UID
    _append(etc / "passwd", f"agent:x:{uid}:{uid}:agent:/home/agent:/bin/bash\n")
    _append(etc / "group", f"agent:x:{uid}:\n")
    _append(etc / "shadow", f"agent:!:{_SHADOW_DAY}:0:99999:7:::\n")
    _append(etc / "gshadow", "agent:!::\n")
    home = rootfs / "home" / "agent"
    home.mkdir(parents=True, exist_ok=True)
    os.chown(home, uid, uid)
    home.chmod(0o755)


def _append(path: Path, line: str) -> None:
    text = path.read_text() if path.exists() else ""
    name = line.split(":", 1)[0] + ":"
    if any(existing.startswith(name) for existing in text.splitlines()):
        return
    if text and not text.endswith("\n"):
        text += "\n"
    path.write_text(text + line)


def unmount_below(root: Path) -> None:
    """Unmount whatever a failed debootstrap left mounted inside (deleting through /proc or a
    bind-mounted /dev would be disastrous)."""
    prefix = str(root.resolve()) + "/"
    with open("/proc/mounts") as f:
        points = [line.split()[1] for line in f]
    for point in sorted((p for p in points if p.startswith(prefix)), reverse=True):
        subprocess.run(["umount", "-l", point], check=False)


def log(message: str) -> None:
    """A line of the base image's build, on stderr."""
    say(f"[base image] {message}", err=True)
