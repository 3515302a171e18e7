"""skopeo, the daemonless store's only way in and out: it copies an image by digest from a
registry (and checks the digest), from a docker-archive or OCI archive, or from a Docker engine,
into a `dir:` layout the store ingests, and back out. Its failures are typed by cause: an image
the registry does not hold is bad input, anything else is infrastructure.
"""

from __future__ import annotations

import json
import subprocess
import tarfile
from pathlib import Path

from evaluator.errors import BadInputError, InfraError

_SKOPEO_TIMEOUT_S = 3600


def archive_contents(path: Path) -> tuple[str, int, list[list[str]]]:
    """(skopeo transport, how many images, their names) of a docker or OCI archive."""
    try:
        with tarfile.open(path) as tar:
            members = {m.name.lstrip("./"): m for m in tar.getmembers()}
            if "manifest.json" in members:
                f = tar.extractfile(members["manifest.json"])
                listed = json.loads(f.read()) if f is not None else []
                return "docker-archive", len(listed), [list(e.get("RepoTags") or []) for e in listed]
            if "index.json" in members:
                return "oci-archive", 1, []
    except (tarfile.TarError, OSError, ValueError) as e:
        raise BadInputError(f"{path} is not a readable image archive: {e}") from e
    raise BadInputError(f"{path} is neither a docker-archive (`docker save`) nor an OCI archive")


def skopeo(args: list[str], what: str) -> None:
    try:
        out = subprocess.run(["skopeo", "--insecure-policy", *args], capture_output=True,
                             text=True, timeout=_SKOPEO_TIMEOUT_S)
    except FileNotFoundError:
        raise InfraError(f"{what}: skopeo is not installed (apt-get install skopeo); the "
                         "daemonless backend gets its images with it") from None
    except subprocess.TimeoutExpired as e:
        raise InfraError(f"{what}: skopeo did not finish in {_SKOPEO_TIMEOUT_S}s") from e
    if out.returncode != 0:
        detail = (out.stderr or out.stdout).strip()[-1500:]
        kind = BadInputError if "manifest unknown" in detail or "not found" in detail else InfraError
        raise kind(f"{what} failed: {detail}")


__all__ = ["archive_contents", "skopeo"]
