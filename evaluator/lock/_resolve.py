"""Resolve a task set's floating references (image tags, git refs) and check a lock against disk."""

from __future__ import annotations

import re
from typing import Any, Protocol

import docker.errors

from evaluator.errors import BadInputError, InfraError, StaleLockError
from evaluator.hashing import hash_bytes, hash_file, hash_json, tree_file_strs
from evaluator.lock._model import Lock, TaskPin, lock_path, read_lock
from evaluator.taskset import Task, TaskSet

_SHA = re.compile(r"^[0-9a-f]{40}$")


class ImageMissing(BadInputError):
    """An image the engine does not have and could not pull; `fetch_hint` says how to get it."""


def fetch_hint(task: Task, set_name: str) -> str:
    """How to get the task's image onto the engine: the task's own `fetch` command, the set's
    build for images it builds, else a pull or a load."""
    ref = task.spec.image
    if task.spec.fetch.strip():
        return f"fetch it with `{task.spec.fetch.strip()}`, then lock again"
    if task.spec.build is not None:
        return f"build it with `doit images:{set_name}`, then lock again"
    return (f"pull it (`docker pull {ref}` where its registry is reachable) or load a saved copy "
            f"(`docker load -i FILE`), then lock again")


class PinResolver(Protocol):
    """Turns names into content pins; the Docker one asks the engine."""

    def image(self, ref: str) -> str:
        """An immutable reference for `ref`: name@sha256:... or an image id sha256:..."""
        ...

    def commit(self, image: str, workdir: str, ref: str, user: str | None = None) -> str:
        """The 40-hex sha `ref` names in the repository at `workdir` of `image`; with `user`,
        BadInputError when that user could not write there (sandboxes work on the image's own
        files)."""
        ...


class DockerPinResolver:
    """Resolves against the local Docker engine. An image it does not have is pulled once, here
    at lock time (a registry's per-instance images, as SWE-bench ships them), and pinned by the
    digest the registry gave it; everything after the lock uses that digest and never pulls."""

    def __init__(self, client: Any) -> None:
        self._client = client

    def image(self, ref: str) -> str:
        try:
            img = self._client.images.get(ref)
        except docker.errors.ImageNotFound:
            img = self._pull(ref)
        except docker.errors.DockerException as exc:
            raise InfraError(f"Docker engine error while resolving {ref!r}: {exc}") from exc
        if "@sha256:" in ref:
            return ref
        repo = ref.rsplit(":", 1)[0] if ":" in ref.rsplit("/", 1)[-1] else ref
        for digest in img.attrs.get("RepoDigests") or []:
            if digest.split("@", 1)[0] == repo:
                return str(digest)
        return str(img.id)  # no registry digest: the image id is the content pin on this engine

    def _pull(self, ref: str) -> Any:
        try:
            self._client.images.pull(ref)
            return self._client.images.get(ref)
        except docker.errors.DockerException as exc:
            raise ImageMissing(
                f"image {ref!r} is not on this Docker engine and pulling it failed ({exc})"
            ) from None

    def commit(self, image: str, workdir: str, ref: str, user: str | None = None) -> str:
        probe = ('git -c safe.directory="*" -C "$0" rev-parse --verify --quiet "$1^{commit}" '
                 '|| exit 3; ' + ('[ -w "$0" ] || exit 4' if user else "true"))
        try:
            out = self._client.containers.run(
                image, ["sh", "-c", probe, workdir, ref], network_mode="none", cap_drop=["ALL"],
                remove=True, user=user or "", security_opt=["no-new-privileges"],
                environment={"GIT_CONFIG_NOSYSTEM": "0"},
            )
        except docker.errors.ContainerError as exc:
            if exc.exit_status == 4:
                raise BadInputError(
                    f"{workdir} in image {image} is not writable by user {user!r}: sandboxes work "
                    f"on the image's own files, so chown the repository to that user in the image "
                    f"(or set `user` in task.yaml)"
                ) from None
            raise BadInputError(
                f"git ref {ref!r} does not name a commit in {workdir} of image {image}; "
                f"fix `base_commit` in task.yaml"
            ) from None
        except docker.errors.DockerException as exc:
            raise InfraError(f"Docker engine error while resolving {ref!r}: {exc}") from exc
        sha = out.decode().strip()
        if not _SHA.match(sha):
            raise BadInputError(f"git in {image} answered {sha!r} for {ref!r}, not a commit sha")
        return sha


