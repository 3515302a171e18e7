"""The base image: a minimal Debian bookworm from pinned packages, loaded, never pulled.

No registry is reachable from the machines the harness runs on, so the base is built from the
Debian packages `lock/base.lock` pins (name, version, sha256), fetched from the mirror apt uses
(or $EVAL_DEBIAN_MIRROR) and checked, bootstrapped from a repository holding only them, and
loaded as a layer and config written here: the same pins give the same image id on every
machine. A tagged base whose pins label matches the lock is reused; a re-pin (`doit lock:<set>
--repin`) is the only thing that changes the pins.
"""

from __future__ import annotations

import glob
import os
import re
import shutil
import tempfile
import time
from pathlib import Path

import docker
import docker.errors

from evaluator.errors import BadInputError, InfraError
from evaluator.filelock import exclusive
from evaluator.images import _debs, _rootfs
from evaluator.images._layer import CREATED, image_config, load_image, tree_entries, write_layer
from evaluator.images._pins import (
    SUITE,
    BasePins,
    base_lock_path,
    debootstrap_version,
    read_pins,
    resolve_pins,
    write_pins,
)
from evaluator.settings import Settings, settings

BASE_TAG = "evaluator/base:bookworm-2"
PINS_LABEL = "evaluator.base.pins"
MIRROR_ENV = Settings.debian_mirror.env

