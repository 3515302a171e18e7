"""Task images: a task's repository laid onto the base image as one layer at one fixed commit.

The commit is made by the base image's own git (pinned, so its objects are the same bytes on
every machine) with fixed names, emails and dates; the layer and the config are written here
(`_layer`), so the image id depends only on the base, the files, the workdir and the user. A
repository with no other history, remotes or reflog gives the agent nothing to dig up.
"""

from __future__ import annotations

import io
import os
import re
import shlex
import tarfile
import tempfile
from pathlib import Path, PurePosixPath
from typing import Any

import docker
import docker.errors

from evaluator.errors import BadInputError, InfraError
from evaluator.hashing import hash_tree
from evaluator.images._gitindex import without_stat
from evaluator.images._layer import CREATED, Entry, image_config, load_image, write_layer

# Where a task image holds its repository and whom its sandboxes run as, unless the task says
# otherwise (SWE-bench's layout; the task schema, the sandboxes and the importer default to it).
TASK_WORKDIR = "/testbed"
TASK_USER = "1000:1000"

SOURCE_LABEL = "evaluator.source"
BASE_LABEL = "evaluator.base"

_EXCLUDED_DIRS = {"__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache", ".git"}
_GIT_ENV = {
    "GIT_AUTHOR_NAME": "evaluator",
    "GIT_AUTHOR_EMAIL": "evaluator@localhost",
    "GIT_AUTHOR_DATE": "2000-01-01T00:00:00Z",
    "GIT_COMMITTER_NAME": "evaluator",
    "GIT_COMMITTER_EMAIL": "evaluator@localhost",
    "GIT_COMMITTER_DATE": "2000-01-01T00:00:00Z",
    "GIT_CONFIG_NOSYSTEM": "1",
    "HOME": "/nonexistent",
    "TZ": "UTC",
}
# Images built elsewhere may own the repository by another uid than the sandbox user.
_GITCONFIG = b"[safe]\n\tdirectory = *\n"
# The base config's keys that describe how a container runs; engine-specific noise is dropped.
_KEPT = ("Env", "Cmd", "Entrypoint", "Shell", "StopSignal", "ExposedPorts", "Volumes", "Labels")


def build_task_image(
    client: docker.DockerClient,
    *,
    base_image: str,
    tag: str,
    repo_dir: Path,
    workdir: str = TASK_WORKDIR,
    user: str = TASK_USER,
) -> str:
    """Build `tag` from `base_image` with `repo_dir` committed at `workdir`; return the image id."""
    repo_dir = Path(repo_dir)
    if not repo_dir.is_dir():
        raise BadInputError(f"task repository {repo_dir} is not a directory")
    if not PurePosixPath(workdir).is_absolute() or ".." in PurePosixPath(workdir).parts:
        raise BadInputError(f"workdir {workdir!r} must be an absolute path without '..'")
    base = _resolve(client, base_image)
    wd = PurePosixPath(workdir).as_posix().strip("/")
    files = _repo_entries(repo_dir, wd)
    uid, gid, dot_git = _commit(client, str(base.id), workdir, user, files)
    for entry in files + dot_git:
        entry.uid, entry.gid = uid, gid
    parents = PurePosixPath(wd).parents
    entries = [Entry(p.as_posix(), tarfile.DIRTYPE, 0o755) for p in parents if str(p) != "."]
    entries += [Entry(wd, tarfile.DIRTYPE, 0o755, uid, gid), *files, *dot_git,
                Entry("etc", tarfile.DIRTYPE, 0o755),
                Entry("etc/gitconfig", tarfile.REGTYPE, 0o644, data=_GITCONFIG)]
    attrs = base.attrs
    labels = {SOURCE_LABEL: hash_tree(repo_dir), BASE_LABEL: str(base.id)}
    config = {k: v for k, v in (attrs.get("Config") or {}).items() if k in _KEPT and v}
    config.update(Labels={**config.get("Labels", {}), **labels}, WorkingDir=workdir, User=user)
    diff_ids = list(attrs["RootFS"]["Layers"])
    with tempfile.TemporaryDirectory(prefix="evaluator-task-") as tmp:
        layer = Path(tmp) / "layer.tar"
        with layer.open("wb") as out:
            diff_id = write_layer(entries, out)
        history = [{"created": CREATED, "created_by": f"layer {i} of {base.id}"}
                   for i in range(len(diff_ids))]
        history.append({"created": CREATED, "created_by": f"evaluator task: {workdir} at one "
                        f"fixed commit, owned by {user}"})
        raw = image_config(diff_ids + [diff_id], config, history,
                           str(attrs.get("Architecture") or "amd64"))
        try:
            return load_image(client, tag, raw, [(d, None) for d in diff_ids] + [(diff_id, layer)],
                              parent=str(base.id))
        except InfraError as e:
            raise InfraError(f"building task image {tag} failed: {e}") from e