def task_files(task: Task) -> dict[str, str]:
    """blake3 of every file in the task folder (caches and bytecode left out)."""
    prefix = len(str(task.dir)) + 1
    return {p[prefix:]: hash_file(p) for p in tree_file_strs(task.dir)}


def hidden_tests_hash(files: dict[str, str], task: Task) -> str:
    prefix = task.spec.hidden_tests.rstrip("/") + "/"
    return hash_json(sorted((p[len(prefix):], h) for p, h in files.items() if p.startswith(prefix)))


def resolve_lock(task_set: TaskSet, resolver: PinResolver) -> Lock:
    """Pin every task of the set: image digests, base commits and file hashes.

    Every task is tried: one BadInputError names each task and what is wrong with it.
    """
    pins: dict[str, TaskPin] = {}
    problems: list[str] = []
    for task in task_set.tasks:
        spec = task.spec
        bad = task.content_problems()
        if bad:  # the task's own fault: named here, never a crash in every attempt later
            problems.extend(f"task {task.id!r}: {p}" for p in bad)
            continue
        try:
            image = resolver.image(spec.image)
            base = resolver.commit(image, spec.workdir, spec.base_commit, spec.user)
        except BadInputError as exc:
            hint = f"; {fetch_hint(task, task_set.name)}" if isinstance(exc, ImageMissing) else ""
            problems.append(f"task {task.id!r} ({task.dir / 'task.yaml'}): {exc}{hint}")
            continue
        files = task_files(task)
        pins[task.id] = TaskPin(
            image_ref=spec.image,
            image=image,
            base_ref=spec.base_commit,
            base_commit=base,
            files=files,
            hidden_tests=hidden_tests_hash(files, task),
            test_command=spec.test_command,
        )
    if problems:
        raise BadInputError(f"cannot lock task set {task_set.name!r}: {len(problems)} task(s) "
                            "have problems:\n" + "\n".join(f"  - {p}" for p in problems))
    return Lock(task_set=task_set.name, set_file=hash_file(task_set.dir / "set.yaml"), tasks=pins)


def lock_problems(task_set: TaskSet, lock: Lock) -> list[str]:
    """Every input of the set that the lock does not pin as it is on disk now."""
    fix = f"run `doit lock:{task_set.name}`"
    problems = []
    if lock.task_set != task_set.name:
        problems.append(f"the lock is for task set {lock.task_set!r}, not {task_set.name!r}")
    if hash_file(task_set.dir / "set.yaml") != lock.set_file:
        problems.append(f"{task_set.dir / 'set.yaml'} changed since the lock: {fix}")
    ids = {t.id for t in task_set.tasks}
    for tid in sorted(set(lock.tasks) - ids):
        problems.append(f"task {tid!r} is in the lock but not in the set: {fix}")
    for task in task_set.tasks:
        pin = lock.tasks.get(task.id)
        if pin is None:
            problems.append(f"task {task.id!r} is not pinned: {fix}")
            continue
        if not pin.image or "sha256:" not in pin.image:
            problems.append(f"task {task.id!r}: image {pin.image_ref!r} has no digest: {fix}")
        if task.spec.image != pin.image_ref:
            problems.append(f"task {task.id!r}: image changed to {task.spec.image!r}: {fix}")
        if task.spec.base_commit != pin.base_ref or not _SHA.match(pin.base_commit):
            problems.append(f"task {task.id!r}: base_commit is not pinned to a sha: {fix}")
        now = task_files(task)
        for rel in sorted(set(now) | set(pin.files)):
            if now.get(rel) != pin.files.get(rel):
                state = "added" if rel not in pin.files else "removed" if rel not in now else "changed"
                problems.append(f"task {task.id!r}: {rel} {state} since the lock: {fix}")
    return problems


def load_locked(task_set: TaskSet, lock_dir: str = "lock") -> Lock:
    """The set's lock, or StaleLockError listing every offending input and the fixing command."""
    lock = read_lock(task_set.name, lock_dir)
    problems = lock_problems(task_set, lock)
    if problems:
        raise StaleLockError(f"{lock_path(task_set.name, lock_dir)} is stale", problems)
    return lock


def blob_matches(data: bytes, pinned: str, what: str, task_set: str) -> bytes:
    """Check bytes read from disk against their pin before they are used."""
    if hash_bytes(data) != pinned:
        raise StaleLockError(f"{what} differs from the lock", [f"run `doit lock:{task_set}`"])
    return data
