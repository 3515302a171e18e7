"""A setting no command could use is refused where it is declared: `evaluator config` calls it
INVALID, and every command (the `evaluator` ones and doit's) stops at once with one line naming
the variable, never a traceback from deep inside a target (issue 31)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from evaluator.settings import Settings

ROOT = Path(__file__).resolve().parents[2]

# Each of these passed `evaluator config` (or passed it and then crashed doit) before.
BAD = [
    ("EVAL_SANDBOX_BACKEND", "kubernetes"),
    ("EVAL_REMOTE", "https://bucket.example.com/cache"),
    ("EVAL_REMOTE", "s3://No_Such_Bucket"),
    ("EVAL_SIMULATED_CONFIG", "/nonexistent/simulated.yaml"),
    ("DOCKER_HOST", "garbage::"),
    ("DOCKER_HOST", "localhost:2375"),
    ("EVAL_EXECUTOR", "ray:"),
]


def _run(argv: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, env=env, cwd=cwd, text=True, capture_output=True, timeout=120)


def _env(tmp_path: Path, var: str, value: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("EVAL_")}
    env.update({"EVAL_STORE": str(tmp_path / "store"), "EVAL_TASKS": str(tmp_path / "tasks"),
                "PYTHONPATH": str(ROOT), var: value})
    return env


@pytest.mark.parametrize("var,value", BAD)
def test_config_and_every_command_refuse_a_bad_setting_in_one_line(tmp_path: Path, var: str,
                                                                   value: str) -> None:
    env = _env(tmp_path, var, value)
    config = _run([sys.executable, "-m", "evaluator", "config"], env, tmp_path)
    assert config.returncode == 2
    assert any(line.startswith(var) and "INVALID" in line for line in config.stdout.splitlines())
    for argv in ([sys.executable, "-m", "evaluator", "report", "--set", "demo"],
                 [sys.executable, "-m", "evaluator", "remote", "push"],
                 [sys.executable, "-m", "doit", "-f", str(ROOT / "dodo.py"), "list"]):
        out = _run(argv, env, tmp_path)
        assert out.returncode == 2, (argv, out.stdout, out.stderr)
        lines = out.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"error: ${var} is {value!r}"), out.stderr
        assert "Traceback" not in out.stdout + out.stderr
    assert not (tmp_path / "store").exists()  # refused before anything was made


def test_a_simulated_config_that_is_not_yaml_is_refused(tmp_path: Path) -> None:
    bad = tmp_path / "sim.yaml"
    bad.write_text("policies: [\n")
    assert "EVAL_SIMULATED_CONFIG" in Settings({"EVAL_SIMULATED_CONFIG": str(bad)}).problems()[0]
    bad.write_text("- a list\n")
    assert Settings({"EVAL_SIMULATED_CONFIG": str(bad)}).problems()


def test_good_values_pass(tmp_path: Path) -> None:
    config = tmp_path / "sim.yaml"
    config.write_text("{}\n")
    s = Settings({"EVAL_REMOTE": "s3://team-cache/evals/v1", "DOCKER_HOST": "tcp://10.0.0.2:2375",
                  "EVAL_SIMULATED_CONFIG": str(config), "EVAL_EXECUTOR": "ray:10.0.0.1:6379",
                  "EVAL_SANDBOX_BACKEND": "podman"})
    assert s.problems() == []
    assert Settings({"DOCKER_HOST": "ssh://me@build-box"}).problems() == []
    assert Settings({"DOCKER_HOST": "unix:///run/user/1000/docker.sock"}).problems() == []
