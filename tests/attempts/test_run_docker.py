"""Attempts in a real sandbox: the agent sees the repo, never the hidden tests, gold or keys."""

import json
import logging
import shutil
from pathlib import Path

import pytest
import yaml

from evaluator.agents import load_agent
from evaluator.attempts import AttemptRun, run_attempt, thread_messages
from evaluator.lock import TaskPin
from evaluator.model import ScriptedModel
from evaluator.store import Store
from evaluator.taskset import load_task_set
from tests.attempts.support import REPO, bash, call, observations
from tests.helpers import make_set

pytestmark = pytest.mark.docker
SECRET = "sk-test-secret-5f1e9"


@pytest.fixture
def attempt_env(tmp_path: Path, spec, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("EVAL_TEST_KEY", SECRET)
    make_set(tmp_path / "tasks")
    task = load_task_set("mini", tmp_path / "tasks").tasks[0]
    pin = TaskPin(image_ref="x", image=spec.image, base_ref="HEAD", base_commit=spec.base_commit,
                  files={}, hidden_tests="", test_command=spec.test_command)
    return Store(tmp_path / "store"), task, pin


def run(attempt_env, sandboxes, spec, script: list[str]) -> AttemptRun:
    store, task, pin = attempt_env
    agent = load_agent("reference-strong", REPO / "agents")
    return run_attempt(store=store, sandboxes=sandboxes, model=ScriptedModel(script), agent=agent,
                       task=task, pin=pin, limits=spec.limits, key="ab" * 32, seed=1)


def test_hidden_tests_gold_and_key_are_absent(attempt_env, sandboxes, spec, caplog) -> None:
    caplog.set_level(logging.DEBUG)
    rec = run(attempt_env, sandboxes, spec, [
        bash("grep -rl hidden-marker-7f3a / --exclude-dir=proc --exclude-dir=sys 2>/dev/null;"
             " find / -name gold.patch 2>/dev/null; ls tests; git log --all --oneline | wc -l"),
        bash("env; cat /proc/1/environ | tr '\\0' '\\n'"),
        bash("echo EVAL_SUBMIT"),
    ])
    obs = observations(attempt_env[0], rec)
    assert "<output>\ntest_visible.py\n1\n" in obs[0]
    assert SECRET not in "".join(obs) and SECRET not in caplog.text
    assert rec.exit_reason == "submitted" and rec.steps == 3
    assert rec.backend["name"] == "docker" and rec.backend["version"]


def test_patch_is_the_diff_against_base_without_caches(attempt_env, sandboxes, spec) -> None:
    rec = run(attempt_env, sandboxes, spec, [
        bash("sed -i 's/a - b/a + b/' calc/ops.py && python3 -m pytest -q tests >/dev/null"),
        bash("echo EVAL_SUBMIT"),
    ])
    patch = attempt_env[0].get_blob(rec.patch).decode()
    assert "+    return a + b" in patch and "__pycache__" not in patch
    conversation = json.loads(attempt_env[0].get_blob(rec.conversation))
    assert [m["role"] for m in thread_messages(conversation)] == [
        "system", "user", "assistant", "user", "assistant"] and rec.messages == 5
    assert rec.patch_source == "tree"


def test_a_submitted_patch_is_what_is_graded_not_the_tree(attempt_env, sandboxes, spec,
                                                          tmp_path) -> None:
    store, task, pin = attempt_env
    submit = "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && cat /tmp/fix.patch"
    script = [call(f"c{i}", cmd) for i, cmd in enumerate([
        "sed -i 's/a - b/a + b/' calc/ops.py && echo '# mine' >> tests/test_visible.py",
        "git diff -- calc > /tmp/fix.patch", submit])]
    adir = tmp_path / "agents" / "mini-swe-agent"
    shutil.copytree(REPO / "agents" / "mini-swe-agent", adir)
    config = yaml.safe_load((adir / "agent.yaml").read_text())
    config["settings"]["submission"] = "output"
    (adir / "agent.yaml").write_text(yaml.safe_dump(config))
    rec = run_attempt(store=store, sandboxes=sandboxes,
                      model=ScriptedModel(script), agent=load_agent("mini-swe-agent", adir.parent),
                      task=task, pin=pin, limits=spec.limits, key="cd" * 32, seed=1)
    patch = store.get_blob(rec.patch).decode()
    assert rec.patch_source == "submission" and rec.exit_reason == "submitted"
    assert patch.startswith("diff --git a/calc/ops.py") and "+    return a + b" in patch
    assert "tests/test_visible.py" not in patch  # in the tree, but not in what it submitted


def test_step_limit_is_a_named_exit(attempt_env, sandboxes, spec) -> None:
    rec = run(attempt_env, sandboxes, spec, [bash("ls")] * 40)
    assert rec.exit_reason == "step_limit" and rec.steps == 12


def test_format_errors_end_the_attempt(attempt_env, sandboxes, spec) -> None:
    rec = run(attempt_env, sandboxes, spec, ["no command here"] * 5)
    assert rec.exit_reason == "format_errors"
