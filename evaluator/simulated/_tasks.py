"""Which task a conversation is about: found by the problem statement the agent was shown."""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from pathlib import Path

import yaml

from evaluator.errors import BadInputError

from ._patch import parse_patch

_log = logging.getLogger("evaluator.simulated")


@dataclass(frozen=True)
class SimTask:
    """What the simulator needs of a task: its id, the bug report and the reference fix."""

    task_id: str
    problem: str
    gold_patch: str

    @property
    def touched_files(self) -> list[str]:
        """Files the gold patch changes, the ones that already exist first."""
        _, files = parse_patch(self.gold_patch)
        ordered = [f for f in files if not f.is_new] + [f for f in files if f.is_new]
        return [f.path for f in ordered if f.path]


class TaskIndex:
    """Tasks under `<root>/<set>/<task>/`, matched by their problem statement."""

    def __init__(self, tasks: list[SimTask]) -> None:
        # Longest first, so a statement that contains another one's wins.
        self._tasks = sorted(tasks, key=lambda t: len(t.problem), reverse=True)

    @classmethod
    def load(cls, root: str | os.PathLike[str]) -> TaskIndex:
        """Read every task it can; half-written tasks are skipped with a warning, since other
        task sets may be in progress while the simulator runs."""
        root = Path(root)
        if not root.is_dir():
            raise BadInputError(f"{root}: tasks root is not a directory")
        tasks = []
        for spec in sorted(root.glob("*/*/task.yaml")):
            try:
                tasks.append(_load_task(spec))
            except (OSError, ValueError, yaml.YAMLError) as e:
                _log.warning("skipping %s: %s", spec.parent, e)
        return cls(tasks)

    def __len__(self) -> int:
        return len(self._tasks)

    def match(self, text: str) -> SimTask | None:
        text = text.replace("\r\n", "\n")
        for task in self._tasks:
            if task.problem in text:
                return task
        return None


def _load_task(spec: Path) -> SimTask:
    folder = spec.parent
    data = yaml.safe_load(spec.read_text(encoding="utf-8")) or {}
    if not isinstance(data, dict):
        raise ValueError("task.yaml is not a mapping")
    task_id = str(data.get("id") or folder.name)
    problem = _read(folder, data.get("problem_statement", "problem.md")).strip()
    if not problem:
        raise ValueError("empty problem statement")
    gold_name = data.get("gold_patch", "gold.patch")
    gold_path = folder / str(gold_name)
    # Bytes as they are: a patch to a CRLF file must keep its carriage returns.
    gold = gold_path.read_bytes().decode("utf-8") if gold_path.is_file() else ""
    return SimTask(task_id, problem, gold)


def _read(folder: Path, name: object) -> str:
    return (folder / str(name)).read_text(encoding="utf-8")


__all__ = ["SimTask", "TaskIndex"]
