"""Sealed images: a task image whose repository shows its base commit and nothing after it.

An image built from an upstream clone can hold the fix itself: later commits on a branch, tags,
a reflog, a stash, notes, dangling objects, an alternates folder. Sealing reads the repository
once per (image, workdir, base commit) with the image's own git (`_seal_script`) and, where it
holds anything beyond the base commit's history and the tags on it, derives an image with one
more layer: `.git` replaced (an opaque folder) by a repository of exactly those objects, HEAD
at the base, no reflog, whiteouts over what the old repository reached outside the workdir.
Where there is nothing to hide, the image is its own seal. Either way the answer is a tag,
`evaluator/sealed:<key>`, so every later sandbox of any process on this engine finds it with
one lookup; the layer's bytes are this machine's (git's index keeps stat data), so the
sealed image's id is in no key: the key's inputs (image digest, base commit, this code) decide
what the sealed repository holds.
"""

from __future__ import annotations

import io
import tarfile
import tempfile
import time
from pathlib import Path
from typing import Any

import docker
import docker.errors
import requests

from evaluator.console import say
from evaluator.errors import BadInputError, InfraError
from evaluator.filelock import exclusive
from evaluator.hashing import hash_json
from evaluator.images._history import History, parse_history
from evaluator.images._layer import CREATED, _Chunks, _Hashing, image_config, load_image
from evaluator.images._seal_script import SCRIPT, SEALER

SEALED_REPO = "evaluator/sealed"
SEALED_FROM = "evaluator.sealed-from"
# Where the seal script reads its input and writes the layer (`SCRATCH/layer`).
SCRATCH = "/.evaluator-seal"
_TIMEOUT_S = 3600
_ERRORS = (docker.errors.DockerException, requests.RequestException, ConnectionError)
# Read everything, write the scratch folder, keep the image's owners and modes in the layer.
_CAPS = ["CHOWN", "DAC_OVERRIDE", "DAC_READ_SEARCH", "FOWNER"]
# Config keys `docker inspect` adds that are a container's, not the image's.
_NOT_IMAGE = {"Hostname", "Domainname", "AttachStdin", "AttachStdout", "AttachStderr", "Tty",
              "OpenStdin", "StdinOnce", "Image"}


def seal_tag(image_id: str, workdir: str, base_commit: str) -> str:
    """The tag of an image's seal; the script's own hash in it, so a changed seal re-seals."""
    key = hash_json(["seal", image_id, workdir.rstrip("/") or "/", base_commit, SEALER])
    return f"{SEALED_REPO}:{key[:40]}"


def sealed_image(client: Any, image_id: str, workdir: str, base_commit: str, *,
                 labels: dict[str, str] | None = None, clean: bool = False) -> str:
    """The id of the image agents and graders use for `image_id` at `base_commit`, sealing it
    first if no process on this engine has (one at a time per seal on this machine). `clean`:
    the caller has just inspected the repository and found nothing to hide."""
    tag = seal_tag(image_id, workdir, base_commit)
    found = _lookup(client, tag)
    if found is not None:
        return found
    with exclusive(_lock_path(tag)):
        found = _lookup(client, tag)
        if found is not None:
            return found
        if clean:
            return _tag(client, image_id, tag)
        return _seal(client, image_id, workdir, base_commit, tag, labels or {})


def inspect_history(client: Any, image: str, workdir: str, base_commit: str,
                    gold_patch: bytes | None = None, *,
                    labels: dict[str, str] | None = None) -> History:
    """Read what the repository at `workdir` of `image` holds beyond `base_commit`'s history,
    and where it already holds the files `gold_patch` leaves."""
    files = {"gold.patch": gold_patch} if gold_patch else {}
    code, out, container = _run(client, image, "inspect", workdir, base_commit, files,
                                labels or {})
    _remove(container)
    if code != 0:
        seal_failed(code, out, image, workdir, base_commit, "reading the repository's history")
    return parse_history(out)


def _seal(client: Any, image_id: str, workdir: str, base: str, tag: str,
          labels: dict[str, str]) -> str:
    started = time.monotonic()
    code, out, container = _run(client, image_id, "seal", workdir, base, {}, labels)
    try:
        if code == 10:
            return _tag(client, image_id, tag)
        if code != 0:
            seal_failed(code, out, image_id, workdir, base, "sealing the repository")
        with tempfile.TemporaryDirectory(prefix="evaluator-seal-") as tmp:
            layer = Path(tmp) / "layer.tar"
            diff_id = _layer(container, layer)
            _remove(container)
            container = None
            sealed = _load(client, image_id, workdir, base, tag, diff_id, layer)
    finally:
        if container is not None:
            _remove(container)
    history = parse_history(out)
    say(f"evaluator: sealed {workdir} of {image_id[:19]} at {base[:12]} in "
        f"{time.monotonic() - started:.1f}s ({len(history.findings)} finding(s) hidden)")
    return sealed


