"""A leaderboard submission as its authors published it: a folder of SWE-bench's experiments
repository, `evaluation/<split>/<date>_<name>/`.

    all_preds.jsonl | preds.json        the predictions (JSONL; or a JSON list, or an object by id)
    results/results.json                what the leaderboard counts, in one of two shapes:
        {"resolved": [...], "no_generation": [...], "no_logs": [...]}          (docker harness)
        {"no_generation", "generated", "with_logs", "install_fail", "reset_failed",
         "no_apply", "applied", "test_errored", "test_timeout", "resolved"}    (2023-24 harness)
    logs/<instance_id>/report.json      {id: {patch_is_None, patch_exists,
                                        patch_successfully_applied, resolved, tests_status}}
                                        (tests_status only once tests ran; swebench 5 adds
                                        infra_failure)
    logs/<instance_id>/test_output.txt  the eval script's output, tests between the markers
    logs/<instance_id>.<model>.eval.log the 2023-24 harness's one log per instance
    metadata.yaml, README.md, trajs/    not read

Every file but the predictions is optional, per instance too: what is missing stays missing.
A file that cannot be read fails only the instance it is about, with a note naming it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evaluator.errors import BadInputError
from evaluator.subjects import Prediction
from evaluator.submissions import F2P, P2P, PublishedEntry, PublishedRecord
from evaluator.swebench._rows import read_predictions

PREDICTIONS = ("all_preds.jsonl", "preds.json")
SPLITS = ("lite", "verified", "test", "dev", "multimodal", "multilingual")
RESULTS = Path("results") / "results.json"
# The 2023-24 harness's lists, each of which says the instance was evaluated and not resolved.
_OLD_UNRESOLVED = ("no_apply", "install_fail", "reset_failed", "test_errored", "test_timeout",
                   "applied", "with_logs")


@dataclass
class Submission:
    folder: Path
    name: str
    split: str
    predictions: list[Prediction]
    entries: dict[str, PublishedEntry]  # by instance id (output not yet stored)
    outputs: dict[str, tuple[str, bytes]] = field(default_factory=dict)  # id -> (file, bytes)
    shape: list[str] = field(default_factory=list)
    models: list[str] = field(default_factory=list)

    def record(self, task_set: str, tasks: Mapping[str, str],
               put_blob: Callable[[bytes], str]) -> PublishedRecord:
        """The record to store: each entry mapped to its task (`tasks`: instance id -> task
        id), its output stored through `put_blob`."""
        entries = []
        for iid, e in sorted(self.entries.items()):
            file, data = self.outputs.get(iid, ("", b""))
            entries.append(e.model_copy(update={
                "task_id": tasks.get(iid), "output": put_blob(data) if data else "",
                "output_file": file}))
        return PublishedRecord(task_set=task_set, subject=self.name, split=self.split,
                               folder=str(self.folder), models=self.models, shape=self.shape,
                               entries=entries)


def read_submission(folder: Path, name: str | None = None, split: str | None = None
                    ) -> Submission:
    """The submission in `folder`; BadInputError when it has no predictions to read."""
    if not folder.is_dir():
        raise BadInputError(f"{folder}: not a folder; give a submission folder "
                            "(evaluation/<split>/<date>_<name>/ of SWE-bench's experiments)")
    preds_file = next((folder / n for n in PREDICTIONS if (folder / n).is_file()), None)
    if preds_file is None:
        raise BadInputError(f"{folder} holds no predictions: expected one of "
                            f"{', '.join(PREDICTIONS)}")
    subject = name or folder.name
    read = read_predictions(preds_file)
    preds = [Prediction(p.where, p.instance_id, subject, p.patch) for p in read]
    results, shape = _results(folder)
    sub = Submission(folder, subject, split if split is not None else _split(folder), preds, {},
                     shape=[preds_file.name, *shape],
                     models=sorted({p.subject for p in read}))
    logs = folder / "logs"
    ids = {p.instance_id for p in preds} | set(_listed(results)) | _logged(logs)
    harnesses = set()
    for iid in sorted(ids):
        entry, output = _entry(iid, results, logs, {p.instance_id for p in preds})
        sub.entries[iid] = entry
        if output is not None:
            sub.outputs[iid] = output
        if entry.harness:
            harnesses.add(entry.harness)
    sub.shape += sorted(harnesses)
    return sub


def _split(folder: Path) -> str:
    parent = folder.resolve().parent.name.lower()
    return parent if parent in SPLITS else ""


def _results(folder: Path) -> tuple[dict[str, list[str]] | None, list[str]]:
    path = folder / RESULTS
    if not path.is_file():
        return None, []
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise BadInputError(f"{path}: not readable JSON ({exc}); fix or remove it (the "
                            "per-instance report.json files are read without it)") from None
    if not isinstance(value, dict) or not all(
            isinstance(v, list) and all(isinstance(i, str) for i in v) for v in value.values()):
        raise BadInputError(f"{path}: must be an object of instance-id lists, as SWE-bench "
                            "writes it ({\"resolved\": [...], ...})")
    old = "generated" in value or "applied" in value
    lists = "2023-24 harness: generated, applied, resolved, ..." if old else \
        "resolved, no_generation, no_logs"
    return value, [f"{RESULTS} ({lists})"]


def _listed(results: dict[str, list[str]] | None) -> list[str]:
    return [i for ids in (results or {}).values() for i in ids]


def _logged(logs: Path) -> set[str]:
    if not logs.is_dir():
        return set()
    out = {p.name for p in logs.iterdir() if p.is_dir()}
    return out | {p.name.split(".", 1)[0] for p in logs.glob("*.eval.log")}


def _entry(iid: str, results: dict[str, list[str]] | None, logs: Path, predicted: set[str]
           ) -> tuple[PublishedEntry, tuple[str, bytes] | None]:
    notes: list[str] = [] if iid in predicted else ["not among the submission's predictions"]
    conflicts: list[str] = []
    report, harness = _report(logs / iid / "report.json", iid, notes)
    said = _from_results(results, iid, iid in predicted, notes)
    resolved, source = (said, str(RESULTS)) if said is not None else (None, "")
    if report is not None and isinstance(report.get("resolved"), bool):
        mine = bool(report["resolved"])
        if resolved is None and said is None and not _no_logs(results, iid):
            resolved, source = mine, f"logs/{iid}/report.json"
        elif resolved is not None and mine != resolved:
            conflicts.append(f"{RESULTS} says {'resolved' if resolved else 'not resolved'}, its "
                         f"report.json says {'resolved' if mine else 'not resolved'}")
    tests = _tests(report, notes) if report is not None else None
    if report is not None and report.get("resolved") is True and tests and any(
            tests[k]["failure"] for k in tests):
        conflicts.append("its report.json says resolved yet lists failing required tests")
    applied = report.get("patch_successfully_applied") if report is not None else None
    entry = PublishedEntry(instance_id=iid, resolved=resolved, source=source,
                           applied=applied if isinstance(applied, bool) else None, tests=tests,
                           harness=harness, notes=notes, conflicts=conflicts)
    return entry, _output(logs, iid)


def _report(path: Path, iid: str, notes: list[str]) -> tuple[dict[str, Any] | None, str]:
    if not path.is_file():
        return None, ""
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
        entry = value[iid] if isinstance(value, dict) and iid in value else value
        if not isinstance(entry, dict):
            raise ValueError("not an object")
    except (OSError, UnicodeDecodeError, ValueError, KeyError) as exc:
        notes.append(f"logs/{iid}/report.json is unreadable ({exc}): left out")
        return None, ""
    harness = ("report.json (swebench 5: infra_failure)" if "infra_failure" in entry
               else "report.json (docker harness)" if "tests_status" in entry
               else "report.json (no tests_status: no test ran)")
    return entry, harness


def _from_results(results: dict[str, list[str]] | None, iid: str, predicted: bool,
                  notes: list[str]) -> bool | None:
    if results is None:
        return None
    if iid in results.get("resolved", []):
        return True
    if iid in results.get("no_generation", []):
        notes.append("results.json: no_generation (no patch)")
        return False
    if _no_logs(results, iid):
        notes.append("results.json: no_logs (their run left no log): no outcome published")
        return None
    if "generated" in results or "applied" in results:  # the 2023-24 harness's lists
        lists = [k for k in _OLD_UNRESOLVED if iid in results.get(k, [])]
        if not lists:
            notes.append("results.json (2023-24): generated but in no list of an evaluated run")
            return None
        return False
    return False if predicted else None


def _no_logs(results: dict[str, list[str]] | None, iid: str) -> bool:
    return results is not None and iid in results.get("no_logs", [])


def _tests(report: dict[str, Any], notes: list[str]) -> dict[str, dict[str, list[str]]] | None:
    status = report.get("tests_status")
    if not isinstance(status, dict):
        return None
    out = {}
    for kind in (F2P, P2P):
        lists = status.get(kind, {})
        if not isinstance(lists, dict):
            notes.append(f"report.json's tests_status.{kind} is not an object: left out")
            return None
        out[kind] = {k: [str(t) for t in lists.get(k, []) or []] for k in ("success", "failure")}
    return out


def _output(logs: Path, iid: str) -> tuple[str, bytes] | None:
    for path in (logs / iid / "test_output.txt", *sorted(logs.glob(f"{iid}.*.eval.log"))):
        if path.is_file():
            try:
                return str(path.relative_to(logs.parent)), path.read_bytes()
            except OSError:
                return None
    return None
