"""Load a task set from disk, checking every file before anything runs."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from evaluator.datafiles import parse_model
from evaluator.errors import BadInputError
from evaluator.taskset._content import read_text, text_problems
from evaluator.taskset._schema import SetSpec, TaskSpec

_TASK_FILE_FIELDS = ("problem_statement", "gold_patch")


@dataclass(frozen=True)
class Task:
    """A validated task: its spec plus the absolute paths of its files."""

    spec: TaskSpec
    dir: Path

    @property
    def id(self) -> str:
        return self.spec.id

    def path(self, field: str) -> Path:
        """Absolute path of a file field of the spec (already checked to stay in the folder)."""
        return self.dir / getattr(self.spec, field)

    @property
    def problem_statement(self) -> str:
        try:
            return read_text(self.path("problem_statement"), "the problem statement")
        except ValueError as exc:  # the lock refuses it; a set locked before is named here
            raise BadInputError(f"task {self.id!r}: {exc}") from None

    def content_problems(self) -> list[str]:
        """Why this task's text cannot be locked (not UTF-8, absurdly long); empty when it can."""
        return text_problems(self.path("problem_statement"))

    @property
    def gold_patch(self) -> bytes:
        return self.path("gold_patch").read_bytes()

    def hidden_test_files(self) -> dict[str, Path]:
        """Repository-relative path -> file on disk, for every hidden test file."""
        root = self.path("hidden_tests")
        out = {}
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = sorted(d for d in dirnames if d not in {"__pycache__", ".pytest_cache"})
            for name in sorted(filenames):
                if not name.endswith(".pyc"):
                    f = Path(dirpath) / name
                    out[f.relative_to(root).as_posix()] = f
        return out


@dataclass(frozen=True)
class TaskSet:
    """A validated task set: `tasks/<name>/`."""

    name: str
    dir: Path
    spec: SetSpec
    tasks: tuple[Task, ...]

    def task(self, task_id: str) -> Task:
        for t in self.tasks:
            if t.id == task_id:
                return t
        raise BadInputError(f"task set {self.name!r} has no task {task_id!r}")


def load_task_set(name: str, root: str | os.PathLike[str] = "tasks") -> TaskSet:
    """Read and validate `root/<name>/`; raise one BadInputError listing every problem found."""
    set_dir = Path(root) / name
    if set_dir.is_dir() and not (set_dir / "set.yaml").is_file():
        raise BadInputError(
            f"{set_dir} has no set.yaml, so it is not a task set"
            + (" (the folder is empty)" if not any(set_dir.iterdir()) else "")
            + f"; create {set_dir / 'set.yaml'} (copy tasks/demo/set.yaml, set `name: {name}`) "
            "as described in tasks/README.md"
        )
    if not (set_dir / "set.yaml").is_file():
        known = sorted(p.name for p in Path(root).iterdir() if (p / "set.yaml").is_file()) if Path(
            root
        ).is_dir() else []
        raise BadInputError(
            f"no task set {name!r}: {set_dir / 'set.yaml'} does not exist "
            f"(known sets: {', '.join(known) or 'none'}); create it as described in tasks/README.md"
        )
    problems: list[str] = []
    spec = parse_model(set_dir / "set.yaml", SetSpec, problems)
    if isinstance(spec, SetSpec) and spec.name != name:
        problems.append(f"{set_dir / 'set.yaml'}: field 'name': is {spec.name!r}, must be {name!r}")
    tasks = []
    for task_dir in sorted(p for p in set_dir.iterdir() if p.is_dir()):
        if not (task_dir / "task.yaml").is_file():
            problems.append(f"{task_dir}: a task folder needs a task.yaml (see tasks/README.md)")
            continue
        task = _load_task(task_dir, problems)
        if task is not None:
            tasks.append(task)
    if not tasks and not problems:
        problems.append(f"{set_dir}: the set has no tasks; add one folder per task, each with a "
                        "task.yaml (see tasks/README.md)")
    if problems:
        raise BadInputError(f"task set {name!r} is invalid:\n" + "\n".join(f"  - {p}" for p in problems))
    assert isinstance(spec, SetSpec)
    return TaskSet(name=name, dir=set_dir.resolve(), spec=spec, tasks=tuple(tasks))


def _load_task(task_dir: Path, problems: list[str]) -> Task | None:
    file = task_dir / "task.yaml"
    spec = parse_model(file, TaskSpec, problems)
    if not isinstance(spec, TaskSpec):
        return None
    before = len(problems)
    problems.extend(_escaping_links(task_dir))
    if spec.id != task_dir.name:
        problems.append(f"{file}: field 'id': is {spec.id!r}, must equal the folder name {task_dir.name!r}")
    for field in _TASK_FILE_FIELDS:
        _check_inside(task_dir, file, field, getattr(spec, field), problems, want_dir=False)
    _check_inside(task_dir, file, "hidden_tests", spec.hidden_tests, problems, want_dir=True)
    if spec.build is not None:
        _check_inside(task_dir, file, "build.repo", spec.build.repo, problems, want_dir=True)
    if spec.build is not None and spec.image_is_pinned:
        problems.append(f"{file}: field 'image': a locally built image takes a tag, not a digest")
    overlap = sorted(set(spec.fail_to_pass) & set(spec.pass_to_pass))
    if overlap:
        problems.append(f"{file}: ids in both fail_to_pass and pass_to_pass: {', '.join(overlap)}")
    return Task(spec=spec, dir=Path(os.path.realpath(task_dir))) if len(problems) == before else None


def _escaping_links(task_dir: Path) -> list[str]:
    """Every symlink in the task folder that resolves outside it (or nowhere): a hidden test
    linked to /etc/passwd would otherwise be locked and copied into the grading sandbox."""
    top = os.path.realpath(task_dir)
    out = []
    for dirpath, dirnames, filenames in os.walk(task_dir):
        for name in (*dirnames, *filenames):
            path = os.path.join(dirpath, name)
            if os.path.islink(path):
                real = os.path.realpath(path)
                if not (real + os.sep).startswith(top + os.sep) or not os.path.exists(real):
                    out.append(f"{path}: a symlink to {os.readlink(path)!r}, outside the task "
                               "folder; replace it with the file itself")
    return out


def _check_inside(
    task_dir: Path, file: Path, field: str, value: str, problems: list[str], *, want_dir: bool
) -> None:
    """A path field must name an existing file or folder inside the task folder."""
    where = f"{file}: field '{field}'"
    if os.path.isabs(value) or ".." in Path(value).parts:
        problems.append(f"{where}: {value!r} leaves the task folder; use a relative path inside it")
        return
    # os.path rather than pathlib, and realpath only where a symlink is met: this runs for
    # every task on every (no-op) doit run.
    real = os.path.join(task_dir, value)
    cur, escapes = str(task_dir), False
    for part in Path(value).parts:
        cur = os.path.join(cur, part)
        if os.path.islink(cur):
            escapes = escapes or not os.path.realpath(cur).startswith(
                os.path.realpath(task_dir) + os.sep)
    if not os.path.exists(real):
        kind = "folder" if want_dir else "file"
        problems.append(f"{where}: {kind} {value!r} does not exist in {task_dir}")
        return
    if escapes:
        problems.append(f"{where}: {value!r} resolves outside the task folder (a symlink?)")
    elif want_dir != os.path.isdir(real):
        problems.append(f"{where}: {value!r} must be a {'folder' if want_dir else 'file'}")
