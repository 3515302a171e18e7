"""Import SWE-bench rows into `tasks/<set>/` in this harness's schema, one whole task at a time.

Each task is written into a scratch folder beside the set and renamed into place only once every
file is written and its task.yaml validates, so a failed or killed import never leaves half a
task. Every row gets a line in the report: imported, unchanged, or skipped with the reason.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from evaluator.errors import BadInputError
from evaluator.hashing import hash_tree
from evaluator.images import TASK_WORKDIR
from evaluator.swebench._command import DEFAULT_SETUP, Unmapped, command_for
from evaluator.swebench._fetch import MissingImage, fetch_command, missing_hint
from evaluator.swebench._hidden import BaseFiles, hidden_files
from evaluator.swebench._idnotes import id_notes
from evaluator.swebench._instances import META_FILE
from evaluator.swebench._rows import Row, id_list
from evaluator.taskset import SetSpec, TaskSpec

_ID_BAD = re.compile(r"[^a-z0-9._-]+")
# What the importer keeps of a row beside our task.yaml, for the export back and for people.
_KEPT = ("instance_id", "repo", "version", "created_at", "environment_setup_commit",
         "hints_text", "log_parser", "eval_type", "image")
_REQUIRED = ("instance_id", "base_commit", "patch", "test_patch", "problem_statement")


def task_id_for(instance_id: str) -> str:
    """`django__django-11099` stays; other characters our ids do not allow become `-`."""
    tid = _ID_BAD.sub("-", instance_id.lower()).strip("-._")
    return tid if tid and tid[0].isalnum() else f"t-{tid}"


def default_image(instance_id: str) -> str:
    """The official image name of an instance (SWE-bench's convention for its own images)."""
    return f"swebench/sweb.eval.x86_64.{instance_id.lower().replace('__', '_1776_')}:latest"


@dataclass
class ImportOptions:
    set_name: str
    tasks_root: Path
    setup: str = DEFAULT_SETUP  # environment activation for rows without an eval_script
    user: str | None = None  # else the row's `user` (ours, from an export), else root
    workdir: str = TASK_WORKDIR
    image_template: str | None = None  # "{instance_id}" filled in; else the official name
    replace: bool = False
    base_files: Callable[[str], BaseFiles | None] = lambda image: None  # by the row's image
    build: Callable[[Row, str], str] | None = None  # (row, task id) -> tag of the built image


@dataclass
class RowReport:
    where: str
    instance_id: str
    task_id: str = ""
    status: str = "skipped"  # imported, replaced, unchanged, skipped
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def line(self) -> str:
        why = "; ".join(self.problems + self.notes)
        if self.status == "skipped":  # which line or folder, so it can be found and fixed
            why = f"{self.where}: {why}"
        return f"{self.status:9} {self.instance_id:40} -> {self.task_id or '-'}" + (
            f"  ({why})" if why else "")


def import_rows(rows: list[Row], opts: ImportOptions) -> list[RowReport]:
    set_dir = opts.tasks_root / opts.set_name
    made = _ensure_set(set_dir, opts.set_name)
    seen: set[str] = set()
    reports: list[RowReport] = []
    try:
        for row in rows:
            rep = RowReport(row.where, row.instance_id)
            try:
                files, tid, notes = _map(row, opts)
                rep.task_id, rep.notes = tid, notes
                if tid in seen:
                    raise Unmapped(f"another row of this import is already task {tid!r}")
                seen.add(tid)
                rep.status = _place(set_dir, tid, files, opts.replace)
            except Unmapped as exc:
                rep.problems.append(str(exc))
            reports.append(rep)
    finally:
        if made and not any(r.status != "skipped" for r in reports):
            _unmake(made)  # an import that placed nothing leaves no set behind
    return reports


def _map(row: Row, opts: ImportOptions) -> tuple[dict[str, bytes], str, list[str]]:
    data = row.data
    for problem in ("_unreadable",):
        if problem in data:
            raise Unmapped(str(data[problem]))
    if data.get("_missing"):
        raise Unmapped(f"the task folder lacks {', '.join(data['_missing'])}")
    absent = [c for c in _REQUIRED if not isinstance(data.get(c), str) or not data.get(c)]
    if absent:
        raise Unmapped(f"missing or empty column(s): {', '.join(absent)}")
    tid = task_id_for(str(data["instance_id"]))
    try:
        f2p, p2p = id_list(data, "FAIL_TO_PASS"), id_list(data, "PASS_TO_PASS")
    except ValueError as exc:
        raise Unmapped(str(exc)) from None
    if not f2p:
        raise Unmapped("FAIL_TO_PASS is empty: nothing would tell a fix from no fix")
    image, notes = _image(row, tid, opts)
    built = row.dockerfile is not None and opts.build is not None and not data.get("image")
    fetch = fetch_command(row, image, opts.set_name, built)
    try:
        hidden = hidden_files(str(data["test_patch"]), str(data["base_commit"]),
                              opts.base_files(image))
    except MissingImage:
        raise Unmapped(missing_hint(row, image, fetch)) from None
    cmd = command_for(data, sorted(hidden), opts.setup, opts.workdir)
    notes += [f"eval_script step left out: {s}" for s in cmd.dropped]
    notes += id_notes([*f2p, *p2p], hidden, cmd.results)
    spec: dict[str, Any] = {
        "id": tid, "image": image, "fetch": fetch, "workdir": opts.workdir,
        "base_commit": data["base_commit"],
        "user": opts.user or str(data.get("user") or "root"),
        "problem_statement": "problem.md", "hidden_tests": "hidden",
        "gold_patch": "gold.patch", "test_command": cmd.test_command,
        "fail_to_pass": f2p, "pass_to_pass": [t for t in p2p if t not in f2p],
        # what the row's PASS_TO_PASS means: as SWE-bench's harness counts it (a skip is kept
        # only where the runner's log names it: `grading.official_keeps`)
        "pass_to_pass_rule": "swebench",
    }
    if cmd.activate:
        spec["activate"] = cmd.activate
    if cmd.results != "junit":
        spec["results"] = cmd.results
    _validate(spec)
    meta = {k: data[k] for k in _KEPT if k in data}
    files = {"task.yaml": yaml.safe_dump(spec, sort_keys=False, allow_unicode=True).encode(),
             "problem.md": str(data["problem_statement"]).encode(),
             "gold.patch": str(data["patch"]).encode("utf-8", "surrogateescape"),
             META_FILE: (json.dumps(meta, indent=2, ensure_ascii=False) + "\n").encode(),
             **{f"hidden/{p}": b for p, b in hidden.items()}}
    return files, tid, notes


def _image(row: Row, tid: str, opts: ImportOptions) -> tuple[str, list[str]]:
    given = row.data.get("image")
    if row.dockerfile is not None and opts.build is not None and not given:
        return opts.build(row, tid), [f"image built from {row.dockerfile}"]
    if isinstance(given, str) and given:
        return given, []
    iid = str(row.data["instance_id"])
    if opts.image_template:
        return opts.image_template.replace("{instance_id}", iid).replace("{task_id}", tid), []
    return default_image(iid), []


def _validate(spec: dict[str, Any]) -> None:
    if "results" in spec and "results" not in TaskSpec.model_fields:
        raise Unmapped(f"its runner's results are read from the log ({spec['results']}), which "
                       "this harness's task schema does not support yet")
    try:
        TaskSpec.model_validate(spec)
    except ValidationError as exc:
        raise Unmapped("; ".join(f"field {'.'.join(map(str, e['loc']))}: {e['msg']}"
                                 for e in exc.errors())) from None


def _ensure_set(set_dir: Path, name: str) -> list[Path]:
    """Write the set's set.yaml unless it has one; what was made for it (folders topmost
    first, then set.yaml)."""
    if (set_dir / "set.yaml").is_file():
        return []
    if set_dir.exists() and any(set_dir.iterdir()):
        raise BadInputError(f"{set_dir} exists and is not a task set (no set.yaml); choose "
                            "another --set or remove the folder")
    spec = {"name": name, "description": "imported from SWE-bench rows", "gold_reps": 3,
            "sandbox": {"cpus": 2.0, "memory_mb": 4096, "pids": 1024, "disk_mb": 4096,
                        "exec_timeout_s": 1800, "sandbox_timeout_s": 3600}}
    SetSpec.model_validate(spec)
    made = [p for p in (*reversed(set_dir.parents), set_dir) if not p.exists()]
    set_dir.mkdir(parents=True, exist_ok=True)
    tmp = set_dir / f".set.yaml.{secrets.token_hex(4)}"
    tmp.write_text("# Written by `python -m evaluator import swebench`; edit freely.\n"
                   + yaml.safe_dump(spec, sort_keys=False))
    os.replace(tmp, set_dir / "set.yaml")
    return [*made, set_dir / "set.yaml"]


def _unmake(made: list[Path]) -> None:
    for path in reversed(made):
        try:
            path.rmdir() if path.is_dir() else path.unlink()
        except OSError:
            return  # something else is in it now: not ours to remove


def _place(set_dir: Path, tid: str, files: dict[str, bytes], replace: bool) -> str:
    """Write the task into a scratch folder next to the set, then rename it into place."""
    scratch = set_dir.parent / f".{set_dir.name}.import-{secrets.token_hex(6)}"
    new = scratch / tid
    try:
        for rel, data in files.items():
            path = new / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        final = set_dir / tid
        if final.exists():
            if hash_tree(final) == hash_tree(new):
                return "unchanged"
            if not replace:
                raise Unmapped(f"{final} exists with other content; pass --replace to "
                               "overwrite it, or import under another --set")
            os.rename(final, scratch / f"{tid}.old")
            os.rename(new, final)
            return "replaced"
        os.rename(new, final)
        return "imported"
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
