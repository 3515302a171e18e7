"""Faults in the environment: settings no command could use, a remote, an engine and a model
endpoint that cannot be reached, a simulated-model config that is not YAML."""

from __future__ import annotations

import shutil
from collections.abc import Callable

from benchmarks._faults._project import Fault, Project, Verdict


def _setting(var: str, value: str) -> Callable[[Project, Verdict], None]:
    """Refused where it is declared: one line naming the variable, before anything runs."""

    def run(p: Project, v: Verdict) -> None:
        for out in (p.doit("plan:mini", **{var: value}), p.ev("report", "--set", "mini",
                                                                **{var: value})):
            v.check(out.rc == 2, f"`{out.cmd}` exit {out.rc}, wanted 2")
            lines = out.text.strip().splitlines()
            v.check(len(lines) == 1 and lines[0].startswith(f"error: ${var} is {value!r}"),
                    f"`{out.cmd}` says {out.text.strip()[:300]!r}")

    return run


def _remote_unreachable(p: Project, v: Verdict) -> None:
    env = {"EVAL_REMOTE": "s3://team-cache/evals", "EVAL_REMOTE_ENDPOINT": "http://127.0.0.1:9",
           "AWS_ACCESS_KEY_ID": "x", "AWS_SECRET_ACCESS_KEY": "y",
           "AWS_DEFAULT_REGION": "us-east-1"}
    plan = p.doit("plan:mini", **env)
    v.rc(plan, True)
    v.plans(plan, 0)
    v.says(plan, "out of reach")
    v.rc(p.doit("eval:mini", **env), True)


def _engine_unreachable(p: Project, v: Verdict) -> None:
    env = {"DOCKER_HOST": "unix:///nonexistent/docker.sock"}
    v.plans(p.doit("plan:mini", **env), 0)
    v.rc(p.doit("eval:mini", **env), True)  # nothing to run: no engine needed
    v.rc(p.doit("report:mini", **env), True)
    p.remove(p.label())
    ev = p.doit("eval:mini", **env)
    v.rc(ev, False)
    v.says(ev, "infra error", "nonexistent/docker.sock")
    v.check(ev.text.count("infra error") <= 2, "more than the missing attempt failed")


def _simulated_config(p: Project, v: Verdict) -> None:
    bad = p.root / "sim.yaml"
    bad.write_text("policies: [\n")
    p.remove(p.label())
    ev = p.doit("eval:mini", EVAL_SIMULATED_CONFIG=str(bad))
    v.rc(ev, False)
    v.says(ev, str(bad))
    v.plans(p.doit("plan:mini"), 1)  # the others stay done


def _endpoint_down(p: Project, v: Verdict) -> None:
    per_agent = p.attempts // len(p.agents())
    adir = p.root / "agents" / "sim-dead"
    shutil.copytree(p.root / "agents" / p.agents()[0], adir)
    p.edit_yaml(adir / "agent.yaml", lambda d: d.update(
        name="sim-dead", model={**d["model"], "endpoint": "http://127.0.0.1:9/v1", "id": "m",
                                "price": "free", "max_retries": 0}))
    p.edit_yaml(p.root / "evals" / "mini.yaml", lambda d: d["agents"].append("sim-dead"))
    ev = p.doit("-n", "2", "-P", "process", "eval:mini", EVAL_ONLY_AGENTS="sim-dead",
                EVAL_SAMPLES="1")
    v.rc(ev, False)
    failed = [line for line in ev.text.splitlines() if line.startswith("sim-dead/")]
    v.check(len(failed) >= 1 and all("127.0.0.1:9" in line for line in failed),
            f"the endpoint is not named on each failed attempt: {failed[:2]}")
    v.plans(p.doit("plan:mini"), per_agent)  # the new agent's alone: the others are done


FAULTS = [
    Fault("setting-sandbox-backend", "EVAL_SANDBOX_BACKEND=kubernetes",
          _setting("EVAL_SANDBOX_BACKEND", "kubernetes"), smoke=True),
    Fault("setting-remote-scheme", "EVAL_REMOTE=https://...",
          _setting("EVAL_REMOTE", "https://bucket.example.com/cache")),
    Fault("setting-simulated-config", "EVAL_SIMULATED_CONFIG names no file",
          _setting("EVAL_SIMULATED_CONFIG", "/nonexistent/sim.yaml")),
    Fault("setting-docker-host", "DOCKER_HOST=garbage::", _setting("DOCKER_HOST", "garbage::")),
    Fault("setting-executor", "EVAL_EXECUTOR=ray:", _setting("EVAL_EXECUTOR", "ray:")),
    Fault("setting-samples", "EVAL_SAMPLES=0", _setting("EVAL_SAMPLES", "0")),
    Fault("setting-sandboxes", "EVAL_SANDBOXES=many", _setting("EVAL_SANDBOXES", "many")),
    Fault("setting-min-free", "EVAL_STORE_MIN_FREE_MB=-1",
          _setting("EVAL_STORE_MIN_FREE_MB", "-1")),
    Fault("remote-unreachable", "EVAL_REMOTE at an endpoint nothing answers",
          _remote_unreachable),
    Fault("engine-unreachable", "DOCKER_HOST at a socket nothing answers", _engine_unreachable),
    Fault("simulated-config-not-yaml", "EVAL_SIMULATED_CONFIG holds broken YAML",
          _simulated_config),
    Fault("model-endpoint-down", "an agent whose endpoint nothing answers", _endpoint_down),
]
