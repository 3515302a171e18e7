"""Task images: a task's repository laid onto the base image and committed as one fixed commit.

The commit is made with fixed names, emails and dates, so its sha depends only on the files; a
repository with no other history, remotes or reflog gives the agent nothing to dig up.
"""

from __future__ import annotations

import io
import os
import shlex
import tarfile
from pathlib import Path, PurePosixPath

import docker
import docker.errors

from evaluator.errors import BadInputError, InfraError
from evaluator.hashing import hash_tree

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
}


def build_task_image(
    client: docker.DockerClient,
    *,
    base_image: str,
    tag: str,
    repo_dir: Path,
    workdir: str = "/testbed",
    user: str = "1000:1000",
) -> str:
    """Build `tag` from `base_image` with `repo_dir` committed at `workdir`; return the image id."""
    repo_dir = Path(repo_dir)
    if not repo_dir.is_dir():
        raise BadInputError(f"task repository {repo_dir} is not a directory")
    if not PurePosixPath(workdir).is_absolute():
        raise BadInputError(f"workdir {workdir!r} must be an absolute path")
    base_id = _resolve(client, base_image)
    labels = {SOURCE_LABEL: hash_tree(repo_dir), BASE_LABEL: base_id}
    context = _context(repo_dir, _dockerfile(base_id, workdir, user))
    try:
        image, _logs = client.images.build(
            fileobj=context,
            custom_context=True,
            tag=tag,
            labels=labels,
            pull=False,
            rm=True,
            forcerm=True,
            network_mode="none",
        )
    except docker.errors.BuildError as e:
        output = "".join(str(chunk.get("stream", chunk.get("error", ""))) for chunk in e.build_log)
        raise InfraError(f"building task image {tag} failed: {e.msg}\n{output[-4000:]}") from e
    except docker.errors.DockerException as e:
        raise InfraError(f"building task image {tag} failed: {e}") from e
    return str(image.id)


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
        base_id = _resolve(client, base_image)
    except BadInputError:
        return False
    return labels.get(BASE_LABEL) == base_id and labels.get(SOURCE_LABEL) == hash_tree(repo_dir)


def _resolve(client: docker.DockerClient, reference: str) -> str:
    try:
        return str(client.images.get(reference).id)
    except docker.errors.ImageNotFound as e:
        raise BadInputError(
            f"base image {reference} is not present locally: build it with "
            "`python -m evaluator.images base`"
        ) from e
    except docker.errors.DockerException as e:
        raise InfraError(f"cannot look up image {reference}: {e}") from e


def _dockerfile(base_id: str, workdir: str, user: str) -> str:
    env = " ".join(f"{k}={shlex.quote(v)}" for k, v in _GIT_ENV.items())
    quoted = shlex.quote(workdir)
    # The commit runs as the sandbox user, so .git is owned like the files the agent will edit;
    # the reflog is deleted because it records when and by whom the commit was made.
    commit = (
        f"cd {quoted} && export {env} && git init -q -b main . && git add -A "
        "&& git -c commit.gpgsign=false commit -q --allow-empty -m base && rm -rf .git/logs"
    )
    return "\n".join(
        [
            f"FROM {base_id}",
            "USER root",
            # Images built elsewhere may own the repository by another uid than the sandbox user.
            "RUN git config --system safe.directory '*'",
            f"COPY --chown={user} repo/ {workdir}/",
            f"USER {user}",
            f"RUN {commit}",
            f"WORKDIR {workdir}",
            "",
        ]
    )


def _context(repo_dir: Path, dockerfile: str) -> io.BytesIO:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tar:
        _add_bytes(tar, "Dockerfile", dockerfile.encode(), 0o644)
        tar.add(repo_dir, arcname="repo", recursive=False, filter=_normalise)
        for path in _walk(repo_dir):
            tar.add(
                path,
                arcname="repo/" + path.relative_to(repo_dir).as_posix(),
                recursive=False,
                filter=_normalise,
            )
    buf.seek(0)
    return buf


def _walk(root: Path) -> list[Path]:
    out: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in _EXCLUDED_DIRS)
        base = Path(dirpath)
        out.extend(base / d for d in dirnames)
        out.extend(base / f for f in sorted(filenames) if not f.endswith(".pyc"))
    return out


def _normalise(info: tarfile.TarInfo) -> tarfile.TarInfo:
    # Host owners and times must not reach the image: only content and the exec bit matter.
    info.uid = info.gid = 0
    info.uname = info.gname = ""
    info.mtime = 946684800
    if info.isfile():
        info.mode = 0o755 if info.mode & 0o111 else 0o644
    elif info.isdir():
        info.mode = 0o755
    return info


def _add_bytes(tar: tarfile.TarFile, name: str, data: bytes, mode: int) -> None:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    info.mode = mode
    info.mtime = 946684800
    tar.addfile(info, io.BytesIO(data))
