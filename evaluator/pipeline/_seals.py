"""At lock time, each task image's view of the future: what its repository holds beyond the base
commit (recorded in the lock, said on the lock's output) and its seal, made once here so that
no attempt or grade waits for it."""

from __future__ import annotations

import dataclasses
import time
from typing import Any

from evaluator.console import say
from evaluator.errors import BadInputError, InfraError
from evaluator.images import (
    SEALER,
    History,
    history_summary,
    inspect_history,
    seal_tag,
    sealed_image,
)
from evaluator.lock import Lock, TaskPin
from evaluator.sandbox import managed_labels
from evaluator.taskset import Task, TaskSet

_LIFETIME_S = 3600


def seal_set(task_set: TaskSet, lock: Lock, client: Any,
             previous: dict[str, Any] | None = None) -> Lock:
    """The lock with each task's `history`; every image sealed at its base commit on this
    engine. A task whose image, base commit, workdir and gold patch are as in `previous` (the
    old lock's tasks) and whose seal is on this engine keeps its recorded history: relocking a
    set re-reads only what changed. Every task is tried: one BadInputError names each task that
    cannot be sealed."""
    pins, problems, leaking, kept, started = dict(lock.tasks), [], 0, 0, time.monotonic()
    for task in task_set.tasks:
        pin = pins[task.id]
        try:
            record = _kept(client, task, pin, (previous or {}).get(task.id))
            kept += record is not None
            if record is None:
                record = _seal_task(client, task, pin.image, pin.base_commit).to_dict()
        except BadInputError as exc:
            problems.append(f"task {task.id!r} ({task.dir / 'task.yaml'}): {exc}")
            continue
        pins[task.id] = dataclasses.replace(pin, history=record)
        if record.get("leaks"):
            leaking += 1
            say(f"task {task.id}: its image shows more than base commit "
                f"{pin.base_commit[:12]}: {history_summary(record)}; agents and grades see "
                "its sealed repository only", err=True)
    if problems:
        raise BadInputError(f"cannot seal task set {task_set.name!r}: {len(problems)} task(s) "
                            "have problems:\n" + "\n".join(f"  - {p}" for p in problems))
    say(f"checked {len(pins)} image(s) for a view of the future in "
        f"{time.monotonic() - started:.1f}s ({kept} unchanged since the last lock): "
        f"{leaking} leak (sealed), {len(pins) - leaking} show nothing past their base commit", err=True)
    return dataclasses.replace(lock, tasks=pins)


def _kept(client: Any, task: Task, pin: TaskPin, old: Any) -> dict[str, Any] | None:
    """The old lock's history of this task, if it still holds (same image content, base,
    workdir, gold patch and sealing code) and its seal is here or is the image itself."""
    try:
        history = old["history"]
        same = (old["image"]["pinned"] == pin.image and old["base_commit"]["sha"] == pin.base_commit
                and old["files"].get(task.spec.gold_patch) == pin.files.get(task.spec.gold_patch)
                and history.get("sealer") == SEALER and history.get("workdir") == task.spec.workdir)
    except (KeyError, TypeError, AttributeError):
        return None
    if not same:
        return None
    try:
        image_id = str(client.images.get(pin.image).id)
        if history.get("findings"):  # a derived seal: kept only if it is on this engine
            client.images.get(seal_tag(image_id, task.spec.workdir, pin.base_commit))
        else:  # the same content showed nothing to hide: it is its own seal, a tag away
            sealed_image(client, image_id, task.spec.workdir, pin.base_commit, clean=True)
    except Exception:  # noqa: BLE001 - not here (or not answerable): read it again
        return None
    return dict(history)


def _seal_task(client: Any, task: Task, image: str, base: str) -> History:
    labels = managed_labels("lock", _LIFETIME_S)
    workdir = task.spec.workdir
    try:
        image_id = str(client.images.get(image).id)
    except Exception as exc:  # noqa: BLE001 - the resolver just found it; say what went wrong
        raise InfraError(f"looking up {image} after pinning it: {exc}") from exc
    gold = (task.dir / task.spec.gold_patch).read_bytes()
    history = inspect_history(client, image_id, workdir, base, gold, labels=labels)
    sealed = sealed_image(client, image_id, workdir, base, labels=labels,
                          clean=not history.findings)
    if sealed != image_id:
        after = inspect_history(client, sealed, workdir, base, labels=labels)
        if after.findings:
            raise InfraError(f"the seal of {image} at {base[:12]} ({sealed[:19]}) still shows "
                             f"{history_summary(after.to_dict())}; remove it "
                             f"(`docker rmi {sealed[7:19]}`) and lock again")
    return dataclasses.replace(history, workdir=workdir)
