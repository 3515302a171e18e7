"""`doit eval` end to end: simulated endpoint over HTTP, real sandboxes, incremental rules."""

import json
import os
import signal
import subprocess
import sys
import time

import pytest
import yaml

from evaluator.store import Store
from tests.pipeline.support import Project, executed

pytestmark = pytest.mark.docker


def run_eval(p: Project, *extra: str):
    out = p.doit("-n", "2", "-P", "process", *extra, "eval:mini")
    return out, executed(out.stdout, "attempt:"), executed(out.stdout, "evalgrade:")


def test_eval_runs_everything_once_and_a_rerun_does_nothing(gated: Project) -> None:
    out, attempts, grades = run_eval(gated)
    assert out.returncode == 0, out.stdout + out.stderr
    assert len(attempts) == 4 and len(grades) == 4  # 2 agents x 2 tasks x 1 sample
    assert "sim-b (simulated)" in out.stdout
    again, attempts, grades = run_eval(gated)
    assert again.returncode == 0 and attempts == [] and grades == []


def test_prompt_edit_reruns_that_agent_only(evaluated: Project) -> None:
    prompt = evaluated.root / "agents" / "sim-b" / "system.j2"
    prompt.write_text(prompt.read_text() + "\nBe careful.\n")
    _, attempts, _ = run_eval(evaluated)
    assert len(attempts) == 2 and all(a.startswith("attempt:mini/sim-b/") for a in attempts)


def test_new_samples_run_only_the_new_samples(evaluated: Project) -> None:
    evaluated.eval_config(samples=2)
    _, attempts, _ = run_eval(evaluated)
    assert len(attempts) == 4 and all(a.endswith("/1") for a in attempts)


def test_hidden_test_edit_regrades_without_rerunning_agents(evaluated: Project) -> None:
    hidden = evaluated.tasks / "add-bug" / "hidden" / "tests" / "test_hidden.py"
    hidden.write_text(hidden.read_text() + "\n\ndef test_more():\n    assert add(2, 2) == 4\n")
    evaluated.doit("lock:mini")
    evaluated.doit("gold:mini")
    out, attempts, grades = run_eval(evaluated)
    assert out.returncode == 0, out.stdout + out.stderr
    assert attempts == [] and sorted(g.split("/")[2] for g in grades) == ["add-bug", "add-bug"]


def test_sigkill_mid_eval_loses_no_finished_attempt(gated: Project) -> None:
    store = Store(gated.root / "store")
    proc = gated.popen("-n", "2", "-P", "process", "eval:mini")
    deadline = time.monotonic() + 300
    while not list(store.iter_records("attempt")) and time.monotonic() < deadline:
        time.sleep(0.2)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    finished = {r["key"] for r in store.iter_records("attempt")}
    assert 1 <= len(finished) < 4
    _, attempts, _ = run_eval(gated)
    assert len(attempts) == 4 - len(finished)
    assert finished <= {r["key"] for r in store.iter_records("attempt")}


def test_two_runs_on_one_store_pay_for_each_attempt_once(gated: Project) -> None:
    """A person and CI (or two CI jobs) run `doit eval` on one store at once: each attempt is
    run, and paid, by one of them; the other waits on its lease and finds the record."""
    gated.eval_config(samples=2)
    runs = [gated.popen("-n", "2", "-P", "process", "eval:mini") for _ in range(2)]
    outputs = [p.communicate(timeout=600)[0] for p in runs]
    assert all(p.returncode == 0 for p in runs), "\n".join(outputs)
    store = Store(gated.root / "store")
    stored = sum(r["cost"]["total_usd"] for r in store.iter_records("attempt"))
    assert len(list(store.iter_records("attempt"))) == 8
    spent = sum(json.loads(f.read_text())["spent"] for f in (store.root / "budget").iterdir())
    assert spent == pytest.approx(stored), "\n".join(outputs)


@pytest.mark.parametrize("fault", ["rate_429", "rate_500", "rate_malformed", "rate_drop"])
def test_each_fault_kind_ends_as_infra_error_never_as_failure(gated: Project, fault: str) -> None:
    config = gated.root / "sim.yaml"
    config.write_text(yaml.safe_dump({"faults": {fault: 1.0, "retry_after_s": 0.1}}))
    gated.env["EVAL_SIMULATED_CONFIG"] = str(config)
    gated.eval_config(agents=["sim-a"], baseline="sim-a")
    out, _, _ = run_eval(gated)
    assert out.returncode != 0 and "infra error, retried next run" in out.stdout
    store = Store(gated.root / "store")
    assert list(store.iter_records("attempt")) == [] and list(store.iter_records("result")) == []
    assert "unfinished" in out.stdout + out.stderr


