"""Bad task text is the task's error, refused before anything is paid (issue 31): a non-UTF-8 or
absurdly long problem statement is refused by the lock, naming the file (they passed it, then
crashed every attempt and the report with a UnicodeDecodeError naming no file, or cost $45.00 in
one call); one that cannot fit an agent's cost limit is refused by the plan for that agent, and
the other agents run."""

from __future__ import annotations

import pytest
import yaml

from tests.helpers import make_set
from tests.pipeline.support import Project, executed

pytestmark = pytest.mark.docker


@pytest.mark.parametrize("text,why", [
    (b"Fix the parser.\n\xff\xfe caf\xe9 latin-1 paste\n", "is not UTF-8 text (byte 16"),
    (b"A" * 1_200_000, "the problem statement is 1,200,000 bytes, over the 1,000,000"),
])
def test_the_lock_refuses_bad_task_text_naming_the_file(gated: Project, text: bytes,
                                                        why: str) -> None:
    set_dir = make_set(gated.root / "tasks", "odd", ("add-bug", "add-bug-two"), gold_reps=1)
    (set_dir / "add-bug" / "problem.md").write_bytes(text)
    out = gated.doit("lock:odd")
    assert out.returncode != 0
    assert f"task 'add-bug': {set_dir / 'add-bug' / 'problem.md'}: " in out.stdout
    assert why in out.stdout and "add-bug-two" not in out.stdout
    assert "Traceback" not in out.stdout + out.stderr
    assert not (gated.root / "lock" / "odd.lock").exists()


def test_a_statement_too_large_for_one_agents_limit_refuses_that_pair_alone(
        gated: Project) -> None:
    set_dir = make_set(gated.root / "tasks", "big", ("add-bug",), gold_reps=1)
    # 300 KB: bounded at $0.90 at sim-strong's $3/Mtok (sim-b), over its $0.50 limit; $0.15 at
    # sim-weak's $0.50/Mtok (sim-a), which runs.
    statement = "add(2, 3) returns -1, expected 5.\n" + "log line\n" * 33_000
    (set_dir / "add-bug" / "problem.md").write_text(statement)
    (gated.root / "evals" / "big.yaml").write_text(yaml.safe_dump(
        {"task_set": "big", "agents": ["sim-a", "sim-b"], "baseline": "sim-a", "samples": 1,
         "prices": "prices.yaml"}))
    for target in ("lock:big", "gold:big"):
        out = gated.doit(target)
        assert out.returncode == 0, out.stdout + out.stderr
    plan = gated.doit("plan:big")
    assert plan.returncode != 0 and "1 of 1 attempts would run" in plan.stdout
    assert "refused: sim-b/add-bug: its problem statement is 297,034 bytes" in plan.stdout
    out = gated.doit("eval:big")
    assert executed(out.stdout, "attempt:") == ["attempt:big/sim-a/add-bug/0"]
    assert out.returncode != 0 and "1 task input(s) too large" in out.stdout
    assert "Traceback" not in out.stdout + out.stderr
