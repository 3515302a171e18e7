"""SWE-bench instance rows from a JSON list, a JSON object of rows, JSON Lines, or a 5.x task repo
(`tasks/<id>/{task.yaml, tests.json, gold.patch, test.patch, eval.sh, Dockerfile, ...}`)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from evaluator.errors import BadInputError
from evaluator.subjects import Prediction

# Task-repo files that hold a column of their own (the rest of the row is in task.yaml).
_AS_FILE = {"patch": "gold.patch", "test_patch": "test.patch", "eval_script": "eval.sh",
            "problem_statement": "problem_statement.md", "hints_text": "hints.md"}
_OPTIONAL = {"hints_text", "eval_script"}


@dataclass(frozen=True)
class Row:
    """One instance as read, with where it came from (for the per-row report)."""

    where: str
    data: dict[str, Any]
    dockerfile: Path | None = None  # a task repo's Dockerfile: its folder is the build context

    @property
    def instance_id(self) -> str:
        return str(self.data.get("instance_id") or "?")


def _unreadable(where: str, why: str) -> Row:
    """A row that could not be read, kept in its place so that it fails alone: the importer
    skips it with its reason, the other rows go on."""
    return Row(where, {"_unreadable": why})


def read_rows(path: Path) -> list[Row]:
    """Every row of `path` (a file or a task repo folder); BadInputError naming the file when
    it is not JSON of rows at all. A JSONL line or a list item that is not a JSON object is a
    row of its own that says so (`_unreadable`), so one bad line fails only itself."""
    if path.is_dir():
        return _task_repo(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise BadInputError(f"{path}: cannot read it: {exc}") from None
    stripped = text.lstrip()
    if stripped.startswith(("[", "{")):
        try:
            value = json.loads(text)
        except json.JSONDecodeError as exc:
            if not stripped.startswith("{"):
                raise BadInputError(f"{path}: not valid JSON ({exc}); give a JSON list of "
                                    "rows, an object of rows, or one row per line") from None
        else:
            return _from_json(path, value)
    rows = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as exc:
            rows.append(_unreadable(f"{path}:{n}", f"not a JSON row ({exc}); each line of a "
                                    "JSONL file must be one JSON object"))
            continue
        if not isinstance(value, dict):
            rows.append(_unreadable(f"{path}:{n}", "a row must be a JSON object, got "
                                    f"{type(value).__name__}"))
            continue
        rows.append(Row(f"{path}:{n}", value))
    return rows


def _from_json(path: Path, value: Any) -> list[Row]:
    if isinstance(value, dict) and "instance_id" in value:
        return [Row(str(path), value)]
    if isinstance(value, dict):  # {instance_id: row}, as predictions dicts are written
        items = [({"instance_id": k, **v} if isinstance(v, dict) else v) for k, v in value.items()]
    elif isinstance(value, list):
        items = value
    else:
        raise BadInputError(f"{path}: must hold a list of rows, got {type(value).__name__}")
    rows = []
    for i, item in enumerate(items):
        rows.append(Row(f"{path}[{i}]", item) if isinstance(item, dict) else _unreadable(
            f"{path}[{i}]", f"a row must be a JSON object, got {type(item).__name__}"))
    return rows


def _task_repo(root: Path) -> list[Row]:
    tasks = root / "tasks"
    if not tasks.is_dir():
        raise BadInputError(f"{root} is a folder but not a SWE-bench task repo: it has no "
                            "tasks/ folder (tasks/<instance_id>/task.yaml, tests.json, ...)")
    rows = []
    for d in sorted(p for p in tasks.iterdir() if (p / "task.yaml").is_file()):
        rows.append(_task_dir(d))
    if not rows:
        raise BadInputError(f"{tasks} holds no task folders with a task.yaml")
    return rows


def _task_dir(d: Path) -> Row:
    where = str(d)
    try:
        data = yaml.safe_load((d / "task.yaml").read_text(encoding="utf-8")) or {}
    except (yaml.YAMLError, OSError, UnicodeDecodeError) as exc:
        return Row(where, {"instance_id": d.name, "_unreadable": f"task.yaml: {exc}"})
    if not isinstance(data, dict):
        return Row(where, {"instance_id": d.name, "_unreadable": "task.yaml is not a mapping"})
    data.setdefault("instance_id", d.name)
    for column, name in _AS_FILE.items():
        f = d / name
        if f.is_file():
            with open(f, encoding="utf-8", newline="") as fh:  # CRLF inside a patch stays
                data[column] = fh.read()
        elif column not in _OPTIONAL:
            data.setdefault("_missing", []).append(name)
    try:
        data.update(json.loads((d / "tests.json").read_text(encoding="utf-8")))
    except (OSError, json.JSONDecodeError, UnicodeDecodeError) as exc:
        data.setdefault("_missing", []).append(f"tests.json ({exc})")
    dockerfile = d / "Dockerfile"
    return Row(where, data, dockerfile if dockerfile.is_file() else None)


def id_list(row: dict[str, Any], column: str) -> list[str]:
    """A FAIL_TO_PASS / PASS_TO_PASS column: a list, or a JSON string of one."""
    value = row.get(column, [])
    if isinstance(value, str):
        try:
            value = json.loads(value) if value.strip() else []
        except json.JSONDecodeError:
            raise ValueError(f"{column} is a string but not a JSON list of test ids") from None
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError(f"{column} must be a list of test id strings")
    return value


def read_predictions(path: Path, refused: list[str] | None = None) -> list[Prediction]:
    """JSONL, a JSON list, or a JSON object keyed by instance id. A row that is not a prediction
    is named with its line and field: appended to `refused` and left out when a list is given
    (the other rows are graded), else raised as BadInputError."""
    out = []
    for row in read_rows(path):
        try:
            out.append(_prediction(row))
        except BadInputError as exc:
            if refused is None:
                raise
            refused.append(str(exc))
    return out


def _prediction(row: Row) -> Prediction:
    d = row.data
    if "_unreadable" in d:
        raise BadInputError(f"{row.where}: {d['_unreadable']}")
    iid, model, patch = d.get("instance_id"), d.get("model_name_or_path"), d.get("model_patch")
    if not isinstance(iid, str) or not iid:
        raise BadInputError(f"{row.where}: field 'instance_id' is missing or not a string")
    if not isinstance(model, str) or not model:
        raise BadInputError(f"{row.where}: field 'model_name_or_path' is missing; name the "
                            "model (it is the subject on the leaderboard)")
    if "model_patch" not in d:  # absent is not null: it would be graded as no patch at all
        raise BadInputError(f"{row.where}: field 'model_patch' is missing; SWE-bench writes it "
                            "on every row (null when the model made no patch)")
    if patch is not None and not isinstance(patch, str):
        raise BadInputError(f"{row.where}: field 'model_patch' must be a string or null")
    return Prediction(row.where, iid, model,
                      None if patch is None else patch.encode("utf-8", "surrogateescape"))
