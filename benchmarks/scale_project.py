"""A project at a lab's size, made from the records of a real run (for bench_scale.py).

A set of many small tasks sharing one image (a template task cloned), agent versions (the
template's agents copied under new names), samples; a lock with real pins (the template task's
image and commit, each clone's own file hashes); and a store whose records are the template
run's attempt, grade, result and verdict records, re-keyed through the real planner and landed
through the store's own API. Only the shape is synthetic: every record parses, every key is the
one the harness derives, so `doit plan`, `eval`, `report` and the API treat it as a real run.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from evaluator.attempts import EvalPlan, PlannedAttempt, load_eval, plan_eval
from evaluator.gold import VALID, plan_gold
from evaluator.hashing import hash_file
from evaluator.lock import Lock, TaskPin, hidden_tests_hash, load_locked, task_files
from evaluator.store import Store
from evaluator.taskset import TaskSet, load_task_set
from evaluator.version import harness_version

_LANDED = ("kind", "key", "created")
GRADER = harness_version("grader")


@dataclass(frozen=True)
class Template:
    """What a real run left for one of its valid tasks: records to copy, pins to reuse."""

    task_set: TaskSet
    lock: Lock
    task_id: str
    verdict: dict[str, Any]
    runs: list[tuple[dict[str, Any], dict[str, Any], dict[str, Any]]]  # attempt, result, grade
    eval_file: Path
    agents_root: Path
    store: Path


def _link_or_copy(src: str, dst: str) -> None:
    try:
        os.link(src, dst)
    except OSError:
        shutil.copy2(src, dst)


def _body(record: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in record.items() if k not in _LANDED}


def read_template(set_name: str, tasks: Path, lock_dir: Path, store: Path, evals: Path,
                  agents: Path) -> Template:
    """The records of the task of `set_name` with the most graded attempts, read from the
    store as they are (whatever harness version made them: the copies take this one's)."""
    ts = load_task_set(set_name, tasks)
    lock = load_locked(ts, str(lock_dir))
    st = Store(store, remote=None)
    results = {r["attempt"]: r for r in st.query("result", task_set=set_name)}
    runs: dict[str, list[tuple[dict[str, Any], dict[str, Any], dict[str, Any]]]] = {}
    for attempt in st.query("attempt", task_set=set_name):
        result = results.get(attempt["key"])
        grade = result and st.get("grade", result["grade"])
        if result and grade:
            runs.setdefault(attempt["task_id"], []).append(
                (_body(attempt), _body(result), _body(grade)))
    verdicts = {v["task_id"]: v for v in st.query("verdict", task_set=set_name)
                if v.get("verdict") == VALID}
    runs = {t: r for t, r in runs.items() if t in verdicts}
    if not runs:
        raise SystemExit(f"no graded attempts of {set_name!r} in {store}: run `make demo` (or "
                         f"`doit eval:{set_name}`) first")
    task_id = max(sorted(runs), key=lambda t: len(runs[t]))
    return Template(ts, lock, task_id, _body(verdicts[task_id]), runs[task_id],
                    evals / f"{set_name}.yaml", agents, store)


@dataclass(frozen=True)
class ScaleProject:
    root: Path
    name: str
    plan: EvalPlan

    @property
    def env(self) -> dict[str, str]:
        r = self.root
        return {"EVAL_TASKS": str(r / "tasks"), "EVAL_LOCK_DIR": str(r / "lock"),
                "EVAL_STORE": str(r / "store"), "EVAL_EVALS": str(r / "evals"),
                "EVAL_AGENTS": str(r / "agents"), "EVAL_REPORTS": str(r / "reports")}

    def store(self) -> Store:
        return Store(self.root / "store", remote=None)


def build_project(t: Template, root: Path, name: str, tasks: int, agents: int,
                  samples: int) -> ScaleProject:
    """`tasks` clones of the template task, `agents` copies of its agents, `samples` each: a
    project with its lock and decided gold gate, and no attempt stored yet."""
    src = t.task_set.task(t.task_id)
    set_dir = root / "tasks" / name
    set_dir.mkdir(parents=True)
    set_spec = yaml.safe_load((t.task_set.dir / "set.yaml").read_text())
    set_spec["name"] = name
    (set_dir / "set.yaml").write_text(yaml.safe_dump(set_spec))
    task_yaml = yaml.safe_load((src.dir / "task.yaml").read_text())
    task_yaml.pop("build", None)  # every clone runs in the template's image, built already
    for i in range(tasks):
        d = set_dir / f"t{i:05d}"
        shutil.copytree(src.dir, d, ignore=shutil.ignore_patterns("repo", "__pycache__"))
        (d / "task.yaml").write_text(yaml.safe_dump({**task_yaml, "id": d.name}))
        # Tasks differ in their hidden tests (tasks alike in every pin share their grades).
        hidden = sorted((d / task_yaml.get("hidden_tests", "hidden")).rglob("*.py"))[0]
        hidden.write_text(hidden.read_text() + f"\n# clone {i}\n")
    ts = load_task_set(name, root / "tasks")
    pin = t.lock.pin(t.task_id)
    pins = {}
    for task in ts.tasks:
        files = task_files(task)
        pins[task.id] = TaskPin(pin.image_ref, pin.image, pin.base_ref, pin.base_commit, files,
                                hidden_tests_hash(files, task), pin.test_command, pin.history)
    lock = Lock(task_set=name, set_file=hash_file(set_dir / "set.yaml"), tasks=pins)
    (root / "lock").mkdir()
    (root / "lock" / f"{name}.lock").write_bytes(lock.to_json())

    spec = yaml.safe_load(t.eval_file.read_text())
    names = []
    for j in range(agents):
        base = spec["agents"][j % len(spec["agents"])]
        new = f"{base}-v{j:02d}"
        shutil.copytree(t.agents_root / base, root / "agents" / new)
        agent_yaml = root / "agents" / new / "agent.yaml"
        agent_yaml.write_text(yaml.safe_dump({**yaml.safe_load(agent_yaml.read_text()),
                                              "name": new}))
        names.append(new)
    (root / "evals").mkdir()
    for extra in t.eval_file.parent.glob("*.yaml"):
        if extra != t.eval_file:
            shutil.copy(extra, root / "evals" / extra.name)  # price tables and the like
    spec.update(task_set=name, agents=names, baseline=names[0], samples=samples,
                budget_usd=1e9)
    (root / "evals" / f"{name}.yaml").write_text(yaml.safe_dump(spec))

    store = Store(root / "store", remote=None)
    # The records' blobs (patches, trajectories, test outputs), linked where the disk allows.
    shutil.copytree(t.store / "blobs", root / "store" / "blobs", dirs_exist_ok=True,
                    copy_function=_link_or_copy)
    store.put_many("verdict", [
        (gp.verdict_key, {**t.verdict, "task_set": name, "task_id": gp.task.id,
                          "lock_version": lock.version, "grader_version": GRADER,
                          "gold_grades": list(gp.gold_keys), "empty_grades": list(gp.empty_keys)})
        for gp in plan_gold(ts, lock)])
    plan = plan_eval(ts, lock, load_eval(name, root / "evals"), store, root / "agents")
    return ScaleProject(root, name, plan)


def land_attempts(project: ScaleProject, t: Template, chosen: list[PlannedAttempt]) -> int:
    """Land an attempt, its grade and its result for each planned attempt in `chosen`, copied
    from the template's runs in turn and re-keyed; returns how many attempts landed."""
    store = project.store()
    version = project.plan.lock.version
    attempts, results, grades = [], [], []
    for i, pa in enumerate(chosen):
        attempt, result, grade = t.runs[i % len(t.runs)]
        agent = {"name": pa.agent.name, "identity": pa.agent.identity,
                 "prompt_hash": pa.agent.prompt_hash, "model": pa.agent.spec.model.id}
        where = {"task_set": project.name, "task_id": pa.task.id, "lock_version": version}
        attempts.append((pa.key, {**attempt, **where, "sample_idx": pa.sample_idx,
                                  "agent": agent, "subject": pa.agent.name}))
        grade_key = pa.grade_key(attempt["patch"])
        grades.append((grade_key, {**grade, **where, "grader_version": GRADER}))
        results.append((pa.result_key(attempt["patch"]), {
            **result, **where, "sample_idx": pa.sample_idx, "subject": pa.agent.name,
            "agent_identity": pa.agent.identity, "attempt": pa.key, "grade": grade_key,
            "grader_version": GRADER}))
    store.put_many("grade", grades)
    store.put_many("result", results)
    return store.put_many("attempt", attempts)


def plan_of(root: Path, name: str) -> EvalPlan:
    """The eval plan of a project `build_project` made earlier (`bench_scale.py --reuse`)."""
    ts = load_task_set(name, root / "tasks")
    return plan_eval(ts, load_locked(ts, str(root / "lock")), load_eval(name, root / "evals"),
                     Store(root / "store", remote=None), root / "agents")