def test_infra_errors_are_quarantined_after_the_retry_budget(gated: Project) -> None:
    config = gated.root / "sim.yaml"
    config.write_text(yaml.safe_dump({"faults": {"rate_500": 1.0}}))
    gated.env["EVAL_SIMULATED_CONFIG"] = str(config)
    gated.eval_config(agents=["sim-a"], baseline="sim-a", retry_budget=2)
    run_eval(gated)
    run_eval(gated)
    third, attempts, _ = run_eval(gated)
    assert attempts == [] and "quarantined" in third.stdout
    assert third.returncode != 0 and "quarantine release --set mini" in third.stdout + third.stderr


def test_quarantined_attempts_are_listed_and_released(gated: Project) -> None:
    config = gated.root / "sim.yaml"
    config.write_text(yaml.safe_dump({"faults": {"rate_500": 1.0}}))
    gated.env["EVAL_SIMULATED_CONFIG"] = str(config)
    gated.eval_config(agents=["sim-a"], baseline="sim-a", retry_budget=1)
    run_eval(gated)
    cli = [sys.executable, "-m", "evaluator", "quarantine"]
    listed = subprocess.run([*cli, "list", "--set", "mini"], env=gated.env, cwd=gated.root,
                            capture_output=True, text=True)
    assert "2 attempt(s) quarantined" in listed.stdout, listed.stdout + listed.stderr
    released = subprocess.run([*cli, "release", "--set", "mini", "--task", "add-bug"],
                              env=gated.env, cwd=gated.root, capture_output=True, text=True)
    assert "1 attempt(s) released" in released.stdout, released.stdout + released.stderr
    config.write_text(yaml.safe_dump({"faults": {}}))
    _, attempts, _ = run_eval(gated)
    assert attempts and all("/add-bug/" in a for a in attempts)
    assert list((Store(gated.root / "store").root / "released" / "attempt").iterdir())


def test_budget_stops_new_attempts(gated: Project) -> None:
    gated.eval_config(budget_usd=0.6)  # each attempt reserves its cost limit, $0.5
    out, attempts, _ = run_eval(gated)
    assert "budget" in out.stdout and len(list(Store(gated.root / "store")
                                                .iter_records("attempt"))) == 1


def test_plan_lists_attempts_and_cost_without_running(gated: Project) -> None:
    out = gated.doit("plan:mini")
    assert out.returncode == 0 and "4 of 4 attempts would run" in out.stdout
    assert list(Store(gated.root / "store").iter_records("attempt")) == []


def test_each_cheat_is_flagged_with_a_named_policy_reason(gated: Project) -> None:
    adir = gated.root / "agents" / "sim-a"
    spec = yaml.safe_load((adir / "agent.yaml").read_text())
    spec["entry_point"] = "tests.pipeline.cheating_agent:run"
    (adir / "agent.yaml").write_text(yaml.safe_dump(spec))
    gated.eval_config(agents=["sim-a"], baseline="sim-a")
    out, _, _ = run_eval(gated)
    results = list(Store(gated.root / "store").iter_records("result"))
    assert len(results) == 2 and {r["status"] for r in results} == {"policy"}
    reasons = {v["reason"] for r in results for v in r["violations"]}
    assert reasons == {"touches_tests", "digs_git_history"}
    assert all(r["grade_outcome"] == "resolved" for r in results)  # it did fix the bug, but cheated


def test_api_key_never_reaches_output_or_store(gated: Project) -> None:
    secret = "sk-eval-e2e-secret-31337"
    adir = gated.root / "agents" / "sim-b"
    spec = yaml.safe_load((adir / "agent.yaml").read_text())
    spec["model"]["api_key_env"] = "EVAL_E2E_KEY"
    (adir / "agent.yaml").write_text(yaml.safe_dump(spec))
    gated.env["EVAL_E2E_KEY"] = secret
    gated.eval_config(agents=["sim-b"], baseline="sim-b")
    out, attempts, _ = run_eval(gated)
    assert out.returncode == 0 and len(attempts) == 2
    assert secret not in out.stdout + out.stderr
    for path in (gated.root / "store").rglob("*"):
        if path.is_file():
            assert secret.encode() not in path.read_bytes(), path
