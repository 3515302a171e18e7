"""Faults in the files a user edits: the set, a task, the lock, an agent, the eval config, the
price table, and new sets with bad task text."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import yaml

from benchmarks._faults._project import Fault, Project, Verdict
from tests.helpers import make_set


def _set_refused(edit: Callable[[Project], Path | str], *says: str
                 ) -> Callable[[Project, Verdict], None]:
    """A file of the set or its lock broken: every command of `mini` refuses, naming it (the
    path, or what `edit` says names it) and what to do (`other` is checked for every fault)."""

    def run(p: Project, v: Verdict) -> None:
        named = edit(p)
        for target in ("plan:mini", "eval:mini", "report:mini"):
            out = p.doit(target)
            v.rc(out, False)
            v.says(out, str(named), *says)

    return run


def _set_yaml(p: Project) -> Path:
    path = p.root / "tasks" / "mini" / "set.yaml"
    path.write_text("name: mini\ngold_reps: [1\n")
    return path


def _task_yaml(p: Project) -> Path:
    path = p.root / "tasks" / "mini" / p.first_task() / "task.yaml"
    p.edit_yaml(path, lambda d: d.update(colour="blue"))
    return path


def _problem(p: Project) -> str:
    path = p.root / "tasks" / "mini" / p.first_task() / "problem.md"
    path.write_bytes(b"add(2, 3) returns -1, expected 5. caf\xe9\n")
    return f"task {p.first_task()!r}: problem.md changed since the lock"


def _hidden(p: Project) -> str:
    path = p.root / "tasks" / "mini" / p.first_task() / "hidden" / "tests" / "test_hidden.py"
    path.unlink()
    return f"task {p.first_task()!r}: hidden/tests/test_hidden.py removed since the lock"



def _lock_torn(p: Project) -> str:
    path = p.root / "lock" / "mini.lock"
    path.write_bytes(path.read_bytes()[:200])
    return "mini.lock"


def _lock_gone(p: Project) -> str:
    path = p.root / "lock" / "mini.lock"
    path.unlink()
    return "mini.lock"


def _agent_broken(edit: Callable[[Path], None], *says: str) -> Callable[[Project, Verdict],
                                                                        None]:
    """One agent of four broken: it alone is refused, named; the others' done work stands."""

    def run(p: Project, v: Verdict) -> None:
        name = p.agents()[1]
        adir = p.root / "agents" / name
        edit(adir)
        plan = p.doit("plan:mini")
        v.rc(plan, False)
        v.says(plan, f"refused: agent {name!r}", str(adir), *says)
        v.plans(plan, 0)
        ev = p.doit("eval:mini")
        v.rc(ev, False)
        v.ran(ev, [])
        v.says(ev, f"agent(s) {name} refused")
        v.rc(p.doit("report:mini"), True)

    return run


def _agent_yaml(adir: Path) -> None:
    (adir / "agent.yaml").write_text("name: x\nmodel: {id: [\n")


def _agent_edit(**fields: object) -> Callable[[Path], None]:
    def edit(adir: Path) -> None:
        data = yaml.safe_load((adir / "agent.yaml").read_text())
        for k, val in fields.items():
            if "." in k:
                top, sub = k.split(".")
                data[top][sub] = val
            else:
                data[k] = val
        (adir / "agent.yaml").write_text(yaml.safe_dump(data))

    return edit


def _jinja(adir: Path) -> None:
    (adir / "instance.j2").write_text("Fix {{ problem_statement }\n")


def _prompt_bytes(adir: Path) -> None:
    (adir / "system.j2").write_bytes(b"You are a caf\xe9 agent.\n")


def _eval_config(text: str, *says: str) -> Callable[[Project, Verdict], None]:
    def run(p: Project, v: Verdict) -> None:
        (p.root / "evals" / "mini.yaml").write_text(text)
        plan = p.doit("plan:mini")
        v.rc(plan, False)
        v.says(plan, *says)

    return run


def _unknown_agent(p: Project, v: Verdict) -> None:
    p.edit_yaml(p.root / "evals" / "mini.yaml", lambda d: d["agents"].append("nosuch"))
    plan = p.doit("plan:mini")
    v.rc(plan, False)
    v.says(plan, "refused: agent 'nosuch'", "no agent 'nosuch'")
    v.plans(plan, 0)


