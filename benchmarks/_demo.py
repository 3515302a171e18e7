"""A copy of the demo set, cut to size and locked again: what the benchmarks that run the demo
use for a shorter run (`--tasks`, `--no-exploits`) and for their `--smoke`.

Not a benchmark (tests/benchmarks runs every other `benchmarks/*.py` script with `--smoke`).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
SET = "demo"
FIXTURES = ("flaky-tag-export", "broken-gold-duration-parse")  # the gold gate's own fixtures
_DOIT = str(REPO / ".venv" / "bin" / "doit")


def demo_copy(dest: Path, *, exploits: bool = True, tasks: int | None = None,
              samples: int | None = None, fixtures: bool = True, gold_reps: int | None = None,
              agents: list[str] | None = None) -> dict[str, str]:
    """The demo set and its eval config copied under `dest`, cut as asked and locked again (on
    the Docker engine: each kept task's image is built, or found, by its pinned recipe); the
    variables that make doit and the benchmarks use the copy. `tasks`: the first N tasks besides
    the fixtures; `fixtures=False` drops those too; `exploits=False`: the set's `exploits: []`;
    `gold_reps`, `samples` and `agents` replace the set's and the eval config's."""
    shutil.copytree(REPO / "tasks", dest / "tasks", symlinks=True)
    folder = dest / "tasks" / SET
    if not exploits or gold_reps is not None:
        spec = yaml.safe_load((folder / "set.yaml").read_text())
        if not exploits:
            spec["exploits"] = []
        if gold_reps is not None:
            spec["gold_reps"] = gold_reps
        (folder / "set.yaml").write_text(yaml.safe_dump(spec, sort_keys=False))
    kept = sorted(p.name for p in folder.iterdir() if p.is_dir() and p.name not in FIXTURES)
    dropped = kept[tasks:] if tasks is not None else []
    for name in [*dropped, *(() if fixtures else FIXTURES)]:
        shutil.rmtree(folder / name)
    shutil.copytree(REPO / "evals", dest / "evals", symlinks=True)
    if samples is not None or agents is not None:
        config = yaml.safe_load((dest / "evals" / f"{SET}.yaml").read_text())
        if samples is not None:
            config["samples"] = samples
        if agents is not None:
            config["agents"], config["baseline"] = agents, agents[0]
        (dest / "evals" / f"{SET}.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    shutil.copytree(REPO / "lock", dest / "lock")
    env = {"EVAL_TASKS": str(dest / "tasks"), "EVAL_LOCK_DIR": str(dest / "lock"),
           "EVAL_EVALS": str(dest / "evals")}
    done = subprocess.run([_DOIT, f"lock:{SET}"], cwd=REPO, env={**os.environ, **env},
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"doit lock:{SET} of the copy failed: {(done.stdout + done.stderr)[-1500:]}")
    return env