def task_image_current(
    client: docker.DockerClient, tag: str, repo_dir: Path, base_image: str
) -> bool:
    """Whether `tag` exists and was built from this exact repository content and base image."""
    try:
        image = client.images.get(tag)
    except docker.errors.ImageNotFound:
        return False
    except docker.errors.DockerException as e:
        raise InfraError(f"cannot look up image {tag}: {e}") from e
    labels = image.labels or {}
    try:
        base_id = str(_resolve(client, base_image).id)
    except BadInputError:
        return False
    return labels.get(BASE_LABEL) == base_id and labels.get(SOURCE_LABEL) == hash_tree(repo_dir)


def _resolve(client: docker.DockerClient, reference: str) -> Any:
    try:
        return client.images.get(reference)
    except docker.errors.ImageNotFound as e:
        raise BadInputError(
            f"base image {reference} is not present locally: build it with "
            "`python -m evaluator.images base`"
        ) from e
    except docker.errors.DockerException as e:
        raise InfraError(f"cannot look up image {reference}: {e}") from e


def _repo_entries(root: Path, wd: str) -> list[Entry]:
    out: list[Entry] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in _EXCLUDED_DIRS)
        base = Path(dirpath)
        for name in dirnames + sorted(f for f in filenames if not f.endswith(".pyc")):
            path = base / name
            rel = f"{wd}/{path.relative_to(root).as_posix()}"
            if path.is_symlink():
                out.append(Entry(rel, tarfile.SYMTYPE, 0o777, target=os.readlink(path)))
                if name in dirnames:
                    dirnames.remove(name)  # os.walk does not descend into it either
            elif path.is_dir():
                out.append(Entry(rel, tarfile.DIRTYPE, 0o755))
            elif path.is_file():
                # Host owners and times never reach the image: only content and the exec bit.
                mode = 0o755 if os.stat(path).st_mode & 0o111 else 0o644
                out.append(Entry(rel, tarfile.REGTYPE, mode, data=path))
    return out


def _commit(client: docker.DockerClient, base_id: str, workdir: str, user: str,
            files: list[Entry]) -> tuple[int, int, list[Entry]]:
    """Commit `files` with the base image's git; the sandbox user's ids and the .git entries."""
    numeric = re.fullmatch(r"(\d+)(?::(\d+))?", user)
    ids = "" if numeric else 'id -u "$1"; id -g "$1"; '
    env = " ".join(f"{k}={shlex.quote(v)}" for k, v in _GIT_ENV.items())
    script = (f'set -e; {ids}cd "$0"; export {env}; git init -q -b main . && git add -A && '
              'git -c commit.gpgsign=false commit -q --allow-empty -m base && rm -rf .git/logs')
    try:
        container = client.containers.create(
            base_id, ["sh", "-c", script, workdir, user], user="0:0", network_mode="none",
            cap_drop=["ALL"],
            security_opt=["no-new-privileges"], labels={"evaluator.purpose": "task-image-build"})
    except docker.errors.DockerException as e:
        raise InfraError(f"cannot start git in {base_id} to commit the task repository: {e}") from e
    try:
        container.put_archive("/", _tar(files))
        container.start()
        status = container.wait(timeout=600)
        logs = container.logs().decode(errors="replace")
        if status.get("StatusCode") != 0:
            raise BadInputError(f"committing the task repository failed (user {user!r}, "
                                f"workdir {workdir}): {logs[-2000:]}")
        stream, _ = container.get_archive(f"{workdir}/.git")
        dot_git = _git_entries(b"".join(stream), workdir.strip("/"))
    except docker.errors.DockerException as e:
        raise InfraError(f"committing the task repository in {base_id} failed: {e}") from e
    finally:
        try:
            container.remove(force=True)
        except docker.errors.DockerException:
            pass  # a leftover is removed with the other labelled leftovers
    if numeric:
        uid = int(numeric.group(1))
        return uid, int(numeric.group(2) or uid), dot_git
    words = logs.split()
    return int(words[0]), int(words[1]), dot_git


def _tar(files: list[Entry]) -> bytes:
    buf = io.BytesIO()
    write_layer(files, buf)
    return buf.getvalue()


def _git_entries(archive: bytes, wd: str) -> list[Entry]:
    out = []
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        for m in tar.getmembers():
            if not (m.isdir() or m.isfile()):
                continue  # git writes neither links nor devices in a fresh repository
            name = f"{wd}/{m.name}"
            if m.isdir():
                out.append(Entry(name, tarfile.DIRTYPE, m.mode & 0o7777))
                continue
            f = tar.extractfile(m)
            data = f.read() if f is not None else b""
            if m.name == ".git/index":
                data = without_stat(data)
            out.append(Entry(name, tarfile.REGTYPE, m.mode & 0o7777, data=data))
    return out