def _run(client: Any, image: str, mode: str, workdir: str, base: str, files: dict[str, bytes],
         labels: dict[str, str]) -> tuple[int, str, Any]:
    try:
        container = client.containers.create(
            image, ["seal", mode, workdir, base, SCRATCH], entrypoint=["/bin/sh", "-c", SCRIPT],
            user="0:0", working_dir="/", network_mode="none", cap_drop=["ALL"], cap_add=_CAPS,
            security_opt=["no-new-privileges"], labels={**labels, "evaluator.purpose": "seal"})
    except docker.errors.ImageNotFound:
        raise BadInputError(f"image {image} is not on this Docker engine: run `doit lock:<set>` "
                            "for the task set that names it") from None
    except _ERRORS as e:
        raise InfraError(f"cannot start a container of {image} to read its repository: {e}") from e
    try:
        container.put_archive("/", _tar({f"{SCRATCH[1:]}/{k}": v for k, v in files.items()},
                                        SCRATCH[1:]))
        container.start()
        status = container.wait(timeout=_TIMEOUT_S)
        out = container.logs().decode("utf-8", errors="replace")
    except BaseException as e:
        _remove(container)
        if isinstance(e, _ERRORS):
            raise InfraError(f"reading the repository of {image}: {e}") from e
        raise
    return int(status.get("StatusCode", -1)), out, container


def seal_failed(code: int, out: str, image: str, workdir: str, base: str, what: str) -> None:
    """Raise for the seal script's exit `code` (not 0 or 10): bad input for 3-5, else infra."""
    tail = out.strip()[-1500:]
    if code in (3, 4, 5):
        raise BadInputError(f"{what} at {workdir} of image {image} at {base[:12]}: {tail}")
    raise InfraError(f"{what} at {workdir} of image {image} failed (exit {code}): {tail}")


def _layer(container: Any, out: Path) -> str:
    """The scratch folder's `layer/` as an image layer (its first component stripped)."""
    try:
        chunks, _ = container.get_archive(f"{SCRATCH}/layer")
    except _ERRORS as e:
        raise InfraError(f"reading the sealed repository out of its container: {e}") from e
    with out.open("wb") as f:
        hasher = _Hashing(f)
        with tarfile.open(fileobj=_Chunks(chunks), mode="r|") as src, \
                tarfile.open(fileobj=hasher, mode="w",  # type: ignore[call-overload]
                             format=tarfile.PAX_FORMAT) as dst:
            for member in src:
                name = member.name.partition("/")[2]
                if not name:
                    continue
                member.name = name
                if member.islnk():
                    member.linkname = member.linkname.partition("/")[2]
                dst.addfile(member, src.extractfile(member) if member.isreg() else None)
    return "sha256:" + hasher.digest.hexdigest()


def _load(client: Any, image_id: str, workdir: str, base: str, tag: str, diff_id: str,
          layer: Path) -> str:
    try:
        attrs = client.api.inspect_image(image_id)
    except _ERRORS as e:
        raise InfraError(f"inspecting {image_id}: {e}") from e
    config = {k: v for k, v in (attrs.get("Config") or {}).items()
              if k not in _NOT_IMAGE and v not in (None, "", [], {})}
    config["Labels"] = {**(config.get("Labels") or {}), SEALED_FROM: image_id,
                        "evaluator.sealed-base": base, "evaluator.sealed-workdir": workdir}
    diff_ids = list(attrs["RootFS"]["Layers"])
    history = [{"created": CREATED, "created_by": f"layer {i} of {image_id}"}
               for i in range(len(diff_ids))]
    history.append({"created": CREATED, "created_by": f"evaluator seal: {workdir} at {base}"})
    raw = image_config(diff_ids + [diff_id], config, history,
                       str(attrs.get("Architecture") or "amd64"))
    return load_image(client, tag, raw, [(d, None) for d in diff_ids] + [(diff_id, layer)],
                      parent=image_id)


def _lookup(client: Any, tag: str) -> str | None:
    try:
        return str(client.images.get(tag).id)
    except docker.errors.ImageNotFound:
        return None
    except _ERRORS as e:
        raise InfraError(f"looking up the sealed image {tag}: {e}") from e


def _tag(client: Any, image_id: str, tag: str) -> str:
    repo, _, name = tag.partition(":")
    try:
        client.api.tag(image_id, repo, name)
    except _ERRORS as e:
        raise InfraError(f"tagging {image_id} as its own seal {tag}: {e}") from e
    return image_id


def _remove(container: Any) -> None:
    try:
        container.remove(force=True)
    except _ERRORS:
        pass  # its labels let leftover cleanup take it


def _lock_path(tag: str) -> Path:
    """One process on this machine seals a given image at a time; the others wait for it."""
    return Path(tempfile.gettempdir()) / f"evaluator-seal-{tag.rpartition(':')[2][:24]}.lock"


def _tar(files: dict[str, bytes], folder: str) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        info = tarfile.TarInfo(folder)
        info.type, info.mode = tarfile.DIRTYPE, 0o700
        tar.addfile(info)
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size, info.mode = len(data), 0o600
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()
