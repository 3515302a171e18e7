"""One bad agent fails its own part of an eval, named with its file (and line), and the other
agents of the same eval run (issue 31: a malformed `agent.yaml`, an unknown key or a bad entry
point stopped every agent's eval; a Jinja syntax error in a prompt or an ftp:// endpoint passed
the plan and then failed every attempt as an infrastructure error, retried on every run)."""

from __future__ import annotations

import shutil

import pytest
import yaml

from tests.pipeline.support import Project, executed

pytestmark = pytest.mark.docker


def _copy(p: Project, name: str) -> dict[str, object]:
    adir = p.root / "agents" / name
    shutil.copytree(p.root / "agents" / "sim-a", adir)
    spec = yaml.safe_load((adir / "agent.yaml").read_text())
    spec["name"] = name
    return spec


def _write(p: Project, name: str, spec: dict[str, object]) -> None:
    (p.root / "agents" / name / "agent.yaml").write_text(yaml.safe_dump(spec))


def _break_agents(p: Project) -> dict[str, str]:
    """Five broken agents beside the good sim-a; what each one's refusal must say."""
    _copy(p, "bad-yaml")
    (p.root / "agents" / "bad-yaml" / "agent.yaml").write_text("name: bad-yaml\nmodel: [\n")
    spec = _copy(p, "bad-key")
    _write(p, "bad-key", {**spec, "temperture": 0.2})
    spec = _copy(p, "bad-entry")
    _write(p, "bad-entry", {**spec, "entry_point": "evaluator.agents:no_such_agent"})
    spec = _copy(p, "bad-jinja")
    _write(p, "bad-jinja", spec)
    (p.root / "agents" / "bad-jinja" / "instance.j2").write_text(
        "Fix this in {{ workdir }}:\n\n{% if problem_statement %}\n{{ problem_statement }\n")
    spec = _copy(p, "bad-ftp")
    _write(p, "bad-ftp", {**spec, "model": {**spec["model"], "endpoint": "ftp://models.example/v1"}})
    return {
        "bad-yaml": "bad-yaml/agent.yaml: not valid YAML",
        "bad-key": "bad-key/agent.yaml: field 'temperture': unknown field",
        "bad-entry": "bad-entry/agent.yaml: field 'entry_point': cannot load "
                     "'evaluator.agents:no_such_agent'",
        "bad-jinja": "bad-jinja/instance.j2:4: ",
        "bad-ftp": "bad-ftp/agent.yaml: field 'model.endpoint'",
    }


def test_bad_agents_fail_alone_and_the_good_one_runs(gated: Project) -> None:
    expected = _break_agents(gated)
    gated.eval_config(agents=["sim-a", *expected], baseline="sim-a")
    plan = gated.doit("plan:mini")
    assert plan.returncode != 0  # the plan lists what would run, and fails for the others
    assert "2 of 2 attempts would run" in plan.stdout
    for name, why in expected.items():
        assert f"refused: agent {name!r}: " in plan.stdout and why in plan.stdout, (name, plan.stdout)
    out = gated.doit("-n", "2", "-P", "process", "eval:mini")
    assert out.returncode != 0  # the broken agents' part failed
    assert executed(out.stdout, "attempt:") == sorted(["attempt:mini/sim-a/add-bug/0",
                                                       "attempt:mini/sim-a/add-bug-two/0"])
    assert "infra error" not in out.stdout  # nothing was tried and counted as infrastructure
    assert "Traceback" not in out.stdout + out.stderr
    assert f"agent(s) {', '.join(sorted(expected))} refused" in out.stdout
    assert not any((gated.root / "store" / "errors").rglob("*.json"))
    again = gated.doit("eval:mini")
    assert executed(again.stdout, "attempt:") == []  # the good agent's work is done and kept
