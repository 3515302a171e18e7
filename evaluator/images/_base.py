"""The base image: a minimal Debian bookworm made with debootstrap and imported, never pulled.

No registry is reachable from the machines the harness runs on, so the base is built from the
Debian mirror apt already uses; once tagged it is reused as is, because rebuilding would change
its id and with it every task image and cache key derived from it.
"""

from __future__ import annotations

import contextlib
import fcntl
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import docker
import docker.errors

from evaluator.errors import BadInputError, InfraError

BASE_TAG = "evaluator/base:bookworm-1"

_SUITE = "bookworm"
_PACKAGES = ("python3", "python3-pytest", "git", "patch", "tzdata", "ca-certificates")
_FALLBACK_MIRROR = "http://deb.debian.org/debian"
_CHANGES = [
    "ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
    "ENV LANG=C.UTF-8",
    "WORKDIR /",
    "LABEL evaluator.base=1",
]
_AGENT_UID = 1000
# A fixed "last password change" day keeps /etc/shadow identical across builds.
_SHADOW_DAY = 10957
_LOCK_NAME = "evaluator-base-image.lock"
_PROGRESS_EVERY = 25


def ensure_base_image(client: docker.DockerClient, tag: str = BASE_TAG) -> str:
    """The id of the image tagged `tag`, built with debootstrap only if it is absent."""
    found = _image_id(client, tag)
    if found is not None:
        return found
    # Two processes (parallel test workers, two `make demo`s) must not both spend minutes building.
    with _exclusive(Path(tempfile.gettempdir()) / _LOCK_NAME):
        found = _image_id(client, tag)
        if found is not None:
            return found
        return _build(client, tag)


def debian_mirror(
    sources_dir: Path = Path("/etc/apt/sources.list.d"),
    sources_list: Path = Path("/etc/apt/sources.list"),
) -> str:
    """The Debian mirror apt is configured with for bookworm, or the public default."""
    for path in sorted(glob.glob(str(sources_dir / "*.sources"))):
        for stanza in re.split(r"\n\s*\n", Path(path).read_text(errors="replace")):
            fields = _deb822_fields(stanza)
            suites = fields.get("suites", "").split()
            if _SUITE in suites and "deb" in fields.get("types", "deb").split():
                uris = fields.get("uris", "").split()
                if uris:
                    return uris[0].rstrip("/")
    if sources_list.is_file():
        for line in sources_list.read_text(errors="replace").splitlines():
            words = re.sub(r"\[[^]]*\]", " ", line.split("#", 1)[0]).split()
            if len(words) >= 3 and words[0] == "deb" and words[2] == _SUITE:
                return words[1].rstrip("/")
    return _FALLBACK_MIRROR


def _deb822_fields(stanza: str) -> dict[str, str]:
    fields: dict[str, str] = {}
    key = None
    for line in stanza.splitlines():
        if line.startswith("#") or not line.strip():
            continue
        if line[0].isspace() and key is not None:
            fields[key] += " " + line.strip()
        elif ":" in line:
            key, value = line.split(":", 1)
            key = key.strip().lower()
            fields[key] = value.strip()
    return fields


def _image_id(client: docker.DockerClient, tag: str) -> str | None:
    try:
        return str(client.images.get(tag).id)
    except docker.errors.ImageNotFound:
        return None
    except docker.errors.DockerException as e:
        raise InfraError(f"cannot look up image {tag}: {e}") from e


def _build(client: docker.DockerClient, tag: str) -> str:
    if shutil.which("debootstrap") is None:
        raise BadInputError(
            f"building the base image {tag} needs debootstrap: run `apt-get install debootstrap`"
        )
    if os.geteuid() != 0:
        raise InfraError(
            f"building the base image {tag} runs debootstrap, which needs root: run "
            "`sudo python -m evaluator.images base` once (and `apt-get install debootstrap`)"
        )
    mirror = debian_mirror()
    started = time.monotonic()
    _log(f"building {tag} from {mirror} (about 2 minutes, once per machine)")
    with tempfile.TemporaryDirectory(prefix="evaluator-base-") as tmp:
        rootfs = Path(tmp) / "rootfs"
        try:
            _debootstrap(rootfs, mirror)
            _add_agent_user(rootfs)
            _strip(rootfs)
            _log("importing the root filesystem into docker")
            image_id = _import(client, rootfs, tag)
        finally:
            # A failed debootstrap can leave /proc or /sys mounted inside; deleting through them
            # would be disastrous, so unmount first.
            _unmount_below(rootfs)
    _log(f"built {tag} = {image_id} in {time.monotonic() - started:.0f}s")
    return image_id


