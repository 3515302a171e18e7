from __future__ import annotations

import pytest

from evaluator.errors import BadInputError
from evaluator.simulated import SUBMIT, TEST_COMMAND, drop_largest_hunk, load_config, reply
from evaluator.simulated import trajectory_kind as kind_of


def test_solve_rate_over_seeds_is_close_to_configured(endpoint, chat, task) -> None:
    for model, rate in (("sim-strong", 0.7), ("sim-weak", 0.35)):
        edits = [chat(endpoint.base_url, model=model, seed=s, steps=2) for s in range(200)]
        solved = sum(task.gold_patch in r.json()["choices"][0]["message"]["content"] for r in edits)
        assert abs(solved / 200 - rate) < 0.08, (model, solved)


def test_solving_trajectory_applies_gold_patch_then_submits(endpoint, chat, task, command_of):
    seed = next(s for s in range(100) if kind_of("sim-strong", s, task.task_id, 0.7) == "solve")
    commands = [
        command_of(
            chat(endpoint.base_url, seed=seed, steps=n).json()["choices"][0]["message"]["content"]
        )
        for n in range(5)
    ]
    assert commands[0] == "ls" and commands[1] == "cat -n calc.py"
    assert task.gold_patch in commands[2] and "git apply" in commands[2]
    assert commands[3] == TEST_COMMAND and commands[4] == SUBMIT


@pytest.mark.parametrize("kind", ["wrong_edit", "explore_submit", "wander"])
def test_failing_trajectories(task, command_of, kind) -> None:
    seed = next(s for s in range(200) if kind_of("sim-weak", s, task.task_id, 0.35) == kind)
    commands = [command_of(reply(task, "sim-weak", seed, 0.35, n)) for n in range(40)]
    assert not any(task.gold_patch in c for c in commands)
    submitted_at = commands.index(SUBMIT) if SUBMIT in commands else None
    assert submitted_at == {"wrong_edit": 4, "explore_submit": 2, "wander": None}[kind]
    if kind == "wrong_edit":
        assert "git apply" in commands[2] and "if a < 0" not in commands[2]


def test_unknown_task_explores_then_submits(endpoint, chat, command_of) -> None:
    replies = [
        chat(endpoint.base_url, steps=n, problem="Some other bug entirely.").json()
        for n in range(2)
    ]
    commands = [command_of(r["choices"][0]["message"]["content"]) for r in replies]
    assert commands == ["ls", SUBMIT]


def test_drop_largest_hunk_keeps_the_rest(task) -> None:
    partial = drop_largest_hunk(task.gold_patch)
    assert partial is not None and "return a + b" in partial and "if a < 0" not in partial
    assert partial.startswith("diff --git a/calc.py b/calc.py\n")
    assert drop_largest_hunk(partial) is None


def test_default_config(tmp_path) -> None:
    config = load_config()
    assert {m: s.solve_rate for m, s in config.models.items()} == {
        "sim-strong": 0.7,
        "sim-weak": 0.35,
    }
    assert config.faults.rate_429 == config.faults.rate_drop == 0.0


def test_config_errors_name_the_file_and_field(tmp_path) -> None:
    path = tmp_path / "sim.yaml"
    path.write_text("models: {m: {solve_rate: 1.5}}\nfaults: {rate_500: 0.1, typo: 1}\n")
    with pytest.raises(BadInputError) as info:
        load_config(path)
    message = str(info.value)
    assert str(path) in message and "models.m.solve_rate" in message and "faults.typo" in message


def test_plan_is_kept_when_the_agent_changes_seed_every_step(endpoint, http, task, command_of):
    for base in range(12):
        messages = [{"role": "user", "content": f"{task.problem}\nWorking directory: /testbed"}]
        for step in range(8):
            body = {"model": "sim-weak", "messages": messages, "seed": base + step}
            answer = http.post(f"{endpoint.base_url}/chat/completions", json=body).json()
            reply_text = answer["choices"][0]["message"]["content"]
            messages += [
                {"role": "assistant", "content": reply_text},
                {"role": "user", "content": "<returncode>0</returncode>"},
            ]
        replies = [m["content"] for m in messages if m["role"] == "assistant"]
        solved = any(task.gold_patch in r for r in replies)
        assert solved == (kind_of("sim-weak", base, task.task_id, 0.35) == "solve")
