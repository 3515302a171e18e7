"""Hidden tests from a `test_patch`: the files it touches, as they are once it is applied to the
base commit. Files it modifies need their base content, read from a `BaseFiles` source (the
task's image, or a local clone); files it only adds need none."""

from __future__ import annotations

import base64
import os
import subprocess
import tempfile
from pathlib import Path
from typing import Any, Protocol

import docker.errors

from evaluator.errors import BadInputError, InfraError
from evaluator.grading import patch_paths, unsafe_paths
from evaluator.lock import DockerPinResolver, ImageMissing
from evaluator.swebench._command import Unmapped
from evaluator.swebench._fetch import MissingImage


class BaseFiles(Protocol):
    """The content of repository files at a commit; absent files are left out of the answer."""

    def read(self, commit: str, paths: list[str]) -> dict[str, bytes]: ...


class GitCloneFiles:
    """Base files from a local clone of the repository (`--repo-dir`)."""

    def __init__(self, repo: Path) -> None:
        self._repo = repo

    def read(self, commit: str, paths: list[str]) -> dict[str, bytes]:
        return _batch(["git", "-C", str(self._repo)], commit, paths, _run_local)


class ImageFiles:
    """Base files from the repository inside a task image (no network, no capabilities)."""

    def __init__(self, client: Any, image: str, workdir: str) -> None:
        self._client, self._image, self._workdir = client, image, workdir

    def read(self, commit: str, paths: list[str]) -> dict[str, bytes]:
        def run(argv: list[str], stdin: bytes) -> bytes:
            script = 'printf "%s" "$0" | base64 -d | "$@"'
            try:
                image = DockerPinResolver(self._client).image(self._image)  # pulled if missing
                out = self._client.containers.run(
                    image, ["sh", "-c", script, base64.b64encode(stdin).decode(), *argv],
                    network_mode="none", cap_drop=["ALL"], remove=True, user="root",
                    security_opt=["no-new-privileges"], working_dir=self._workdir)
            except (docker.errors.ImageNotFound, ImageMissing):
                raise MissingImage(f"image {self._image} is not on this Docker engine") from None
            except BadInputError as exc:
                raise Unmapped(str(exc)) from None
            except docker.errors.DockerException as exc:
                raise InfraError(f"cannot read base files from {self._image}: {exc}") from exc
            return bytes(out)

        return _batch(["git", "-c", "safe.directory=*"], commit, paths, run)


def _run_local(argv: list[str], stdin: bytes) -> bytes:
    try:
        return subprocess.run(argv, input=stdin, capture_output=True, check=True,
                              timeout=120).stdout
    except (OSError, subprocess.SubprocessError) as exc:
        raise Unmapped(f"cannot read base files with {' '.join(argv[:3])}: {exc}") from None


def _batch(git: list[str], commit: str, paths: list[str], run: Any) -> dict[str, bytes]:
    # Each request is answered in order: a missing one says "<request> missing".
    requests = [f"{commit}:{p}" for p in paths]
    out = run([*git, "cat-file", "--batch"], "".join(r + "\n" for r in requests).encode())
    found: dict[str, bytes] = {}
    i = 0
    for path in paths:
        nl = out.index(b"\n", i)
        header = out[i:nl].decode("utf-8", "surrogateescape")
        i = nl + 1
        if header.endswith((" missing", " ambiguous")):
            continue
        size = int(header.rsplit(" ", 1)[1])
        if header.split(" ")[1] == "blob":
            found[path] = out[i:i + size]
        i += size + 1
    return found


def hidden_files(test_patch: str, base_commit: str, base: BaseFiles | None) -> dict[str, bytes]:
    """Repository path -> content after `test_patch`; Unmapped when it deletes or renames a file
    (hidden tests are laid over the tree and cannot take a file away) or cannot be applied."""
    data = test_patch.encode("utf-8", "surrogateescape")
    paths = patch_paths(data)
    bad = unsafe_paths(paths)
    if bad:
        raise Unmapped(f"test_patch touches paths outside the repository: {bad[:5]}")
    if not paths:
        raise Unmapped("test_patch is empty: there are no hidden tests to grade with")
    with tempfile.TemporaryDirectory(prefix="swebench-hidden-") as tmp:
        root = Path(tmp)
        stat = subprocess.run(["git", "apply", "--numstat", "--summary", "-"], input=data,
                              capture_output=True, cwd=tmp, timeout=60)
        if stat.returncode != 0:
            raise Unmapped(f"test_patch is not a patch git can read: "
                           f"{stat.stderr.decode(errors='replace')[-300:]}")
        gone = [ln.split()[-1] for ln in stat.stdout.decode(errors="replace").splitlines()
                if ln.startswith((" delete mode", " rename "))]
        if gone:
            raise Unmapped(f"test_patch deletes or renames {gone[:3]}: hidden tests can only "
                           "add or replace files")
        needed = _modified(data)
        if needed:
            if base is None:
                raise Unmapped(f"test_patch modifies {needed[:3]}: their base content is "
                               "needed; give the image (pulled or built) or --repo-dir")
            found = base.read(base_commit, needed)
            missing = [p for p in needed if p not in found]
            if missing:
                raise Unmapped(f"test_patch modifies {missing[:3]}, which base commit "
                               f"{base_commit[:12]} does not have")
            for rel, content in found.items():
                (root / rel).parent.mkdir(parents=True, exist_ok=True)
                (root / rel).write_bytes(content)
        r = subprocess.run(["git", "apply", "--whitespace=nowarn", "-"], input=data,
                           capture_output=True, cwd=tmp, timeout=60)
        if r.returncode != 0:
            raise Unmapped(f"test_patch does not apply at base commit {base_commit[:12]}: "
                           f"{r.stderr.decode(errors='replace')[-300:]}")
        return {p: (root / p).read_bytes() for p in paths if (root / p).is_file()
                and not os.path.islink(root / p)}


def _modified(patch: bytes) -> list[str]:
    """Paths the patch changes that exist before it (not `--- /dev/null`)."""
    out, old = [], None
    for line in patch.decode("utf-8", "surrogateescape").splitlines():
        if line.startswith("--- "):
            old = line[4:].split("\t")[0].strip()
        elif line.startswith("+++ ") and old is not None:
            if old != "/dev/null":
                out.append(old[2:] if old.startswith("a/") else old)
            old = None
    return sorted(set(out))