def _debootstrap(rootfs: Path, mirror: str) -> None:
    cmd = [
        "debootstrap",
        "--variant=minbase",
        "--include=" + ",".join(_PACKAGES),
        _SUITE,
        str(rootfs),
        mirror,
    ]
    _log("$ " + " ".join(cmd))
    proc = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace"
    )
    assert proc.stdout is not None
    tail: list[str] = []
    counts: dict[str, int] = {}
    for line in proc.stdout:
        line = line.rstrip()
        tail = (tail + [line])[-20:]
        # Per-package lines come in the hundreds; a count every few dozen is progress enough.
        step = re.match(r"I: (Retrieving|Validating|Extracting|Unpacking|Configuring) ", line)
        if step is None:
            _log("debootstrap: " + line)
            continue
        verb = step.group(1)
        counts[verb] = counts.get(verb, 0) + 1
        if verb != "Validating" and counts[verb] % _PROGRESS_EVERY == 0:
            _log(f"debootstrap: {verb.lower()} packages: {counts[verb]} done")
    if proc.wait() != 0:
        raise InfraError(
            f"debootstrap failed (exit {proc.returncode}) using mirror {mirror}; last output:\n"
            + "\n".join(tail)
            + f"\nsee {rootfs}/debootstrap/debootstrap.log if it is still there"
        )


def _add_agent_user(rootfs: Path) -> None:
    etc = rootfs / "etc"
    uid = _AGENT_UID
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


def _strip(rootfs: Path) -> None:
    # Package indexes and logs are large, date-stamped and useless without network access.
    patterns = [
        "var/lib/apt/lists/*",
        "var/cache/apt/*.bin",
        "var/cache/apt/archives/*.deb",
        "var/cache/debconf/*-old",
        "var/log/apt/*",
        "var/log/*.log",
        "var/lib/dpkg/*-old",
    ]
    for pattern in patterns:
        for path in glob.glob(str(rootfs / pattern)):
            if os.path.isdir(path) and not os.path.islink(path):
                shutil.rmtree(path)
            else:
                os.unlink(path)
    (rootfs / "var/lib/apt/lists/partial").mkdir(parents=True, exist_ok=True)


def _import(client: docker.DockerClient, rootfs: Path, tag: str) -> str:
    repository, _, version = tag.rpartition(":")
    if not repository or "/" in version:
        repository, version = tag, "latest"
    tar = subprocess.Popen(
        ["tar", "--numeric-owner", "--xattrs", "-C", str(rootfs), "-c", "."],
        stdout=subprocess.PIPE,
    )
    try:
        client.api.import_image_from_data(
            tar.stdout, repository=repository, tag=version, changes=_CHANGES
        )
    except docker.errors.DockerException as e:
        tar.kill()
        raise InfraError(f"docker import of the base image failed: {e}") from e
    finally:
        if tar.stdout is not None:
            tar.stdout.close()
    if tar.wait() != 0:
        raise InfraError(f"tar of {rootfs} failed (exit {tar.returncode})")
    image_id = _image_id(client, tag)
    if image_id is None:
        raise InfraError(f"docker import finished but no image is tagged {tag}")
    return image_id


def _unmount_below(root: Path) -> None:
    prefix = str(root.resolve()) + "/"
    with open("/proc/mounts") as f:
        points = [line.split()[1] for line in f]
    for point in sorted((p for p in points if p.startswith(prefix)), reverse=True):
        subprocess.run(["umount", "-l", point], check=False)


@contextlib.contextmanager
def _exclusive(path: Path) -> Iterator[None]:
    with open(path, "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def _log(message: str) -> None:
    print(f"[base image] {message}", file=sys.stderr, flush=True)
