"""`doit plan` calls an external agent's attempts stale when anything of its closure changes."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.agents.support import CODE, agent_yaml, fake_distribution
from tests.reports._world import World

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> World:
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    monkeypatch.syspath_prepend(str(tmp_path / "code"))
    w = World(tmp_path / "w", tasks=("t1", "t2"), agents=("ext",), baseline=None)
    for rel, text in CODE.items():
        (tmp_path / "code" / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "code" / rel).write_text(text)
    entry = tmp_path / "code" / "extagent" / "entry.py"
    entry.write_text("import scaffold_lib\n" + entry.read_text())
    fake_distribution(tmp_path / "site", "scaffold_lib", "2.4.6", "scaffold_lib")
    fake_distribution(tmp_path / "site", "unrelated_lib", "1.0", "unrelated_lib")
    (w.agents_root / "ext" / "agent.yaml").write_text(yaml.safe_dump(agent_yaml(price="free")))
    w.outcomes("ext", {"t1": "R", "t2": "F"})
    return w


def stale(world: World) -> tuple[int, int]:
    """(would run, planned) as `doit plan` prints them."""
    match = re.search(r"(\d+) of (\d+) attempts would run", plan_output(world))
    assert match
    return int(match.group(1)), int(match.group(2))


def plan_output(world: World) -> str:
    paths = [REPO, world.root.parent / "code", world.root.parent / "site",
             *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(map(str, paths)),
           "EVAL_STORE": str(world.store.root), "EVAL_TASKS": str(world.tasks_root),
           "EVAL_LOCK_DIR": str(world.lock_dir), "EVAL_EVALS": str(world.evals_root),
           "EVAL_AGENTS": str(world.agents_root)}
    out = subprocess.run([sys.executable, "-m", "doit", "-f", str(REPO / "dodo.py"), "plan:mini"],
                         env=env, cwd=world.root, capture_output=True, text=True, timeout=120)
    assert re.search(r"(\d+) of (\d+) attempts would run", out.stdout), out.stdout + out.stderr
    return out.stdout


def test_nothing_is_stale_until_the_closure_changes(world: World) -> None:
    assert stale(world) == (0, 2)
    (world.root.parent / "code" / "extagent" / "unrelated.py").write_text("x = 2\n")
    assert stale(world) == (0, 2)


def test_a_helper_edit_makes_every_attempt_stale(world: World) -> None:
    (world.root.parent / "code" / "extagent" / "helpers.py").write_text("def go(ctx):\n    pass\n")
    out = plan_output(world)
    assert "2 of 2 attempts would run" in out
    assert "why: 2 attempts stale: agent 'ext': its own code" in out, out


def test_a_swapped_distribution_makes_every_attempt_stale(world: World) -> None:
    site = world.root.parent / "site"
    shutil.rmtree(site / "unrelated_lib-1.0.dist-info")  # one the agent does not import
    fake_distribution(site, "unrelated_lib", "1.1", "unrelated_lib")
    assert stale(world) == (0, 2)
    shutil.rmtree(site / "scaffold_lib-2.4.6.dist-info")
    fake_distribution(site, "scaffold_lib", "2.2.0", "scaffold_lib")
    out = plan_output(world)
    assert "2 of 2 attempts would run" in out
    assert ("why: 2 attempts stale: agent 'ext': its distributions: scaffold-lib 2.4.6 -> 2.2.0"
            in out), out


def test_an_untracked_agent_file_makes_every_attempt_stale(world: World) -> None:
    (world.agents_root / "ext" / "extra_prompt.j2").write_text("Be careful.\n")
    assert stale(world) == (2, 2)
