"""A small synthetic project for report tests: a task set, a current lock, agents, an eval
config and a store whose records sit under the keys the eval plan derives (no Docker)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from evaluator.attempts import harness_environment, load_eval, plan_eval, recorded_inputs
from evaluator.errors import InfraError
from evaluator.gold import plan_gold
from evaluator.hashing import hash_file
from evaluator.lock import Lock, TaskPin, hidden_tests_hash, task_files
from evaluator.store import Store
from evaluator.taskset import load_task_set
from evaluator.version import harness_version
from tests.helpers import make_set

SET = "mini"
PROMPTS = {"system.j2": "You fix bugs.\n", "instance.j2": "{{ problem_statement }}\n",
           "format_error.j2": "One bash block, please.\n"}


class World:
    def __init__(self, root: Path, tasks: tuple[str, ...] = ("t1", "t2", "t3"), *,
                 samples: int = 1, agents: tuple[str, ...] = ("base", "cand"),
                 baseline: str | None = "base", verdicts: dict[str, str] | None = None) -> None:
        self.root = root
        self.tasks_root, self.lock_dir = root / "tasks", root / "lock"
        self.evals_root, self.agents_root = root / "evals", root / "agents"
        make_set(self.tasks_root, SET, tasks)
        for seed, name in enumerate(agents):
            self.add_agent(name, seed)
        self.evals_root.mkdir()
        (self.evals_root / f"{SET}.yaml").write_text(yaml.safe_dump(
            {"task_set": SET, "agents": list(agents), "baseline": baseline, "samples": samples}))
        self.store = Store(root / "store")
        self._plan: Any = None
        self.lock = self.write_lock()
        self.grader = harness_version("grader")
        self.write_verdicts(verdicts or {})

    @property
    def kwargs(self) -> dict[str, Any]:
        return {"store": self.store.root, "tasks_root": self.tasks_root,
                "lock_dir": self.lock_dir, "evals_root": self.evals_root,
                "agents_root": self.agents_root}

    def add_agent(self, name: str, seed: int = 0, model: str = "sim") -> None:
        self._plan = None
        adir = self.agents_root / name
        adir.mkdir(parents=True, exist_ok=True)
        for file, text in PROMPTS.items():
            (adir / file).write_text(text)
        (adir / "agent.yaml").write_text(yaml.safe_dump({
            "name": name, "entry_point": "evaluator.agents:reference_agent",
            "model": {"endpoint": "simulated", "id": model, "price": "free"}, "sampling": {"seed": seed},
            "prompts": {"system": "system.j2", "instance": "instance.j2",
                        "format_error": "format_error.j2"}}))

    def write_lock(self) -> Lock:
        ts = load_task_set(SET, self.tasks_root)
        pins = {}
        for task in ts.tasks:
            files = task_files(task)
            pins[task.id] = TaskPin(
                image_ref=task.spec.image, image=f"{task.spec.image}@sha256:{'0' * 64}",
                base_ref=task.spec.base_commit, base_commit="a" * 40, files=files,
                hidden_tests=hidden_tests_hash(files, task), test_command=task.spec.test_command)
        lock = Lock(task_set=SET, set_file=hash_file(ts.dir / "set.yaml"), tasks=pins)
        self.lock_dir.mkdir(exist_ok=True)
        (self.lock_dir / f"{SET}.lock").write_bytes(lock.to_json())
        return lock

    def write_verdicts(self, verdicts: dict[str, str]) -> None:
        ts = load_task_set(SET, self.tasks_root)
        for gp in plan_gold(ts, self.lock):
            verdict = verdicts.get(gp.task.id, "valid")
            self.store.put("verdict", gp.verdict_key, {
                "task_set": SET, "task_id": gp.task.id, "verdict": verdict, "status": verdict,
                "why": f"{verdict} in the test world", "fixture": None,
                "lock_version": self.lock.version, "grader_version": self.grader,
                "gold_grades": [], "empty_grades": []})

    def plan(self) -> Any:
        if self._plan is None:
            ts = load_task_set(SET, self.tasks_root)
            self._plan = plan_eval(ts, self.lock, load_eval(SET, self.evals_root), self.store,
                                   self.agents_root)
        return self._plan

    def outcome(self, agent: str, task: str, sample: int, status: str, *, cost: float = 0.01,
                money: dict[str, Any] | None = None, **result: Any) -> None:
        """Store what one planned attempt left: resolved, failed, policy (records), error,
        quarantined (infra errors), ungraded (an attempt only) or pending (nothing)."""
        pa = self.plan().find(f"{agent}/{task}/{sample}")
        if status in ("error", "quarantined"):
            for _ in range(1 if status == "error" else 3):
                self.store.put_error("attempt", pa.key, InfraError("x"))
            return
        if status == "pending":
            return
        patch = self.store.put_blob(f"{agent}/{task}/{sample}".encode())
        money = money or {"model_usd": cost, "sandbox_usd": 0.0, "total_usd": cost,
                          "sandbox_s": 1.0}
        common = {"task_set": SET, "task_id": task, "sample_idx": sample,
                  "lock_version": self.lock.version, "simulated": pa.agent.simulated}
        self.store.put("attempt", pa.key, {
            **common, "subject": agent, "status": "done", "patch": patch, "steps": 3,
            "exit_reason": "submitted", "cost": money, "usage": {},
            "provenance": {"distributions": harness_environment()["distributions"]},
            "agent": {"name": agent, "identity": pa.agent.identity,
                      "parts": pa.agent.identity_parts,
                      "distributions": pa.agent.environment.get("distributions", [])},
            "inputs": recorded_inputs(self.plan(), pa)})
        if status == "ungraded":
            return
        gkey = pa.grade_key(patch)
        self.store.put("grade", gkey, {
            **common, "subject": "attempt", "rep": 0, "status": "x", "outcome": "x",
            "resolved": status == "resolved", "patch": patch,
            "image": self.lock.pin(task).image, "grader_version": self.grader})
        self.store.put("result", pa.result_key(patch), {
            **common, "subject": agent, "status": status, "resolved": status == "resolved",
            "attempt": pa.key, "grade": gkey, "grade_outcome": "x", "violations": [],
            "exit_reason": "submitted",
            "cost": money, "agent_identity": pa.agent.identity, "grader_version": self.grader,
            "result_version": harness_version("result"), **result})

    def outcomes(self, agent: str, table: dict[str, str]) -> None:
        """{task: "RFP.." one letter per sample}: Resolved, Failed, Policy, Error, pending (-),
        Ungraded."""
        names = {"R": "resolved", "F": "failed", "P": "policy", "E": "error", "-": "pending",
                 "U": "ungraded", "Q": "quarantined"}
        for task, letters in table.items():
            for sample, letter in enumerate(letters):
                self.outcome(agent, task, sample, names[letter])


UNKNOWN = {"model_usd": None, "model_price": "unpriced", "sandbox_usd": 0.001,
           "total_usd": 0.001, "sandbox_s": 1.0}