_FALLBACK_MIRROR = "http://deb.debian.org/debian"
_CONFIG = {
    "Env": ["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "LANG=C.UTF-8"],
    "WorkingDir": "/",
}
# Kept empty in the image: the engine mounts its own over them.
_EMPTY_DIRS = ("dev", "proc", "sys", "run", "tmp")
_LOCK_NAME = "evaluator-base-image.lock"


def ensure_base_image(client: docker.DockerClient, tag: str = BASE_TAG,
                      pins_path: Path | None = None) -> str:
    """The id of the base image the lock pins, built (once per machine) when it is not here.

    With no lock yet, the base is pinned first (and the lock written): commit it.
    """
    path = pins_path or base_lock_path()
    found = _current(client, tag, path)
    if found is not None:
        return found
    # Two processes (parallel test workers, two `make demo`s) must not both spend minutes building.
    with exclusive(Path(tempfile.gettempdir()) / _LOCK_NAME):
        found = _current(client, tag, path)
        if found is not None:
            return found
        pins = read_pins(path)
        if pins is None:
            pins = repin(path)
        return build_base(client, tag, pins)


def repin(path: Path | None = None, mirror: str | None = None) -> BasePins:
    """Resolve the base's packages from the mirror today and write them to the lock."""
    path = path or base_lock_path()
    mirror = mirror or current_mirror()
    old = read_pins(path) if path.exists() else None
    _rootfs.log(f"pinning the base packages from {mirror}")
    with tempfile.TemporaryDirectory(prefix="evaluator-pin-") as tmp:
        pins = resolve_pins(mirror, Path(tmp) / "target")
        for deb in (Path(tmp) / "target/var/cache/apt/archives").glob("*.deb"):
            _debs.keep(_debs.deb_cache(), deb)
    write_pins(path, pins)
    _rootfs.log(f"wrote {path}: {len(pins.packages)} packages, pins {pins.digest}"
                + _changes(old, pins))
    return pins


def _changes(old: BasePins | None, new: BasePins) -> str:
    if old is None:
        return ""
    before = {p.package: p.version for p in old.packages}
    after = {p.package: p.version for p in new.packages}
    changed = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
    if not changed:
        return " (no package changed)"
    return "; changed: " + ", ".join(f"{k} {before.get(k, '-')} -> {after.get(k, '-')}"
                                     for k in changed)


def current_mirror() -> str:
    """$EVAL_DEBIAN_MIRROR, else the mirror apt is configured with (any mirror with the pinned
    files works: the pins name files and hashes, not a mirror)."""
    return (settings.debian_mirror or "").rstrip("/") or debian_mirror()


def debian_mirror(
    sources_dir: Path = Path("/etc/apt/sources.list.d"),
    sources_list: Path = Path("/etc/apt/sources.list"),
) -> str:
    """The Debian mirror apt is configured with for bookworm, or the public default."""
    for path in sorted(glob.glob(str(sources_dir / "*.sources"))):
        for stanza in re.split(r"\n\s*\n", Path(path).read_text(errors="replace")):
            fields = _deb822_fields(stanza)
            suites = fields.get("suites", "").split()
            if SUITE in suites and "deb" in fields.get("types", "deb").split():
                uris = fields.get("uris", "").split()
                if uris:
                    return uris[0].rstrip("/")
    if sources_list.is_file():
        for line in sources_list.read_text(errors="replace").splitlines():
            words = re.sub(r"\[[^]]*\]", " ", line.split("#", 1)[0]).split()
            if len(words) >= 3 and words[0] == "deb" and words[2] == SUITE:
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


def base_is_current(client: docker.DockerClient, tag: str = BASE_TAG) -> str | None:
    """The id of the tagged base when it is built from the pins in the base lock, else None."""
    return _current(client, tag, base_lock_path())


def _current(client: docker.DockerClient, tag: str, path: Path) -> str | None:
    """The tagged base when it was built from the pins in `path`."""
    try:
        image = client.images.get(tag)
    except docker.errors.ImageNotFound:
        return None
    except docker.errors.DockerException as e:
        raise InfraError(f"cannot look up image {tag}: {e}") from e
    pins = read_pins(path)
    if pins is None or (image.labels or {}).get(PINS_LABEL) != pins.digest:
        return None
    return str(image.id)


def build_base(client: docker.DockerClient, tag: str, pins: BasePins) -> str:
    """Build the base from `pins` and load it as `tag`; its id depends on the pins alone."""
    mirror = current_mirror()
    started = time.monotonic()
    _rootfs.log(f"building {tag} from pins {pins.digest} ({len(pins.packages)} packages, "
                f"fetched from {mirror} unless cached in {_debs.deb_cache()}; about a minute)")
    files = _debs.fetch(pins, mirror, _debs.deb_cache())  # names every missing package, first
    if shutil.which("debootstrap") is None:
        raise BadInputError(
            f"building the base image {tag} needs debootstrap: run `apt-get install debootstrap`")
    if os.geteuid() != 0:
        raise InfraError(
            f"building the base image {tag} runs debootstrap, which needs root: run "
            "`sudo python -m evaluator.images base` once (and `apt-get install debootstrap`)")
    if debootstrap_version() != pins.debootstrap:
        _rootfs.log(f"warning: debootstrap {debootstrap_version()} here, {pins.debootstrap} "
                    f"pinned the lock; another version may lay files out differently (a "
                    "different image id)")
    with tempfile.TemporaryDirectory(prefix="evaluator-base-") as tmp:
        rootfs, layer = Path(tmp) / "rootfs", Path(tmp) / "layer.tar"
        try:
            repo = _debs.local_repo(pins, files, Path(tmp) / "repo")
            _rootfs.debootstrap(rootfs, pins, repo)
            _rootfs.normalise(rootfs)
            _rootfs.log("writing the layer")
            with layer.open("wb") as out:
                diff_id = write_layer(tree_entries(rootfs, _EMPTY_DIRS), out)
        finally:
            _rootfs.unmount_below(rootfs)
        config = image_config(
            [diff_id], {**_CONFIG, "Labels": {"evaluator.base": "1", PINS_LABEL: pins.digest}},
            [{"created": CREATED, "created_by": f"evaluator base: debootstrap {pins.variant} "
              f"{SUITE} + {','.join(pins.include)}, pins {pins.digest}"}], pins.architecture)
        image_id = load_image(client, tag, config, [(diff_id, layer)])
    _rootfs.log(f"built {tag} = {image_id} in {time.monotonic() - started:.0f}s")
    return image_id

