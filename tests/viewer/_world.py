"""The reports' synthetic project, with attempts that carry what a real one records: a
trajectory (steps, observations as blobs, model calls), a patch, a graded test run."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from evaluator.hashing import canonical_json
from tests.reports._world import SET, World

HOSTILE = '<script>document.title="pwned"</script><img src=x onerror="document.title=1">'
PATCH = ("diff --git a/calc/ops.py b/calc/ops.py\n--- a/calc/ops.py\n+++ b/calc/ops.py\n"
         "@@ -1,2 +1,2 @@\n def add(a, b):\n-    return a - b\n+    return a + b\n")


MESSAGES = [
    {"role": "system", "content": "You fix bugs."},
    {"role": "user", "content": [{"type": "text", "text": f"calc.add subtracts {HOSTILE}"}]},
    {"role": "assistant", "content": "Let me look.", "tool_calls": [{
        "id": "call_1", "type": "function",
        "function": {"name": "bash", "arguments": '{"command": "ls <b>bold</b>"}'}}]},
    {"role": "tool", "tool_call_id": "call_1", "content": f"calc.py {HOSTILE}"},
]


class ViewerWorld(World):
    def attempt(self, agent: str, task: str, sample: int, status: str, *, steps: int = 3,
                observation: str | Callable[[int], str] = "ok\n",
                messages: list[dict[str, Any]] | None = None,
                violations: list[dict[str, str]] | None = None,
                flags: list[dict[str, Any]] | None = None,
                grade_extra: dict[str, Any] | None = None) -> str:
        """Store a full attempt (and its grade and result unless `status` is ungraded)."""
        pa = self.plan().find(f"{agent}/{task}/{sample}")
        text = PATCH + f"+# {agent} {sample}\n"  # one patch each: grades are shared per patch
        patch = self.store.put_blob(text.encode())
        t0 = 1_700_000_000.0
        traj_steps = [{"n": i, "action": f"echo step {i} {HOSTILE}",
                       "observation": self.store.put_blob(
                           (observation(i) if callable(observation) else f"{observation}{i}")
                           .encode()),
                       "t": t0 + i + 1, "exit_code": 0} for i in range(steps)]
        calls = [{"n": i, "model": "sim", "prompt_tokens": 100 + i, "completion_tokens": 7,
                  "cost_usd": 0.001, "latency_s": 0.25, "finish_reason": "stop"}
                 for i in range(steps)]
        trajectory: dict[str, Any] = {"key": pa.key, "steps": traj_steps, "model_calls": calls}
        conversation = None if messages is None else self.store.put_blob(canonical_json({
            "format": "evaluator-conversation/1", "key": pa.key, "messages": messages,
            "calls": [{"n": 0, "request": [0, 1], "reply": 2, "choices": [2],
                       "finish_reasons": ["tool_calls"], "usage": {"prompt_tokens": 120,
                                                                   "completion_tokens": 30},
                       "cost_usd": 0.0004, "latency_s": 0.012}],
            "thread": list(range(len(messages)))}))
        money = {"model_usd": 0.001 * steps, "sandbox_usd": 0.0, "total_usd": 0.001 * steps,
                 "sandbox_s": 1.0}
        common = {"task_set": SET, "task_id": task, "sample_idx": sample,
                  "lock_version": self.lock.version, "simulated": pa.agent.simulated}
        self.store.put("attempt", pa.key, {
            **common, "subject": agent, "status": "done", "patch": patch,
            "patch_bytes": len(text), "trajectory": self.store.put_blob(canonical_json(trajectory)),
            **({"conversation": conversation} if conversation else {}),
            "actions": [s["action"] for s in traj_steps], "steps": steps,
            "exit_reason": "submitted", "exit_detail": HOSTILE, "seed": 7, "cost": money,
            "usage": {"model_calls": steps, "prompt_tokens": 100 * steps,
                      "completion_tokens": 7 * steps},
            "started": t0, "finished": t0 + steps + 1,
            "provenance": {"git_commit": "c" * 40, "git_dirty": False},
            "agent": {"name": agent, "identity": pa.agent.identity}})
        if status == "ungraded":
            return str(pa.key)
        gkey = pa.grade_key(patch)
        resolved = status == "resolved"
        self.store.put("grade", gkey, {
            **common, "subject": "attempt", "rep": 0, "status": status, "outcome":
            "resolved" if resolved else "unresolved", "resolved": resolved, "patch": patch,
            "tests": {"tests/test_hidden.py::test_add": "passed" if resolved else "failed",
                      "tests/test_visible.py::test_zero": "passed"},
            "exit_code": 0 if resolved else 1, "timed_out": False, "detail": "",
            "duration_s": 1.5, "output": self.store.put_blob(f"test output {HOSTILE}\n".encode()),
            "image": self.lock.pin(task).image, "grader_version": self.grader,
            **(grade_extra or {})})
        self.store.put("result", pa.result_key(patch), {
            **common, "subject": agent, "status": status, "resolved": resolved,
            "attempt": pa.key, "grade": gkey, "grade_outcome": "resolved" if resolved else
            "unresolved", "violations": violations or [],
            "flags": flags or [],
            "exit_reason": "submitted", "cost": money, "agent_identity": pa.agent.identity,
            "grader_version": self.grader})
        return str(pa.key)


def make_world(root: Path) -> ViewerWorld:
    w = ViewerWorld(root, ("t1", "t2"), samples=1)
    w.attempt("base", "t1", 0, "failed", observation=f"saw {HOSTILE} ")
    w.attempt("base", "t2", 0, "resolved", messages=MESSAGES)
    w.attempt("cand", "t1", 0, "resolved", observation="x" * 10_000)
    w.attempt("cand", "t2", 0, "policy",
              violations=[{"reason": "test_file_edit", "detail": f"touched tests/{HOSTILE}"}],
              flags=[{"reason": "calls_os_exit", "path": "calc/x.py", "line": 3,
                      "text": f"os._exit(0)  # {HOSTILE}"}],
              grade_extra={"outcome": "tampered", "dropped": ["calc/conftest.py"],
                           "evidence": [f"canary test_kalo must fail and passed {HOSTILE}"]})
    return w
