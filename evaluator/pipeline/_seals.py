"""At lock time, each task image's view of the future: what its repository holds beyond the base
commit (recorded in the lock, said on the lock's output) and its seal, made once here so that
no attempt or grade waits for it.

Tasks that name the same image content, workdir and base commit share one read of the
repository (their gold patches placed against it in the same container) and one seal; distinct
ones are read several at a time. A relock keeps what the previous lock recorded wherever the
image, base, workdir, gold patch and sealing code are unchanged and the seal is still here.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Any

from evaluator.console import say
from evaluator.errors import BadInputError, InfraError
from evaluator.images import (
    SEALER,
    history_summary,
    inspect_histories,
    inspect_history,
    seal_tag,
    sealed_image,
)
from evaluator.lock import Lock, TaskPin, fan_out
from evaluator.sandbox import managed_labels
from evaluator.taskset import Task, TaskSet

_LIFETIME_S = 3600

Group = tuple[str, str, str]  # (image pin, workdir, base commit)


def seal_set(task_set: TaskSet, lock: Lock, client: Any,
             previous: dict[str, Any] | None = None, jobs: int = 1) -> Lock:
    """The lock with each task's `history`; every image sealed at its base commit on this
    engine, `jobs` distinct (image, workdir, base commit) at a time. A task whose image, base
    commit, workdir and gold patch are as in `previous` (the old lock's tasks) and whose seal is
    on this engine keeps its recorded history: relocking a set re-reads only what changed.
    Every task is tried: one BadInputError names each task that cannot be sealed."""
    pins, started = dict(lock.tasks), time.monotonic()
    groups: dict[Group, list[Task]] = {}
    for task in task_set.tasks:
        pin = pins[task.id]
        groups.setdefault((pin.image, task.spec.workdir, pin.base_commit), []).append(task)
    done = fan_out(lambda g: _seal_group(client, g, groups[g], pins, previous or {}),
                   list(groups), jobs)
    problems, leaking, kept, reads = [], 0, 0, 0
    for group, tasks in groups.items():
        answer = done[group]
        if isinstance(answer, BadInputError):
            problems += [f"task {t.id!r} ({t.dir / 'task.yaml'}): {answer}" for t in tasks]
            continue
        records, read = answer
        reads += read
        for task in tasks:
            record, was_kept = records[task.id]
            kept += was_kept
            pin = pins[task.id]
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
        f"{time.monotonic() - started:.1f}s, {reads} read(s) of {len(groups)} distinct image "
        f"and base commit(s) ({kept} unchanged since the last lock): "
        f"{leaking} leak (sealed), {len(pins) - leaking} show nothing past their base commit", err=True)
    return dataclasses.replace(lock, tasks=pins)


def _seal_group(client: Any, group: Group, tasks: list[Task], pins: dict[str, TaskPin],
                previous: dict[str, Any]) -> tuple[dict[str, tuple[dict[str, Any], bool]], int]:
    """Per task of the group, (its history record, whether the previous lock's was kept), and
    how many reads of the repository it took (0 or 1)."""
    image, workdir, base = group
    try:
        image_id = str(client.images.get(image).id)
    except Exception as exc:  # noqa: BLE001 - the resolver just found it; say what went wrong
        raise InfraError(f"looking up {image} after pinning it: {exc}") from exc
    out: dict[str, tuple[dict[str, Any], bool]] = {}
    present: dict[bool, bool] = {}  # a derived seal or the image itself: on this engine?
    for task in tasks:
        old = _unchanged(task, pins[task.id], previous.get(task.id))
        if old is None:
            continue
        derived = bool(old.get("findings"))
        if derived not in present:
            present[derived] = _seal_present(client, image_id, workdir, base, derived)
        if present[derived]:
            out[task.id] = (dict(old), True)
    rest = [t for t in tasks if t.id not in out]
    if not rest:
        return out, 0
    labels = managed_labels("lock", _LIFETIME_S)
    golds = {t.id: (t.dir / t.spec.gold_patch).read_bytes() for t in rest}
    histories = inspect_histories(client, image_id, workdir, base, golds, labels=labels)
    findings = next(iter(histories.values())).findings
    sealed = sealed_image(client, image_id, workdir, base, labels=labels, clean=not findings)
    if sealed != image_id:
        after = inspect_history(client, sealed, workdir, base, labels=labels)
        if after.findings:
            raise InfraError(f"the seal of {image} at {base[:12]} ({sealed[:19]}) still shows "
                             f"{history_summary(after.to_dict())}; remove it "
                             f"(`docker rmi {sealed[7:19]}`) and lock again")
    for task in rest:
        out[task.id] = (dataclasses.replace(histories[task.id], workdir=workdir).to_dict(), False)
    return out, 1


def _unchanged(task: Task, pin: TaskPin, old: Any) -> dict[str, Any] | None:
    """The old lock's history of this task, if it still holds: same image content, base,
    workdir, gold patch and sealing code."""
    try:
        history = old["history"]
        same = (old["image"]["pinned"] == pin.image and old["base_commit"]["sha"] == pin.base_commit
                and old["files"].get(task.spec.gold_patch) == pin.files.get(task.spec.gold_patch)
                and history.get("sealer") == SEALER and history.get("workdir") == task.spec.workdir)
    except (KeyError, TypeError, AttributeError):
        return None
    return history if same and isinstance(history, dict) else None


def _seal_present(client: Any, image_id: str, workdir: str, base: str, derived: bool) -> bool:
    """Whether the seal a kept history stands for is on this engine: a derived image (the
    history found something to hide), or the image itself, a tag away (tagged here if not)."""
    try:
        if derived:
            client.images.get(seal_tag(image_id, workdir, base))
        else:
            sealed_image(client, image_id, workdir, base, clean=True)
    except Exception:  # noqa: BLE001 - not here (or not answerable): read it again
        return False
    return True