def _prices(text: str, *says: str) -> Callable[[Project, Verdict], None]:
    def run(p: Project, v: Verdict) -> None:
        (p.root / "evals" / "prices.yaml").write_text(text)
        plan = p.doit("plan:mini")
        v.rc(plan, False)
        v.says(plan, *says)
        if "not valid" not in says[-1]:
            v.plans(plan, 0)  # the priced agents' work is done and stays done

    return run


def _new_set(problem: bytes, *says: str) -> Callable[[Project, Verdict], None]:
    """A new set whose one task's problem statement is bad: its lock refuses, naming it."""

    def run(p: Project, v: Verdict) -> None:
        set_dir = make_set(p.root / "tasks", "fresh", ("t-bad", "t-good"), gold_reps=1)
        (set_dir / "t-bad" / "problem.md").write_bytes(problem)
        lock = p.doit("lock:fresh")
        v.rc(lock, False)
        v.says(lock, str(set_dir / "t-bad" / "problem.md"), *says)
        v.check("t-good" not in lock.text, "the good task is named too")
        v.plans(p.doit("plan:mini"), 0)
        shutil.rmtree(set_dir)

    return run


FAULTS = [
    Fault("malformed-set-yaml", "set.yaml of mini is not YAML",
          _set_refused(_set_yaml, "not valid YAML")),
    Fault("task-yaml-unknown-field", "a task.yaml with an unknown field",
          _set_refused(_task_yaml, "field 'colour': unknown field")),
    Fault("problem-edited-after-lock", "a problem.md made non-UTF-8 after the lock",
          _set_refused(_problem, "doit lock:mini")),
    Fault("hidden-test-deleted", "a hidden test deleted after the lock",
          _set_refused(_hidden, "doit lock:mini")),
    Fault("lock-torn", "lock/mini.lock cut short", _set_refused(_lock_torn, "doit lock:mini")),
    Fault("lock-gone", "lock/mini.lock deleted", _set_refused(_lock_gone, "doit lock:mini")),
    Fault("agent-malformed-yaml", "one agent's agent.yaml is not YAML",
          _agent_broken(_agent_yaml, "not valid YAML")),
    Fault("agent-unknown-key", "one agent's agent.yaml has an unknown key",
          _agent_broken(_agent_edit(temperture=0.2), "field 'temperture': unknown field")),
    Fault("agent-bad-entry-point", "one agent's entry point is not there",
          _agent_broken(_agent_edit(entry_point="evaluator.agents:nope"), "entry_point")),
    Fault("agent-jinja-error", "one agent's prompt template has a Jinja syntax error",
          _agent_broken(_jinja, "instance.j2:1", "Jinja syntax error")),
    Fault("agent-ftp-endpoint", "one agent's model endpoint is ftp://",
          _agent_broken(_agent_edit(**{"model.endpoint": "ftp://models.example/v1"}),
                        "model.endpoint")),
    Fault("agent-prompt-not-utf8", "one agent's prompt file is Latin-1",
          _agent_broken(_prompt_bytes, "system.j2", "not UTF-8")),
    Fault("eval-config-malformed", "evals/mini.yaml is not YAML",
          _eval_config("task_set: mini\nagents: [\n", "mini.yaml", "not valid YAML")),
    Fault("eval-config-unknown-agent", "evals/mini.yaml names an agent that does not exist",
          _unknown_agent),
    Fault("prices-malformed", "prices.yaml (both sets' price table) is not YAML",
          _prices("sim-strong: {input_per_mtok: [\n", "prices.yaml", "not valid YAML"),
          shared=True),
    Fault("prices-missing-a-model", "prices.yaml lacks one model",
          _prices("sim-weak: {input_per_mtok: 0.5, output_per_mtok: 1.5}\n",
                  "model 'sim-strong' has no price")),
    Fault("new-set-huge-problem", "a new set's problem.md of 1.2 MB",
          _new_set(b"A" * 1_200_000, "over the 1,000,000")),
    Fault("new-set-latin1-problem", "a new set's problem.md in Latin-1",
          _new_set(b"add(2, 3) returns -1, caf\xe9\n", "not UTF-8")),
]
